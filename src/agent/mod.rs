//! The agent: a router in front of one specialist per kind of order exception.
//! It knows nothing of HTTP, tokens, tasks or push: the task engine hands it a
//! [`Turn`] (`turn`) and stores the [`Reply`] (`reply`) it gets back, through
//! the [`Agent`] trait (`agent_trait`).

mod agent_trait;
pub mod approval;
mod artifact;
pub mod batch;
pub mod decision;
pub mod execution;
pub mod input;
pub mod language;
pub mod ledger;
mod order_agent;
mod own_block;
mod proposal;
mod reply;
pub mod router;
mod routing;
pub mod rulebook;
pub mod settings;
pub mod specialists;
#[cfg(feature = "conformance")]
pub mod tck_scenarios;
pub mod text;
mod turn;

pub use agent_trait::Agent;
pub use approval::{ApprovalStatus, Approvals, PendingApproval};
pub use artifact::{ReplyArtifact, ReplyPart};
pub use language::Language;
pub use order_agent::OrderExceptionAgent;
pub use proposal::{Action, ORDER_VERSION, Proposal};
pub use reply::{Outcome, Reply};
pub use routing::RoutingDecision;
pub use rulebook::{OfferedAction, RuleBook};
pub use settings::{BatchSettings, ConformanceSettings};
pub use specialists::Skill;
#[cfg(feature = "conformance")]
pub use tck_scenarios::TckScenarioAgent;
pub use turn::{Caller, Progress, Turn, UserMessage};
