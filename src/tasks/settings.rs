//! The engine's settings (`tasks.*`, `AGENT__TASKS__…`): task ids, the
//! budget of a blocking `message/send`, the in-memory store's bounds; and
//! what they mean at run time.

use super::memory::MemoryStoreLimits;
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskSettings {
    /// Strict A2A task ids instead of the Joule-compatible default.
    pub strict_task_ids: bool,
    /// Seconds a finished task stays readable (in-memory store).
    pub retention_secs: u64,
    /// Finished tasks kept at most (in-memory store).
    pub max_finished: usize,
    /// Open tasks kept at most; past it the oldest is dropped (in-memory store).
    pub max_open: usize,
    /// Milliseconds a blocking `message/send` waits before it answers the
    /// task as `working` and the turn goes on (Joule waits about 60 s).
    pub budget_ms: u64,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            strict_task_ids: false,
            retention_secs: 3600,
            max_finished: 2_000,
            max_open: 10_000,
            budget_ms: 55_000,
        }
    }
}

impl TaskSettings {
    /// How long a blocking `message/send` waits before it answers `working`.
    pub fn budget(&self) -> Duration {
        Duration::from_millis(self.budget_ms)
    }

    /// The bounds of the in-memory task store.
    pub fn memory_limits(&self) -> MemoryStoreLimits {
        MemoryStoreLimits {
            retention: Duration::from_secs(self.retention_secs),
            max_terminal: self.max_finished,
            max_open: self.max_open,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_joules_budget_and_the_memory_bounds() {
        let settings = TaskSettings::default();
        assert_eq!(settings.budget(), Duration::from_secs(55));
        let limits = settings.memory_limits();
        assert_eq!(limits.retention, Duration::from_secs(3600));
        assert_eq!(limits.max_terminal, 2_000);
        assert_eq!(limits.max_open, 10_000);
    }
}
