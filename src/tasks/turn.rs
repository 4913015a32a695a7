//! The turn runner: a turn runs the agent (a panic fails the task, not the
//! server), under a span that stays the request's child, and stores the
//! reply, retrying a store that is briefly down; its events (artifacts, the
//! final status, or a store failure) go to whoever listens. A cancel stops
//! the agent and leaves the task canceled.
//!
//! A blocking `message/send` drives its turn itself while it waits for the
//! turn's end ([`PendingTurn`]): a turn that finishes at once costs no task
//! of its own and no hand-off between tasks. A turn nobody drives (a stream,
//! a non-blocking send, a budget that ran out, a caller gone) runs as a
//! tokio task of its own.

use super::ask_again;
use super::call::CallContext;
use super::events::{ArtifactPiece, TaskEvent};
use super::observer::{self, TaskObserver};
use super::open_bound::OpenBound;
use super::reply::{agent_message, apply_reply, chunk_events};
use super::running::{RunningTurns, StoredVersion};
use super::store::{StoreError, TaskStore, Written};
use crate::a2a::{Task, TaskState};
use crate::agent::{Agent, Outcome, Progress, Reply, Turn};
use futures_util::FutureExt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, broadcast};

/// A turn that is not running on its own yet: whoever waits for it drives
/// it ([`PendingTurn::next_event`]); dropped before its end, it goes on as
/// a tokio task of its own, so a turn is never lost with its waiter.
pub(super) struct PendingTurn {
    turn: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Where it runs on its own: the runtime the engine was made on, which
    /// outlives the server's workers (a turn spawned on a worker's runtime
    /// would die when the server stops, before the shutdown grace ends);
    /// `None`: the current one.
    home: Option<tokio::runtime::Handle>,
}

impl PendingTurn {
    /// The next event of the turn, driving the turn meanwhile.
    pub(super) async fn next_event(
        &mut self,
        events: &mut broadcast::Receiver<TaskEvent>,
    ) -> Result<TaskEvent, broadcast::error::RecvError> {
        if let Some(turn) = self.turn.as_mut() {
            tokio::select! {
                biased;
                event = events.recv() => return event,
                // The turn ended; its last events wait in the channel.
                () = turn => self.turn = None,
            }
        }
        events.recv().await
    }

    /// Let the turn go on as a task of its own (before the waiter waits
    /// for anything the turn may hold).
    pub(super) fn run_on_its_own(&mut self) {
        if let Some(turn) = self.turn.take() {
            match self
                .home
                .clone()
                .map_or_else(tokio::runtime::Handle::try_current, Ok)
            {
                Ok(runtime) => drop(runtime.spawn(turn)),
                // Only when the runtime itself is going away.
                Err(error) => tracing::warn!(%error, "a turn stopped with its runtime"),
            }
        }
    }
}

impl Drop for PendingTurn {
    fn drop(&mut self) {
        self.run_on_its_own();
    }
}

/// A turn of ours that runs, as the caller that started it sees it.
pub(super) struct StartedTurn {
    /// The claimed task, as its `working` event published it.
    pub(super) task: Arc<Task>,
    pub(super) events: broadcast::Receiver<TaskEvent>,
    pub(super) stored: StoredVersion,
    /// How far the turn got, for a `working` answer.
    pub(super) progress: Progress,
    /// The turn itself, for a waiter to drive (dropped, it runs alone).
    pub(super) turn: PendingTurn,
}

/// One claimed turn and everything it owns: its task, the agent's input,
/// the channel its events go out on, its cancel switch, where its task is
/// stored (shared with a blocking waiter) and the handles it writes and
/// reports through. The engine makes it; [`TurnRun::pending`] hands it out
/// for a waiter to drive or drop.
pub(super) struct TurnRun {
    /// The claimed (`working`) task, as the engine published it.
    pub(super) task: Task,
    pub(super) input: Turn,
    pub(super) events: broadcast::Sender<TaskEvent>,
    pub(super) cancel: Arc<Notify>,
    pub(super) stored: StoredVersion,
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) agent: Arc<dyn Agent>,
    pub(super) observer: Option<Arc<dyn TaskObserver>>,
    /// Where the turn is registered; it unregisters itself at its end.
    pub(super) running: Arc<RunningTurns>,
    /// The caller's bound of open tasks, for a deferred task that stays
    /// open when the turn first stores it.
    pub(super) open_bound: OpenBound,
    pub(super) call: CallContext,
    /// The runtime it runs on when nobody drives it ([`PendingTurn`]).
    pub(super) home: Option<tokio::runtime::Handle>,
}

