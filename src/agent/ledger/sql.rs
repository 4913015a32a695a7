//! The ledger in SQLite or PostgreSQL: `INSERT … ON CONFLICT DO NOTHING` on
//! the primary key (sales_order, action, order_version, requested) and the
//! partial unique index of open rows (sales_order, action) decides who
//! filed; an open row in the way is superseded by one `UPDATE` that only
//! takes it when its lease is free, and the insert runs again.
//!
//! An insert whose connection was lost runs once more on a fresh one: the
//! key makes a second run file nothing a first one filed, and a second run
//! that finds exactly its own row (same approver, task and millisecond)
//! knows the first one committed unseen and reports it filed.
//!
//! An attempt's outcome is stored in one transaction with the audit
//! messages of its writes (`Finish::audit`, the audit room's rows).

use super::entry::LedgerPage;
use super::entry::{ERASED, approval_of, count_row, no_rows, superseded_by};
use super::query::{LedgerCursor, LedgerQuery};
use super::{
    ActionKey, ActionLedger, Claim, ExecutionState, Filing, Finish, LedgerEntry, LedgerError,
    RowsByState,
};
use crate::clock::rfc3339_from_unix_ms;
use crate::db::{Database, now_ms};
use async_trait::async_trait;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, Row};

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

const COLUMNS: &str = "sales_order, action, order_version, requested, specialist, summary, \
                       approved_by, approver_role, approved_ms, task_id, context_id, parameters, \
                       state, attempts, answer, next_attempt_ms, updated_ms, trace_parent, \
                       correlation_id, approver_key";

/// One row by its key; the key is bound as `$1`…`$4` ([`bind_key`]).
const BY_KEY: &str = "sales_order = $1 AND action = $2 AND order_version = $3 AND requested = $4";

/// A row is open and its lease free (`$now` is bound as the last two
/// parameters named here).
const OPEN_AND_FREE: &str =
    "state IN ('recorded', 'retrying') AND (lease_until_ms IS NULL OR lease_until_ms < {now})";

/// Due for a retry job: a `retrying` row whose time has come, or a
/// `recorded` one left alone since `{stale}`.
const DUE: &str = "((state = 'retrying' AND (next_attempt_ms IS NULL OR next_attempt_ms <= {now})) \
                   OR (state = 'recorded' AND updated_ms <= {stale}))";

/// How often filing tries again when the open row in its way changed
/// between two statements (superseded or finished by someone else).
const FILING_ROUNDS: usize = 4;

type Query<'q> = sqlx::query::Query<'q, Any, AnyArguments<'q>>;

/// Bind `key` as `$1`…`$4` of [`BY_KEY`].
fn bind_key<'q>(query: Query<'q>, key: &'q ActionKey) -> Query<'q> {
    query
        .bind(&key.sales_order)
        .bind(&key.action)
        .bind(&key.order_version)
        .bind(&key.requested)
}

fn entry(row: &AnyRow) -> Result<LedgerEntry, sqlx::Error> {
    Ok(LedgerEntry {
        key: ActionKey {
            sales_order: row.try_get(0)?,
            action: row.try_get(1)?,
            order_version: row.try_get(2)?,
            requested: row.try_get(3)?,
        },
        specialist: row.try_get(4)?,
        summary: row.try_get(5)?,
        approved_by: row.try_get(6)?,
        approver_role: row.try_get(7)?,
        approved_at: rfc3339_from_unix_ms(row.try_get(8)?),
        task_id: row.try_get(9)?,
        context_id: row.try_get(10)?,
        parameters: serde_json::from_str(&row.try_get::<String, _>(11)?).unwrap_or_default(),
        state: ExecutionState::parse(&row.try_get::<String, _>(12)?),
        attempts: u32::try_from(row.try_get::<i64, _>(13)?).unwrap_or(u32::MAX),
        answer: row.try_get(14)?,
        next_attempt_at: row.try_get::<Option<i64>, _>(15)?.map(rfc3339_from_unix_ms),
        updated_at: rfc3339_from_unix_ms(row.try_get(16)?),
        trace_parent: row.try_get(17)?,
        correlation_id: row.try_get(18)?,
        approver_key: row.try_get(19)?,
    })
}

