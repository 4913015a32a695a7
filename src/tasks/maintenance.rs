//! Maintenance: keep this instance's leases on running turns alive, end
//! `failed` the tasks whose instance died (their lease ran out), end
//! `canceled` the tasks that waited too long for an answer (so that they,
//! too, go with the retention), delete finished tasks past the retention,
//! and keep each caller's finished tasks within its cap (a pass every
//! [`TRIM_EVERY`] at most, so a flooding caller's excess stays bounded
//! between sweeps). One job per instance, until the runtime stops.

use super::call::CallContext;
use super::observer::{self, TaskObserver};
use super::reply::{agent_message, set_status};
use super::running::RunningTurns;
use super::settings::FinishedCaps;
use super::store::{StoreError, StoredTask, TaskStore};
use crate::a2a::TaskState;
use crate::db::StoreSettings;
use std::sync::Arc;
use std::time::Duration;

/// How often the maintenance job runs and what it keeps.
#[derive(Debug, Clone, Copy)]
pub struct Maintenance {
    /// The lease a running turn holds on its task (renewed at a third).
    pub lease: Duration,
    /// How often expired leases and old finished tasks are looked for.
    pub sweep: Duration,
    /// Finished tasks older than this are deleted.
    pub retention: Duration,
    /// How often each caller's finished tasks are trimmed to its cap.
    pub trim: Duration,
}

/// The longest time between two trims of finished tasks: a caller past its
/// cap holds at most what it finishes in this long more (at the per-caller
/// request rate), whatever the sweep interval.
const TRIM_EVERY: Duration = Duration::from_secs(2);

impl Maintenance {
    /// What the store settings ask for.
    pub fn from_settings(settings: &StoreSettings) -> Self {
        Maintenance {
            lease: settings.lease(),
            sweep: settings.sweep_interval(),
            retention: settings.retention(),
            trim: settings.sweep_interval().min(TRIM_EVERY),
        }
    }
}

const LEASE_LOST: &str = "The instance working on this request stopped before it finished \
                          (its lease ran out). Nothing was filed; please send the request again.";

/// What the maintenance job works on: the store, the observer that hears
/// of the tasks it ends, the turns running here (their leases, their
/// followers) and how long a task may wait for an answer.
#[derive(Clone)]
pub(super) struct Upkeep {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) observer: Option<Arc<dyn TaskObserver>>,
    pub(super) running: Arc<RunningTurns>,
    pub(super) waiting_expiry: Duration,
    /// How many finished tasks each caller keeps.
    pub(super) finished_caps: FinishedCaps,
}

