//! One row of the ledger ([`LedgerEntry`]), a page of them
//! ([`LedgerPage`]), what filing it did ([`Filing`]), and the seam every ledger implements ([`ActionLedger`]):
//! what the stores (`memory`, `sql`) and their shared contract use, in a
//! leaf below them rather than in `mod.rs`, which re-exports the stores.

use super::key::ActionKey;
use super::query::{LedgerCursor, LedgerQuery};
use super::state::{Claim, ExecutionState, Finish};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    /// Which request this row is (its order and action among them).
    #[serde(flatten)]
    pub key: ActionKey,
    /// The specialist (skill id) that proposed it.
    pub specialist: String,
    pub summary: String,
    /// The approver's user id and the role they approved as.
    pub approved_by: String,
    pub approver_role: String,
    /// Whose row it is: the approver's issuer, tenant and user id, as
    /// their tasks are owned (`ias:<tenant>:user:<id>`), so equal user ids
    /// of two identity services or tenants do not read each other's rows
    /// in `GET /actions`. `None` with authentication off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver_key: Option<String>,
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
    /// The W3C `traceparent` of the approval (the span that filed the row),
    /// so a later attempt, in the retry job or on another instance, links
    /// its trace to the approval's. `None` for rows filed before it was
    /// kept, or without a trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_parent: Option<String>,
    /// The approving caller's `x-correlationid`, so a later attempt's log
    /// lines and the push of its result carry it too (without one, they
    /// carry the approval's trace id, as the approval's own lines did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
}

/// How many rows the ledger holds in each state (every state, those with
/// none at 0).
pub type RowsByState = [(ExecutionState, u64); 5];

/// Every state at 0, to count into.
pub(crate) fn no_rows() -> RowsByState {
    ExecutionState::ALL.map(|state| (state, 0))
}

/// Count one more row in `state`.
pub(crate) fn count_row(rows: &mut RowsByState, state: ExecutionState, n: u64) {
    if let Some((_, count)) = rows.iter_mut().find(|(known, _)| *known == state) {
        *count += n;
    }
}

/// One page of rows, and where the next starts (`None` on the last).
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerPage {
    pub entries: Vec<LedgerEntry>,
    pub next: Option<LedgerCursor>,
}

/// What filing did: wrote this entry, found the one filed before for the
/// same key, or found an earlier request for the order and action that an
/// executor is carrying out right now (nothing was written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filing {
    Filed(LedgerEntry),
    AlreadyFiled(LedgerEntry),
    EarlierOpen(LedgerEntry),
}

impl Filing {
    /// The row written now or found from before.
    pub fn into_entry(self) -> LedgerEntry {
        match self {
            Filing::Filed(entry) | Filing::AlreadyFiled(entry) | Filing::EarlierOpen(entry) => {
                entry
            }
        }
    }
}

/// What an erased approver's id and key become in the rows they approved
/// ([`ActionLedger::erase_approver`]): the approval stays, whose it was
/// does not.
pub const ERASED: &str = "erased";

/// What a row replaced by a later request says (its `answer`).
pub(crate) fn superseded_by(new: &LedgerEntry, approved_at: &str) -> String {
    format!(
        "superseded by a later approval {}{approved_at}) before it was carried out",
        approval_of(&new.approved_by, &new.approver_role, &new.task_id)
    )
}

/// How a superseded row's answer names the approval that replaced it:
/// `(by <approver> as <role> in task <task> at ` (the task id makes it one
/// approval's), so erasing that approver can find it and name them
/// [`ERASED`] instead.
pub(crate) fn approval_of(approved_by: &str, approver_role: &str, task_id: &str) -> String {
    format!("(by {approved_by} as {approver_role} in task {task_id} at ")
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("action ledger unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait ActionLedger: Send + Sync {
    /// File the entry unless its key is filed already. It is filed
    /// `recorded`, for an executor to carry out; or `done` with its answer
    /// and one attempt when `entry.state` says `done` (recording is all
    /// there is: the ledger-only executor), which takes no claim and no
    /// finish after it. An open row of another key for the same order and
    /// action is superseded first when its lease is free; while one is
    /// held, nothing is filed.
    async fn file(&self, entry: LedgerEntry) -> Result<Filing, LedgerError>;

    /// Every entry, oldest first (the CLI `actions`, for the operator on
    /// the instance).
    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError>;

    /// One page of the rows the query names, newest approval first
    /// (`GET /actions`).
    async fn page(&self, query: &LedgerQuery) -> Result<LedgerPage, LedgerError>;

    /// The entry of this key, if filed.
    async fn get(&self, key: &ActionKey) -> Result<Option<LedgerEntry>, LedgerError>;

    /// Take the row for execution: only a `recorded` or `retrying` row
    /// whose lease is free (never held, or expired), and with
    /// [`Claim::due_only`] only one that is due. `None`: someone else holds
    /// it, or it is finished.
    async fn claim(
        &self,
        key: &ActionKey,
        claim: &Claim,
    ) -> Result<Option<LedgerEntry>, LedgerError>;

    /// Record an attempt's outcome and free the lease; only the claim's
    /// owner may (`None`: the lease was lost to another executor).
    async fn finish(
        &self,
        key: &ActionKey,
        owner: &str,
        finish: &Finish,
    ) -> Result<Option<LedgerEntry>, LedgerError>;

    /// Rows a retry job may claim now: `retrying` ones that are due, and
    /// `recorded` ones unclaimed for longer than `stale_ms` (the executor
    /// stopped between filing and carrying out), oldest first, at most
    /// `limit`.
    async fn due(&self, stale_ms: u64, limit: u32) -> Result<Vec<LedgerEntry>, LedgerError>;

    /// How many rows are in each state (the `a2a.actions.ledger` gauge).
    async fn count_by_state(&self) -> Result<RowsByState, LedgerError>;

    /// Erase whose approvals they were: every row `approver_key` approved
    /// keeps its order, action, request, state, attempts, answers and
    /// times, and has its approver id and key replaced by [`ERASED`]; the
    /// answer of a row one of them superseded names [`ERASED`] too. In one
    /// transaction; returns how many rows the approver had. Twice erases
    /// nothing the second time.
    async fn erase_approver(&self, approver_key: &str) -> Result<u64, LedgerError>;
}
