//! The budget waiter: a blocking `message/send` waits for its turn to end
//! or pause, at most the budget (55 s by default, inside Joule's 60 s); when
//! it runs out the caller gets the task as `working`, with a note that says
//! how the result comes (by push where a push config exists; else: ask
//! again in this conversation, [`super::ask_again`]), and the turn goes on.

use super::call::CallContext;
use super::error::EngineError;
use super::events::{Answer, TaskEvent};
use super::open_bound::OpenBound;
use super::reply::{ResultPath, working_note};
use super::running::RunningTurns;
use super::settings::TaskSettings;
use super::store::TaskStore;
use super::turn::StartedTurn;
use crate::a2a::{Task, TaskState};
use std::sync::Arc;
use tokio::sync::broadcast;

/// Whether `task` is under way and says nothing yet: a `working` answer
/// of it needs a note.
fn says_nothing_yet(task: &Task) -> bool {
    matches!(task.status.state, TaskState::Submitted | TaskState::Working)
        && task.status.message.is_none()
}

/// `task` as a `working` answer says it: with [`working_note`] as its
/// status message when it is still under way and says nothing yet. Only
/// the answer carries the note, never the stored task: the real answer
/// replaces it when the turn ends, and since the status message moves into
/// the history when the status changes, a stored note would stay there as
/// a stale agent message between the question and its answer.
/// A turn that published how far it got (a batch: "2 of 4 orders looked
/// at so far") says that before the note.
fn with_working_note(mut task: Task, path: ResultPath, progress: Option<String>) -> Task {
    if says_nothing_yet(&task) {
        task.status.message = Some(working_note(&task, path, progress.as_deref()));
    }
    task
}

/// What the waiter reads besides the turn: where tasks are stored, the
/// turns running here, and the budget and task rules of the settings.
pub(super) struct Waiter<'a> {
    pub(super) store: &'a dyn TaskStore,
    pub(super) running: &'a RunningTurns,
    pub(super) settings: &'a TaskSettings,
}

/// The task as stored now, for an answer.
pub(super) async fn current(store: &dyn TaskStore, task_id: &str) -> Result<Task, EngineError> {
    store
        .get(task_id)
        .await?
        .map(|stored| stored.task)
        .ok_or_else(|| EngineError::TaskNotFound(task_id.to_string()))
}

impl Waiter<'_> {
    /// Wait for the turn to end or pause, at most the budget (unless the
    /// call's rules say to wait past it).
    pub(super) async fn wait(
        &self,
        started: StartedTurn,
        call: &CallContext,
    ) -> Result<Answer, EngineError> {
        let StartedTurn {
            task,
            mut events,
            stored,
            progress,
            mut turn,
        } = started;
        let mut deadline = Some(tokio::time::Instant::now() + self.settings.budget());
        loop {
            let next = match deadline {
                Some(deadline) => {
                    tokio::time::timeout_at(deadline, turn.next_event(&mut events)).await
                }
                None => Ok(turn.next_event(&mut events).await),
            };
            match next {
                // The event carries the task exactly as stored: no store read.
                Ok(Ok(TaskEvent::Status(snapshot, json)))
                    if snapshot.status.state.is_terminal()
                        || snapshot.status.state.is_interrupted() =>
                {
                    return Ok(Answer::Task(snapshot, json));
                }
                Ok(Ok(TaskEvent::Message(message))) => {
                    return Ok(Answer::Message(Arc::unwrap_or_clone(message)));
                }
                Ok(Ok(TaskEvent::StoreFailed(error))) => {
                    return Err(EngineError::Store(error));
                }
                Ok(Ok(TaskEvent::Refused(full))) => {
                    return Err(EngineError::InvalidParams(full.to_string()));
                }
                Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) => break,
                Err(_) => {
                    // The turn goes on alone (it may hold the lock below).
                    turn.run_on_its_own();
                    crate::telemetry::metrics::budget_expired();
                    let waits_on = call.rules.wait_past_budget;
                    tracing::info!(
                        a2a.task.id = %task.id,
                        budget_ms = i64::try_from(self.settings.budget().as_millis())
                            .unwrap_or(i64::MAX),
                        waits_on,
                        "budget expired: the turn goes on"
                    );
                    // Held until the answer is decided: the turn cannot
                    // store its result in between, so what the caller is
                    // told and what the result says agree.
                    let mut at = stored.lock().await;
                    // A deferred task is stored now: the client learns its id.
                    let deferred = at.version.is_none();
                    if deferred {
                        // The turn may have answered a bare message while we
                        // waited for the lock: then no task is stored.
                        if let Some(message) = answered_message(&mut events) {
                            return Ok(Answer::Message(message));
                        }
                        // Stored `working`, it is open: it must fit the
                        // caller's bound (the turn goes on regardless, and
                        // stores its result only if that fits then).
                        OpenBound::of(self.settings, call.owner())
                            .room_for_one_more(self.store, call.owner())
                            .await?
                            .map_err(|full| EngineError::InvalidParams(full.to_string()))?;
                        at.version =
                            Some(self.store.create(&task, &[], call.owner()).await?.version);
                    }
                    if waits_on {
                        drop(at);
                        deadline = None;
                        continue;
                    }
                    let current = if deferred {
                        Arc::unwrap_or_clone(task)
                    } else {
                        current(self.store, &task.id).await?
                    };
                    if !says_nothing_yet(&current) {
                        return Ok(Answer::Task(Arc::new(current), None));
                    }
                    // A deferred task was stored just now without a push config.
                    let path = if deferred {
                        ResultPath::without_push(self.strict_task_ids(call))
                    } else {
                        self.result_path(&current.id, call).await?
                    };
                    at.told_to_ask_again = path == ResultPath::AskAgain;
                    drop(at);
                    return Ok(Answer::Task(
                        Arc::new(with_working_note(current, path, progress.latest())),
                        None,
                    ));
                }
            }
        }
        current(self.store, &task.id)
            .await
            .map(|task| Answer::Task(Arc::new(task), None))
    }

    /// Whether a message naming a finished task is an error for `call`.
    fn strict_task_ids(&self, call: &CallContext) -> bool {
        self.settings.strict_task_ids || call.rules.strict_task_ids
    }

    /// How the result of the task comes to a caller answered `working`:
    /// by push when it has a push config.
    async fn result_path(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<ResultPath, EngineError> {
        let configs = self.store.push_configs(task_id).await?;
        Ok(if configs.is_empty() {
            ResultPath::without_push(self.strict_task_ids(call))
        } else {
            ResultPath::Push
        })
    }

    /// A task a message named while its turn runs, as the answer says it:
    /// with the note of how its result comes.
    pub(super) async fn as_it_is(
        &self,
        task: Task,
        call: &CallContext,
    ) -> Result<Task, EngineError> {
        if !says_nothing_yet(&task) {
            return Ok(task);
        }
        let path = self.result_path(&task.id, call).await?;
        if path != ResultPath::AskAgain {
            return Ok(with_working_note(task, path, None));
        }
        // Told to ask again, the caller must get the result when it does:
        // the turn's result says so. A turn this instance runs hears it
        // under its lock, after a last look at the task. (A turn of
        // another instance was marked by the blocking call that started
        // it, if that call was told the same at the budget.)
        let Some(stored) = self.running.stored_of(&task.id) else {
            return Ok(with_working_note(task, path, None));
        };
        let mut at = stored.lock().await;
        let current = current(self.store, &task.id).await?;
        if !says_nothing_yet(&current) {
            // It ended meanwhile: the answer is the result itself.
            return Ok(current);
        }
        at.told_to_ask_again = true;
        drop(at);
        Ok(with_working_note(current, path, None))
    }
}

