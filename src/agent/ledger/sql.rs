//! The ledger in SQLite or PostgreSQL: `INSERT … ON CONFLICT DO NOTHING` on
//! the (sales_order, action) primary key decides who filed.
//!
//! An insert whose connection was lost runs once more on a fresh one: the
//! key makes a second run file nothing a first one filed, and a second run
//! that finds exactly its own row (same approver, task and millisecond)
//! knows the first one committed unseen and reports it filed.

use super::{ActionLedger, Claim, ExecutionState, Filing, Finish, LedgerEntry, LedgerError};
use crate::clock::rfc3339_from_unix_ms;
use crate::db::{Database, now_ms};
use async_trait::async_trait;
use sqlx::Row;
use sqlx::any::AnyRow;

pub struct SqlLedger {
    db: Database,
}

fn unavailable(error: sqlx::Error) -> LedgerError {
    let reason = error.to_string();
    LedgerError::Unavailable(
        reason
            .lines()
            .next()
            .unwrap_or("database error")
            .to_string(),
    )
}

const COLUMNS: &str = "sales_order, action, specialist, summary, approved_by, approver_role, \
                       approved_ms, task_id, context_id, parameters, state, attempts, answer, \
                       next_attempt_ms, updated_ms";

/// A row is open and its lease free (`$now` is bound as the last two
/// parameters named here).
const OPEN_AND_FREE: &str =
    "state IN ('recorded', 'retrying') AND (lease_until_ms IS NULL OR lease_until_ms < {now})";

/// Due for a retry job: a `retrying` row whose time has come, or a
/// `recorded` one left alone since `{stale}`.
const DUE: &str = "((state = 'retrying' AND (next_attempt_ms IS NULL OR next_attempt_ms <= {now})) \
                   OR (state = 'recorded' AND updated_ms <= {stale}))";

fn entry(row: &AnyRow) -> Result<LedgerEntry, sqlx::Error> {
    Ok(LedgerEntry {
        sales_order: row.try_get(0)?,
        action: row.try_get(1)?,
        specialist: row.try_get(2)?,
        summary: row.try_get(3)?,
        approved_by: row.try_get(4)?,
        approver_role: row.try_get(5)?,
        approved_at: rfc3339_from_unix_ms(row.try_get(6)?),
        task_id: row.try_get(7)?,
        context_id: row.try_get(8)?,
        parameters: serde_json::from_str(&row.try_get::<String, _>(9)?).unwrap_or_default(),
        state: ExecutionState::parse(&row.try_get::<String, _>(10)?),
        attempts: u32::try_from(row.try_get::<i64, _>(11)?).unwrap_or(u32::MAX),
        answer: row.try_get(12)?,
        next_attempt_at: row.try_get::<Option<i64>, _>(13)?.map(rfc3339_from_unix_ms),
        updated_at: rfc3339_from_unix_ms(row.try_get(14)?),
    })
}

impl SqlLedger {
    pub fn new(db: Database) -> Self {
        SqlLedger { db }
    }