impl TurnRun {
    /// The turn, not running yet: under a span that stays the request's
    /// child, with the caller's correlation id on its calls to S/4HANA,
    /// whichever task drives it.
    pub(super) fn pending(self) -> PendingTurn {
        // The turn outlives the request that started it; its span stays the
        // request's child in the trace.
        let span = tracing::info_span!(
            "a2a.turn",
            otel.name = "a2a.turn",
            a2a.task.id = self.task.id.as_str(),
            a2a.context.id = self.task.context_id.as_str(),
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = "order-exception-agent",
            gen_ai.conversation.id = self.task.context_id.as_str(),
            a2a.task.state = tracing::field::Empty,
            a2a.specialist = tracing::field::Empty,
            a2a.router.scores = tracing::field::Empty,
            a2a.router.basis = tracing::field::Empty,
            latency_ms = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
            sap.tenancy.tenant_id = tracing::field::Empty,
            user.id = tracing::field::Empty,
        );
        self.call.tags.record(&span);
        let correlation = self.call.correlation_id.clone();
        let home = self.home.clone();
        PendingTurn {
            turn: Some(Box::pin(tracing::Instrument::instrument(
                crate::telemetry::outbound::correlation_scope(correlation, self.run()),
                span,
            ))),
            home,
        }
    }

    /// The whole turn: run the agent, store its reply, publish the
    /// artifacts and the final status, then unregister (keeping the channel
    /// for the task's followers when the task goes on).
    async fn run(self) {
        let running = Arc::clone(&self.running);
        let task_id = self.task.id.clone();
        let switch = Arc::clone(&self.cancel);
        // Boxed: the turn's state lives on the heap once, instead of being
        // moved with the future on its way into the waiter's box.
        let left = Box::pin(self.respond_and_store()).await;
        running.end(
            &task_id,
            &switch,
            left.is_some_and(|state| !state.is_terminal()),
        );
    }

