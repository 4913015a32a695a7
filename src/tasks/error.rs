//! What the engine answers when a method cannot be carried out. `rpc/`
//! words each for the caller in its wire version; a store fault reaches
//! the caller as a generic message, what the database said goes to the
//! log only.

use super::store::StoreError;
use crate::a2a::PushConfigPlace;

/// The caller's words for a store that did not answer.
pub const STORE_UNAVAILABLE: &str = "task store unavailable: please try again shortly";
/// The caller's words for a stored value that does not decode.
pub const STORE_CORRUPT: &str = "task store error: a stored task could not be read";

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0}")]
    InvalidParams(String),
    /// The push room refused a webhook URL: −32602 naming the `url` field
    /// where the request carried the config (each wire version names it
    /// its own way).
    #[error("{}", place.refused_url(reason))]
    PushConfigRefused {
        place: PushConfigPlace,
        reason: String,
    },
    #[error("{0}")]
    ContentTypeNotSupported(String),
    #[error("task {0} not found")]
    TaskNotFound(String),
    #[error("task {id} cannot be canceled: it is already {state}")]
    NotCancelable { id: String, state: &'static str },
    #[error("{0}")]
    Unsupported(String),
    #[error("push notifications are not supported")]
    PushNotSupported,
    #[error("push notification config {config} not found for task {task}")]
    PushConfigNotFound { task: String, config: String },
    /// The caller's own task is stored but does not read back.
    #[error("task {0} is stored but does not read back")]
    Unreadable(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}