impl SqlLedger {
    pub fn new(db: Database) -> Self {
        SqlLedger { db }
    }

    async fn lease_owner(&self, key: &ActionKey) -> Result<Option<String>, LedgerError> {
        let select = format!("SELECT lease_owner FROM action_ledger WHERE {BY_KEY}");
        let row = self
            .db
            .once_more(|| bind_key(sqlx::query(&select), key).fetch_optional(&self.db.pool))
            .await
            .map_err(unavailable)?;
        match row {
            Some(row) => row.try_get::<Option<String>, _>(0).map_err(unavailable),
            None => Ok(None),
        }
    }

    /// The open row of this order and action, whatever its version, and
    /// whether an executor holds its lease now.
    async fn open_row(&self, key: &ActionKey) -> Result<Option<(LedgerEntry, bool)>, LedgerError> {
        let select = format!(
            "SELECT {COLUMNS}, lease_until_ms FROM action_ledger \
             WHERE sales_order = $1 AND action = $2 AND state IN ('recorded', 'retrying')"
        );
        let row = self
            .db
            .once_more(|| {
                sqlx::query(&select)
                    .bind(&key.sales_order)
                    .bind(&key.action)
                    .fetch_optional(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let held = row
            .try_get::<Option<i64>, _>(20)
            .map_err(unavailable)?
            .is_some_and(|until| until >= now_ms());
        Ok(Some((entry(&row).map_err(unavailable)?, held)))
    }

    /// Mark the open row of another key for `new`'s order and action
    /// superseded, when nobody holds its lease; whether one was.
    async fn supersede(&self, new: &LedgerEntry) -> Result<bool, LedgerError> {
        let now = now_ms();
        let answer = superseded_by(new, &new.approved_at);
        let update = format!(
            "UPDATE action_ledger SET state = 'superseded', answer = $5, next_attempt_ms = NULL, \
             updated_ms = $6 WHERE sales_order = $1 AND action = $2 \
             AND NOT (order_version = $3 AND requested = $4) AND {}",
            OPEN_AND_FREE.replace("{now}", "$7")
        );
        let done = self
            .db
            .once_more(|| {
                bind_key(sqlx::query(&update), &new.key)
                    .bind(&answer)
                    .bind(now)
                    .bind(now)
                    .execute(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        Ok(done.rows_affected() > 0)
    }
}

#[async_trait]
impl ActionLedger for SqlLedger {
    async fn file(&self, mut new: LedgerEntry) -> Result<Filing, LedgerError> {
        let approved_ms = now_ms();
        new.approved_at = rfc3339_from_unix_ms(approved_ms);
        // Filed done (recording is all there is) or recorded for an executor.
        let done = new.state == ExecutionState::Done;
        if !done {
            new.state = ExecutionState::Recorded;
            new.answer = None;
        }
        new.attempts = u32::from(done);
        new.next_attempt_at = None;
        new.updated_at = new.approved_at.clone();
        let parameters = serde_json::Value::Object(new.parameters.clone()).to_string();
        // No conflict target: the key, and the one open row per order and
        // action (a partial unique index), both stop it; a row filed done
        // is not open, so an open row of the order and action stops it by
        // the `NOT EXISTS` (read in that index).
        let insert = format!(
            "INSERT INTO action_ledger ({COLUMNS}) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, \
             $10, $11, $12, $17, $18, $19, NULL, $13, $14, $15, $16 WHERE NOT EXISTS \
             (SELECT 1 FROM action_ledger WHERE sales_order = $1 AND action = $2 \
             AND state IN ('recorded', 'retrying')) ON CONFLICT DO NOTHING"
        );
        let run_insert = || {
            bind_key(sqlx::query(&insert), &new.key)
                .bind(&new.specialist)
                .bind(&new.summary)
                .bind(&new.approved_by)
                .bind(&new.approver_role)
                .bind(approved_ms)
                .bind(&new.task_id)
                .bind(&new.context_id)
                .bind(&parameters)
                .bind(approved_ms)
                .bind(new.trace_parent.as_deref())
                .bind(new.correlation_id.as_deref())
                .bind(new.approver_key.as_deref())
                .bind(new.state.as_str())
                .bind(i64::from(new.attempts))
                .bind(new.answer.as_deref())
                .execute(&self.db.pool)
        };
        for _ in 0..FILING_ROUNDS {
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
            if let Some(existing) = self.get(&new.key).await? {
                if ran_again && existing == new {
                    return Ok(Filing::Filed(new));
                }
                return Ok(Filing::AlreadyFiled(existing));
            }
            // An open row of another request stands in the way: supersede
            // it and file again, unless an executor holds it. Whatever
            // happened in between (another approval filed or superseded
            // first), the next round sees it.
            if !self.supersede(&new).await?
                && let Some((open, true)) = self.open_row(&new.key).await?
                && open.key != new.key
            {
                return Ok(Filing::EarlierOpen(open));
            }
        }
        match self.open_row(&new.key).await? {
            Some((open, _)) if open.key != new.key => Ok(Filing::EarlierOpen(open)),
            _ => Err(LedgerError::Unavailable(format!(
                "the ledger rows of {} kept changing while filing",
                new.key
            ))),
        }
    }

    async fn list(&self) -> Result<Vec<LedgerEntry>, LedgerError> {
        let select = format!(
            "SELECT {COLUMNS} FROM action_ledger \
             ORDER BY approved_ms, sales_order, action, order_version, requested"
        );
        let rows = self
            .db
            .once_more(|| sqlx::query(&select).fetch_all(&self.db.pool))
            .await
            .map_err(unavailable)?;
        rows.iter()
            .map(|row| entry(row).map_err(unavailable))
            .collect()
    }

    async fn page(&self, query: &LedgerQuery) -> Result<LedgerPage, LedgerError> {
        // One approver's rows by `action_ledger_by_approver`, every row by
        // `action_ledger_by_time`; the limit plus one says whether a next
        // page exists.
        let mut conditions = Vec::new();
        let mut parameter = 0;
        let mut next_parameter = || {
            parameter += 1;
            format!("${parameter}")
        };
        if query.approver_key.is_some() {
            conditions.push(format!("approver_key = {}", next_parameter()));
        }
        if query.after.is_some() {
            let places: Vec<String> = (0..5).map(|_| next_parameter()).collect();
            conditions.push(format!(
                "(approved_ms, sales_order, action, order_version, requested) < ({})",
                places.join(", ")
            ));
        }
        let limit = next_parameter();
        let filter = match conditions.is_empty() {
            true => String::new(),
            false => format!("WHERE {}", conditions.join(" AND ")),
        };
        let select = format!(
            "SELECT {COLUMNS} FROM action_ledger {filter} \
             ORDER BY approved_ms DESC, sales_order DESC, action DESC, order_version DESC, \
             requested DESC LIMIT {limit}"
        );
        let rows = self
            .db
            .once_more(|| {
                let mut statement = sqlx::query(&select);
                if let Some(approver) = &query.approver_key {
                    statement = statement.bind(approver);
                }
                if let Some(after) = &query.after {
                    statement = bind_key(statement.bind(after.approved_ms), &after.key);
                }
                statement
                    .bind(
                        i64::try_from(query.limit)
                            .unwrap_or(i64::MAX)
                            .saturating_add(1),
                    )
                    .fetch_all(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let more = rows.len() > query.limit;
        let mut entries = Vec::with_capacity(rows.len().min(query.limit));
        let mut next = None;
        for row in rows.iter().take(query.limit) {
            let entry = entry(row).map_err(unavailable)?;
            next = Some(LedgerCursor {
                approved_ms: row.try_get(8).map_err(unavailable)?,
                key: entry.key.clone(),
            });
            entries.push(entry);
        }
        Ok(LedgerPage {
            entries,
            next: next.filter(|_| more),
        })
    }

    async fn get(&self, key: &ActionKey) -> Result<Option<LedgerEntry>, LedgerError> {
        let select = format!("SELECT {COLUMNS} FROM action_ledger WHERE {BY_KEY}");
        let row = self
            .db
            .once_more(|| bind_key(sqlx::query(&select), key).fetch_optional(&self.db.pool))
            .await
            .map_err(unavailable)?;
        row.map(|row| entry(&row).map_err(unavailable)).transpose()
    }

    async fn claim(
        &self,
        key: &ActionKey,
        claim: &Claim,
    ) -> Result<Option<LedgerEntry>, LedgerError> {
        let now = now_ms();
        let due = if claim.due_only {
            format!(
                " AND {}",
                DUE.replace("{now}", "$8").replace("{stale}", "$9")
            )
        } else {
            String::new()
        };
        let update = format!(
            "UPDATE action_ledger SET lease_owner = $5, lease_until_ms = $6 \
             WHERE {BY_KEY} AND {}{due}",
            OPEN_AND_FREE.replace("{now}", "$7")
        );
        let until = now + claim.lease_ms as i64;
        let stale = now - claim.stale_ms as i64;
        // A claim whose commit was not seen (a lost connection) shows as
        // our own lease when read back.
        let _ = self
            .db
            .once_more(|| {
                let mut query = bind_key(sqlx::query(&update), key)
                    .bind(&claim.owner)
                    .bind(until)
                    .bind(now);
                if claim.due_only {
                    query = query.bind(now).bind(stale);
                }
                query.execute(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        if self.lease_owner(key).await?.as_deref() != Some(claim.owner.as_str()) {
            return Ok(None);
        }
        self.get(key).await
    }

    async fn finish(
        &self,
        key: &ActionKey,
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
        let update = format!(
            "UPDATE action_ledger SET state = $5, answer = $6, next_attempt_ms = $7, \
             updated_ms = $8, attempts = attempts + $9, lease_owner = NULL, \
             lease_until_ms = NULL WHERE {BY_KEY} AND lease_owner = $10"
        );
        // The outcome and the audit messages of the attempt's writes in one
        // transaction: neither is stored without the other.
        let update = update.as_str();
        let done = self
            .db
            .once_more(|| async move {
                let mut transaction = self.db.pool.begin().await?;
                let done = bind_key(sqlx::query(update), key)
                    .bind(finish.state.as_str())
                    .bind(finish.answer.as_deref())
                    .bind(next)
                    .bind(now)
                    .bind(counted)
                    .bind(owner)
                    .execute(&mut *transaction)
                    .await?;
                if done.rows_affected() == 1 && !finish.audit.is_empty() {
                    finish.audit.put_in(&mut transaction, now).await?;
                }
                transaction.commit().await?;
                Ok::<u64, sqlx::Error>(done.rows_affected())
            })
            .await
            .map_err(unavailable)?;
        if done != 1 {
            return Ok(None);
        }
        self.get(key).await
    }

    async fn due(&self, stale_ms: u64, limit: u32) -> Result<Vec<LedgerEntry>, LedgerError> {
        let now = now_ms();
        let select = format!(
            "SELECT {COLUMNS} FROM action_ledger WHERE {} AND {} ORDER BY updated_ms LIMIT $4",
            OPEN_AND_FREE.replace("{now}", "$1"),
            DUE.replace("{now}", "$2").replace("{stale}", "$3"),
        );
        let rows = self
            .db
            .once_more(|| {
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

    async fn count_by_state(&self) -> Result<RowsByState, LedgerError> {
        let select = "SELECT state, COUNT(*) FROM action_ledger GROUP BY state";
        let rows = self
            .db
            .once_more(|| sqlx::query(select).fetch_all(&self.db.pool))
            .await
            .map_err(unavailable)?;
        let mut counted = no_rows();
        for row in &rows {
            let state: String = row.try_get(0).map_err(unavailable)?;
            let count: i64 = row.try_get(1).map_err(unavailable)?;
            count_row(
                &mut counted,
                ExecutionState::parse(&state),
                u64::try_from(count).unwrap_or(0),
            );
        }
        Ok(counted)
    }

    async fn erase_approver(&self, approver_key: &str) -> Result<u64, LedgerError> {
        // One transaction: the rows and the answers naming them change
        // together or not at all; a second run finds no row of the key.
        let mut tx = self.db.pool.begin().await.map_err(unavailable)?;
        let approved = sqlx::query(
            "SELECT sales_order, action, approved_by, approver_role, task_id \
             FROM action_ledger WHERE approver_key = $1",
        )
        .bind(approver_key)
        .fetch_all(&mut *tx)
        .await
        .map_err(unavailable)?;
        for row in &approved {
            let text = |index| row.try_get::<String, _>(index).map_err(unavailable);
            let (sales_order, action, role, task_id) = (text(0)?, text(1)?, text(3)?, text(4)?);
            let named = approval_of(&text(2)?, &role, &task_id);
            // Only a row of the same order and action can have been
            // superseded by this approval.
            sqlx::query(
                "UPDATE action_ledger SET answer = REPLACE(answer, $1, $2) \
                 WHERE sales_order = $3 AND action = $4 AND state = 'superseded'",
            )
            .bind(&named)
            .bind(approval_of(ERASED, &role, &task_id))
            .bind(&sales_order)
            .bind(&action)
            .execute(&mut *tx)
            .await
            .map_err(unavailable)?;
        }
        sqlx::query(
            "UPDATE action_ledger SET approved_by = $1, approver_key = $2 WHERE approver_key = $3",
        )
        .bind(ERASED)
        .bind(ERASED)
        .bind(approver_key)
        .execute(&mut *tx)
        .await
        .map_err(unavailable)?;
        tx.commit().await.map_err(unavailable)?;
        Ok(approved.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::ledger::contract;
    use crate::db::test_support;
    use std::sync::Arc;

    fn ledger(db: Database) -> Arc<dyn ActionLedger> {
        Arc::new(SqlLedger::new(db))
    }

    /// Every contract, on a fresh SQLite database each.
    #[tokio::test]
    async fn sqlite_files_exactly_once_under_concurrency() {
        contract::files_exactly_once_under_concurrency(ledger(test_support::sqlite().await)).await;
    }

    #[tokio::test]
    async fn sqlite_and_postgres_file_a_done_row_finished_at_once() {
        contract::a_row_filed_done_is_finished_at_once(ledger(test_support::sqlite().await)).await;
        if let Some(db) = test_support::postgres("ledger_a_row_filed_done").await {
            contract::a_row_filed_done_is_finished_at_once(ledger(db)).await;
        }
    }

    #[tokio::test]
    async fn sqlite_execution_state_moves_as_the_contract_says() {
        contract::execution_state_transitions(ledger(test_support::sqlite().await)).await;
    }

    #[tokio::test]
    async fn sqlite_one_claim_wins_under_concurrency() {
        contract::one_claim_wins_under_concurrency(ledger(test_support::sqlite().await)).await;
    }

    #[tokio::test]
    async fn sqlite_a_changed_order_or_another_date_is_a_new_request() {
        contract::a_changed_order_or_another_date_is_a_new_request(ledger(
            test_support::sqlite().await,
        ))
        .await;
    }

    #[tokio::test]
    async fn sqlite_an_open_earlier_request_is_superseded_unless_it_is_being_carried_out() {
        contract::an_open_earlier_request_is_superseded_unless_it_is_being_carried_out(ledger(
            test_support::sqlite().await,
        ))
        .await;
    }

    #[tokio::test]
    async fn sqlite_new_requests_file_exactly_once_under_concurrency() {
        contract::new_requests_file_exactly_once_under_concurrency(ledger(
            test_support::sqlite().await,
        ))
        .await;
    }

    #[tokio::test]
    async fn sqlite_rows_are_counted_by_state_and_keep_the_approvals_trace() {
        contract::rows_are_counted_by_state_and_keep_the_approvals_trace(ledger(
            test_support::sqlite().await,
        ))
        .await;
    }

    #[tokio::test]
    async fn sqlite_rows_filed_before_the_trace_was_kept_read_without_one() {
        rows_filed_before_the_trace_was_kept_read_without_one(test_support::sqlite_until(9).await)
            .await;
    }

    /// A database of the release before approver keys (migrations up to
    /// 0010) with a row of alice's, migrated: the row's approver has the
    /// owner form of that time (`user:alice`), which no person's page
    /// finds until the start-up adopts it for the one bound identity
    /// service's realm; then alice of that realm finds it.
    async fn old_rows_are_their_approver_s_once_adopted(db: Database) {
        sqlx::query(
            "INSERT INTO action_ledger (sales_order, action, order_version, requested, \
             specialist, summary, approved_by, approver_role, approved_ms, task_id, context_id, \
             parameters, state, attempts, updated_ms) \
             VALUES ('4725', 'open_dispute_case', 'v1', '', 'pricing', 'filed before', 'alice', \
             'ar_clerk', 1764504000000, 'task-old', 'ctx-old', '{}', 'done', 1, 1764504000000)",
        )
        .execute(&db.pool)
        .await
        .expect("an old row");
        db.migrate_until(i64::MAX).await.expect("migrated");
        let ledger = ledger(db.clone());
        let alice = || LedgerQuery {
            approver_key: Some("ias:t-1:user:alice".into()),
            limit: 10,
            after: None,
        };
        assert!(
            ledger
                .page(&alice())
                .await
                .expect("page")
                .entries
                .is_empty()
        );
        let old = ledger
            .get(&ActionKey::new("4725", "open_dispute_case", "v1", ""))
            .await
            .expect("get")
            .expect("the old row");
        assert_eq!(old.approver_key.as_deref(), Some("user:alice"));

        let adopted = db.adopt_legacy_owners("ias:t-1:").await.expect("adopted");
        assert_eq!((adopted.tasks, adopted.ledger_rows), (0, 1));
        let page = ledger.page(&alice()).await.expect("page");
        assert_eq!(page.entries.len(), 1);
        assert_eq!(page.entries[0].approved_by, "alice");
        let again = db.adopt_legacy_owners("ias:t-1:").await.expect("adopted");
        assert_eq!((again.tasks, again.ledger_rows), (0, 0));
    }

    #[tokio::test]
    async fn sqlite_old_rows_are_their_approver_s_once_adopted() {
        old_rows_are_their_approver_s_once_adopted(test_support::sqlite_until(10).await).await;
    }

    #[tokio::test]
    async fn postgres_old_rows_are_their_approver_s_once_adopted() {
        let Some(db) = test_support::postgres_until("postgres_old_rows_are_their", 10).await else {
            return;
        };
        old_rows_are_their_approver_s_once_adopted(db).await;
    }

    #[tokio::test]
    async fn sqlite_erasing_an_approver_keeps_the_rows_without_them() {
        contract::erasing_an_approver_keeps_the_rows_without_them(ledger(
            test_support::sqlite().await,
        ))
        .await;
    }

    #[tokio::test]
    async fn postgres_erasing_an_approver_keeps_the_rows_without_them() {
        let Some(db) = test_support::postgres("postgres_erasing_an_approver").await else {
            return;
        };
        contract::erasing_an_approver_keeps_the_rows_without_them(ledger(db)).await;
    }

    #[tokio::test]
    async fn sqlite_pages_newest_first_by_approver() {
        contract::pages_newest_first_by_approver(ledger(test_support::sqlite().await)).await;
    }

    #[tokio::test]
    async fn postgres_pages_newest_first_by_approver() {
        let Some(db) = test_support::postgres("postgres_pages_newest_first").await else {
            return;
        };
        contract::pages_newest_first_by_approver(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_rows_are_counted_by_state_and_keep_the_approvals_trace() {
        let Some(db) = test_support::postgres("postgres_rows_are_counted_by_state").await else {
            return;
        };
        contract::rows_are_counted_by_state_and_keep_the_approvals_trace(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_rows_filed_before_the_trace_was_kept_read_without_one() {
        let Some(db) =
            test_support::postgres_until("postgres_rows_filed_before_the_trace", 9).await
        else {
            return;
        };
        rows_filed_before_the_trace_was_kept_read_without_one(db).await;
    }

    /// A database of the release before the trace was kept (migrations up
    /// to 0009) with a retrying row, migrated: the row reads without a
    /// trace or correlation id (its later attempts start a trace of their
    /// own), is counted and still due; a new row keeps both.
    async fn rows_filed_before_the_trace_was_kept_read_without_one(db: Database) {
        sqlx::query(
            "INSERT INTO action_ledger (sales_order, action, order_version, requested, \
             specialist, summary, approved_by, approver_role, approved_ms, task_id, context_id, \
             parameters, state, attempts, answer, next_attempt_ms, updated_ms) \
             VALUES ('4740', 'open_dispute_case', 'v1', '', 'pricing', 'filed before', 'u-old', \
             'ar_clerk', 1764504000000, 'task-old', 'ctx-old', '{}', 'retrying', 1, \
             'S/4HANA answered 503', 1764504000000, 1764504000000)",
        )
        .execute(&db.pool)
        .await
        .expect("an old row");
        db.migrate_until(i64::MAX).await.expect("migrated");
        let ledger = ledger(db);
        let old = ledger
            .get(&ActionKey::new("4740", "open_dispute_case", "v1", ""))
            .await
            .expect("get")
            .expect("the old row");
        assert_eq!((old.trace_parent, old.correlation_id), (None, None));
        assert_eq!(old.task_id, "task-old");
        assert_eq!(ledger.due(60_000, 10).await.expect("due").len(), 1);
        let counted = ledger.count_by_state().await.expect("count");
        assert!(
            counted.contains(&(ExecutionState::Retrying, 1)),
            "{counted:?}"
        );

        let mut new = contract::entry("4725", "u-new");
        new.trace_parent = Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into());
        new.correlation_id = Some("corr-new".into());
        assert!(matches!(
            ledger.file(new.clone()).await.expect("file"),
            Filing::Filed(_)
        ));
        let kept = ledger.get(&new.key).await.expect("get").expect("row");
        assert_eq!(kept.trace_parent, new.trace_parent);
        assert_eq!(kept.correlation_id.as_deref(), Some("corr-new"));
    }

    #[tokio::test]
    async fn sqlite_old_rows_keep_their_key_after_the_migration() {
        let db = test_support::sqlite_until(8).await;
        old_rows_keep_their_key_after_the_migration(db).await;
    }

    #[tokio::test]
    async fn postgres_execution_state_moves_as_the_contract_says() {
        let Some(db) = test_support::postgres("postgres_execution_state").await else {
            return;
        };
        contract::execution_state_transitions(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_one_claim_wins_under_concurrency() {
        let Some(db) = test_support::postgres("postgres_one_claim_wins").await else {
            return;
        };
        contract::one_claim_wins_under_concurrency(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_files_exactly_once_under_concurrency() {
        let Some(db) = test_support::postgres("postgres_files_exactly_once").await else {
            return;
        };
        contract::files_exactly_once_under_concurrency(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_a_changed_order_or_another_date_is_a_new_request() {
        let Some(db) = test_support::postgres("postgres_a_changed_order").await else {
            return;
        };
        contract::a_changed_order_or_another_date_is_a_new_request(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_an_open_earlier_request_is_superseded_unless_it_is_being_carried_out() {
        let Some(db) = test_support::postgres("postgres_an_open_earlier_request").await else {
            return;
        };
        contract::an_open_earlier_request_is_superseded_unless_it_is_being_carried_out(ledger(db))
            .await;
    }

    #[tokio::test]
    async fn postgres_new_requests_file_exactly_once_under_concurrency() {
        let Some(db) = test_support::postgres("postgres_new_requests_exactly_once").await else {
            return;
        };
        contract::new_requests_file_exactly_once_under_concurrency(ledger(db)).await;
    }

    #[tokio::test]
    async fn postgres_old_rows_keep_their_key_after_the_migration() {
        let Some(db) = test_support::postgres_until("postgres_old_rows_keep_their_key", 8).await
        else {
            return;
        };
        old_rows_keep_their_key_after_the_migration(db).await;
    }

    /// A database of the release before the versioned key (migrations up to
    /// 0008) with two rows of its own, migrated: the rows keep their key
    /// (version and request empty), a repeat of them is already filed, and a
    /// request made with a version files anew (superseding the open one).
    async fn old_rows_keep_their_key_after_the_migration(db: Database) {
        let old_row = "INSERT INTO action_ledger (sales_order, action, specialist, summary, \
                       approved_by, approver_role, approved_ms, task_id, context_id, parameters, \
                       state, attempts, answer, next_attempt_ms, updated_ms) \
                       VALUES ($1, $2, 'pricing', 'filed before', 'u-old', 'ar_clerk', 1764504000000, \
                       'task-old', 'ctx-old', '{}', $3, 1, $4, NULL, 1764504000000)";
        for (order, state, answer) in [
            ("4725", "done", "ledger only"),
            ("4740", "retrying", "S/4HANA answered 503"),
        ] {
            sqlx::query(old_row)
                .bind(order)
                .bind("open_dispute_case")
                .bind(state)
                .bind(answer)
                .execute(&db.pool)
                .await
                .expect("an old row");
        }
        db.migrate_until(i64::MAX).await.expect("migrated");
        let ledger = ledger(db);

        let legacy = |order: &str| ActionKey::new(order, "open_dispute_case", "", "");
        let old = ledger
            .get(&legacy("4725"))
            .await
            .expect("get")
            .expect("the old row is found by its old key");
        assert_eq!(old.approved_by, "u-old");
        assert_eq!(old.state, ExecutionState::Done);
        assert_eq!(old.answer.as_deref(), Some("ledger only"));
        assert_eq!(old.approved_at, "2025-11-30T12:00:00.000Z");
        assert!(old.key.is_legacy());

        // A repeat of an old approval (a proposal stored before versions).
        let mut repeat = contract::entry("4725", "u-new");
        repeat.key = legacy("4725");
        match ledger.file(repeat).await.expect("file") {
            Filing::AlreadyFiled(existing) => assert_eq!(existing.approved_by, "u-old"),
            other => panic!("a repeat of an old approval files nothing: {other:?}"),
        }
        let mut open_repeat = contract::entry("4740", "u-new");
        open_repeat.key = legacy("4740");
        assert!(matches!(
            ledger.file(open_repeat).await.expect("file"),
            Filing::AlreadyFiled(existing) if existing.state == ExecutionState::Retrying
        ));

        // Requests made with the order's version are new ones.
        for order in ["4725", "4740"] {
            assert!(matches!(
                ledger
                    .file(contract::entry(order, "u-new"))
                    .await
                    .expect("file"),
                Filing::Filed(_)
            ));
        }
        assert_eq!(
            ledger
                .get(&legacy("4740"))
                .await
                .expect("get")
                .map(|row| row.state),
            Some(ExecutionState::Superseded)
        );
        assert_eq!(ledger.list().await.expect("list").len(), 4);
    }
}
