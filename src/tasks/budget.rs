//! The budget waiter: a blocking `message/send` waits for its turn to end
//! or pause, at most the budget (55 s by default, inside Joule's 60 s); when
//! it runs out the caller gets the task as `working`, with a note that the
//! answer follows, and the turn goes on (push delivers the rest).

use super::engine::TaskEngine;
use super::error::EngineError;
use super::events::{Answer, TaskEvent};
use super::observer::CallContext;
use super::reply::{agent_message, working_note};
use super::turn::{PendingTurn, StoredVersion};
use crate::a2a::{Task, TaskState};
use crate::agent::Progress;
use std::sync::Arc;
use tokio::sync::broadcast;

/// `task` as a `working` answer says it: with [`working_note`] as its
/// status message when it is still under way and says nothing yet. Only
/// the answer carries the note, never the stored task: the real answer
/// replaces it when the turn ends, and since the status message moves into
/// the history when the status changes, a stored note would stay there as
/// a stale agent message between the question and its answer.
/// A turn that published how far it got (a batch: "2 of 4 orders looked
/// at so far") says that instead of the generic note.
fn with_working_note(mut task: Task, progress: Option<String>) -> Task {
    let under_way = matches!(task.status.state, TaskState::Submitted | TaskState::Working);
    if under_way && task.status.message.is_none() {
        task.status.message = Some(match progress {
            Some(text) => agent_message(&task, &text, None),
            None => working_note(&task),
        });
    }
    task
}

impl TaskEngine {
    /// Wait for the turn to end or pause, at most the budget (unless the
    /// call's rules say to wait past it).
    pub(super) async fn wait(
        &self,
        task: Arc<Task>,
        mut events: broadcast::Receiver<TaskEvent>,
        stored: StoredVersion,
        progress: Progress,
        mut turn: PendingTurn,
        call: &CallContext,
    ) -> Result<Answer, EngineError> {
        let mut deadline = Some(tokio::time::Instant::now() + self.inner.settings.budget());
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
                Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) => break,
                Err(_) => {
                    // The turn goes on alone (it may hold the lock below).
                    turn.run_on_its_own();
                    crate::telemetry::metrics::budget_expired();
                    let waits_on = call.rules.wait_past_budget;
                    tracing::info!(
                        a2a.task.id = %task.id,
                        budget_ms = i64::try_from(self.inner.settings.budget().as_millis())
                            .unwrap_or(i64::MAX),
                        waits_on,
                        "budget expired: the turn goes on"
                    );
                    // A deferred task is stored now: the client learns its id.
                    let mut version = stored.lock().await;
                    // The turn may have answered a bare message while we
                    // waited for the lock: then no task is stored.
                    if version.is_none()
                        && let Some(message) = answered_message(&mut events)
                    {
                        return Ok(Answer::Message(message));
                    }
                    if version.is_none() {
                        *version = Some(
                            self.inner
                                .store
                                .create(&task, &[], call.owner())
                                .await?
                                .version,
                        );
                        if !waits_on {
                            return Ok(Answer::Task(
                                Arc::new(with_working_note(
                                    Arc::unwrap_or_clone(task),
                                    progress.latest(),
                                )),
                                None,
                            ));
                        }
                    }
                    drop(version);
                    if waits_on {
                        deadline = None;
                        continue;
                    }
                    return Ok(Answer::Task(
                        Arc::new(with_working_note(
                            self.current(&task.id).await?,
                            progress.latest(),
                        )),
                        None,
                    ));
                }
            }
        }
        self.current(&task.id)
            .await
            .map(|task| Answer::Task(Arc::new(task), None))
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
            let answered = with_working_note(task(state), None);
            let message = answered.status.message.expect("the note");
            assert_eq!(message.text(), crate::tasks::STILL_WORKING);
            assert_eq!(message.task_id.as_deref(), Some("t"));
        }
        for state in [TaskState::InputRequired, TaskState::Completed] {
            assert!(
                with_working_note(task(state), None)
                    .status
                    .message
                    .is_none()
            );
        }
    }
}
