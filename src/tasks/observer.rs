//! Who else hears about task changes (push delivery), without the engine
//! knowing how they deliver.

use crate::a2a::{PushNotificationConfig, Task};

/// What the inbound call carried that a later callback needs (Joule echoes
/// the correlation headers and exchanges the user token). Never logged.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub conversation_id: Option<String>,
    pub correlation_id: Option<String>,
    pub bearer_token: Option<String>,
}

pub trait TaskObserver: Send + Sync {
    /// Check an inline push config before anything is created; the error
    /// says why it is refused.
    fn check(&self, config: &PushNotificationConfig) -> Result<(), String>;

    /// An inline push config of `message/send`, for the task it started or
    /// continued (called before the turn runs, so nothing is missed).
    fn register(&self, task: &Task, config: PushNotificationConfig, call: &CallContext);

    /// The task's status changed (stored). Must not block.
    fn changed(&self, task: &Task);
}
