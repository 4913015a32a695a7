//! Where audit messages wait until the Audit Log Service has them: the
//! `audit_outbox` table of the service's database (SQLite or PostgreSQL,
//! migration 0013), or memory with the memory store. Bounded by
//! `audit.max_queued` (queued and kept aside together): a message past it
//! is not stored ([`Stored::Full`]). A message is claimed by one worker at
//! a time (its due time moved forward, compared and set), deleted once
//! accepted, rescheduled on a failure that may pass, kept aside with the
//! reason on one that cannot. Its statements are not refused while the
//! database is known down (they wait, as the task calls no longer do): the
//! worker waits for the database instead (`until_reachable`).

use super::message::{Encoded, Kind};
use crate::db::Database;
use sqlx::Row;
use std::collections::VecDeque;
use std::sync::Mutex;

/// A message as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    pub id: String,
    pub kind: Kind,
    pub body: String,
    pub attempts: u32,
    /// When it is due (ms since the epoch); the claim's value once claimed.
    pub due_ms: i64,
}

/// Whether a message was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Queued,
    Full,
}

/// What `/health` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxCounts {
    pub queued: u64,
    pub kept_aside: u64,
}

#[derive(Debug, thiserror::Error)]
#[error("audit outbox: {0}")]
pub struct OutboxError(#[from] sqlx::Error);

struct MemoryRow {
    queued: Queued,
    kept_aside: Option<String>,
}

enum Place {
    Memory(Mutex<VecDeque<MemoryRow>>),
    Sql(Database),
}

pub struct Outbox {
    place: Place,
    max_queued: u64,
}

const COLUMNS: &str = "id, kind, body, attempts, due_ms";

fn queued(row: &sqlx::any::AnyRow) -> Result<Option<Queued>, sqlx::Error> {
    let kind: String = row.try_get(1)?;
    let Some(kind) = Kind::from_path(&kind) else {
        return Ok(None);
    };
    Ok(Some(Queued {
        id: row.try_get(0)?,
        kind,
        body: row.try_get(2)?,
        attempts: u32::try_from(row.try_get::<i64, _>(3)?).unwrap_or(u32::MAX),
        due_ms: row.try_get(4)?,
    }))
}

/// Store `message` through `executor` (the pool, or a connection inside
/// another room's transaction), due at `now_ms`, unless `max_queued` are
/// there: the bound and the insert in one statement.
pub(super) async fn insert<'e, E>(
    executor: E,
    message: &Encoded,
    now_ms: i64,
    max_queued: u64,
) -> Result<Stored, sqlx::Error>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let inserted = sqlx::query(
        "INSERT INTO audit_outbox (id, kind, body, attempts, due_ms, created_ms) \
         SELECT $1, $2, $3, 0, $4, $4 \
         WHERE (SELECT COUNT(*) FROM audit_outbox) < $5 \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(message.id.clone())
    .bind(message.kind.path())
    .bind(message.body.clone())
    .bind(now_ms)
    .bind(i64::try_from(max_queued).unwrap_or(i64::MAX))
    .execute(executor)
    .await?;
    Ok(if inserted.rows_affected() == 1 {
        Stored::Queued
    } else {
        Stored::Full
    })
}

impl Outbox {
    pub fn memory(max_queued: u64) -> Outbox {
        Outbox {
            place: Place::Memory(Mutex::new(VecDeque::new())),
            max_queued,
        }
    }

    pub fn sql(database: Database, max_queued: u64) -> Outbox {
        Outbox {
            place: Place::Sql(database),
            max_queued,
        }
    }

    fn rows(rows: &Mutex<VecDeque<MemoryRow>>) -> std::sync::MutexGuard<'_, VecDeque<MemoryRow>> {
        rows.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Returns once the outbox's database is not known down (at once for
    /// memory and SQLite): the worker waits here rather than failing a
    /// round, and warning, every poll while PostgreSQL is down.
    pub async fn until_reachable(&self) {
        if let Place::Sql(database) = &self.place {
            database.availability.until_up().await;
        }
    }

    /// Store a message, due now, unless the outbox is full.
    pub async fn put(&self, message: &Encoded, now_ms: i64) -> Result<Stored, OutboxError> {
        match &self.place {
            Place::Memory(rows) => {
                let mut rows = Self::rows(rows);
                if rows.len() as u64 >= self.max_queued {
                    return Ok(Stored::Full);
                }
                rows.push_back(MemoryRow {
                    queued: Queued {
                        id: message.id.clone(),
                        kind: message.kind,
                        body: message.body.clone(),
                        attempts: 0,
                        due_ms: now_ms,
                    },
                    kept_aside: None,
                });
                Ok(Stored::Queued)
            }
            Place::Sql(database) => {
                let stored = crate::db::once_more(|| {
                    insert(&database.pool, message, now_ms, self.max_queued)
                })
                .await?;
                Ok(stored)
            }
        }
    }

