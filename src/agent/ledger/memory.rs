//! The ledger for the memory store (nothing survives a restart).

use super::{ActionLedger, Filing, LedgerEntry, LedgerError};
use async_trait::async_trait;
use std::sync::Mutex;

#[derive(Default)]
pub struct MemoryLedger {
    entries: Mutex<Vec<LedgerEntry>>,
}

#[async_trait]
impl ActionLedger for MemoryLedger {
    async fn file(&self, entry: LedgerEntry) -> Result<Filing, LedgerError> {
        // Check and insert under one lock: the in-memory unique key.
        let mut entries = self
            .entries
            .lock()
            .map_err(|_| LedgerError::Unavailable("ledger lock poisoned".into()))?;
        if let Some(existing) = entries
            .iter()
            .find(|e| e.sales_order == entry.sales_order && e.action == entry.action)
        {
            return Ok(Filing::AlreadyFiled(existing.clone()));
        }
        entries.push(entry.clone());
        Ok(Filing::Filed(entry))
    }

    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError> {
        self.entries
            .lock()
            .map(|entries| entries.clone())
            .map_err(|_| LedgerError::Unavailable("ledger lock poisoned".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn files_exactly_once_under_concurrency() {
        super::super::contract::files_exactly_once_under_concurrency(Arc::new(
            MemoryLedger::default(),
        ))
        .await;
    }
}