/// A bare message the turn already sent, if it did.
fn answered_message(events: &mut broadcast::Receiver<TaskEvent>) -> Option<crate::a2a::Message> {
    loop {
        match events.try_recv() {
            Ok(TaskEvent::Message(message)) => return Some(Arc::unwrap_or_clone(message)),
            Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
            Err(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{TaskKind, TaskStatus};

    fn task(state: TaskState) -> Task {
        Task {
            kind: TaskKind::Value,
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: None,
            },
            history: None,
            artifacts: None,
            metadata: None,
        }
    }

    #[test]
    fn only_a_task_under_way_that_says_nothing_gets_the_note() {
        for state in [TaskState::Submitted, TaskState::Working] {
            let answered = with_working_note(task(state), ResultPath::Push, None);
            let message = answered.status.message.expect("the note");
            assert_eq!(message.text(), crate::tasks::STILL_WORKING);
            assert_eq!(message.task_id.as_deref(), Some("t"));
        }
        for state in [TaskState::InputRequired, TaskState::Completed] {
            assert!(
                with_working_note(task(state), ResultPath::AskAgain, None)
                    .status
                    .message
                    .is_none()
            );
        }
    }

    #[test]
    fn the_note_says_how_the_result_comes_after_how_far_the_turn_got() {
        let progress = Some("1 of 2 orders looked at so far (4711 just now).".to_string());
        let answered = with_working_note(task(TaskState::Working), ResultPath::AskAgain, progress);
        assert_eq!(
            answered.status.message.expect("the note").text(),
            format!(
                "1 of 2 orders looked at so far (4711 just now). {}",
                crate::tasks::STILL_WORKING_ASK_AGAIN
            )
        );
        assert_eq!(
            ResultPath::without_push(true).note(),
            crate::tasks::STILL_WORKING_READ_LATER
        );
    }

    /// The note (also a push heartbeat's) is in the task's language; the
    /// catalog's English is the constants' word for word.
    #[test]
    fn the_note_is_in_the_tasks_language() {
        for path in [ResultPath::Push, ResultPath::AskAgain, ResultPath::TasksGet] {
            assert_eq!(path.note_in(crate::agent::Language::En), path.note());
            assert_ne!(path.note_in(crate::agent::Language::Fr), path.note());
        }
        let mut german = task(TaskState::Working);
        super::super::language::keep(&mut german, crate::agent::Language::De);
        let answered = with_working_note(german, ResultPath::Push, None);
        assert_eq!(
            answered.status.message.expect("the note").text(),
            "Ihre Anfrage wird noch bearbeitet; die Antwort folgt, sobald sie fertig ist."
        );
    }
}