impl Upkeep {
    /// Keep this instance's leases alive, end tasks whose instance died,
    /// delete finished tasks past the retention and those past each
    /// caller's cap; runs until the runtime stops.
    pub(super) fn spawn(self, every: Maintenance) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let renew_every = (every.lease / 3).max(Duration::from_millis(100));
            let mut renew = tokio::time::interval(renew_every);
            let mut sweep = tokio::time::interval(every.sweep.max(Duration::from_millis(100)));
            let mut trim = tokio::time::interval(every.trim.max(Duration::from_millis(100)));
            renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            trim.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = renew.tick() => {
                        if let Err(error) = self.renew_leases().await {
                            tracing::warn!(%error, "renewing task leases failed");
                        }
                    }
                    _ = trim.tick() => {
                        match self.store.trim_finished(self.finished_caps).await {
                            Ok(0) => {}
                            Ok(deleted) => tracing::info!(deleted, "finished tasks past their caller's cap deleted"),
                            Err(error) => tracing::warn!(%error, "trimming finished tasks to each caller's cap failed"),
                        }
                    }
                    _ = sweep.tick() => {
                        if let Err(error) = self.end_abandoned_turns().await {
                            tracing::warn!(%error, "looking for abandoned turns failed");
                        }
                        if let Err(error) = self.end_expired_waits().await {
                            tracing::warn!(%error, "looking for tasks that waited too long failed");
                        }
                        let before = crate::db::now_ms()
                            - i64::try_from(every.retention.as_millis()).unwrap_or(i64::MAX);
                        match self.store.purge_finished(before).await {
                            Ok(0) => {}
                            Ok(deleted) => tracing::info!(deleted, "finished tasks past the retention deleted"),
                            Err(error) => tracing::warn!(%error, "deleting old finished tasks failed"),
                        }
                        // The open tasks gauge, every instance's.
                        match self.store.count_open().await {
                            Ok(Some(open)) => crate::telemetry::metrics::open_tasks(open),
                            Ok(None) => {}
                            Err(error) => tracing::warn!(%error, "counting the open tasks failed"),
                        }
                    }
                }
            }
        })
    }

    async fn renew_leases(&self) -> Result<(), StoreError> {
        let running = self.running.task_ids();
        if running.is_empty() {
            return Ok(());
        }
        self.store.renew_leases(&running).await
    }

    /// Tasks that waited in `input-required` longer than
    /// `tasks.waiting_expiry_secs` end `canceled`, with the reason; returns
    /// how many. A few hundred a sweep, the oldest first.
    pub(super) async fn end_expired_waits(&self) -> Result<usize, StoreError> {
        const PER_SWEEP: u64 = 500;
        let store = &self.store;
        let expiry = self.waiting_expiry;
        let before = crate::db::now_ms() - i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX);
        let reason = format!(
            "This request waited {} for an answer and was closed. Nothing was filed; \
             please start a new conversation.",
            crate::clock::duration_in_words(expiry)
        );
        let mut ended = 0;
        for task_id in store.waiting_since(before, PER_SWEEP).await? {
            let stored = match store.get(&task_id).await {
                Ok(Some(stored)) => stored,
                Ok(None) => continue,
                Err(error @ StoreError::UnreadableTask { .. }) => {
                    tracing::error!(a2a.task.id = %task_id, %error, "a waiting task does not read back: left as it is");
                    continue;
                }
                Err(error) => return Err(error),
            };
            if stored.task.status.state != TaskState::InputRequired {
                continue;
            }
            // Not ended: its owner answered in the meantime.
            if self.end_task(stored, TaskState::Canceled, &reason).await? {
                tracing::info!(a2a.task.id = %task_id, "task waited too long for an answer: canceled");
                crate::telemetry::metrics::wait_expired();
                ended += 1;
            }
        }
        Ok(ended)
    }

    /// End `stored` in `state` with `reason` as the agent's message, and
    /// tell its webhooks and followers; `false` when another writer changed
    /// or ended it first (then it is left as that writer left it).
    pub(super) async fn end_task(
        &self,
        stored: StoredTask,
        state: TaskState,
        reason: &str,
    ) -> Result<bool, StoreError> {
        let mut task = stored.task;
        let message = agent_message(&task, reason, None);
        set_status(&mut task, state, Some(message));
        match self.store.update(&task, stored.version).await {
            Ok(written) => {
                observer::tell(
                    self.observer.as_deref(),
                    &task,
                    &written,
                    &CallContext::default(),
                );
                self.running.tell_followers(&task);
                Ok(true)
            }
            Err(StoreError::Conflict(_) | StoreError::Terminal(_)) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Tasks left `submitted` or `working` by an instance that stopped end
    /// `failed` with the reason; returns how many.
    pub(super) async fn end_abandoned_turns(&self) -> Result<usize, StoreError> {
        let store = &self.store;
        let mut ended = 0;
        for task_id in store.expired_leases().await? {
            if self.running.runs(&task_id) {
                continue; // Ours and still running: the next renewal saves it.
            }
            let Some(stored) = store.get(&task_id).await? else {
                continue;
            };
            let state = stored.task.status.state;
            if state.is_terminal() || state.is_interrupted() {
                continue;
            }
            // Not ended: another instance ended it first, or its owner came back.
            if self.end_task(stored, TaskState::Failed, LEASE_LOST).await? {
                tracing::warn!(a2a.task.id = %task_id, "turn abandoned by a stopped instance: task failed");
                crate::telemetry::metrics::lease_expired();
                ended += 1;
            }
        }
        Ok(ended)
    }
}
