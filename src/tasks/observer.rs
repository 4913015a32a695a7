//! The push room as the engine reaches it, without the engine knowing how
//! it delivers: it judges and keeps push notification configs, and hears
//! about every stored task change. `push/` implements [`TaskObserver`];
//! the engine checks the task first (it exists, the caller may see it),
//! as the reference SDKs' request handlers do before they reach their push
//! config store.

use super::listing::OwnerScope;
use super::store::StoreError;
use crate::a2a::{PushNotificationConfig, Task, TaskPushNotificationConfig};
use crate::agent::Caller;
use crate::auth::BearerToken;
use async_trait::async_trait;

/// What the inbound call carried that a later callback needs (Joule echoes
/// the correlation headers and exchanges the user token). Never logged;
/// its `Debug` shows no token.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub conversation_id: Option<String>,
    pub correlation_id: Option<String>,
    /// The caller's token as the HTTP edge parsed it.
    pub bearer_token: Option<BearerToken>,
    /// Who called, for the rule book.
    pub caller: Caller,
    /// Which task rules the request handler chose for this call.
    pub rules: CallRules,
    /// Whose tasks this call may see and touch (the HTTP edge sets it from
    /// the token; the default, everyone's, is for the service's own work).
    pub scope: OwnerScope,
    /// The caller's `Accept-Language` header: the language the user is
    /// answered in when the message does not say
    /// (docs/routing.md#languages).
    pub accept_language: Option<String>,
}

impl CallContext {
    /// Who a task this call creates belongs to.
    pub fn owner(&self) -> Option<&str> {
        self.scope.owner()
    }
}

/// Task rules a request handler can make stricter for a call than the
/// settings' defaults (the request handler knows why; the engine does not
/// need to). The defaults are the Joule-friendly ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallRules {
    /// A message naming an unknown task, a finished one, or a task of
    /// another context is refused instead of starting a new task.
    pub strict_task_ids: bool,
    /// A blocking send waits until the task ends or pauses, however long:
    /// when the budget runs out the task is stored (so it can be read and
    /// listed) and the wait goes on.
    pub wait_past_budget: bool,
    /// Errors name fields as A2A 1.0 spells them (a 1.0 push config is
    /// flat in its params, and inline under `taskPushNotificationConfig`).
    pub v1_field_names: bool,
}

/// Why the push room did not do what a push config method asked.
#[derive(Debug, thiserror::Error)]
pub enum PushConfigError {
    /// The webhook URL is refused; the push room's reason, in words for
    /// the caller (the engine puts the field in front of it).
    #[error(transparent)]
    Refused(Box<dyn std::error::Error + Send + Sync>),
    /// A value the config would send as a header (its token, an
    /// authentication scheme, the credentials) holds a control character
    /// (CR, LF, …) that no header can carry.
    #[error("contains a control character (such as CR or LF), which an HTTP header cannot carry")]
    BadHeaderValue { field: HeaderField },
    #[error("push notification config {config} not found for task {task}")]
    NotFound { task: String, config: String },
    /// A config with a new id for a task that has as many as it may
    /// (`push.max_configs_per_task`); nothing was stored.
    #[error(
        "task {task} already has {most} push notification configs, the most one task may have (push.max_configs_per_task): delete one first, or set the id of an existing config to replace it"
    )]
    TooMany { task: String, most: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A field of a push config whose value becomes a header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderField {
    /// `token` (`X-A2A-Notification-Token`).
    Token,
    /// `authentication.schemes[i]` (0.3); `authentication.scheme` in 1.0,
    /// which has one.
    Scheme(usize),
    /// `authentication.credentials`.
    Credentials,
}

impl HeaderField {
    /// The field below the config, as the caller's version spells it.
    pub fn name(self, v1: bool) -> String {
        match self {
            HeaderField::Token => "token".into(),
            HeaderField::Scheme(_) if v1 => "authentication.scheme".into(),
            HeaderField::Scheme(index) => format!("authentication.schemes[{index}]"),
            HeaderField::Credentials => "authentication.credentials".into(),
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

    /// `tasks/pushNotificationConfig/set` for a task the caller may see.
    async fn set_config(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
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
}
