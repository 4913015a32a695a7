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
        let per_caller = count(caps.per_caller);
        for (owner, _) in seen.owners.iter().filter(|(_, held)| *held > per_caller) {
            deleted += self.delete_oldest(Some(owner), caps.per_caller).await?;
        }
        if seen.without_owner && self.ownerless_past(caps.without_owner).await? {
            deleted += self.delete_oldest(None, caps.without_owner).await?;
        }
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

    /// What finished from `since` on (one read of the finishing tasks): how
    /// many, the last finishing time, whether an owner-less one did, and
    /// each owner's finished tasks in all.
    async fn finishing_since(&self, since: i64) -> Result<Finishing, StoreError> {
        let sql = format!(
            "SELECT recent.owner, recent.seen, recent.last_ms, \
             CASE WHEN recent.owner IS NULL THEN 0 ELSE (SELECT COUNT(*) FROM tasks AS held \
             WHERE held.owner = recent.owner AND held.terminal = 1) END \
             FROM (SELECT owner, COUNT(*) AS seen, MAX(updated_ms) AS last_ms \
             FROM ({FINISHING}) AS finishing GROUP BY owner) AS recent"
        );
        let rows = self
            .db
            .once_more(|| {
                sqlx::query(&sql)
                    .bind(since)
                    .bind(ROWS_PER_PASS)
                    .fetch_all(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let mut seen = Finishing::default();
        for row in &rows {
            let owner: Option<String> = row.try_get(0).map_err(unavailable)?;
            seen.rows += row.try_get::<i64, _>(1).map_err(unavailable)?;
            seen.last_ms = seen
                .last_ms
                .max(row.try_get::<i64, _>(2).map_err(unavailable)?);
            match owner {
                Some(owner) => seen
                    .owners
                    .push((owner, row.try_get(3).map_err(unavailable)?)),
                None => seen.without_owner = true,
            }
        }
        Ok(seen)
    }

    async fn ownerless_past(&self, cap: usize) -> Result<bool, StoreError> {
        let row = self
            .db
            .once_more(|| {
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
        let deleted = self
            .db
            .once_more(|| {
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
#[derive(Default)]
struct Finishing {
    /// Finished tasks (at most [`ROWS_PER_PASS`]).
    rows: i64,
    /// The latest finishing time among them (Unix ms).
    last_ms: i64,
    /// Whether any has no owner.
    without_owner: bool,
    /// Each owner among them, and its finished tasks in all.
    owners: Vec<(String, i64)>,
}

fn count(cap: usize) -> i64 {
    i64::try_from(cap).unwrap_or(i64::MAX)
}
