//! A result that arrives after its task finished (an approved action that
//! the retry job carried out later): finished tasks never change, so it
//! becomes a new `completed` task in the same context whose message refers
//! to the finished one (`referenceTaskIds`) and which carries that task's
//! push configs, and the observer (`push/`) hears of it like of any
//! change, so the client's webhook gets the result. It belongs to the owner
//! of the task it follows, and is written in the language that task was
//! answered in.

use super::error::EngineError;
use super::language;
use super::reply::{agent_message, set_status};
use super::store::{TaskStore, Written};
use crate::a2a::{Artifact, Part, Task, TaskKind, TaskState, TaskStatus};
use crate::agent::Language;
use crate::clock::now_rfc3339;

/// The later result of `origin_task_id`, `text` in the language the origin
/// was answered in, stored as a new task (the engine tells the observer of
/// it).
pub(super) async fn store_later_result(
    store: &dyn TaskStore,
    origin_task_id: &str,
    text: &(dyn Fn(Language) -> String + Sync),
) -> Result<(Task, Written), EngineError> {
    let origin = store
        .get(origin_task_id)
        .await?
        .ok_or_else(|| EngineError::TaskNotFound(origin_task_id.to_string()))?;
    let answered_in = language::of_task(&origin.task).unwrap_or_default();
    let text = text(answered_in);
    let mut task = Task {
        kind: TaskKind::Value,
        id: uuid::Uuid::new_v4().to_string(),
        context_id: origin.task.context_id.clone(),
        status: TaskStatus {
            state: TaskState::Working,
            message: None,
            timestamp: Some(now_rfc3339()),
        },
        history: Some(Vec::new()),
        artifacts: Some(vec![Artifact {
            artifact_id: uuid::Uuid::new_v4().to_string(),
            name: Some("answer".into()),
            description: None,
            parts: vec![Part::text(text.clone())],
            metadata: None,
            extensions: None,
        }]),
        metadata: None,
    };
    language::keep(&mut task, answered_in);
    let mut message = agent_message(&task, &text, None);
    message.reference_task_ids = Some(vec![origin_task_id.to_string()]);
    set_status(&mut task, TaskState::Completed, Some(message));
    let configs: Vec<_> = store
        .push_configs(origin_task_id)
        .await?
        .into_iter()
        .map(|config| config.named_after(&task.id))
        .collect();
    // The later result is the origin's owner's, like the task it follows.
    let written = store
        .create(&task, &configs, origin.owner.as_deref())
        .await?;
    Ok((task, written))
}
