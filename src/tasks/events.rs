//! A task's events, in order, for whoever listens: the blocking waiter,
//! `message/stream` and `tasks/resubscribe` (which `rpc/` turns into a
//! stream of JSON-RPC responses).
//!
//! A turn's events go out on its channel while it runs. A 1.0
//! `SubscribeToTask` follows the task past the turn, until it is terminal:
//! its channel outlives the turn (a follower channel, kept while someone
//! listens, `running.rs`), and the task's next turn sends on it. Followers
//! only hear of turns run by this instance.

use super::open_bound::OpenTasksFull;
use super::store::{StoreError, TaskJson};
use crate::a2a::{Artifact, Message, Task};
use std::sync::Arc;
use tokio::sync::broadcast;

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
    /// The turn's result was not stored: a deferred task that would stay
    /// open, of a caller who holds as many open tasks as it may.
    Refused(OpenTasksFull),
    /// The turn answered a bare message and its task was never stored
    /// (a blocking send whose agent asked for [`crate::agent::Reply::wants_message_only`]).
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
