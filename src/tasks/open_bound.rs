//! The bound of open tasks one caller may hold (`tasks.max_open_per_caller`;
//! with authentication off the instance's,
//! `tasks.max_open_without_authentication`), counted where a task is first
//! stored open. A task stored finished holds nothing open, so it is not
//! counted: a blocking `message/send` stores its task once, when the turn
//! ends, and only then is it known whether the task stays open. Counting
//! before every turn would cost the SQL stores a read per request, more
//! than the request's own write.

use super::store::{StoreError, TaskStore};
use crate::a2a::Task;
use std::time::Duration;

/// The caller's bound, and the waiting expiry the refusal names.
#[derive(Debug, Clone, Copy)]
pub(super) struct OpenBound {
    bound: u64,
    /// The bound is the caller's own (authentication on), not the instance's.
    per_caller: bool,
    waiting_expiry: Duration,
}

/// The caller holds as many open tasks as it may: the -32602 words
/// (`EngineError::InvalidParams`; a blocking send whose task would stay
/// open hears it through `TaskEvent::Refused`).
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "{whose} {open} open tasks (running or waiting for an answer), as many as may be open at \
     once ({setting}): answer or cancel (tasks/cancel) a waiting task first; a waiting task \
     ends by itself after {expiry}"
)]
pub struct OpenTasksFull {
    whose: &'static str,
    open: u64,
    setting: &'static str,
    expiry: String,
}

impl OpenBound {
    /// The bound of the caller whose tasks are `owner`'s (`None`:
    /// authentication off).
    pub(super) fn of(settings: &super::settings::TaskSettings, owner: Option<&str>) -> Self {
        OpenBound {
            bound: settings.max_open_of(owner),
            per_caller: owner.is_some(),
            waiting_expiry: settings.waiting_expiry(),
        }
    }

    /// Whether `task`, about to be stored for the first time, may be:
    /// a finished task always, an open one while `owner` holds fewer open
    /// tasks than the bound (counted in the store, no further than the
    /// bound).
    pub(super) async fn admits(
        &self,
        store: &dyn TaskStore,
        task: &Task,
        owner: Option<&str>,
    ) -> Result<Result<(), OpenTasksFull>, StoreError> {
        if task.status.state.is_terminal() {
            return Ok(Ok(()));
        }
        self.room_for_one_more(store, owner).await
    }

    /// Whether `owner` holds fewer open tasks than the bound: one more
    /// may be stored open.
    pub(super) async fn room_for_one_more(
        &self,
        store: &dyn TaskStore,
        owner: Option<&str>,
    ) -> Result<Result<(), OpenTasksFull>, StoreError> {
        let open = store.open_tasks_of(owner, self.bound).await?;
        if open < self.bound {
            return Ok(Ok(()));
        }
        tracing::warn!(
            open,
            bound = self.bound,
            "a caller reached its bound of open tasks"
        );
        let (whose, setting) = if self.per_caller {
            ("you have", "tasks.max_open_per_caller")
        } else {
            ("this instance has", "tasks.max_open_without_authentication")
        };
        Ok(Err(OpenTasksFull {
            whose,
            open,
            setting,
            expiry: crate::clock::duration_in_words(self.waiting_expiry),
        }))
    }
}