    /// Run the agent, store its reply, publish the artifacts and the final
    /// status. A cancel stops the agent and leaves the task as canceled.
    /// The state the turn stored, if it stored one.
    async fn respond_and_store(self) -> Option<TaskState> {
        let TurnRun {
            mut task,
            input,
            events,
            cancel,
            stored: stored_version,
            store,
            agent,
            observer,
            open_bound,
            call,
            ..
        } = self;
        let started = std::time::Instant::now();
        // A panicking turn fails this task, not the server.
        let responding = std::panic::AssertUnwindSafe(agent.respond(input)).catch_unwind();
        // What a failed turn's span names as its `error.type`.
        let mut failure_type = "agent_failed";
        let reply = tokio::select! {
            answered = responding => match answered {
                Ok(reply) => reply,
                Err(panic) => {
                    let reason = panic
                        .downcast_ref::<&str>()
                        .map(|text| text.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tracing::error!(a2a.task.id = %task.id, reason, "agent turn panicked");
                    failure_type = "panic";
                    Reply::new(
                        Outcome::Failed,
                        "The agent failed on this request (internal error). Please try again.",
                    )
                }
            },
            _ = cancel.notified() => {
                tracing::info!(a2a.task.id = %task.id, "turn stopped by tasks/cancel");
                return None;
            }
        };
        let span = tracing::Span::current();
        let specialist = reply
            .routing
            .as_ref()
            .and_then(|routing| routing.specialist.clone())
            .unwrap_or_else(|| "-".into());
        if let Some(routing) = &reply.routing {
            span.record(
                "a2a.specialist",
                routing.specialist.as_deref().unwrap_or("-"),
            );
            span.record("a2a.router.basis", routing.basis.as_str());
            if let Ok(scores) = serde_json::to_string(&routing.scores) {
                span.record("a2a.router.scores", scores.as_str());
            }
        }
        if reply.wants_message_only() {
            // Held while answering, so a waiter whose budget runs out now
            // does not store the task the message stands for.
            let at = stored_version.lock().await;
            if at.version.is_none() {
                let mut message = agent_message(&task, &reply.text, None);
                message.task_id = None;
                span.record("a2a.task.state", "message");
                let _ = events.send(TaskEvent::Message(Arc::new(message)));
                return None;
            }
        }
        let chunks = super::artifacts::to_a2a(&reply.artifact_chunks);
        // A failed turn is a failed span, with what the user was told.
        if reply.outcome == Outcome::Failed {
            crate::telemetry::status::failed(&span, failure_type, &reply.text);
        }
        let touched = apply_reply(&mut task, reply);
        span.record("a2a.task.state", task.status.state.as_str());
        crate::telemetry::metrics::task_outcome(task.status.state.as_str(), &specialist);
        span.record("latency_ms", started.elapsed().as_secs_f64() * 1000.0);
        // Held while writing, so a blocking waiter whose budget runs out
        // right now cannot create the row a second time.
        let mut at = stored_version.lock().await;
        if at.told_to_ask_again {
            ask_again::mark(&mut task);
        }
        // A deferred task is first stored now: one that stays open must fit
        // its caller's bound, else the caller hears why and nothing is kept.
        if at.version.is_none() {
            match open_bound.admits(&*store, &task, call.owner()).await {
                Ok(Ok(())) => {}
                Ok(Err(full)) => {
                    let _ = events.send(TaskEvent::Refused(full));
                    return None;
                }
                Err(error) => {
                    tracing::error!(a2a.task.id = %task.id, %error, "the caller's open tasks could not be counted");
                    let _ = events.send(TaskEvent::StoreFailed(error));
                    return None;
                }
            }
        }
        let mut stored = store_result(&*store, &task, at.version, call.owner()).await;
        // A store that is briefly down gets a few more tries (a value that
        // does not decode gets none: it would not decode the next time
        // either); after that the lease runs out and the task ends
        // `failed`, never stuck `working`.
        for pause_ms in [200, 1_000, 3_000] {
            if !stored.as_ref().is_err_and(StoreError::is_transient) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(pause_ms)).await;
            stored = store_result(&*store, &task, at.version, call.owner()).await;
        }
        if let Ok(written) = &stored {
            at.version = Some(written.version);
        }
        drop(at);
        match stored {
            Ok(written) => {
                let task = Arc::new(task);
                // Added or replaced whole (a replaced one keeps its id:
                // `append: false` tells a client to replace it).
                let whole = task
                    .artifacts
                    .iter()
                    .flatten()
                    .enumerate()
                    .filter(|(_, artifact)| touched.contains(&artifact.artifact_id));
                for (index, _) in whole {
                    let _ = events.send(TaskEvent::Artifact(
                        Arc::clone(&task),
                        ArtifactPiece::Whole(index),
                    ));
                }
                for chunk in chunk_events(&task, &chunks) {
                    let _ = events.send(chunk);
                }
                observer::tell(observer.as_deref(), &task, &written, &call);
                let state = task.status.state;
                let _ = events.send(TaskEvent::Status(task, Some(written.json)));
                Some(state)
            }
            // Canceled while the turn ran: the cancel stands.
            Err(StoreError::Conflict(_) | StoreError::Terminal(_)) => None,
            Err(error) => {
                tracing::error!(a2a.task.id = %task.id, %error, "the turn's result could not be stored");
                crate::telemetry::status::failed(&span, "store_error", &error.to_string());
                let _ = events.send(TaskEvent::StoreFailed(error));
                None
            }
        }
    }
}

/// Write a turn's result: an update, or the first write of a deferred
/// task.
async fn store_result(
    store: &dyn TaskStore,
    task: &Task,
    version: Option<u64>,
    owner: Option<&str>,
) -> Result<Written, StoreError> {
    match version {
        Some(version) => store.update(task, version).await,
        None => store.create(task, &[], owner).await,
    }
}
