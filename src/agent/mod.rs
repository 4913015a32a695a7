//! The agent: a router in front of one specialist per kind of order exception.
//! It knows nothing of HTTP, tokens, tasks or push: the task engine hands it a
//! [`Turn`] and stores the [`Reply`] it gets back.

pub mod approval;
mod artifact;
pub mod batch;
pub mod decision;
pub mod execution;
pub mod input;
pub mod language;
pub mod ledger;
mod order_agent;
mod proposal;
pub mod router;
pub mod rulebook;
pub mod settings;
pub mod specialists;
#[cfg(feature = "conformance")]
pub mod tck_scenarios;
pub mod text;

pub use approval::{ApprovalNote, ApprovalStatus, Approvals, PendingApproval};
pub use artifact::{ReplyArtifact, ReplyPart};
pub use batch::BatchReport;
pub use language::{Language, TurnLanguage};
pub use order_agent::OrderExceptionAgent;
pub use proposal::{Action, ORDER_VERSION, Proposal};
pub use router::RoutingDecision;
pub use rulebook::{OfferedAction, RuleBook};
pub use settings::{BatchSettings, ConformanceSettings};
pub use specialists::Skill;
#[cfg(feature = "conformance")]
pub use tck_scenarios::TckScenarioAgent;

use crate::roles::BusinessRole;
use async_trait::async_trait;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// Who is asking, as far as the rule book cares. Built from the validated
/// token (or, with authentication off, the local caller's stated roles).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Caller {
    /// The person's user id; `None` for a technical client.
    pub user_id: Option<String>,
    pub roles: BTreeSet<BusinessRole>,
    /// The person's own token, for reads as that person (principal
    /// propagation to S/4HANA); `None` for a technical client.
    pub user_token: Option<crate::secret::BearerToken>,
}

impl Caller {
    /// Only a person with a role may approve; a technical token never does.
    pub fn is_person(&self) -> bool {
        self.user_id.is_some()
    }
}

/// One user message as the agent reads it: the text of its text parts and
/// the `data` objects of its data parts (structured input from a calling
/// agent; [`input::DataFields`] reads the fields the agent knows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserMessage {
    pub text: String,
    pub data: Vec<Map<String, Value>>,
}

/// What the user said in this task, oldest first; `text` and `data` are the
/// new message.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    pub earlier: Vec<UserMessage>,
    pub text: String,
    pub data: Vec<Map<String, Value>>,
    pub caller: Caller,
    pub task_id: String,
    pub context_id: String,
    /// What this task asked the user to approve, if it did: one proposal,
    /// or a batch's list.
    pub pending: Option<PendingApproval>,
    /// Where a long turn says how far it got (the engine shows it when the
    /// budget runs out before the answer).
    pub progress: Progress,
    /// The new message's id (the conformance agent reads its scenario from
    /// the prefix; the order agent has no use for it).
    #[cfg(feature = "conformance")]
    pub message_id: String,
    /// The language the user is answered in this turn, decided once by the
    /// task engine ([`language::decide`]) and kept on the task.
    pub language: TurnLanguage,
}

/// How far a turn got, as one line for the user; the task engine reads the
/// latest when it must answer `working` before the turn ends.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<Mutex<Option<String>>>);

impl Progress {
    pub fn publish(&self, text: String) {
        if let Ok(mut latest) = self.0.lock() {
            *latest = Some(text);
        }
    }

    /// The latest line published, if any.
    pub fn latest(&self) -> Option<String> {
        self.0.lock().ok().and_then(|latest| latest.clone())
    }
}

/// How a turn ends, in A2A task-state terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The agent needs something from the user (which order, which problem).
    InputRequired,
    Completed,
    /// The request could not be served (unknown order, backend down).
    Failed,
    /// The request is not this specialist's kind of case.
    Rejected,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub outcome: Outcome,
    /// What the user reads. Never parsed for actions.
    pub text: String,
    /// A specialist's structured proposal; the only thing that can lead
    /// to an action.
    pub proposal: Option<Proposal>,
    /// How the router decided, for clients and traces.
    pub routing: Option<RoutingDecision>,
    /// Where the approval of `proposal` stands (pending: the task waits
    /// for approve or reject).
    pub approval: Option<ApprovalNote>,
    /// Output added to the task as it is, after the answer (the
    /// conformance agent's scripted artifacts; the order agent adds none).
    pub artifacts: Vec<ReplyArtifact>,
    /// Output sent in pieces, in order: each piece is a part list under
    /// its artifact's id (pieces of one artifact share the id). The task
    /// keeps each artifact whole (its pieces' parts joined); a stream sends
    /// each piece as it is, the last of each artifact marked as the last.
    pub artifact_chunks: Vec<ReplyArtifact>,
    /// Several orders answered in one turn: per-order results and the
    /// proposals the task waits on.
    pub batch: Option<BatchReport>,
    /// Answer with a bare message, no task, where the engine can (a
    /// blocking send whose task is not stored yet); elsewhere the task
    /// completes with the message as usual. Only the conformance agent
    /// sets it.
    #[cfg(feature = "conformance")]
    pub message_only: bool,
    /// A finished task also carries the answer as its first artifact
    /// (`answer`, where Joule's functions read it). The conformance agent
    /// turns it off: its scenarios name every artifact the task carries,
    /// and clients read `artifacts[0]`.
    #[cfg(feature = "conformance")]
    pub answer_artifact: bool,
}

impl Reply {
    pub fn new(outcome: Outcome, text: impl Into<String>) -> Self {
        Reply {
            outcome,
            text: text.into(),
            proposal: None,
            routing: None,
            approval: None,
            artifacts: Vec::new(),
            artifact_chunks: Vec::new(),
            batch: None,
            #[cfg(feature = "conformance")]
            message_only: false,
            #[cfg(feature = "conformance")]
            answer_artifact: true,
        }
    }

    /// Whether the engine answers with a bare message where it can (only
    /// the conformance agent asks for it; a release build never does).
    pub fn wants_message_only(&self) -> bool {
        #[cfg(feature = "conformance")]
        return self.message_only;
        #[cfg(not(feature = "conformance"))]
        return false;
    }

    /// Whether a finished task carries the answer as its first artifact
    /// (always, but for the conformance agent's scenarios).
    pub fn wants_answer_artifact(&self) -> bool {
        #[cfg(feature = "conformance")]
        return self.answer_artifact;
        #[cfg(not(feature = "conformance"))]
        return true;
    }
}

/// Anything the task engine can run a turn on (tests plug in scripted agents).
#[async_trait]
pub trait Agent: Send + Sync {
    /// The skills for the agent card, one per specialist.
    fn skills(&self) -> Vec<&'static Skill>;

    /// The action each skill may propose and who may approve it, as the
    /// rule book in force says (for the extended card).
    fn offered_actions(&self) -> Vec<OfferedAction> {
        Vec::new()
    }

    async fn respond(&self, turn: Turn) -> Reply;
}