    /// Whether the messages live in the service's database (the table
    /// another room's transaction can write them into).
    pub fn is_sql(&self) -> bool {
        matches!(self.place, Place::Sql(_))
    }

    pub fn max_queued(&self) -> u64 {
        self.max_queued
    }

    /// Up to `most` messages due at `now_ms`, each claimed until
    /// `claim_until_ms` (another worker skips them until then).
    pub async fn claim_due(
        &self,
        now_ms: i64,
        claim_until_ms: i64,
        most: usize,
    ) -> Result<Vec<Queued>, OutboxError> {
        match &self.place {
            Place::Memory(rows) => {
                let mut rows = Self::rows(rows);
                let mut claimed = Vec::new();
                for row in rows.iter_mut() {
                    if claimed.len() == most {
                        break;
                    }
                    if row.kept_aside.is_none() && row.queued.due_ms <= now_ms {
                        row.queued.due_ms = claim_until_ms;
                        claimed.push(row.queued.clone());
                    }
                }
                Ok(claimed)
            }
            Place::Sql(database) => {
                let select = format!(
                    "SELECT {COLUMNS} FROM audit_outbox \
                     WHERE kept_aside IS NULL AND due_ms <= $1 ORDER BY due_ms, created_ms LIMIT $2"
                );
                let rows = crate::db::once_more(|| {
                    sqlx::query(&select)
                        .bind(now_ms)
                        .bind(i64::try_from(most).unwrap_or(i64::MAX))
                        .fetch_all(&database.pool)
                })
                .await?;
                let mut claimed = Vec::new();
                for row in rows {
                    let Some(mut message) = queued(&row)? else {
                        continue;
                    };
                    let taken = sqlx::query(
                        "UPDATE audit_outbox SET due_ms = $1 \
                         WHERE id = $2 AND due_ms = $3 AND kept_aside IS NULL",
                    )
                    .bind(claim_until_ms)
                    .bind(&message.id)
                    .bind(message.due_ms)
                    .execute(&database.pool)
                    .await?;
                    if taken.rows_affected() == 1 {
                        message.due_ms = claim_until_ms;
                        claimed.push(message);
                    }
                }
                Ok(claimed)
            }
        }
    }

    /// The service has it: gone.
    pub async fn sent(&self, id: &str) -> Result<(), OutboxError> {
        match &self.place {
            Place::Memory(rows) => {
                Self::rows(rows).retain(|row| row.queued.id != id);
                Ok(())
            }
            Place::Sql(database) => {
                crate::db::once_more(|| {
                    sqlx::query("DELETE FROM audit_outbox WHERE id = $1")
                        .bind(id)
                        .execute(&database.pool)
                })
                .await?;
                Ok(())
            }
        }
    }

    /// Try again at `due_ms`, one attempt more.
    pub async fn retry_at(&self, id: &str, due_ms: i64, reason: &str) -> Result<(), OutboxError> {
        match &self.place {
            Place::Memory(rows) => {
                for row in Self::rows(rows)
                    .iter_mut()
                    .filter(|row| row.queued.id == id)
                {
                    row.queued.attempts = row.queued.attempts.saturating_add(1);
                    row.queued.due_ms = due_ms;
                }
                Ok(())
            }
            Place::Sql(database) => {
                crate::db::once_more(|| {
                    sqlx::query(
                        "UPDATE audit_outbox SET attempts = attempts + 1, due_ms = $1, \
                         last_error = $2 WHERE id = $3",
                    )
                    .bind(due_ms)
                    .bind(reason)
                    .bind(id)
                    .execute(&database.pool)
                })
                .await?;
                Ok(())
            }
        }
    }

    /// Never sent again; kept with the reason for an operator.
    pub async fn keep_aside(&self, id: &str, reason: &str) -> Result<(), OutboxError> {
        match &self.place {
            Place::Memory(rows) => {
                for row in Self::rows(rows)
                    .iter_mut()
                    .filter(|row| row.queued.id == id)
                {
                    row.queued.attempts = row.queued.attempts.saturating_add(1);
                    row.kept_aside = Some(reason.to_string());
                }
                Ok(())
            }
            Place::Sql(database) => {
                crate::db::once_more(|| {
                    sqlx::query(
                        "UPDATE audit_outbox SET attempts = attempts + 1, kept_aside = $1 \
                         WHERE id = $2",
                    )
                    .bind(reason)
                    .bind(id)
                    .execute(&database.pool)
                })
                .await?;
                Ok(())
            }
        }
    }

