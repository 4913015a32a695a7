//! The seam the task engine runs turns on ([`Agent`]): the order agent and
//! the conformance agent implement it, tests plug in scripted ones. Its
//! own file, as `mod.rs` re-exports those agents.

use super::reply::Reply;
use super::rulebook::OfferedAction;
use super::specialists::Skill;
use super::turn::Turn;
use async_trait::async_trait;

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
