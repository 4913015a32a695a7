//! The engine's settings.

use std::time::Duration;

#[derive(Debug, Clone, Copy)]
pub struct EngineSettings {
    /// Strict A2A ids: a finished task id gets -32004 and an unknown one
    /// -32001, instead of a new task in the same context (Joule-compatible).
    pub strict_task_ids: bool,
    /// How long a blocking `message/send` waits before answering `working`.
    pub budget: Duration,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            strict_task_ids: false,
            budget: Duration::from_secs(55),
        }
    }
}
