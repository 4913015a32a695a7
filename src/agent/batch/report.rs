//! A batch turn's structured result ([`BatchReport`]): one result per order
//! ([`BatchItem`]), the approvals decided, and what the task waits on. A
//! reply carries it, so it is a leaf below the recognising (`request`),
//! the fan-out (`fan_out`) and the answer (`answer`) that fill it.

use crate::agent::approval::{ApprovalNote, PendingOrder, PendingState};
use crate::agent::proposal::Proposal;
use serde::Serialize;

/// How one order of a batch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemState {
    /// Explained (with a proposal, or nothing to do).
    Completed,
    /// Not found, or the source failed for it.
    Failed,
    /// Refused: not the specialist's kind, or the source does not let the
    /// caller see it.
    Rejected,
    /// Its reads did not finish within the per-item timeout.
    TimedOut,
}

/// One order's result: the data artifact's `orders[]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchItem {
    pub order: String,
    /// The skill id of the specialist that answered, if one did.
    pub specialist: Option<String>,
    pub state: ItemState,
    pub explanation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<Proposal>,
    /// Offered for approval (pending) or not permitted, with who may decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalNote>,
}

/// A batch turn's structured result: the data artifact, and the proposals
/// the task now waits on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchReport {
    /// "3 of 4 orders explained; 4711 could not be read in time".
    pub summary: String,
    /// Per-order results of an explaining turn, in a stable order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub orders: Vec<BatchItem>,
    /// Matching orders past the bound that were not looked at.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_listed: usize,
    /// Per-order approval results of an approving turn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub approvals: Vec<ApprovalNote>,
    /// What the task keeps waiting on (task metadata, not the artifact).
    #[serde(skip)]
    pub pending: Vec<PendingOrder>,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

impl BatchReport {
    /// Whether any offered proposal still waits for a decision.
    pub fn waits(&self) -> bool {
        self.pending
            .iter()
            .any(|order| order.state == PendingState::Pending)
    }
}
