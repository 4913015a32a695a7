//! The push notification config methods (`tasks/pushNotificationConfig/*`)
//! go through the engine like every other method: it checks that push is
//! on and that the task exists for this caller, then hands the config to
//! the [`super::TaskObserver`], as the reference SDKs' request handlers
//! check the task before they reach their push config store. What the
//! observer refuses becomes the engine's error here.

use super::error::EngineError;
use super::observer::PushConfigError;
use crate::a2a::PushConfigPlace;

/// An observer's refusal as the engine answers it, naming the field at
/// `place`.
pub(super) fn push_config_error(error: PushConfigError, place: PushConfigPlace) -> EngineError {
    match error {
        PushConfigError::Refused(reason) => EngineError::PushConfigRefused {
            place,
            reason: reason.to_string(),
        },
        // Named as the caller sent it; the value (a secret) is not repeated.
        error @ (PushConfigError::BadHeaderValue { field }
        | PushConfigError::TooLong { field, .. }) => EngineError::InvalidParams(format!(
            "{}: {error}",
            place.field(&field.name(place.is_v1()))
        )),
        error @ PushConfigError::TooManySchemes { .. } => EngineError::InvalidParams(format!(
            "{}: {error}",
            place.field("authentication.schemes")
        )),
        PushConfigError::NotFound { task, config } => {
            EngineError::PushConfigNotFound { task, config }
        }
        // The caller's params ask for more than a task may hold: −32602
        // (the request is what cannot be taken; nothing failed inside),
        // naming the config and the bound, and saying what to do instead.
        error @ (PushConfigError::TooMany { .. } | PushConfigError::TaskFull { .. }) => {
            EngineError::InvalidParams(format!("{}: {error}", place.path()))
        }
        PushConfigError::Store(error) => EngineError::Store(error),
    }
}
