//! The turns running on this instance and the tasks followed between
//! turns: per task its event channel and cancel switch while a turn runs,
//! and, between turns, the channel its 1.0 `SubscribeToTask` followers
//! listen to, which the next turn sends on. One registry, so a follower
//! never misses the start of a turn; the `a2a.turns.running` gauge is kept
//! here, where turns come and go.

use super::events::TaskEvent;
use crate::a2a::Task;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{Notify, broadcast};

/// Events a follower channel holds for a slow reader.
const FOLLOWER_CAPACITY: usize = 64;

/// Where a turn's task is stored, shared by the turn and its blocking
/// waiter under one lock: whichever writes first creates the row, and what
/// the waiter answered decides what the turn's result says.
#[derive(Debug, Default)]
pub(super) struct StoredAt {
    /// The version the task is stored at; `None` while a deferred task is
    /// not stored yet.
    pub(super) version: Option<u64>,
    /// The waiter answered `working` and told its caller to ask again (no
    /// push config brings the result): a finished result says so
    /// ([`super::ask_again`]).
    pub(super) told_to_ask_again: bool,
}

/// [`StoredAt`], shared.
pub(super) type StoredVersion = Arc<tokio::sync::Mutex<StoredAt>>;

/// [`StoredAt`] of a task stored at `version` (`None`: not yet), shared.
pub(super) fn stored_version(version: Option<u64>) -> StoredVersion {
    Arc::new(tokio::sync::Mutex::new(StoredAt {
        version,
        told_to_ask_again: false,
    }))
}

/// A new task not stored yet (a blocking send's, stored once finished):
/// the caller's message that opened it, so that a repeat of that message
/// finds it while its turn runs here, and the task as it was claimed.
pub(super) struct Opening {
    pub(super) owner: Option<String>,
    pub(super) message_id: String,
    pub(super) task: Arc<Task>,
}

/// A turn in flight: its event channel and how to stop it.
struct RunningTurn {
    events: broadcast::Sender<TaskEvent>,
    cancel: Arc<Notify>,
    /// Where the turn stores its task, once it runs: a caller told to ask
    /// again while it runs marks it there.
    stored: Option<StoredVersion>,
    /// The opening message of a task not stored yet.
    opening: Option<Opening>,
}

/// A new turn's event channel (with its first listener) and cancel switch.
pub(super) struct TurnChannel {
    pub(super) events: broadcast::Sender<TaskEvent>,
    pub(super) listener: broadcast::Receiver<TaskEvent>,
    pub(super) cancel: Arc<Notify>,
}

/// Per task, the turn running here or the followers waiting for its next
/// turn.
#[derive(Default)]
pub(super) struct RunningTurns {
    turns: Mutex<HashMap<String, RunningTurn>>,
    /// Per task between its turns: the channel its followers listen to.
    /// Locked after `turns` where both are held.
    followers: Mutex<HashMap<String, broadcast::Sender<TaskEvent>>>,
}

impl RunningTurns {
    fn turns(&self) -> MutexGuard<'_, HashMap<String, RunningTurn>> {
        self.turns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn followers(&self) -> MutexGuard<'_, HashMap<String, broadcast::Sender<TaskEvent>>> {
        self.followers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Register a turn's event channel and cancel switch under the task id;
    /// the task's followers listen to it too (their channel, or the
    /// previous turn's, still finishing, is taken over).
    pub(super) fn register(&self, task_id: &str) -> TurnChannel {
        let mut turns = self.turns();
        let events = turns
            .remove(task_id)
            .map(|previous| previous.events)
            .or_else(|| self.followers().remove(task_id))
            .filter(|sender| sender.receiver_count() > 0)
            .unwrap_or_else(|| broadcast::channel(FOLLOWER_CAPACITY).0);
        let listener = events.subscribe();
        let cancel = Arc::new(Notify::new());
        let replaced = turns.insert(
            task_id.to_string(),
            RunningTurn {
                events: events.clone(),
                cancel: Arc::clone(&cancel),
                stored: None,
                opening: None,
            },
        );
        if replaced.is_none() {
            crate::telemetry::metrics::turns_running(1);
        }
        TurnChannel {
            events,
            listener,
            cancel,
        }
    }

