//! The result nobody brings: a blocking `message/send` answered `working`
//! at the budget with no push config (Joule's synchronous mode) is told to
//! ask again in the conversation ([`super::STILL_WORKING_ASK_AGAIN`]).
//! Joule's dialog function keeps the task id while the task works, so the
//! next message names the task. While the turn still runs, that message
//! gets the task as it is, with the same note. Once the turn has finished,
//! the task says that its caller was told to ask again
//! (`metadata.toldToAskAgain`), and a message naming it gets its result
//! instead of a turn about the new words: as a new task in the same
//! context that refers to it (finished tasks never change), carrying its
//! state, answer and artifacts. A turn that ends waiting for an answer
//! (`input-required`, e.g. an approval question) is marked too: the caller
//! has not seen the question, so the next message ("is it done?", or a
//! stray "ok") is not read as its answer. It gets the task as it is, with
//! the question, and the mark is taken off; the message after that is the
//! answer.

use super::reply::set_status;
use super::store::{StoreError, StoredTask, TaskStore, Written};
use crate::a2a::{Message, PushNotificationConfig, Task, TaskKind, TaskState, TaskStatus};
use crate::clock::now_rfc3339;
use serde_json::{Map, Value};

/// Task metadata of a finished task whose caller was told to ask again.
const TOLD_TO_ASK_AGAIN: &str = "toldToAskAgain";

/// Mark `task`, if it is finished or waits for an answer, as one whose
/// caller was told to ask again for its result.
pub(super) fn mark(task: &mut Task) {
    if task.status.state.is_terminal() || task.status.state.is_interrupted() {
        task.metadata
            .get_or_insert_with(Map::new)
            .insert(TOLD_TO_ASK_AGAIN.into(), Value::Bool(true));
    }
}

/// Whether `task` is finished and its caller was told to ask again.
pub(super) fn told_to_ask_again(task: &Task) -> bool {
    task.status.state.is_terminal() && marked(task)
}

/// Whether `task` waits for an answer to a question its caller has not
/// seen: they were told to ask again, and the turn then asked.
pub(super) fn question_unseen(task: &Task) -> bool {
    task.status.state.is_interrupted() && marked(task)
}

fn marked(task: &Task) -> bool {
    task.metadata
        .as_ref()
        .and_then(|metadata| metadata.get(TOLD_TO_ASK_AGAIN))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// A message named `waiting`, whose question its caller has not seen:
/// the task as it is, question and all, with the mark taken off so that
/// the next message answers it. No turn runs; the message is not an
/// answer.
pub(super) async fn show_question(
    store: &dyn TaskStore,
    waiting: StoredTask,
) -> Result<Task, StoreError> {
    let mut task = waiting.task;
    if let Some(metadata) = task.metadata.as_mut() {
        metadata.remove(TOLD_TO_ASK_AGAIN);
        if metadata.is_empty() {
            task.metadata = None;
        }
    }
    store.update(&task, waiting.version).await?;
    tracing::info!(
        a2a.task.id = %task.id,
        "message for a task whose caller was told to ask again: its question"
    );
    Ok(task)
}

/// `message` named `origin`, a finished task whose caller was told to ask
/// again: a new task of `owner` in its context, finished as it finished,
/// with `message` as its question (and its inline push config, which the
/// engine tells of it at once).
pub(super) async fn answer_again(
    store: &dyn TaskStore,
    origin: Task,
    mut message: Message,
    push: Option<PushNotificationConfig>,
    owner: Option<&str>,
) -> Result<(Task, Written), StoreError> {
    let task_id = uuid::Uuid::now_v7().to_string();
    message.task_id = Some(task_id.clone());
    message.context_id = Some(origin.context_id.clone());
    let references = message.reference_task_ids.get_or_insert_with(Vec::new);
    if !references.contains(&origin.id) {
        references.push(origin.id.clone());
    }
    let mut task = Task {
        kind: TaskKind::Value,
        id: task_id,
        context_id: origin.context_id.clone(),
        status: TaskStatus {
            state: TaskState::Working,
            message: None,
            timestamp: Some(now_rfc3339()),
        },
        history: Some(vec![message]),
        artifacts: origin.artifacts.clone(),
        metadata: None,
    };
    let answer = origin.status.message.clone().map(|mut answer| {
        answer.message_id = uuid::Uuid::new_v4().to_string();
        answer.task_id = Some(task.id.clone());
        answer.context_id = Some(task.context_id.clone());
        answer.reference_task_ids = Some(vec![origin.id.clone()]);
        answer
    });
    set_status(&mut task, origin.status.state, answer);
    let configs: Vec<PushNotificationConfig> = push
        .map(|config| config.named_after(&task.id))
        .into_iter()
        .collect();
    let written = store.create(&task, &configs, owner).await?;
    tracing::info!(
        a2a.task.id = %task.id,
        origin = %origin.id,
        "message for a task whose caller was told to ask again: its result"
    );
    Ok((task, written))
}
