//! The end of an instance (SIGTERM; Cloud Foundry kills the process 10 s
//! later). A turn that outlived its request (a non-blocking send's, a
//! stream's, one past its budget) is a tokio task that would die with the
//! runtime, its task left `working` until another start's lease expiry
//! found it. Instead the turns running here get the grace the server gives
//! its requests (`server.shutdown_timeout_secs`, from SIGTERM) to store and
//! push their results; a turn still running after it is stopped, and its
//! task ends `failed` with a reason that says to ask again, pushed to its
//! webhooks like any change. Only this instance's turns are touched (the
//! registry of the turns running here), never another live instance's. A
//! turn this cannot reach (the process killed, the store down) is still
//! ended by its lease running out ([`super::maintenance`]).

use super::maintenance::Upkeep;
use crate::a2a::TaskState;
use std::time::Duration;
use tokio::time::Instant;

/// What a task cut short by the shutdown says (English whatever the
/// task's language: the engine has no catalog of its own).
pub(super) const STOPPED: &str = "The service was stopped before it finished this request (it is \
                                  being restarted or moved). Please send the request again.";

/// How often the turns still running are looked at during the grace.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// How long the notifications queued by then may take to go out, after
/// the grace: within Cloud Foundry's 10 s with the default 5 s grace and
/// the 2 s telemetry flush.
const PUSH_FLUSH: Duration = Duration::from_secs(2);

impl Upkeep {
    /// Wait for the turns running here until `deadline`; end the tasks of
    /// those still running then `failed` ([`STOPPED`]); then let the push
    /// notifications queued go out, [`PUSH_FLUSH`] at most.
    pub(super) async fn wind_down(&self, deadline: Instant) {
        while !self.running.task_ids().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(LOOK_EVERY).await;
        }
        let cut_short = self.running.task_ids();
        let mut ended = 0;
        for task_id in &cut_short {
            // Stopped first, so it cannot store a result over the failure.
            self.running.stop(task_id);
            match self.end_cut_short(task_id).await {
                Ok(true) => ended += 1,
                Ok(false) => {}
                Err(error) => {
                    tracing::warn!(a2a.task.id = %task_id, %error, "a turn cut short by the shutdown could not be ended: its lease will");
                }
            }
        }
        if !cut_short.is_empty() {
            tracing::warn!(
                running = cut_short.len(),
                ended,
                "turns still running at the end of the shutdown grace: their tasks failed, to be asked again"
            );
        }
        if let Some(observer) = &self.observer {
            let left = observer.flush(Instant::now() + PUSH_FLUSH).await;
            if left > 0 {
                tracing::warn!(
                    left,
                    "push notifications not delivered by the end of the shutdown: lost"
                );
            }
        }
    }

    /// End the stored task of a turn cut short `failed`; `false` when it is
    /// not stored (a blocking send's, not stored until finished) or no
    /// longer under way.
    async fn end_cut_short(&self, task_id: &str) -> Result<bool, super::store::StoreError> {
        let Some(stored) = self.store.get(task_id).await? else {
            return Ok(false);
        };
        if !matches!(
            stored.task.status.state,
            TaskState::Submitted | TaskState::Working
        ) {
            return Ok(false);
        }
        self.end_task(stored, TaskState::Failed, STOPPED).await
    }
}
