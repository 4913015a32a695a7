//! The action ledger: one row per (order, action), written exactly once.
//! Filing relies on the store's unique key, never on read-then-write, so a
//! retry or fifty concurrent approvals file one row and the rest learn it
//! was already filed.
//!
//! The row written first is the only thing that decides whether an action
//! happens; carrying it out then moves it `recorded` → `done` | `failed` |
//! `retrying` under a claim (a lease on the row), so one executor at a time
//! works on it, on any instance ([`ActionLedger::claim`]).

#[cfg(test)]
pub(crate) mod contract;
mod memory;
mod sql;
mod state;

pub use memory::MemoryLedger;
pub use sql::SqlLedger;
pub use state::{Claim, ExecutionState, Finish};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    pub sales_order: String,
    pub action: String,
    /// The specialist (skill id) that proposed it.
    pub specialist: String,
    pub summary: String,
    /// The approver's user id and the role they approved as.
    pub approved_by: String,
    pub approver_role: String,
    /// RFC 3339, UTC, milliseconds (`crate::clock`).
    pub approved_at: String,
    pub task_id: String,
    pub context_id: String,
    /// What was approved beyond the order and action (a date, the ETag of
    /// the order as it was read).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub parameters: Map<String, Value>,
    /// Where carrying it out stands.
    #[serde(default)]
    pub state: ExecutionState,
    /// Execution attempts so far.
    #[serde(default)]
    pub attempts: u32,
    /// The last answer of S/4HANA or the hook's receiver, or why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// When a `retrying` row is tried again (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<String>,
    /// The last change of the row (RFC 3339).
    #[serde(default)]
    pub updated_at: String,
}

/// What filing did: wrote this entry, or found the one filed before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filing {
    Filed(LedgerEntry),
    AlreadyFiled(LedgerEntry),
}

impl Filing {
    /// The row written now or found from before.
    pub fn into_entry(self) -> LedgerEntry {
        match self {
            Filing::Filed(entry) | Filing::AlreadyFiled(entry) => entry,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("action ledger unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait ActionLedger: Send + Sync {
    /// File the entry unless its (order, action) is filed already.
    async fn file(&self, entry: LedgerEntry) -> Result<Filing, LedgerError>;

    /// Every entry, oldest first.
    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError>;

    /// The entry of (order, action), if filed.
    async fn get(
        &self,
        sales_order: &str,
        action: &str,
    ) -> Result<Option<LedgerEntry>, LedgerError>;

    /// Take the row for execution: only a `recorded` or `retrying` row
    /// whose lease is free (never held, or expired), and with
    /// [`Claim::due_only`] only one that is due. `None`: someone else holds
    /// it, or it is finished.
    async fn claim(
        &self,
        sales_order: &str,
        action: &str,
        claim: &Claim,
    ) -> Result<Option<LedgerEntry>, LedgerError>;

    /// Record an attempt's outcome and free the lease; only the claim's
    /// owner may (`None`: the lease was lost to another executor).
    async fn finish(
        &self,
        sales_order: &str,
        action: &str,
        owner: &str,
        finish: &Finish,
    ) -> Result<Option<LedgerEntry>, LedgerError>;

    /// Rows a retry job may claim now: `retrying` ones that are due, and
    /// `recorded` ones unclaimed for longer than `stale_ms` (the executor
    /// stopped between filing and carrying out), oldest first, at most
    /// `limit`.
    async fn due(&self, stale_ms: u64, limit: u32) -> Result<Vec<LedgerEntry>, LedgerError>;
}