    async fn lease_owner(
        &self,
        sales_order: &str,
        action: &str,
    ) -> Result<Option<String>, LedgerError> {
        let row = crate::db::once_more(|| {
            sqlx::query(
                "SELECT lease_owner FROM action_ledger WHERE sales_order = $1 AND action = $2",
            )
            .bind(sales_order)
            .bind(action)
            .fetch_optional(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        match row {
            Some(row) => row.try_get::<Option<String>, _>(0).map_err(unavailable),
            None => Ok(None),
        }
    }
}

#[async_trait]
impl ActionLedger for SqlLedger {
    async fn file(&self, mut new: LedgerEntry) -> Result<Filing, LedgerError> {
        let approved_ms = now_ms();
        new.approved_at = rfc3339_from_unix_ms(approved_ms);
        new.state = ExecutionState::Recorded;
        new.attempts = 0;
        new.answer = None;
        new.next_attempt_at = None;
        new.updated_at = new.approved_at.clone();
        let parameters = serde_json::Value::Object(new.parameters.clone()).to_string();
        let insert = format!(
            "INSERT INTO action_ledger ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
             $10, 'recorded', 0, NULL, NULL, $11) ON CONFLICT (sales_order, action) DO NOTHING"
        );
        let run_insert = || {
            sqlx::query(&insert)
                .bind(&new.sales_order)
                .bind(&new.action)
                .bind(&new.specialist)
                .bind(&new.summary)
                .bind(&new.approved_by)
                .bind(&new.approver_role)
                .bind(approved_ms)
                .bind(&new.task_id)
                .bind(&new.context_id)
                .bind(&parameters)
                .bind(approved_ms)
                .execute(&self.db.pool)
        };
        let (inserted, ran_again) = match run_insert().await {
            Err(error) if crate::db::connection_lost(&error) => {
                tracing::warn!(%error, "action ledger: the database connection was lost; filing again on a fresh one");
                (run_insert().await, true)
            }
            outcome => (outcome, false),
        };
        if inserted.map_err(unavailable)?.rows_affected() == 1 {
            return Ok(Filing::Filed(new));
        }
        let select =
            format!("SELECT {COLUMNS} FROM action_ledger WHERE sales_order = $1 AND action = $2");
        let row = crate::db::once_more(|| {
            sqlx::query(&select)
                .bind(&new.sales_order)
                .bind(&new.action)
                .fetch_one(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        let existing = entry(&row).map_err(unavailable)?;
        if ran_again && existing == new {
            return Ok(Filing::Filed(new));
        }
        Ok(Filing::AlreadyFiled(existing))
    }

    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError> {
        let select = format!(
            "SELECT {COLUMNS} FROM action_ledger ORDER BY approved_ms, sales_order, action"
        );
        let rows = crate::db::once_more(|| sqlx::query(&select).fetch_all(&self.db.pool))
            .await
            .map_err(unavailable)?;
        rows.iter()
            .map(|row| entry(row).map_err(unavailable))
            .collect()
    }

    async fn get(
        &self,
        sales_order: &str,
        action: &str,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let select =
            format!("SELECT {COLUMNS} FROM action_ledger WHERE sales_order = $1 AND action = $2");
        let row = crate::db::once_more(|| {
            sqlx::query(&select)
                .bind(sales_order)
                .bind(action)
                .fetch_optional(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        row.map(|row| entry(&row).map_err(unavailable)).transpose()
    }

    async fn claim(
        &self,
        sales_order: &str,
        action: &str,
        claim: &Claim,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let now = now_ms();
        let due = if claim.due_only {
            format!(
                " AND {}",
                DUE.replace("{now}", "$6").replace("{stale}", "$7")
            )
        } else {
            String::new()
        };
        let update = format!(
            "UPDATE action_ledger SET lease_owner = $1, lease_until_ms = $2 \
             WHERE sales_order = $3 AND action = $4 AND {}{due}",
            OPEN_AND_FREE.replace("{now}", "$5")
        );
        let until = now + claim.lease_ms as i64;
        let stale = now - claim.stale_ms as i64;
        // A claim whose commit was not seen (a lost connection) shows as
        // our own lease when read back.
        let _ = crate::db::once_more(|| {
            let mut query = sqlx::query(&update)
                .bind(&claim.owner)
                .bind(until)
                .bind(sales_order)
                .bind(action)
                .bind(now);
            if claim.due_only {
                query = query.bind(now).bind(stale);
            }
            query.execute(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        if self.lease_owner(sales_order, action).await?.as_deref() != Some(claim.owner.as_str()) {
            return Ok(None);
        }
        self.get(sales_order, action).await
    }

    async fn finish(
        &self,
        sales_order: &str,
        action: &str,
        owner: &str,
        finish: &Finish,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let now = now_ms();
        let next = finish.retry_in_ms.map(|ms| now + ms as i64);
        let counted: i64 = if finish.state == ExecutionState::Recorded {
            0
        } else {
            1
        };
        let update = "UPDATE action_ledger SET state = $1, answer = $2, next_attempt_ms = $3, \
                      updated_ms = $4, attempts = attempts + $5, lease_owner = NULL, \
                      lease_until_ms = NULL \
                      WHERE sales_order = $6 AND action = $7 AND lease_owner = $8";
        let done = crate::db::once_more(|| {
            sqlx::query(update)
                .bind(finish.state.as_str())
                .bind(finish.answer.as_deref())
                .bind(next)
                .bind(now)
                .bind(counted)
                .bind(sales_order)
                .bind(action)
                .bind(owner)
                .execute(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        if done.rows_affected() != 1 {
            return Ok(None);
        }
        self.get(sales_order, action).await
    }

    async fn due(&self, stale_ms: u64, limit: u32) -> Result<Vec<LedgerEntry>, LedgerError> {
        let now = now_ms();
        let select = format!(
            "SELECT {COLUMNS} FROM action_ledger WHERE {} AND {} ORDER BY updated_ms LIMIT $4",
            OPEN_AND_FREE.replace("{now}", "$1"),
            DUE.replace("{now}", "$2").replace("{stale}", "$3"),
        );
        let rows = crate::db::once_more(|| {
            sqlx::query(&select)
                .bind(now)
                .bind(now)
                .bind(now - stale_ms as i64)
                .bind(i64::from(limit))
                .fetch_all(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        rows.iter()
            .map(|row| entry(row).map_err(unavailable))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support;
    use std::sync::Arc;

    #[tokio::test]
    async fn sqlite_files_exactly_once_under_concurrency() {
        let db = test_support::sqlite().await;
        super::super::contract::files_exactly_once_under_concurrency(Arc::new(SqlLedger::new(db)))
            .await;
    }

    #[tokio::test]
    async fn sqlite_execution_state_moves_as_the_contract_says() {
        let db = test_support::sqlite().await;
        super::super::contract::execution_state_transitions(Arc::new(SqlLedger::new(db))).await;
    }

    #[tokio::test]
    async fn sqlite_one_claim_wins_under_concurrency() {
        let db = test_support::sqlite().await;
        super::super::contract::one_claim_wins_under_concurrency(Arc::new(SqlLedger::new(db)))
            .await;
    }

    #[tokio::test]
    async fn postgres_execution_state_moves_as_the_contract_says() {
        let Some(db) = test_support::postgres("postgres_execution_state").await else {
            return;
        };
        super::super::contract::execution_state_transitions(Arc::new(SqlLedger::new(db))).await;
    }

    #[tokio::test]
    async fn postgres_one_claim_wins_under_concurrency() {
        let Some(db) = test_support::postgres("postgres_one_claim_wins").await else {
            return;
        };
        super::super::contract::one_claim_wins_under_concurrency(Arc::new(SqlLedger::new(db)))
            .await;
    }

    #[tokio::test]
    async fn postgres_files_exactly_once_under_concurrency() {
        let Some(db) = test_support::postgres("postgres_files_exactly_once").await else {
            return;
        };
        super::super::contract::files_exactly_once_under_concurrency(Arc::new(SqlLedger::new(db)))
            .await;
    }
}