    /// Queued and kept-aside messages, counted now.
    pub async fn counts(&self) -> Result<OutboxCounts, OutboxError> {
        match &self.place {
            Place::Memory(rows) => {
                let rows = Self::rows(rows);
                let kept_aside = rows.iter().filter(|row| row.kept_aside.is_some()).count() as u64;
                Ok(OutboxCounts {
                    queued: rows.len() as u64 - kept_aside,
                    kept_aside,
                })
            }
            Place::Sql(database) => {
                let row = crate::db::once_more(|| {
                    sqlx::query(
                        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN kept_aside IS NULL THEN 0 ELSE 1 END), 0) \
                         FROM audit_outbox",
                    )
                    .fetch_one(&database.pool)
                })
                .await?;
                let all: i64 = row.try_get(0)?;
                let kept_aside: i64 = row.try_get(1)?;
                Ok(OutboxCounts {
                    queued: u64::try_from(all - kept_aside).unwrap_or(0),
                    kept_aside: u64::try_from(kept_aside).unwrap_or(0),
                })
            }
        }
    }

    /// The value last remembered under `name` (the configuration recorded
    /// at the last start).
    pub async fn remembered(&self, name: &str) -> Result<Option<String>, OutboxError> {
        match &self.place {
            Place::Memory(_) => Ok(None),
            Place::Sql(database) => {
                let row = crate::db::once_more(|| {
                    sqlx::query("SELECT value FROM audit_state WHERE name = $1")
                        .bind(name)
                        .fetch_optional(&database.pool)
                })
                .await?;
                Ok(match row {
                    Some(row) => Some(row.try_get(0)?),
                    None => None,
                })
            }
        }
    }

    /// Remember `value` under `name`.
    pub async fn remember(&self, name: &str, value: &str) -> Result<(), OutboxError> {
        match &self.place {
            Place::Memory(_) => Ok(()),
            Place::Sql(database) => {
                crate::db::once_more(|| {
                    sqlx::query(
                        "INSERT INTO audit_state (name, value) VALUES ($1, $2) \
                         ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                    )
                    .bind(name)
                    .bind(value)
                    .execute(&database.pool)
                })
                .await?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str) -> Encoded {
        Encoded {
            kind: Kind::SecurityEvent,
            id: id.into(),
            body: format!("{{\"uuid\":\"{id}\"}}"),
        }
    }

    async fn exercise(outbox: Outbox) {
        assert_eq!(
            outbox.put(&message("a"), 100).await.unwrap(),
            Stored::Queued
        );
        assert_eq!(
            outbox.put(&message("b"), 100).await.unwrap(),
            Stored::Queued
        );
        assert_eq!(
            outbox.put(&message("c"), 100).await.unwrap(),
            Stored::Full,
            "bound 2"
        );
        let claimed = outbox.claim_due(100, 5_000, 10).await.unwrap();
        assert_eq!(claimed.len(), 2);
        assert!(
            outbox.claim_due(200, 6_000, 10).await.unwrap().is_empty(),
            "claimed"
        );
        outbox.sent("a").await.unwrap();
        outbox.keep_aside("b", "answered 400").await.unwrap();
        assert_eq!(
            outbox.counts().await.unwrap(),
            OutboxCounts {
                queued: 0,
                kept_aside: 1
            }
        );
        assert_eq!(
            outbox.put(&message("d"), 100).await.unwrap(),
            Stored::Queued
        );
        outbox.claim_due(100, 5_000, 10).await.unwrap();
        outbox.retry_at("d", 7_000, "503").await.unwrap();
        assert!(outbox.claim_due(6_999, 9_000, 10).await.unwrap().is_empty());
        let again = outbox.claim_due(7_000, 9_000, 10).await.unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].attempts, 1);
        assert_eq!(again[0].kind, Kind::SecurityEvent);
    }

    #[tokio::test]
    async fn memory_and_sqlite_bound_claim_send_retry_and_keep_aside_alike() {
        exercise(Outbox::memory(2)).await;
        let database = crate::db::test_support::sqlite().await;
        let outbox = Outbox::sql(database, 2);
        assert_eq!(outbox.remembered("configuration").await.unwrap(), None);
        outbox.remember("configuration", "v1").await.unwrap();
        outbox.remember("configuration", "v2").await.unwrap();
        assert_eq!(
            outbox.remembered("configuration").await.unwrap().as_deref(),
            Some("v2")
        );
        exercise(outbox).await;
    }

    #[tokio::test]
    async fn postgres_bounds_claims_and_keeps_aside_alike() {
        let Some(database) = crate::db::test_support::postgres("audit outbox").await else {
            return;
        };
        exercise(Outbox::sql(database, 2)).await;
    }
}
