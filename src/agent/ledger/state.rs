//! The execution state of a ledger row and the two requests that move it:
//! a [`Claim`] (take the row for one attempt, under a lease) and a
//! [`Finish`] (the attempt's outcome, with the audit messages of its
//! writes). Shared by the memory and SQL ledgers so both decide the same way.

use serde::{Deserialize, Serialize};

/// Where carrying an approved action out stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutionState {
    /// Filed; not carried out yet (or an attempt is under way).
    #[default]
    Recorded,
    /// Carried out (or it was found already done).
    Done,
    /// Refused for good; `answer` says why. Nothing is tried again.
    Failed,
    /// A transient failure; tried again at `next_attempt_at`.
    Retrying,
    /// Never carried out: a request made after the order changed replaced
    /// it while it waited; `answer` says which. Nothing is tried again.
    Superseded,
}

impl ExecutionState {
    /// Every state, in the order a row moves through them.
    pub const ALL: [ExecutionState; 5] = [
        ExecutionState::Recorded,
        ExecutionState::Retrying,
        ExecutionState::Done,
        ExecutionState::Failed,
        ExecutionState::Superseded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ExecutionState::Recorded => "recorded",
            ExecutionState::Done => "done",
            ExecutionState::Failed => "failed",
            ExecutionState::Retrying => "retrying",
            ExecutionState::Superseded => "superseded",
        }
    }

    /// The stored text; an unknown one reads as `failed` (never executed).
    pub fn parse(text: &str) -> Self {
        match text {
            "recorded" => ExecutionState::Recorded,
            "done" => ExecutionState::Done,
            "retrying" => ExecutionState::Retrying,
            "superseded" => ExecutionState::Superseded,
            _ => ExecutionState::Failed,
        }
    }

    /// Still to be carried out.
    pub fn is_open(self) -> bool {
        matches!(self, ExecutionState::Recorded | ExecutionState::Retrying)
    }
}

impl std::fmt::Display for ExecutionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Take a row for one attempt.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Who holds the lease (instance and attempt).
    pub owner: String,
    /// How long the lease lasts; after it, another executor may claim.
    pub lease_ms: u64,
    /// Only a row that is due (a retry job); the approval itself claims
    /// its fresh row at once.
    pub due_only: bool,
    /// With `due_only`: how long a `recorded` row must have been left
    /// alone (its executor stopped between filing and carrying out).
    pub stale_ms: u64,
}

/// An attempt's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finish {
    /// `done`, `failed` or `retrying` (a `recorded` finish just frees the
    /// lease without counting an attempt).
    pub state: ExecutionState,
    pub answer: Option<String>,
    /// For `retrying`: when to try again, from now.
    pub retry_in_ms: Option<u64>,
    /// Audit messages of the attempt's writes that the SQL ledger stores
    /// in the transaction of this outcome (empty otherwise: the audit room
    /// records them itself).
    pub audit: crate::audit::OutboxRows,
}

/// The facts of a row a claim decides on (both ledgers use this).
pub(super) struct ClaimFacts {
    pub state: ExecutionState,
    pub lease_until_ms: Option<i64>,
    pub next_attempt_ms: Option<i64>,
    pub updated_ms: i64,
}

/// May a new request for the same order and action replace this open row?
/// Only when nobody holds its lease: an attempt under way is never cut off.
pub(super) fn supersedable(facts: &ClaimFacts, now_ms: i64) -> bool {
    facts.state.is_open() && facts.lease_until_ms.is_none_or(|until| until < now_ms)
}

/// May `claim` take a row with these facts at `now_ms`? `stale_ms`: how old
/// a `recorded` row must be for a due-only claim.
pub(super) fn claimable(facts: &ClaimFacts, now_ms: i64, due_only: bool, stale_ms: i64) -> bool {
    if !facts.state.is_open() || facts.lease_until_ms.is_some_and(|until| until >= now_ms) {
        return false;
    }
    if !due_only {
        return true;
    }
    match facts.state {
        ExecutionState::Retrying => facts.next_attempt_ms.is_none_or(|at| at <= now_ms),
        _ => facts.updated_ms + stale_ms <= now_ms,
    }
}
