//! The mapping of an agent's reply onto its task: the status (with the
//! answer as its message), the answer artifact (always `artifacts[0]`, where
//! Joule's functions read it, once the task is finished or shows data;
//! unless the reply asks for none), the proposal artifact (or, for a batch of
//! orders, the `orders` / `approvals` data artifact), and what the task
//! waits on for an approval (`metadata.pendingApproval`: one proposal, or a
//! batch's list), with the question's buttons in the status message's
//! metadata (`quickReplies`, in the task's language). Also the status helpers every part of the engine writes
//! statuses with.

use super::events::{ArtifactPiece, TaskEvent};
use crate::a2a::{Artifact, Message, Part, Task, TaskState, TaskStatus};
use crate::agent::approval::quick_replies;
use crate::agent::language::{Language, catalog};
use crate::agent::{ApprovalStatus, Outcome, PendingApproval, Reply};
use crate::clock::now_rfc3339;
use serde_json::{Map, Value, json};
use std::sync::Arc;

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

/// The status message's metadata that holds an approval question's
/// buttons (Joule's `quickReplies` message content: a title and buttons,
/// each with the text it sends).
pub const QUICK_REPLIES: &str = "quickReplies";

/// The status message of a `working` answer where a push config brings
/// the result: a blocking `message/send` whose budget ran out, a push
/// heartbeat while the turn works. Joule shows the text of whatever answer
/// it gets, so a `working` answer is never silent.
pub const STILL_WORKING: &str =
    "Still working on your request; the answer follows as soon as it is ready.";

/// The same where nothing brings the result (Joule's synchronous mode: no
/// push config): the caller's next message naming the task gets it
/// ([`super::ask_again`]), so that is what the user is told to send.
pub const STILL_WORKING_ASK_AGAIN: &str = "Still working on your request; this takes longer \
     than usual. Ask again in this conversation in a minute or two (for example \"is it done?\") \
     to get the answer.";

/// The same with strict task ids (`tasks.strict_task_ids`), where a
/// message naming a finished task is an error: the result is read.
pub const STILL_WORKING_READ_LATER: &str = "Still working on your request; the answer is not \
     sent by itself: read it with tasks/get once the task has ended.";

/// How a caller answered `working` learns the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultPath {
    /// A push config delivers it ([`STILL_WORKING`]).
    Push,
    /// Its next message naming the task gets it ([`STILL_WORKING_ASK_AGAIN`]).
    AskAgain,
    /// `tasks/get` ([`STILL_WORKING_READ_LATER`]).
    TasksGet,
}

impl ResultPath {
    /// Without a push config: ask again, or read it where asking again
    /// would be an error.
    pub fn without_push(strict_task_ids: bool) -> Self {
        if strict_task_ids {
            ResultPath::TasksGet
        } else {
            ResultPath::AskAgain
        }
    }

    /// The English note, as the API tests know it.
    #[cfg(test)]
    pub fn note(self) -> &'static str {
        match self {
            ResultPath::Push => STILL_WORKING,
            ResultPath::AskAgain => STILL_WORKING_ASK_AGAIN,
            ResultPath::TasksGet => STILL_WORKING_READ_LATER,
        }
    }
}

impl ResultPath {
    /// The note in `language`, from its catalog (English: the constants
    /// above, word for word).
    pub fn note_in(self, language: Language) -> String {
        let id = match self {
            ResultPath::Push => "still-working",
            ResultPath::AskAgain => "still-working-ask-again",
            ResultPath::TasksGet => "still-working-read-later",
        };
        catalog::text(catalog::answering(language), id, &[])
    }
}

