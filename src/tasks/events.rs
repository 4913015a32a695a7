//! A task's events, in order, for whoever listens: the blocking waiter,
//! `message/stream` and `tasks/resubscribe` (which `rpc/` turns into a
//! stream of JSON-RPC responses).
//!
//! A turn's events go out on its channel while it runs. A 1.0
//! `SubscribeToTask` follows the task past the turn, until it is terminal:
//! its channel outlives the turn (a follower channel, kept while someone
//! listens), and the task's next turn sends on it. Followers only hear of
//! turns run by this instance.

use super::engine::{Inner, Started, TaskEngine};
use super::error::EngineError;
use super::observer::CallContext;
use super::store::{StoreError, TaskJson};
use super::turn::RunningTurn;
use crate::a2a::{Artifact, Message, MessageSendParams, Task};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{Notify, broadcast};

/// What happened to a task, in order, for whoever listens (blocking
/// waiters now; streams and push delivery consume the same events).
#[derive(Debug, Clone)]
pub enum TaskEvent {
    /// The task's new status; with its JSON when the event is the task
    /// exactly as stored (an answer of it needs no second encoding).
    Status(Arc<Task>, Option<TaskJson>),
    /// An artifact the turn added. Every listener gets the event (a
    /// clone) and few read it: a blocking send only waits for the final
    /// status. So the event shares the task of that status instead of
    /// holding a copy of the artifact.
    Artifact(Arc<Task>, ArtifactPiece),
    /// The turn's result could not be stored.
    StoreFailed(StoreError),
    /// The turn answered a bare message and its task was never stored
    /// (a blocking send whose agent asked for [`crate::agent::Reply::message_only`]).
    Message(Arc<Message>),
}

/// Which artifact an [`TaskEvent::Artifact`] stands for.
#[derive(Debug, Clone)]
pub enum ArtifactPiece {
    /// One of the task's own artifacts, whole (its own last piece): the
    /// one at this index of `task.artifacts`.
    Whole(usize),
    /// A piece of an artifact that the task holds joined, as it came.
    Chunk {
        artifact: Arc<Artifact>,
        /// A piece added to an artifact already sent.
        append: bool,
        /// The artifact's last piece.
        last_chunk: bool,
    },
}

impl ArtifactPiece {
    /// The artifact, whether this piece appends, and whether it is the
    /// artifact's last; `None` for an index the task does not have.
    pub fn of(&self, task: &Task) -> Option<(Artifact, bool, bool)> {
        match self {
            ArtifactPiece::Whole(index) => task
                .artifacts
                .as_ref()
                .and_then(|artifacts| artifacts.get(*index))
                .map(|artifact| (artifact.clone(), false, true)),
            ArtifactPiece::Chunk {
                artifact,
                append,
                last_chunk,
            } => Some((Artifact::clone(artifact), *append, *last_chunk)),
        }
    }
}

/// What a `message/send` answers: the task (with its JSON when the task is
/// exactly as stored), or a bare message when the agent answered one and no
/// task was stored.
#[derive(Debug, Clone)]
pub enum Answer {
    Task(Arc<Task>, Option<TaskJson>),
    Message(Message),
}

/// A task's events for a stream: an optional snapshot to start with, then
/// the running turn's events (none when no turn runs).
pub struct TaskStream {
    pub first: Option<Task>,
    pub events: Option<broadcast::Receiver<TaskEvent>>,
    pub ends: StreamEnd,
}

/// Where a stream of a task's events ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// At the status that ends or pauses the task (`message/stream`,
    /// `tasks/resubscribe`, `SendStreamingMessage`).
    Pause,
    /// At a terminal status only: through `input-required` and the turns
    /// after it (1.0 `SubscribeToTask`).
    Terminal,
}

/// Events a follower channel holds for a slow reader.
const FOLLOWER_CAPACITY: usize = 64;

impl Inner {
    pub(super) fn followers(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<TaskEvent>>> {
        self.followers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Listen to a task until it is terminal: the running turn's channel,
    /// or else the task's follower channel, which its next turn takes over.
    /// Under the turns lock, so no turn starts in between.
    fn follow(&self, task_id: &str) -> broadcast::Receiver<TaskEvent> {
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

    /// The channel for a new turn of the task: one its followers listen to
    /// (or the previous turn's, still finishing), else a new one.
    pub(super) fn turn_channel(
        &self,
        turns: &mut HashMap<String, RunningTurn>,
        task_id: &str,
    ) -> broadcast::Sender<TaskEvent> {
        turns
            .remove(task_id)
            .map(|previous| previous.events)
            .or_else(|| self.followers().remove(task_id))
            .filter(|sender| sender.receiver_count() > 0)
            .unwrap_or_else(|| broadcast::channel(FOLLOWER_CAPACITY).0)
    }

    /// A turn ended: unregister it (unless a cancel or a newer turn did),
    /// and when the task goes on and someone still listens, keep its
    /// channel for the followers.
    pub(super) fn end_turn(&self, task_id: &str, cancel: &Arc<Notify>, goes_on: bool) {
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

impl TaskEngine {
    /// Follow a task's events while a turn runs (`None` when none runs).
    pub fn subscribe(&self, task_id: &str) -> Option<broadcast::Receiver<TaskEvent>> {
        self.inner
            .turns()
            .get(task_id)
            .map(|turn| turn.events.subscribe())
    }

    /// `message/stream`: start or continue a task like `message/send`, but
    /// hand back its events instead of waiting.
    pub async fn stream_message(
        &self,
        params: MessageSendParams,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        match self.begin(params, call, false).await? {
            (Started::Running { events, .. }, _) => Ok(TaskStream {
                first: None,
                events: Some(events),
                ends: StreamEnd::Pause,
            }),
            (Started::AsItIs(task), _) => Ok(TaskStream {
                events: self.subscribe(&task.id),
                first: Some(*task),
                ends: StreamEnd::Pause,
            }),
        }
    }

    /// `tasks/resubscribe`: the task as it is now, then the rest of its events.
    pub async fn resubscribe(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        // Subscribe first so nothing between the read and the subscription
        // is lost; another caller's task is not found, and its events are
        // dropped unread.
        let events = self.subscribe(task_id);
        let task = self.owned_task(task_id, call).await?.task;
        Ok(TaskStream {
            first: Some(task),
            events,
            ends: StreamEnd::Pause,
        })
    }

    /// 1.0 `SubscribeToTask`: the task as it is now, then its events until
    /// it is terminal, across the turns that continue it.
    pub async fn follow(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        // Listen first so nothing between the read and the listening is
        // lost; another caller's task is not found (its events unread).
        let events = self.inner.follow(task_id);
        let task = self.owned_task(task_id, call).await?.task;
        Ok(TaskStream {
            first: Some(task),
            events: Some(events),
            ends: StreamEnd::Terminal,
        })
    }
}
