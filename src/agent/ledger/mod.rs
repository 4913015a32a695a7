//! The action ledger: one row per (order, action), written exactly once.
//! Filing relies on the store's unique key, never on read-then-write, so a
//! retry or fifty concurrent approvals file one row and the rest learn it
//! was already filed.

mod memory;
mod sql;

pub use memory::MemoryLedger;
pub use sql::SqlLedger;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

#[cfg(test)]
pub(crate) mod contract {
    //! The behaviour every ledger must show; run by each implementation's tests.
    use super::*;
    use std::sync::Arc;

    pub fn entry(order: &str, user: &str) -> LedgerEntry {
        LedgerEntry {
            sales_order: order.into(),
            action: "open_dispute_case".into(),
            specialist: "pricing".into(),
            summary: format!("Open a dispute case for order {order}"),
            approved_by: user.into(),
            approver_role: "ar_clerk".into(),
            approved_at: "2026-11-30T12:00:00.000Z".into(),
            task_id: format!("task-{user}"),
            context_id: "ctx".into(),
        }
    }

    pub async fn files_exactly_once_under_concurrency(ledger: Arc<dyn ActionLedger>) {
        let attempts: Vec<_> = (0..50)
            .map(|i| {
                let ledger = Arc::clone(&ledger);
                tokio::spawn(async move { ledger.file(entry("4725", &format!("u{i}"))).await })
            })
            .collect();
        let mut filed = Vec::new();
        let mut already = 0;
        for attempt in attempts {
            match attempt.await.expect("no panic").expect("ledger up") {
                Filing::Filed(entry) => filed.push(entry),
                Filing::AlreadyFiled(existing) => {
                    already += 1;
                    assert_eq!(existing.sales_order, "4725");
                }
            }
        }
        assert_eq!(filed.len(), 1, "exactly one approval files");
        assert_eq!(already, 49);
        let rows = ledger.list().await.expect("list");
        let for_order: Vec<_> = rows.iter().filter(|e| e.sales_order == "4725").collect();
        assert_eq!(for_order.len(), 1);
        assert_eq!(for_order[0].approved_by, filed[0].approved_by);
    }
}
