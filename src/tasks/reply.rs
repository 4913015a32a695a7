//! The mapping of an agent's reply onto its task: the status (with the
//! answer as its message), the answer artifact (always `artifacts[0]`, where
//! Joule's functions read it), the proposal artifact, and the proposal the
//! task waits on for an approval (`metadata.pendingApproval`). Also the
//! status helpers every part of the engine writes statuses with.

use crate::a2a::{Artifact, Message, Part, Task, TaskState, TaskStatus};
use crate::agent::{ApprovalStatus, Outcome, Proposal, Reply};
use crate::clock::now_rfc3339;
use serde_json::{Map, Value, json};

fn outcome_state(outcome: Outcome) -> TaskState {
    match outcome {
        Outcome::InputRequired => TaskState::InputRequired,
        Outcome::Completed => TaskState::Completed,
        Outcome::Failed => TaskState::Failed,
        Outcome::Rejected => TaskState::Rejected,
    }
}

pub(super) fn agent_message(
    task: &Task,
    text: &str,
    metadata: Option<Map<String, Value>>,
) -> Message {
    let mut message = Message::agent_text(text);
    message.task_id = Some(task.id.clone());
    message.context_id = Some(task.context_id.clone());
    message.metadata = metadata;
    message
}

/// The status message of a `working` answer: a blocking `message/send`
/// whose budget ran out, a push heartbeat while the turn works. Joule
/// shows the text of whatever answer it gets, so a `working` answer is
/// never silent.
pub const STILL_WORKING: &str =
    "Still working on your request; the answer follows as soon as it is ready.";

/// The agent message saying the turn goes on ([`STILL_WORKING`]).
pub fn working_note(task: &Task) -> Message {
    agent_message(task, STILL_WORKING, None)
}

/// The current status message moves into the history when the status
/// changes (as the reference SDK does), so each message is stored once.
pub(super) fn archive_status_message(task: &mut Task) {
    if let Some(previous) = task.status.message.take() {
        task.history.get_or_insert_with(Vec::new).push(previous);
    }
}

pub(super) fn set_status(task: &mut Task, state: TaskState, message: Option<Message>) {
    archive_status_message(task);
    task.status = TaskStatus {
        state,
        message,
        timestamp: Some(now_rfc3339()),
    };
}

/// Where a task keeps the proposal it asked the user to approve. Task
/// metadata: clients can read it but never write it.
const PENDING_APPROVAL: &str = "pendingApproval";

/// The proposal this task waits on, if it asked for an approval.
pub(super) fn pending_approval(task: &Task) -> Option<Proposal> {
    let value = task.metadata.as_ref()?.get(PENDING_APPROVAL)?;
    match serde_json::from_value(value.clone()) {
        Ok(proposal) => Some(proposal),
        Err(error) => {
            tracing::error!(task.id = %task.id, %error, "stored pending approval is unreadable");
            None
        }
    }
}

/// Apply the agent's reply: status message, answer and proposal artifacts,
/// and the proposal the task now waits on (or not).
pub(super) fn apply_reply(task: &mut Task, reply: Reply) {
    let state = outcome_state(reply.outcome);
    let mut metadata = Map::new();
    if let Some(routing) = &reply.routing {
        metadata.insert("routing".into(), json!(routing));
    }
    if let Some(approval) = &reply.approval {
        metadata.insert("approval".into(), json!(approval));
    }
    let metadata = (!metadata.is_empty()).then_some(metadata);
    let message = agent_message(task, &reply.text, metadata);
    let waiting = reply
        .approval
        .as_ref()
        .is_some_and(|note| note.status == ApprovalStatus::Pending);
    // A re-asked approval keeps the proposal it already stored.
    let pending = reply
        .proposal
        .clone()
        .or_else(|| waiting.then(|| pending_approval(task)).flatten());
    let task_metadata = task.metadata.get_or_insert_with(Map::new);
    match (&pending, waiting) {
        (Some(proposal), true) => {
            task_metadata.insert(PENDING_APPROVAL.into(), json!(proposal));
        }
        _ => {
            task_metadata.remove(PENDING_APPROVAL);
        }
    }
    if task_metadata.is_empty() {
        task.metadata = None;
    }
    let artifacts = task.artifacts.get_or_insert_with(Vec::new);
    if state.is_terminal() {
        // First, always: Joule's functions read the answer at
        // `artifacts[0].parts[0].text`, also when an approval question put
        // the proposal artifact there one turn earlier.
        artifacts.insert(
            0,
            Artifact {
                artifact_id: uuid::Uuid::new_v4().to_string(),
                name: Some("answer".into()),
                description: None,
                parts: vec![Part::text(reply.text.clone())],
                metadata: None,
                extensions: None,
            },
        );
    }
    // The proposal is shown once, when the specialist makes it (answer or
    // approval question alike).
    if let Some(proposal) = &reply.proposal
        && let Value::Object(data) = json!(proposal)
        && (state.is_terminal() || waiting)
    {
        artifacts.push(Artifact {
            artifact_id: uuid::Uuid::new_v4().to_string(),
            name: Some("proposal".into()),
            description: Some(proposal.summary.clone()),
            parts: vec![Part::data(data)],
            metadata: None,
            extensions: None,
        });
    }
    if artifacts.is_empty() {
        task.artifacts = None;
    }
    set_status(task, state, Some(message));
}
