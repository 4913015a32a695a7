//! The agent: a router in front of one specialist per kind of order exception.
//! It knows nothing of HTTP, tokens, tasks or push: the task engine hands it a
//! [`Turn`] and stores the [`Reply`] it gets back.

mod order_agent;
mod proposal;
pub mod router;
pub mod specialists;
pub mod text;

pub use order_agent::OrderExceptionAgent;
pub use proposal::{Action, Proposal};
pub use router::{Router, RoutingDecision};
pub use specialists::{Skill, Specialist};

use async_trait::async_trait;

/// What the user said in this task, oldest first; `text` is the new message.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    pub earlier_user_texts: Vec<String>,
    pub text: String,
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
    /// A structured proposal, shown for now (approvals come later).
    pub proposal: Option<Proposal>,
    /// How the router decided, for clients and traces.
    pub routing: Option<RoutingDecision>,
}

impl Reply {
    pub fn new(outcome: Outcome, text: impl Into<String>) -> Self {
        Reply {
            outcome,
            text: text.into(),
            proposal: None,
            routing: None,
        }
    }
}

/// Anything the task engine can run a turn on (tests plug in scripted agents).
#[async_trait]
pub trait Agent: Send + Sync {
    /// The skills for the agent card, one per specialist.
    fn skills(&self) -> Vec<&'static Skill>;

    /// The action each skill may propose (skill id, action).
    fn actions(&self) -> Vec<(&'static str, Action)> {
        Vec::new()
    }

    async fn respond(&self, turn: Turn) -> Reply;
}
