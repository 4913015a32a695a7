//! The ledger in SQLite or PostgreSQL: `INSERT … ON CONFLICT DO NOTHING` on
//! the (sales_order, action) primary key decides who filed.
//!
//! An insert whose connection was lost runs once more on a fresh one: the
//! key makes a second run file nothing a first one filed, and a second run
//! that finds exactly its own row (same approver, task and millisecond)
//! knows the first one committed unseen and reports it filed.

use super::{ActionLedger, Filing, LedgerEntry, LedgerError};
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
                       approved_ms, task_id, context_id";

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
    })
}

impl SqlLedger {
    pub fn new(db: Database) -> Self {
        SqlLedger { db }
    }
}

#[async_trait]
impl ActionLedger for SqlLedger {
    async fn file(&self, mut new: LedgerEntry) -> Result<Filing, LedgerError> {
        let approved_ms = now_ms();
        new.approved_at = rfc3339_from_unix_ms(approved_ms);
        let insert = format!(
            "INSERT INTO action_ledger ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (sales_order, action) DO NOTHING"
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
    async fn postgres_files_exactly_once_under_concurrency() {
        let Some(db) = test_support::postgres("postgres_files_exactly_once").await else {
            return;
        };
        super::super::contract::files_exactly_once_under_concurrency(Arc::new(SqlLedger::new(db)))
            .await;
    }
}
