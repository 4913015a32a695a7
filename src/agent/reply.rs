//! What the agent answers a turn with ([`Reply`]) and how the turn ends
//! ([`Outcome`]): what the specialists, the approval flows and the batch
//! answer build, in a leaf below all of them.

use super::approval::ApprovalNote;
use super::artifact::ReplyArtifact;
use super::batch::BatchReport;
use super::proposal::Proposal;
use super::routing::RoutingDecision;

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
