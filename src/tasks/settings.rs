//! The engine's settings (`tasks.*`, `AGENT__TASKS__…`): task ids, the
//! budget of a blocking `message/send`, what one caller may make the
//! instance hold, the in-memory store's bounds; and what they
//! mean at run time.

use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct TaskSettings {
    /// Strict A2A task ids instead of the Joule-compatible default.
    pub strict_task_ids: bool,
    /// Seconds a finished task stays readable (in-memory store).
    pub retention_secs: u64,
    /// Finished tasks kept at most (in-memory store), all callers together
    /// (past it, the oldest of the caller holding the most goes); with
    /// authentication off, also the one local caller's (every store).
    pub max_finished: usize,
    /// Finished tasks one caller (a user, or a technical client) keeps at
    /// most (every store); past it the caller's own oldest goes.
    pub max_finished_per_caller: usize,
    /// Open tasks kept at most (in-memory store); past it a new task is
    /// refused, no open task is dropped.
    pub max_open: usize,
    /// Milliseconds a blocking `message/send` waits before it answers the
    /// task as `working` and the turn goes on (Joule waits about 60 s).
    pub budget_ms: u64,
    /// Bytes one message may have as JSON (its parts, ids and metadata):
    /// a request needs a sentence and order numbers.
    pub max_message_bytes: usize,
    /// Messages one task's history may hold (the user's and the agent's).
    pub max_task_messages: usize,
    /// Bytes one task may hold as JSON before a follow-up is taken.
    pub max_task_bytes: usize,
    /// Open (not yet finished) tasks one caller (a user, or a technical
    /// client) may have at once.
    pub max_open_per_caller: u64,
    /// Open tasks the instance may have with authentication off (one
    /// local caller: tests, fuzzing, benchmarks).
    pub max_open_without_authentication: u64,
    /// Seconds a task waits in `input-required` before it ends `canceled`
    /// (and goes with the retention like any finished task).
    pub waiting_expiry_secs: u64,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            strict_task_ids: false,
            retention_secs: 3600,
            max_finished: 2_000,
            max_finished_per_caller: 200,
            max_open: 10_000,
            budget_ms: 55_000,
            max_message_bytes: 16 * 1024,
            max_task_messages: 100,
            max_task_bytes: 1024 * 1024,
            max_open_per_caller: 100,
            max_open_without_authentication: 10_000,
            waiting_expiry_secs: 24 * 3600,
        }
    }
}

impl TaskSettings {
    /// How long a blocking `message/send` waits before it answers `working`.
    pub fn budget(&self) -> Duration {
        Duration::from_millis(self.budget_ms)
    }

    /// How long a task waits in `input-required` before it is canceled.
    pub fn waiting_expiry(&self) -> Duration {
        Duration::from_secs(self.waiting_expiry_secs)
    }

    /// Open tasks a caller may have: `owner` is the caller's key, `None`
    /// with authentication off (then the bound is the instance's).
    pub fn max_open_of(&self, owner: Option<&str>) -> u64 {
        match owner {
            Some(_) => self.max_open_per_caller,
            None => self.max_open_without_authentication,
        }
    }

    /// How many finished tasks each caller keeps (what the SQL stores
    /// trim to; the memory store keeps them by its own limits).
    pub fn finished_caps(&self) -> FinishedCaps {
        FinishedCaps {
            per_caller: self.max_finished_per_caller,
            without_owner: self.max_finished,
        }
    }

    /// The bounds of the in-memory task store these settings give.
    pub fn memory_limits(&self) -> MemoryStoreLimits {
        MemoryStoreLimits {
            retention: Duration::from_secs(self.retention_secs),
            max_terminal: self.max_finished,
            max_terminal_per_owner: self.max_finished_per_caller,
            max_open: self.max_open,
        }
    }
}

/// How many finished tasks one caller keeps, as
/// [`TaskSettings::finished_caps`] gives them: past its cap, a caller's
/// own oldest finished tasks go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinishedCaps {
    /// A user's or a technical client's cap.
    pub per_caller: usize,
    /// The cap of the tasks without an owner (authentication off: one
    /// local caller, whose cap is the instance's).
    pub without_owner: usize,
}

/// The in-memory task store's bounds, as [`TaskSettings::memory_limits`]
/// gives them: the settings are where their values (and defaults) live.
#[derive(Debug, Clone, Copy)]
pub struct MemoryStoreLimits {
    /// How long a finished task can still be read.
    pub retention: Duration,
    /// At most this many finished tasks are kept, all owners together (the
    /// largest holder's oldest go first); also the cap without an owner.
    pub max_terminal: usize,
    /// At most this many finished tasks of one owner are kept (its oldest
    /// go first).
    pub max_terminal_per_owner: usize,
    /// Hard cap on open tasks; past it a new open task is refused.
    pub max_open: usize,
}

impl Default for MemoryStoreLimits {
    /// The bounds of the default settings.
    fn default() -> Self {
        TaskSettings::default().memory_limits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_joules_budget_and_the_finished_and_memory_bounds() {
        let settings = TaskSettings::default();
        assert_eq!(settings.budget(), Duration::from_secs(55));
        let limits = settings.memory_limits();
        assert_eq!(limits.retention, Duration::from_secs(3600));
        assert_eq!(limits.max_terminal, 2_000);
        assert_eq!(limits.max_terminal_per_owner, 200);
        assert_eq!(limits.max_open, 10_000);
        let caps = settings.finished_caps();
        assert_eq!((caps.per_caller, caps.without_owner), (200, 2_000));
    }
}