    /// Where the running turn of `task_id` stores its task, and, for a
    /// task not stored yet, the message that opened it.
    pub(super) fn keep_stored(
        &self,
        task_id: &str,
        stored: &StoredVersion,
        opening: Option<Opening>,
    ) {
        if let Some(running) = self.turns().get_mut(task_id) {
            running.stored = Some(Arc::clone(stored));
            running.opening = opening;
        }
    }

    /// The task not stored yet that `owner`'s message `message_id` opened,
    /// while its turn runs here, and where that turn stores it. A look
    /// through the turns running here (as many as calls in flight).
    pub(super) fn opened_here(
        &self,
        owner: Option<&str>,
        message_id: &str,
    ) -> Option<(Arc<Task>, StoredVersion)> {
        self.turns().values().find_map(|turn| {
            let opening = turn.opening.as_ref()?;
            (opening.message_id == message_id && opening.owner.as_deref() == owner)
                .then(|| Some((Arc::clone(&opening.task), turn.stored.clone()?)))?
        })
    }

    /// Where the turn running for `task_id` stores its task, if one runs.
    pub(super) fn stored_of(&self, task_id: &str) -> Option<StoredVersion> {
        self.turns()
            .get(task_id)
            .and_then(|turn| turn.stored.clone())
    }

    /// A registered turn that will not run (its task was not created).
    pub(super) fn forget(&self, task_id: &str) {
        if self.turns().remove(task_id).is_some() {
            crate::telemetry::metrics::turns_running(-1);
        }
    }

    /// Stop the turn running for `task_id`, if one runs: it is
    /// unregistered and its agent stopped. Its channel, for the event of
    /// the canceled task.
    pub(super) fn stop(&self, task_id: &str) -> Option<broadcast::Sender<TaskEvent>> {
        let turn = self.turns().remove(task_id)?;
        crate::telemetry::metrics::turns_running(-1);
        turn.cancel.notify_one();
        Some(turn.events)
    }

    /// A turn ended: unregister it (unless a cancel or a newer turn did),
    /// and when the task goes on and someone still listens, keep its
    /// channel for the followers.
    pub(super) fn end(&self, task_id: &str, cancel: &Arc<Notify>, goes_on: bool) {
        let mut turns = self.turns();
        if !turns
            .get(task_id)
            .is_some_and(|turn| Arc::ptr_eq(&turn.cancel, cancel))
        {
            return;
        }
        let removed = turns.remove(task_id);
        if removed.is_some() {
            crate::telemetry::metrics::turns_running(-1);
        }
        if let Some(turn) = removed
            && goes_on
            && turn.events.receiver_count() > 0
        {
            self.followers().insert(task_id.to_string(), turn.events);
        }
    }

    /// Whether a turn of `task_id` runs here.
    pub(super) fn runs(&self, task_id: &str) -> bool {
        self.turns().contains_key(task_id)
    }

    /// The tasks whose turns run here.
    pub(super) fn task_ids(&self) -> Vec<String> {
        self.turns().keys().cloned().collect()
    }

    /// The running turn's events (`None` when none runs).
    pub(super) fn subscribe(&self, task_id: &str) -> Option<broadcast::Receiver<TaskEvent>> {
        self.turns()
            .get(task_id)
            .map(|turn| turn.events.subscribe())
    }

    /// Listen to a task until it is terminal: the running turn's channel,
    /// or else the task's follower channel, which its next turn takes over.
    /// Under the turns lock, so no turn starts in between.
    pub(super) fn follow(&self, task_id: &str) -> broadcast::Receiver<TaskEvent> {
        let turns = self.turns();
        if let Some(turn) = turns.get(task_id) {
            return turn.events.subscribe();
        }
        let mut followers = self.followers();
        // Channels nobody listens to any more go (their streams ended).
        followers.retain(|_, sender| sender.receiver_count() > 0);
        followers
            .entry(task_id.to_string())
            .or_insert_with(|| broadcast::channel(FOLLOWER_CAPACITY).0)
            .subscribe()
    }

    /// A change made outside a turn (a cancel, an abandoned turn failed):
    /// tell the task's followers; a terminal one is their last.
    pub(super) fn tell_followers(&self, task: &Task) {
        let sender = {
            let mut followers = self.followers();
            if task.status.state.is_terminal() {
                followers.remove(&task.id)
            } else {
                followers.get(&task.id).cloned()
            }
        };
        if let Some(sender) = sender {
            let _ = sender.send(TaskEvent::Status(Arc::new(task.clone()), None));
        }
    }
}
