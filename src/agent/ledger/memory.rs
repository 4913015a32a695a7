//! The ledger for the memory store (nothing survives a restart).

use super::entry::LedgerPage;
use super::entry::{ERASED, approval_of, count_row, no_rows, superseded_by};
use super::query::{LedgerCursor, LedgerQuery, key_parts};
use super::state::{ClaimFacts, claimable, supersedable};
use super::{
    ActionKey, ActionLedger, Claim, ExecutionState, Filing, Finish, LedgerEntry, LedgerError,
    RowsByState,
};
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
    /// When it was filed (the page order).
    approved_ms: i64,
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

    fn is(&self, key: &ActionKey) -> bool {
        self.entry.key == *key
    }

    /// Open, for the same order and action as `key` (any version).
    fn open_for(&self, key: &ActionKey) -> bool {
        self.entry.state.is_open()
            && self.entry.key.sales_order == key.sales_order
            && self.entry.key.action == key.action
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
        // Check and insert under one lock: the in-memory unique keys (one
        // row per key, one open row per order and action).
        let mut rows = self.rows()?;
        if let Some(existing) = rows.iter().find(|row| row.is(&entry.key)) {
            return Ok(Filing::AlreadyFiled(existing.entry.clone()));
        }
        let now = now_ms();
        entry.approved_at = rfc3339_from_unix_ms(now);
        // Filed done (recording is all there is) or recorded for an executor.
        let done = entry.state == ExecutionState::Done;
        if let Some(open) = rows.iter_mut().find(|row| row.open_for(&entry.key)) {
            if !supersedable(&open.facts(), now) {
                return Ok(Filing::EarlierOpen(open.entry.clone()));
            }
            open.entry.state = ExecutionState::Superseded;
            open.entry.answer = Some(superseded_by(&entry, &entry.approved_at));
            open.entry.next_attempt_at = None;
            open.entry.updated_at = rfc3339_from_unix_ms(now);
            open.next_attempt_ms = None;
            open.updated_ms = now;
        }
        if !done {
            entry.state = ExecutionState::Recorded;
            entry.answer = None;
        }
        entry.attempts = u32::from(done);
        entry.next_attempt_at = None;
        entry.updated_at = entry.approved_at.clone();
        rows.push(Row {
            entry: entry.clone(),
            lease_owner: None,
            lease_until_ms: None,
            next_attempt_ms: None,
            updated_ms: now,
            approved_ms: now,
        });
        Ok(Filing::Filed(entry))
    }

    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError> {
        Ok(self.rows()?.iter().map(|row| row.entry.clone()).collect())
    }

    async fn page(&self, query: &LedgerQuery) -> Result<LedgerPage, LedgerError> {
        let rows = self.rows()?;
        let mut matching: Vec<&Row> = rows
            .iter()
            .filter(|row| {
                query
                    .approver_key
                    .as_ref()
                    .is_none_or(|wanted| row.entry.approver_key.as_ref() == Some(wanted))
                    && query
                        .after
                        .as_ref()
                        .is_none_or(|after| after.precedes(row.approved_ms, &row.entry.key))
            })
            .collect();
        matching.sort_by(|a, b| {
            (b.approved_ms, key_parts(&b.entry.key)).cmp(&(a.approved_ms, key_parts(&a.entry.key)))
        });
        let more = matching.len() > query.limit;
        matching.truncate(query.limit);
        let next = matching.last().filter(|_| more).map(|row| LedgerCursor {
            approved_ms: row.approved_ms,
            key: row.entry.key.clone(),
        });
        Ok(LedgerPage {
            entries: matching.iter().map(|row| row.entry.clone()).collect(),
            next,
        })
    }

    async fn get(&self, key: &ActionKey) -> Result<Option<LedgerEntry>, LedgerError> {
        Ok(self
            .rows()?
            .iter()
            .find(|row| row.is(key))
            .map(|row| row.entry.clone()))
    }

    async fn claim(
        &self,
        key: &ActionKey,
        claim: &Claim,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let mut rows = self.rows()?;
        let now = now_ms();
        let Some(row) = rows.iter_mut().find(|row| row.is(key)) else {
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
        key: &ActionKey,
        owner: &str,
        finish: &Finish,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let mut rows = self.rows()?;
        let now = now_ms();
        let Some(row) = rows.iter_mut().find(|row| row.is(key)) else {
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

    async fn erase_approver(&self, approver_key: &str) -> Result<u64, LedgerError> {
        let mut rows = self.rows()?;
        let mut renamed = Vec::new();
        for row in rows.iter_mut() {
            if row.entry.approver_key.as_deref() == Some(approver_key) {
                let entry = &mut row.entry;
                renamed.push((
                    approval_of(&entry.approved_by, &entry.approver_role, &entry.task_id),
                    approval_of(ERASED, &entry.approver_role, &entry.task_id),
                ));
                entry.approved_by = ERASED.into();
                entry.approver_key = Some(ERASED.into());
            }
        }
        for row in rows.iter_mut() {
            let Some(answer) = &mut row.entry.answer else {
                continue;
            };
            for (named, erased) in &renamed {
                if answer.contains(named.as_str()) {
                    *answer = answer.replace(named.as_str(), erased);
                }
            }
        }
        Ok(renamed.len() as u64)
    }

    async fn count_by_state(&self) -> Result<RowsByState, LedgerError> {
        let mut counted = no_rows();
        for row in self.rows()?.iter() {
            count_row(&mut counted, row.entry.state, 1);
        }
        Ok(counted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn erasing_an_approver_keeps_the_rows_without_them() {
        super::super::contract::erasing_an_approver_keeps_the_rows_without_them(Arc::new(
            MemoryLedger::default(),
        ))
        .await;
    }

    #[tokio::test]
    async fn files_exactly_once_under_concurrency() {
        super::super::contract::files_exactly_once_under_concurrency(Arc::new(
            MemoryLedger::default(),
        ))
        .await;
    }

    #[tokio::test]
    async fn a_row_filed_done_is_finished_at_once() {
        super::super::contract::a_row_filed_done_is_finished_at_once(Arc::new(
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
    async fn a_changed_order_or_another_date_is_a_new_request() {
        super::super::contract::a_changed_order_or_another_date_is_a_new_request(Arc::new(
            MemoryLedger::default(),
        ))
        .await;
    }

    #[tokio::test]
    async fn an_open_earlier_request_is_superseded_unless_it_is_being_carried_out() {
        super::super::contract::an_open_earlier_request_is_superseded_unless_it_is_being_carried_out(
            Arc::new(MemoryLedger::default()),
        )
        .await;
    }

    #[tokio::test]
    async fn new_requests_file_exactly_once_under_concurrency() {
        super::super::contract::new_requests_file_exactly_once_under_concurrency(Arc::new(
            MemoryLedger::default(),
        ))
        .await;
    }

    #[tokio::test]
    async fn rows_are_counted_by_state_and_keep_the_approvals_trace() {
        super::super::contract::rows_are_counted_by_state_and_keep_the_approvals_trace(Arc::new(
            MemoryLedger::default(),
        ))
        .await;
    }

    #[tokio::test]
    async fn pages_newest_first_by_approver() {
        super::super::contract::pages_newest_first_by_approver(Arc::new(MemoryLedger::default()))
            .await;
    }

    #[tokio::test]
    async fn one_claim_wins_under_concurrency() {
        super::super::contract::one_claim_wins_under_concurrency(Arc::new(MemoryLedger::default()))
            .await;
    }
}
