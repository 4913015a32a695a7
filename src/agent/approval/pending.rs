//! What a task waits on for approval: one proposal, or a batch's offered
//! proposals each with where it stands. The turn, the batch's report and
//! the approval flows all carry it, so it is a leaf of its own.

use crate::agent::proposal::Proposal;
use serde::{Deserialize, Serialize};

/// Where one offered proposal of a batch stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PendingState {
    Pending,
    Filed,
    Declined,
}

/// One offered proposal of a batch, as the task keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingOrder {
    pub proposal: Proposal,
    pub state: PendingState,
}

/// What a task waits on: one proposal (the single-order shape, unchanged)
/// or a batch's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PendingApproval {
    Batch(Vec<PendingOrder>),
    One(Proposal),
}
