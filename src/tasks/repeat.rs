//! A repeated message is not a second request. A client or a proxy that
//! lost its connection sends the same message again, with the same
//! `messageId` (A2A allows deduplication on it); that repeat is answered
//! with the task the first one opened or continued, as it stands now,
//! and no second task or turn is started. Only the same caller's repeat
//! counts: another caller's message with the same id is a message of its
//! own. What a task was opened by is kept with the task (the store's
//! [`TaskStore::opened_by`]; a task not stored yet, by its running turn);
//! what continued a task is in its history. The rule for callers is in
//! docs/api.md.

use super::call::CallContext;
use super::error::EngineError;
use super::running::RunningTurns;
use super::store::{StoreError, TaskStore};
use crate::a2a::{Message, Role, Task};

/// The task that `message`, sent before by the same caller, opened, as it
/// stands now; `None` for a message not seen before (or whose task is
/// gone). A repeat that names a task other than the one its first sending
/// opened (or referred to) is refused: one `messageId` is one message.
pub(super) async fn task_opened_by(
    store: &dyn TaskStore,
    running: &RunningTurns,
    message: &Message,
    call: &CallContext,
) -> Result<Option<Task>, EngineError> {
    let owner = call.owner();
    let message_id = message.message_id.as_str();
    let found = match running.opened_here(owner, message_id) {
        Some((claimed, stored)) => {
            // Its blocking caller would have stored it once finished; the
            // repeat's caller learns its id now, so it is stored now (under
            // the turn's lock: the turn then updates it). A turn that has
            // already answered with a bare message has no task to answer.
            let mut at = stored.lock().await;
            if at.version.is_none() {
                if !running.runs(&claimed.id) {
                    return Ok(None);
                }
                at.version = Some(store.create(&claimed, &[], owner).await?.version);
            }
            drop(at);
            current(store, &claimed.id).await?
        }
        None => match store.opened_by(owner, message_id).await? {
            Some(task_id) => current(store, &task_id).await?,
            None => None,
        },
    };
    let Some(task) = found else {
        return Ok(None);
    };
    if let Some(named) = message.task_id.as_deref().filter(|id| !id.is_empty())
        && named != task.id
        && !referred_to(&task, named)
    {
        return Err(EngineError::InvalidParams(format!(
            "params.message.messageId: message {message_id} was already sent for task {}; \
             a new message needs a new messageId",
            task.id
        )));
    }
    tracing::info!(a2a.task.id = %task.id, "a repeated message: its task as it stands");
    Ok(Some(task))
}

/// Whether a message of the caller's with `message_id` is in `task`'s
/// history: a repeat of a message that continued it.
pub(super) fn continued_by(task: &Task, message_id: &str) -> bool {
    task.history
        .iter()
        .flatten()
        .any(|message| message.role == Role::User && message.message_id == message_id)
}

/// Whether the message that opened `task` referred to task `task_id` (it
/// named a finished or unknown task, and a new one was opened for it).
fn referred_to(task: &Task, task_id: &str) -> bool {
    task.history
        .iter()
        .flatten()
        .next()
        .and_then(|opening| opening.reference_task_ids.as_ref())
        .is_some_and(|references| references.iter().any(|id| id == task_id))
}

/// The task as stored now; `None` when it is gone.
async fn current(store: &dyn TaskStore, task_id: &str) -> Result<Option<Task>, StoreError> {
    Ok(store.get(task_id).await?.map(|stored| stored.task))
}
