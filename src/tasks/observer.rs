//! Who else hears about task changes (push delivery), without the engine
//! knowing how they deliver.

use crate::a2a::{PushNotificationConfig, Task};
use crate::agent::Caller;
use crate::auth::BearerToken;

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
}

pub trait TaskObserver: Send + Sync {
    /// Check an inline push config before anything is created: the config
    /// to keep (its URL as judged), or why it is refused.
    fn check(&self, config: &PushNotificationConfig) -> Result<PushNotificationConfig, String>;

    /// The task's status changed (stored); `configs` are its push configs
    /// as stored, `call` the request that caused the change. Must not block.
    fn changed(&self, task: &Task, configs: &[PushNotificationConfig], call: &CallContext);
}
