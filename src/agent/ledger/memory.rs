//! The ledger for the memory store (nothing survives a restart).

use super::state::{ClaimFacts, claimable};
use super::{ActionLedger, Claim, ExecutionState, Filing, Finish, LedgerEntry, LedgerError};
use crate::clock::rfc3339_from_unix_ms;
use crate::db::now_ms;
use async_trait::async_trait;
use std::sync::{Mutex, MutexGuard};

/// One row: the entry and its lease.
struct Row {
    entry: LedgerEntry,
    lease_owner: Option<String>,
    lease_until_ms: Option<i64>,
    next_attempt_ms: Option<i64>,
    updated_ms: i64,
}

impl Row {
    fn facts(&self) -> ClaimFacts {
        ClaimFacts {
            state: self.entry.state,
            lease_until_ms: self.lease_until_ms,
            next_attempt_ms: self.next_attempt_ms,
            updated_ms: self.updated_ms,
        }
    }

    fn is(&self, sales_order: &str, action: &str) -> bool {
        self.entry.sales_order == sales_order && self.entry.action == action
    }
}

#[derive(Default)]
pub struct MemoryLedger {
    rows: Mutex<Vec<Row>>,
}

impl MemoryLedger {
    fn rows(&self) -> Result<MutexGuard<'_, Vec<Row>>, LedgerError> {
        self.rows
            .lock()
            .map_err(|_| LedgerError::Unavailable("ledger lock poisoned".into()))
    }
}

#[async_trait]
impl ActionLedger for MemoryLedger {
    async fn file(&self, mut entry: LedgerEntry) -> Result<Filing, LedgerError> {
        // Check and insert under one lock: the in-memory unique key.
        let mut rows = self.rows()?;
        if let Some(existing) = rows
            .iter()
            .find(|row| row.is(&entry.sales_order, &entry.action))
        {
            return Ok(Filing::AlreadyFiled(existing.entry.clone()));
        }
        let now = now_ms();
        entry.state = ExecutionState::Recorded;
        entry.attempts = 0;
        entry.answer = None;
        entry.next_attempt_at = None;
        entry.updated_at = rfc3339_from_unix_ms(now);
        rows.push(Row {
            entry: entry.clone(),
            lease_owner: None,
            lease_until_ms: None,
            next_attempt_ms: None,
            updated_ms: now,
        });
        Ok(Filing::Filed(entry))
    }

    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError> {
        Ok(self.rows()?.iter().map(|row| row.entry.clone()).collect())
    }

    async fn get(
        &self,
        sales_order: &str,
        action: &str,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        Ok(self
            .rows()?
            .iter()
            .find(|row| row.is(sales_order, action))
            .map(|row| row.entry.clone()))
    }

    async fn claim(
        &self,
        sales_order: &str,
        action: &str,
        claim: &Claim,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let mut rows = self.rows()?;
        let now = now_ms();
        let Some(row) = rows.iter_mut().find(|row| row.is(sales_order, action)) else {
            return Ok(None);
        };
        if !claimable(&row.facts(), now, claim.due_only, claim.stale_ms as i64) {
            return Ok(None);
        }
        row.lease_owner = Some(claim.owner.clone());
        row.lease_until_ms = Some(now + claim.lease_ms as i64);
        Ok(Some(row.entry.clone()))
    }

    async fn finish(
        &self,
        sales_order: &str,
        action: &str,
        owner: &str,
        finish: &Finish,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let mut rows = self.rows()?;
        let now = now_ms();
        let Some(row) = rows.iter_mut().find(|row| row.is(sales_order, action)) else {
            return Ok(None);
        };
        if row.lease_owner.as_deref() != Some(owner) {
            return Ok(None);
        }
        let next = finish.retry_in_ms.map(|ms| now + ms as i64);
        row.lease_owner = None;
        row.lease_until_ms = None;
        row.next_attempt_ms = next;
        row.updated_ms = now;
        if finish.state != ExecutionState::Recorded {
            row.entry.attempts += 1;
        }
        row.entry.state = finish.state;
        row.entry.answer = finish.answer.clone();
        row.entry.next_attempt_at = next.map(rfc3339_from_unix_ms);
        row.entry.updated_at = rfc3339_from_unix_ms(now);
        Ok(Some(row.entry.clone()))
    }

    async fn due(&self, stale_ms: u64, limit: u32) -> Result<Vec<LedgerEntry>, LedgerError> {
        let now = now_ms();
        Ok(self
            .rows()?
            .iter()
            .filter(|row| claimable(&row.facts(), now, true, stale_ms as i64))
            .take(limit as usize)
            .map(|row| row.entry.clone())
            .collect())
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

    #[tokio::test]
    async fn execution_state_moves_as_the_contract_says() {
        super::super::contract::execution_state_transitions(Arc::new(MemoryLedger::default()))
            .await;
    }

    #[tokio::test]
    async fn one_claim_wins_under_concurrency() {
        super::super::contract::one_claim_wins_under_concurrency(Arc::new(MemoryLedger::default()))
            .await;
    }
}
