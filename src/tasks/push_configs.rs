//! The push notification config methods (`tasks/pushNotificationConfig/*`)
//! go through the engine like every other method: it checks that push is
//! on and that the task exists for this caller, then hands the config to
//! the push room ([`TaskObserver`]), as the reference SDKs' request
//! handlers check the task before they reach their push config store.

use super::engine::TaskEngine;
use super::error::EngineError;
use super::observer::{CallContext, PushConfigError, TaskObserver};
use crate::a2a::{PushConfigPlace, TaskPushNotificationConfig};

/// A push room error as the engine answers it.
pub(super) fn push_config_error(error: PushConfigError, place: PushConfigPlace) -> EngineError {
    match error {
        PushConfigError::Refused(reason) => EngineError::PushConfigRefused {
            place,
            reason: reason.to_string(),
        },
        // Named as the caller sent it; the value (a secret) is not repeated.
        error @ PushConfigError::BadHeaderValue { field } => EngineError::InvalidParams(format!(
            "{}: {error}",
            place.field(&field.name(place.is_v1()))
        )),
        PushConfigError::NotFound { task, config } => {
            EngineError::PushConfigNotFound { task, config }
        }
        // The caller's params ask for more than a task may hold: −32602
        // (the request is what cannot be taken; nothing failed inside),
        // naming the config and the bound, and saying what to do instead.
        error @ PushConfigError::TooMany { .. } => {
            EngineError::InvalidParams(format!("{}: {error}", place.path()))
        }
        PushConfigError::Store(error) => EngineError::Store(error),
    }
}

impl TaskEngine {
    /// The push room, when push is on.
    pub(super) fn push_room(&self) -> Result<&dyn TaskObserver, EngineError> {
        self.inner
            .observer
            .as_deref()
            .ok_or(EngineError::PushNotSupported)
    }

    /// The push room for a task this caller may reach: push is on and the
    /// task exists and is the caller's (another caller's task is not found).
    async fn push_room_for(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<&dyn TaskObserver, EngineError> {
        let push = self.push_room()?;
        self.owned_task(task_id, call).await?;
        Ok(push)
    }

    /// `tasks/pushNotificationConfig/set`.
    pub async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, EngineError> {
        let push = self.push_room_for(&params.task_id, call).await?;
        push.set_config(&params.task_id, params.push_notification_config, call)
            .await
            .map_err(|error| {
                push_config_error(error, PushConfigPlace::set(call.rules.v1_field_names))
            })
    }

    /// `tasks/pushNotificationConfig/get`.
    pub async fn get_push_config(
        &self,
        task_id: &str,
        config_id: Option<&str>,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, EngineError> {
        let push = self.push_room_for(task_id, call).await?;
        push.config(task_id, config_id)
            .await
            .map_err(|error| push_config_error(error, PushConfigPlace::SetParams))
    }

    /// `tasks/pushNotificationConfig/list`.
    pub async fn list_push_configs(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<Vec<TaskPushNotificationConfig>, EngineError> {
        let push = self.push_room_for(task_id, call).await?;
        push.configs(task_id)
            .await
            .map_err(|error| push_config_error(error, PushConfigPlace::SetParams))
    }

    /// `tasks/pushNotificationConfig/delete`.
    pub async fn delete_push_config(
        &self,
        task_id: &str,
        config_id: &str,
        call: &CallContext,
    ) -> Result<(), EngineError> {
        let push = self.push_room_for(task_id, call).await?;
        push.delete_config(task_id, config_id)
            .await
            .map_err(|error| push_config_error(error, PushConfigPlace::SetParams))
    }
}