/// The agent message saying the turn goes on and how its result comes, in
/// the language the task's turn is answered in (`metadata.language`; push
/// heartbeats say it the same way): `progress` (how far a turn got, already
/// in that language) first when there is one.
pub fn working_note(task: &Task, path: ResultPath, progress: Option<&str>) -> Message {
    let language = super::language::of_task(task).unwrap_or_default();
    let note = path.note_in(language);
    let text = match progress {
        Some(progress) => format!("{progress} {note}"),
        None => note,
    };
    agent_message(task, &text, None)
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

/// What this task waits on, if it asked for an approval.
pub(super) fn pending_approval(task: &Task) -> Option<PendingApproval> {
    let value = task.metadata.as_ref()?.get(PENDING_APPROVAL)?;
    match serde_json::from_value(value.clone()) {
        Ok(proposal) => Some(proposal),
        Err(error) => {
            tracing::error!(a2a.task.id = %task.id, %error, "stored pending approval is unreadable");
            None
        }
    }
}

/// Each chunked artifact once, its pieces' parts joined in order (the
/// first piece gives the name and description).
fn joined_chunks(chunks: &[Artifact]) -> Vec<Artifact> {
    let mut whole: Vec<Artifact> = Vec::new();
    for chunk in chunks {
        match whole
            .iter_mut()
            .find(|artifact| artifact.artifact_id == chunk.artifact_id)
        {
            Some(artifact) => artifact.parts.extend(chunk.parts.iter().cloned()),
            None => whole.push(chunk.clone()),
        }
    }
    whole
}

/// A chunked artifact's pieces as stream events: each piece after the
/// first of its artifact appends, the last of its artifact is the last.
pub(super) fn chunk_events(task: &Arc<Task>, chunks: &[Artifact]) -> Vec<TaskEvent> {
    chunks
        .iter()
        .enumerate()
        .map(|(at, chunk)| {
            let same = |other: &Artifact| other.artifact_id == chunk.artifact_id;
            TaskEvent::Artifact(
                Arc::clone(task),
                ArtifactPiece::Chunk {
                    artifact: Arc::new(chunk.clone()),
                    append: chunks[..at].iter().any(same),
                    last_chunk: !chunks[at + 1..].iter().any(same),
                },
            )
        })
        .collect()
}

/// The name of a batch's approval results: one artifact per task.
const APPROVALS: &str = "approvals";

/// Which note of an `approvals` artifact `note` takes the place of: the
/// one about the same order and action.
fn same_decision(note: &Value, other: &Value) -> bool {
    note.get("salesOrder") == other.get("salesOrder") && note.get("action") == other.get("action")
}

/// Put an approval turn's notes into the task's one `approvals` artifact:
/// replaced in place (same `artifactId`, same place) when an earlier turn
/// made it, so it holds every order decided so far with its latest note
/// and the latest turn's summary; else added. Its id, for the event that
/// tells streaming clients (`append: false` replaces an artifact of the
/// same id).
fn put_approvals(
    artifacts: &mut Vec<Artifact>,
    mut data: Map<String, Value>,
    summary: &str,
) -> String {
    let earlier = artifacts
        .iter_mut()
        .find(|artifact| artifact.name.as_deref() == Some(APPROVALS));
    let Some(artifact) = earlier else {
        let artifact_id = uuid::Uuid::new_v4().to_string();
        artifacts.push(Artifact {
            artifact_id: artifact_id.clone(),
            name: Some(APPROVALS.into()),
            description: Some(summary.to_string()),
            parts: vec![Part::data(data)],
            metadata: None,
            extensions: None,
        });
        return artifact_id;
    };
    let mut notes: Vec<Value> = artifact
        .parts
        .iter()
        .find_map(|part| match part {
            Part::Data(earlier) => earlier.data.get(APPROVALS)?.as_array().cloned(),
            _ => None,
        })
        .unwrap_or_default();
    let newer = match data.remove(APPROVALS) {
        Some(Value::Array(newer)) => newer,
        _ => Vec::new(),
    };
    for note in newer {
        match notes
            .iter_mut()
            .find(|earlier| same_decision(earlier, &note))
        {
            Some(earlier) => *earlier = note,
            None => notes.push(note),
        }
    }
    data.insert(APPROVALS.into(), Value::Array(notes));
    artifact.description = Some(summary.to_string());
    artifact.parts = vec![Part::data(data)];
    artifact.artifact_id.clone()
}

/// Apply the agent's reply: status message, answer and proposal artifacts,
/// and the proposal the task now waits on (or not). Returns the ids of the
/// whole artifacts it added or replaced (a chunked artifact's pieces are
/// told by [`chunk_events`]).
pub(super) fn apply_reply(task: &mut Task, reply: Reply) -> Vec<String> {
    let state = outcome_state(reply.outcome);
    let mut metadata = Map::new();
    if let Some(routing) = &reply.routing {
        metadata.insert("routing".into(), json!(routing));
    }
    if let Some(approval) = &reply.approval {
        metadata.insert("approval".into(), json!(approval));
    }
    if let Some(batch) = &reply.batch {
        let notes: Vec<_> = if batch.approvals.is_empty() {
            batch
                .orders
                .iter()
                .filter_map(|o| o.approval.as_ref())
                .collect()
        } else {
            batch.approvals.iter().collect()
        };
        if !notes.is_empty() {
            metadata.insert("approvals".into(), json!(notes));
        }
    }
    let (pending, waiting) = match &reply.batch {
        Some(batch) => {
            let waiting = state == TaskState::InputRequired && batch.waits();
            (
                waiting.then(|| PendingApproval::Batch(batch.pending.clone())),
                waiting,
            )
        }
        None => {
            let waiting = reply
                .approval
                .as_ref()
                .is_some_and(|note| note.status == ApprovalStatus::Pending);
            // A re-asked approval keeps the proposal it already stored.
            // Read only when the task waits: nothing else keeps it.
            let pending = waiting
                .then(|| {
                    reply
                        .proposal
                        .clone()
                        .map(PendingApproval::One)
                        .or_else(|| pending_approval(task))
                })
                .flatten();
            (pending, waiting)
        }
    };
    // The question's buttons, where the client shows them.
    if waiting
        && let Some(pending) = &pending
        && let Some(buttons) =
            quick_replies::for_pending(pending, super::language::of_task(task).unwrap_or_default())
    {
        metadata.insert(QUICK_REPLIES.into(), json!(buttons));
    }
    let metadata = (!metadata.is_empty()).then_some(metadata);
    let message = agent_message(task, &reply.text, metadata);
    let task_metadata = task.metadata.get_or_insert_with(Map::new);
    match (&pending, waiting) {
        (Some(pending), true) => {
            task_metadata.insert(PENDING_APPROVAL.into(), json!(pending));
        }
        _ => {
            task_metadata.remove(PENDING_APPROVAL);
        }
    }
    if task_metadata.is_empty() {
        task.metadata = None;
    }
    let artifacts = task.artifacts.get_or_insert_with(Vec::new);
    let mut written = Vec::new();
    let whole = super::artifacts::to_a2a(&reply.artifacts);
    written.extend(whole.iter().map(|a| a.artifact_id.clone()));
    artifacts.extend(whole);
    artifacts.extend(joined_chunks(&super::artifacts::to_a2a(
        &reply.artifact_chunks,
    )));
    // The proposal is shown once, when the specialist makes it (answer or
    // approval question alike).
    if let Some(proposal) = &reply.proposal
        && let Value::Object(data) = json!(proposal)
        && (state.is_terminal() || waiting)
    {
        let artifact_id = uuid::Uuid::new_v4().to_string();
        written.push(artifact_id.clone());
        artifacts.push(Artifact {
            artifact_id,
            name: Some("proposal".into()),
            description: Some(proposal.summary.clone()),
            parts: vec![Part::data(data)],
            metadata: None,
            extensions: None,
        });
    }
    // A batch's per-order results: `orders` when explained, `approvals`
    // when decided (one artifact, kept up to date).
    if let Some(batch) = &reply.batch
        && let Value::Object(data) = json!(batch)
    {
        if !batch.orders.is_empty() {
            let artifact_id = uuid::Uuid::new_v4().to_string();
            written.push(artifact_id.clone());
            artifacts.push(Artifact {
                artifact_id,
                name: Some("orders".into()),
                description: Some(batch.summary.clone()),
                parts: vec![Part::data(data)],
                metadata: None,
                extensions: None,
            });
        } else if !batch.approvals.is_empty() {
            written.push(put_approvals(artifacts, data, &batch.summary));
        }
    }
    // The answer text first, always: Joule's functions read it at
    // `artifacts[0].parts[0].text`. A finished task has it; so has a
    // waiting one that shows data (a proposal, a batch's orders), so
    // `artifacts[0]` is never the data. A bare question needs none.
    if reply.wants_answer_artifact() && (state.is_terminal() || !artifacts.is_empty()) {
        written.push(put_answer_first(artifacts, &reply.text));
    }
    if artifacts.is_empty() {
        task.artifacts = None;
    }
    set_status(task, state, Some(message));
    written
}

/// The name of the answer text's artifact, `artifacts[0]`.
const ANSWER: &str = "answer";

/// `text` as the task's one `answer` artifact, `artifacts[0]`: replaced in
/// place when an earlier turn put it there (its earlier texts stay in the
/// history, as status messages), else added first. Its id.
fn put_answer_first(artifacts: &mut Vec<Artifact>, text: &str) -> String {
    if let Some(answer) = artifacts
        .first_mut()
        .filter(|artifact| artifact.name.as_deref() == Some(ANSWER))
    {
        answer.parts = vec![Part::text(text.to_string())];
        return answer.artifact_id.clone();
    }
    let artifact_id = uuid::Uuid::new_v4().to_string();
    artifacts.insert(
        0,
        Artifact {
            artifact_id: artifact_id.clone(),
            name: Some(ANSWER.into()),
            description: None,
            parts: vec![Part::text(text.to_string())],
            metadata: None,
            extensions: None,
        },
    );
    artifact_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::TaskKind;
    use crate::agent::approval::ApprovalNote;
    use crate::agent::{Action, Proposal};

    fn working_task() -> Task {
        let mut question = Message::agent_text("why is 4725 blocked?");
        question.role = crate::a2a::Role::User;
        Task {
            kind: TaskKind::Value,
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Working,
                message: None,
                timestamp: None,
            },
            history: Some(vec![question]),
            artifacts: None,
            metadata: None,
        }
    }

    fn proposal() -> Proposal {
        Proposal {
            action: Action::OpenDisputeCase,
            sales_order: "4725".into(),
            specialist: "pricing".into(),
            summary: "Open a dispute case for 4725".into(),
            details: Map::new(),
        }
    }

    fn note(status: ApprovalStatus) -> ApprovalNote {
        ApprovalNote {
            status,
            action: Action::OpenDisputeCase,
            sales_order: "4725".into(),
            roles: Vec::new(),
            may_decide: Vec::new(),
            entry: None,
        }
    }

    /// The approval question: the proposal is shown and kept as pending.
    fn asking(text: &str) -> Reply {
        Reply {
            proposal: Some(proposal()),
            approval: Some(note(ApprovalStatus::Pending)),
            ..Reply::new(Outcome::InputRequired, text)
        }
    }

    fn artifact_names(task: &Task) -> Vec<&str> {
        task.artifacts
            .iter()
            .flatten()
            .map(|artifact| artifact.name.as_deref().unwrap_or("-"))
            .collect()
    }

    fn first_text(artifact: &Artifact) -> Option<&str> {
        match artifact.parts.first() {
            Some(Part::Text(text)) => Some(text.text.as_str()),
            _ => None,
        }
    }

    #[test]
    fn the_answer_is_artifacts_0_also_after_an_approval_question() {
        let mut task = working_task();
        let asked = apply_reply(&mut task, asking("Open a dispute case? Reply approve."));
        assert_eq!(task.status.state, TaskState::InputRequired);
        // The question shows the proposal: its text comes first.
        assert_eq!(artifact_names(&task), ["answer", "proposal"]);
        let artifacts = task.artifacts.clone().unwrap_or_default();
        assert_eq!(
            first_text(&artifacts[0]),
            Some("Open a dispute case? Reply approve.")
        );
        assert_eq!(asked.len(), 2, "both are new: {asked:?}");

        let filed = Reply {
            approval: Some(note(ApprovalStatus::Filed)),
            ..Reply::new(Outcome::Completed, "Filed: dispute case for 4725.")
        };
        let answered = apply_reply(&mut task, filed);
        assert_eq!(task.status.state, TaskState::Completed);
        // Joule's functions read `artifacts[0].parts[0].text`: one answer,
        // replaced in place.
        assert_eq!(artifact_names(&task), ["answer", "proposal"]);
        let now = task.artifacts.as_deref().unwrap_or_default();
        assert_eq!(first_text(&now[0]), Some("Filed: dispute case for 4725."));
        assert_eq!(now[0].artifact_id, artifacts[0].artifact_id);
        assert_eq!(answered, [artifacts[0].artifact_id.clone()]);
    }

    #[test]
    fn a_finished_answer_with_a_proposal_puts_the_answer_first() {
        let mut task = working_task();
        let reply = Reply {
            proposal: Some(proposal()),
            ..Reply::new(Outcome::Completed, "4725 waits on a price dispute.")
        };
        apply_reply(&mut task, reply);
        assert_eq!(artifact_names(&task), ["answer", "proposal"]);
        let artifacts = task.artifacts.as_deref().unwrap_or_default();
        assert_eq!(
            artifacts[1].description.as_deref(),
            Some("Open a dispute case for 4725")
        );
        match &artifacts[1].parts[..] {
            [Part::Data(data)] => assert_eq!(data.data["salesOrder"], "4725"),
            parts => panic!("one data part: {parts:?}"),
        }
        assert!(
            task.metadata.is_none(),
            "nothing waits: {:?}",
            task.metadata
        );
    }

    #[test]
    fn a_pending_approval_is_kept_in_metadata_and_kept_when_asked_again() {
        let mut task = working_task();
        apply_reply(&mut task, asking("Open a dispute case? Reply approve."));
        assert_eq!(
            pending_approval(&task),
            Some(PendingApproval::One(proposal()))
        );

        // "maybe": the question again, without a new proposal; the stored
        // one stays and is not shown a second time.
        let again = Reply {
            approval: Some(note(ApprovalStatus::Pending)),
            ..Reply::new(Outcome::InputRequired, "Please reply approve or reject.")
        };
        apply_reply(&mut task, again);
        assert_eq!(
            pending_approval(&task),
            Some(PendingApproval::One(proposal()))
        );
        assert_eq!(artifact_names(&task), ["answer", "proposal"]);
        let artifacts = task.artifacts.as_deref().unwrap_or_default();
        assert_eq!(
            first_text(&artifacts[0]),
            Some("Please reply approve or reject.")
        );

        let declined = Reply {
            approval: Some(note(ApprovalStatus::Declined)),
            ..Reply::new(Outcome::Completed, "Nothing was filed.")
        };
        apply_reply(&mut task, declined);
        assert_eq!(pending_approval(&task), None);
        assert!(task.metadata.is_none(), "{:?}", task.metadata);
    }

    #[test]
    fn a_question_without_a_proposal_adds_no_artifact() {
        let mut task = working_task();
        apply_reply(
            &mut task,
            Reply::new(Outcome::InputRequired, "Which sales order?"),
        );
        assert_eq!(task.status.state, TaskState::InputRequired);
        assert!(task.artifacts.is_none(), "{:?}", task.artifacts);
        assert!(task.metadata.is_none(), "{:?}", task.metadata);
        let message = task.status.message.as_ref().expect("a status message");
        assert_eq!(message.text(), "Which sales order?");
        assert_eq!(message.task_id.as_deref(), Some("t"));
        assert_eq!(message.context_id.as_deref(), Some("c"));
        assert!(message.metadata.is_none(), "no routing, no approval");
    }

    #[test]
    fn the_approval_travels_in_the_message_metadata() {
        let mut task = working_task();
        apply_reply(&mut task, asking("Open a dispute case? Reply approve."));
        let message = task.status.message.as_ref().expect("a status message");
        let metadata = message.metadata.as_ref().expect("metadata");
        assert_eq!(metadata["approval"]["status"], "pending");
        assert_eq!(metadata["approval"]["salesOrder"], "4725");
    }

    #[test]
    fn each_message_is_kept_once_the_old_status_message_goes_into_the_history() {
        let mut task = working_task();
        apply_reply(
            &mut task,
            Reply::new(Outcome::InputRequired, "Which sales order?"),
        );
        assert_eq!(task.history.as_ref().map(Vec::len), Some(1));
        set_status(&mut task, TaskState::Working, None);
        let history = task.history.as_deref().unwrap_or_default();
        assert_eq!(history.len(), 2);
        assert_eq!(history[1].text(), "Which sales order?");
        assert!(task.status.message.is_none());
        assert!(task.status.timestamp.is_some());
    }

    #[test]
    fn a_batch_keeps_its_offered_list_while_one_waits_and_adds_the_orders_artifact() {
        use crate::agent::approval::{PendingOrder, PendingState};
        use crate::agent::batch::{BatchItem, BatchReport, ItemState};
        let mut task = working_task();
        let offered = vec![PendingOrder {
            proposal: proposal(),
            state: PendingState::Pending,
        }];
        let report = |pending: Vec<PendingOrder>| BatchReport {
            summary: "1 of 1 order explained.".into(),
            orders: vec![BatchItem {
                order: "4725".into(),
                specialist: Some("pricing".into()),
                state: ItemState::Completed,
                explanation: "4725 waits on a price dispute.".into(),
                proposal: Some(proposal()),
                approval: Some(note(ApprovalStatus::Pending)),
            }],
            not_listed: 0,
            approvals: Vec::new(),
            pending,
        };
        let asking = Reply {
            batch: Some(report(offered.clone())),
            ..Reply::new(Outcome::InputRequired, "Approve: 4725 open a dispute case?")
        };
        apply_reply(&mut task, asking);
        // The batch's text first, its per-order data after it.
        assert_eq!(artifact_names(&task), ["answer", "orders"]);
        let artifacts = task.artifacts.as_deref().unwrap_or_default();
        assert_eq!(
            first_text(&artifacts[0]),
            Some("Approve: 4725 open a dispute case?")
        );
        let stored = &task.metadata.as_ref().expect("metadata")[PENDING_APPROVAL];
        assert!(stored.is_array(), "a batch keeps a list: {stored}");
        assert_eq!(
            pending_approval(&task),
            Some(PendingApproval::Batch(offered.clone()))
        );
        let message = task.status.message.as_ref().expect("a status message");
        let metadata = message.metadata.as_ref().expect("metadata");
        assert_eq!(metadata["approvals"][0]["salesOrder"], "4725");

        // Decided: nothing waits, the answer goes first.
        let mut decided = offered;
        decided[0].state = PendingState::Filed;
        let done = Reply {
            batch: Some(BatchReport {
                orders: Vec::new(),
                approvals: vec![note(ApprovalStatus::Filed)],
                ..report(decided)
            }),
            ..Reply::new(Outcome::Completed, "4725: Filed.")
        };
        apply_reply(&mut task, done);
        assert_eq!(artifact_names(&task), ["answer", "orders", "approvals"]);
        assert_eq!(pending_approval(&task), None);
    }

    #[test]
    fn approval_turns_keep_one_approvals_artifact_with_each_orders_latest_note() {
        use crate::agent::batch::BatchReport;
        let decided = |summary: &str, notes: Vec<ApprovalNote>| Reply {
            batch: Some(BatchReport {
                summary: summary.into(),
                orders: Vec::new(),
                not_listed: 0,
                approvals: notes,
                pending: Vec::new(),
            }),
            ..Reply::new(Outcome::InputRequired, summary)
        };
        let of = |order: &str, status| ApprovalNote {
            sales_order: order.into(),
            ..note(status)
        };
        let mut task = working_task();
        let first = apply_reply(
            &mut task,
            decided("4725: Filed.", vec![of("4725", ApprovalStatus::Filed)]),
        );
        let ids: Vec<String> = task
            .artifacts
            .iter()
            .flatten()
            .map(|artifact| artifact.artifact_id.clone())
            .collect();
        assert_eq!(artifact_names(&task), ["answer", "approvals"]);
        let id = ids[1].clone();
        assert_eq!(first, [id.clone(), ids[0].clone()]);
        let second = apply_reply(
            &mut task,
            decided(
                "4725: Already filed.",
                vec![
                    of("4725", ApprovalStatus::AlreadyFiled),
                    of("4740", ApprovalStatus::Declined),
                ],
            ),
        );
        assert_eq!(second, first, "replaced, not added");
        let artifacts = task.artifacts.as_deref().unwrap_or_default();
        assert_eq!(artifact_names(&task), ["answer", "approvals"]);
        assert_eq!(artifacts[1].artifact_id, id);
        assert_eq!(
            artifacts[1].description.as_deref(),
            Some("4725: Already filed.")
        );
        let Part::Data(data) = &artifacts[1].parts[0] else {
            panic!("a data part: {:?}", artifacts[1].parts);
        };
        let notes: Vec<(&Value, &Value)> = data.data["approvals"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|note| (&note["salesOrder"], &note["status"]))
            .collect();
        assert_eq!(
            notes,
            [
                (&json!("4725"), &json!("already_filed")),
                (&json!("4740"), &json!("declined"))
            ]
        );
        assert_eq!(data.data["summary"], "4725: Already filed.");
    }
}
