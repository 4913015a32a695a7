//! The [`TaskObserver`]: `push/` as the engine reaches it, without the
//! engine knowing how it delivers. It judges and keeps push notification
//! configs, and hears about every stored task change; the engine checks the
//! task first (it exists, the caller may see it), as the reference SDKs'
//! request handlers do before they reach their push config store.

use super::call::CallContext;
use super::store::{StoreError, Written};
use crate::a2a::{PushNotificationConfig, Task, TaskPushNotificationConfig};
use async_trait::async_trait;

/// Why the observer did not do what a push config method asked.
#[derive(Debug, thiserror::Error)]
pub enum PushConfigError {
    /// The webhook URL is refused; the observer's reason, in words for
    /// the caller (the engine puts the field in front of it).
    #[error(transparent)]
    Refused(Box<dyn std::error::Error + Send + Sync>),
    /// A value the config would send as a header (its token, an
    /// authentication scheme, the credentials) holds a control character
    /// (CR, LF, …) that no header can carry.
    #[error("contains a control character (such as CR or LF), which an HTTP header cannot carry")]
    BadHeaderValue { field: ConfigField },
    /// A value of the config is longer than one may be; nothing was stored.
    #[error("is {len} bytes, more than the {most} bytes it may have")]
    TooLong {
        field: ConfigField,
        len: usize,
        most: usize,
    },
    /// More authentication schemes than a config may name.
    #[error("names {count} schemes, more than the {most} a config may name")]
    TooManySchemes { count: usize, most: usize },
    #[error("push notification config {config} not found for task {task}")]
    NotFound { task: String, config: String },
    /// A config with a new id for a task that has as many as it may
    /// (`push.max_configs_per_task`); nothing was stored.
    #[error(
        "task {task} already has {most} push notification configs, the most one task may have (push.max_configs_per_task): delete one first, or set the id of an existing config to replace it"
    )]
    TooMany { task: String, most: usize },
    /// The task's push configs, this one included, would take more bytes
    /// than `tasks.max_task_bytes` leaves beside the task (`room`).
    #[error(
        "task {task}'s push notification configs would hold more than the {room} bytes that the bytes one task may have (tasks.max_task_bytes) leave beside the task: delete a config first, or set a smaller one"
    )]
    TaskFull { task: String, room: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A field of a push config the caller is told about: one whose value
/// becomes a header value, or one that is too long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigField {
    /// `url`.
    Url,
    /// `id`.
    Id,
    /// `token` (`X-A2A-Notification-Token`).
    Token,
    /// `authentication.schemes[i]` (0.3); `authentication.scheme` in 1.0,
    /// which has one.
    Scheme(usize),
    /// `authentication.credentials`.
    Credentials,
}

impl ConfigField {
    /// The field below the config, as the caller's version spells it.
    pub fn name(self, v1: bool) -> String {
        match self {
            ConfigField::Url => "url".into(),
            ConfigField::Id => "id".into(),
            ConfigField::Token => "token".into(),
            ConfigField::Scheme(_) if v1 => "authentication.scheme".into(),
            ConfigField::Scheme(index) => format!("authentication.schemes[{index}]"),
            ConfigField::Credentials => "authentication.credentials".into(),
        }
    }
}

#[async_trait]
pub trait TaskObserver: Send + Sync {
    /// Check an inline push config before anything is created: the config
    /// to keep (its URL as judged), or why it is refused.
    fn check(
        &self,
        config: &PushNotificationConfig,
    ) -> Result<PushNotificationConfig, PushConfigError>;

    /// The task's status changed (stored); `configs` are its push configs
    /// as stored, `call` the request that caused the change. Must not block.
    fn changed(&self, task: &Task, configs: &[PushNotificationConfig], call: &CallContext);

    /// `tasks/pushNotificationConfig/set` for a task the caller may see,
    /// that is not finished; `room`: the bytes its configs may hold
    /// together (what `tasks.max_task_bytes` leaves beside the task).
    async fn set_config(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
        room: usize,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, PushConfigError>;

    /// `tasks/pushNotificationConfig/get`: the config with that id, or the
    /// first one without an id.
    async fn config(
        &self,
        task_id: &str,
        config_id: Option<&str>,
    ) -> Result<TaskPushNotificationConfig, PushConfigError>;

    /// `tasks/pushNotificationConfig/list`.
    async fn configs(
        &self,
        task_id: &str,
    ) -> Result<Vec<TaskPushNotificationConfig>, PushConfigError>;

    /// `tasks/pushNotificationConfig/delete`.
    async fn delete_config(&self, task_id: &str, config_id: &str) -> Result<(), PushConfigError>;

    /// At shutdown: wait until every change heard so far is delivered (or
    /// given up), at most until `deadline`; how many were still waiting.
    async fn flush(&self, _deadline: tokio::time::Instant) -> usize {
        0
    }
}

/// Tell `observer`, when push is on, of a stored change: `written` holds
/// the task's push configs as stored.
pub(super) fn tell(
    observer: Option<&dyn TaskObserver>,
    task: &Task,
    written: &Written,
    call: &CallContext,
) {
    if let Some(observer) = observer {
        observer.changed(task, &written.push_configs, call);
    }
}
