//! `TaskStore::trim_finished` in SQL: each caller keeps at most its cap of
//! finished tasks, the oldest past it deleted (with their push configs,
//! which live in the row). Run by the upkeep between task writes, never by
//! one: a write costs no statement more. Each pass looks only at the
//! owners who finished a task since the last pass (the `tasks_finished`
//! index, which holds the owner), counts their finished tasks from the
//! `tasks_by_owner` index alone, and deletes only for those past the cap.

use super::{SqlTaskStore, unavailable};
use crate::db::now_ms;
use crate::tasks::settings::FinishedCaps;
use crate::tasks::store::StoreError;
use sqlx::Row;
use std::sync::atomic::Ordering;

/// Finished tasks one pass looks at, at most (the rest are the next
/// pass's): the first pass after a start reads every finished task.
const ROWS_PER_PASS: i64 = 100_000;

/// How far back each pass looks again (ms): a task written just before a
/// pass may commit just after it, and instances' clocks differ a little.
/// Looking again at a caller costs one count.
const LATE_COMMIT_MS: i64 = 10_000;

/// The finished tasks (owner, finishing time) a pass looks at: from `$1`
/// on, oldest first, at most `$2`.
const FINISHING: &str = "SELECT owner, updated_ms FROM tasks \
                         WHERE terminal = 1 AND updated_ms >= $1 ORDER BY updated_ms LIMIT $2";

impl SqlTaskStore {
    /// Delete the oldest finished tasks of the callers past their cap who
    /// finished a task since the last pass; returns how many went.
    pub(super) async fn trim(&self, caps: FinishedCaps) -> Result<u64, StoreError> {
        let started = now_ms();
        let since = self.trimmed_since.load(Ordering::Relaxed);
        let seen = self.finishing_since(since).await?;
        let mut deleted = 0;
        for owner in self.owners_past(since, caps.per_caller).await? {
            deleted += self.delete_oldest(Some(&owner), caps.per_caller).await?;
        }
        if seen.without_owner && self.ownerless_past(caps.without_owner).await? {
            deleted += self.delete_oldest(None, caps.without_owner).await?;
        }
        // A full pass: the next looks from a little before this one
        // started; else from where this one stopped (one millisecond on
        // when the whole pass fell in one).
        let next = if seen.rows < ROWS_PER_PASS {
            started - LATE_COMMIT_MS
        } else if seen.last_ms > since {
            seen.last_ms
        } else {
            since + 1
        };
        self.trimmed_since.store(next, Ordering::Relaxed);
        Ok(deleted)
    }

    /// What a pass from `since` looks at.
    async fn finishing_since(&self, since: i64) -> Result<Finishing, StoreError> {
        let sql = format!(
            "SELECT COUNT(*), COALESCE(MAX(updated_ms), 0), COUNT(*) - COUNT(owner) \
             FROM ({FINISHING}) AS finishing"
        );
        let row = crate::db::once_more(|| {
            sqlx::query(&sql)
                .bind(since)
                .bind(ROWS_PER_PASS)
                .fetch_one(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        let without_owner: i64 = row.try_get(2).map_err(unavailable)?;
        Ok(Finishing {
            rows: row.try_get(0).map_err(unavailable)?,
            last_ms: row.try_get(1).map_err(unavailable)?,
            without_owner: without_owner > 0,
        })
    }

    /// The callers who finished a task since `since` and hold more than
    /// `cap` finished tasks.
    async fn owners_past(&self, since: i64, cap: usize) -> Result<Vec<String>, StoreError> {
        let sql = format!(
            "SELECT owner FROM (SELECT DISTINCT owner FROM ({FINISHING}) AS finishing) AS recent \
             WHERE owner IS NOT NULL AND (SELECT COUNT(*) FROM tasks AS held \
             WHERE held.owner = recent.owner AND held.terminal = 1) > $3"
        );
        let rows = crate::db::once_more(|| {
            sqlx::query(&sql)
                .bind(since)
                .bind(ROWS_PER_PASS)
                .bind(count(cap))
                .fetch_all(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        super::first_column_ids(&rows)
    }

    /// Whether the tasks without an owner number more than `cap`.
    async fn ownerless_past(&self, cap: usize) -> Result<bool, StoreError> {
        let row = crate::db::once_more(|| {
            sqlx::query("SELECT COUNT(*) FROM tasks WHERE owner IS NULL AND terminal = 1")
                .fetch_one(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        let held: i64 = row.try_get(0).map_err(unavailable)?;
        Ok(held > count(cap))
    }

    /// Delete `owner`'s finished tasks but the newest `cap`; returns how
    /// many went. Run twice, it deletes what once would.
    async fn delete_oldest(&self, owner: Option<&str>, cap: usize) -> Result<u64, StoreError> {
        let whose = match owner {
            Some(_) => "owner = $2",
            None => "owner IS NULL",
        };
        let sql = format!(
            "DELETE FROM tasks WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER \
             (ORDER BY updated_ms DESC, id DESC) AS newer FROM tasks \
             WHERE {whose} AND terminal = 1) AS ranked WHERE newer > $1)"
        );
        let deleted = crate::db::once_more(|| {
            let query = sqlx::query(&sql).bind(count(cap));
            match owner {
                Some(owner) => query.bind(owner),
                None => query,
            }
            .execute(&self.db.pool)
        })
        .await
        .map_err(unavailable)?;
        Ok(deleted.rows_affected())
    }
}

/// What one pass looks at.
struct Finishing {
    /// Finished tasks (at most [`ROWS_PER_PASS`]).
    rows: i64,
    /// The latest finishing time among them (Unix ms).
    last_ms: i64,
    /// Whether any has no owner.
    without_owner: bool,
}

fn count(cap: usize) -> i64 {
    i64::try_from(cap).unwrap_or(i64::MAX)
}
