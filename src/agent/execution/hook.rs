//! The agent's side of the outbound action hook: the seam an executor
//! hands an approved action to (the push room's client sits behind it,
//! wired in `startup.rs`), and the JSON it sends: order, action,
//! parameters, who approved and when, task and context ids, and the
//! idempotency key, which stands for the ledger key
//! (`<order>/<action>/<tag>`, `ActionKey::idempotency_key`).

use crate::agent::ledger::LedgerEntry;
use crate::secret::BearerToken;
use async_trait::async_trait;
use serde_json::{Value, json};

/// Why the hook did not take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookFailure {
    Refused(String),
    Transient(String),
}

#[async_trait]
pub trait ActionHook: Send + Sync {
    /// POST the payload; the receiver's answer.
    async fn deliver(
        &self,
        payload: &Value,
        idempotency_key: &str,
        user: Option<&BearerToken>,
    ) -> Result<String, HookFailure>;
}

/// The ledger key as the receiver's idempotency key: a repeat of one
/// request carries the same one, a new request another.
pub fn idempotency_key(entry: &LedgerEntry) -> String {
    entry.key.idempotency_key()
}

pub fn payload(entry: &LedgerEntry) -> Value {
    json!({
        "order": entry.key.sales_order,
        "action": entry.key.action,
        "parameters": entry.parameters,
        "summary": entry.summary,
        "approved_by": entry.approved_by,
        "approver_role": entry.approver_role,
        "approved_at": entry.approved_at,
        "task_id": entry.task_id,
        "context_id": entry.context_id,
        "idempotency_key": idempotency_key(entry),
    })
}
