//! The group commit of the SQL task store on PostgreSQL (and SQLite in
//! memory): the writer task takes every task write waiting in the queue and
//! runs them in one transaction, and each caller gets its own statement's
//! result once that transaction committed. Under load one commit (one WAL
//! flush) serves dozens of requests; alone, a write commits at once. A
//! SQLite file has a writer thread of its own (`sqlite_writer`), which
//! takes the same `Write`s.

use crate::db::{Database, Dialect, now_ms};
use crate::tasks::store::{StoreFault, TaskJson};
use sqlx::{AnyConnection, AnyPool, Row};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// At most this many writes share one transaction.
pub(super) const MAX_BATCH: usize = 128;

/// One task write, with everything bound.
pub(super) enum Write {
    Create {
        id: String,
        context_id: String,
        state: &'static str,
        terminal: i64,
        body: TaskJson,
        lease_owner: Option<String>,
        lease_until: Option<i64>,
        push_configs: String,
        owner: Option<String>,
        /// The `messageId` that opened the task (`store::opening_message_id`).
        message_id: Option<String>,
    },
    Update {
        id: String,
        state: &'static str,
        terminal: i64,
        body: TaskJson,
        lease_owner: Option<String>,
        lease_until: Option<i64>,
        expected_version: i64,
    },
}

pub(super) enum WriteOutcome {
    /// `false`: a task with that id exists.
    Created(bool),
    /// The new version and push configs; `None` when no row matched.
    Updated(Option<(i64, String)>),
}

/// Placeholders `($1, …, $n), ($n+1, …)` for `rows` rows of `width`.
fn placeholders(rows: usize, width: usize) -> String {
    (0..rows)
        .map(|row| {
            let values: Vec<String> = (1..=width)
                .map(|i| format!("${}", row * width + i))
                .collect();
            format!("({})", values.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// All creates of a round in one statement; the ids that were inserted.
/// (`WHERE true`: SQLite's upsert after a SELECT needs it to parse.)
async fn insert_all(
    connection: &mut AnyConnection,
    creates: &[&Write],
) -> Result<std::collections::HashSet<String>, sqlx::Error> {
    let sql = format!(
        "INSERT INTO tasks (id, context_id, state, terminal, body, version, updated_ms, \
         lease_owner, lease_until_ms, push_configs, owner, message_id) \
         SELECT column1, column2, column3, column4, column5, 1, column6, column7, column8, column9, \
         column10, column11 \
         FROM (VALUES {}) AS new_tasks WHERE true \
         ON CONFLICT (id) DO NOTHING RETURNING id",
        placeholders(creates.len(), 11)
    );
    let now = now_ms();
    let mut query = sqlx::query(&sql);
    for write in creates {
        if let Write::Create {
            id,
            context_id,
            state,
            terminal,
            body,
            lease_owner,
            lease_until,
            push_configs,
            owner,
            message_id,
        } = write
        {
            query = query
                .bind(id.as_str())
                .bind(context_id.as_str())
                .bind(*state)
                .bind(*terminal)
                .bind(&**body)
                .bind(now)
                .bind(lease_owner.as_deref())
                .bind(*lease_until)
                .bind(push_configs.as_str())
                .bind(owner.as_deref())
                .bind(message_id.as_deref());
        }
    }
    let rows = query.fetch_all(&mut *connection).await?;
    rows.iter().map(|row| row.try_get::<String, _>(0)).collect()
}

/// All updates of a round (distinct task ids) in one compare-and-set
/// statement; the new version and push configs of each task it changed.
async fn update_all(
    connection: &mut AnyConnection,
    updates: &[&Write],
) -> Result<std::collections::HashMap<String, (i64, String)>, sqlx::Error> {
    let sql = format!(
        "UPDATE tasks SET state = changes.column2, terminal = changes.column3, \
         body = changes.column4, version = tasks.version + 1, updated_ms = changes.column5, \
         lease_owner = changes.column6, lease_until_ms = changes.column7 \
         FROM (VALUES {}) AS changes \
         WHERE tasks.id = changes.column1 AND tasks.version = changes.column8 \
         AND tasks.terminal = 0 \
         RETURNING tasks.id, tasks.version, tasks.push_configs",
        placeholders(updates.len(), 8)
    );
    let now = now_ms();
    let mut query = sqlx::query(&sql);
    for write in updates {
        if let Write::Update {
            id,
            state,
            terminal,
            body,
            lease_owner,
            lease_until,
            expected_version,
        } = write
        {
            query = query
                .bind(id.as_str())
                .bind(*state)
                .bind(*terminal)
                .bind(&**body)
                .bind(now)
                .bind(lease_owner.as_deref())
                .bind(*lease_until)
                .bind(*expected_version);
        }
    }
    let rows = query.fetch_all(&mut *connection).await?;
    rows.iter()
        .map(|row| Ok((row.try_get(0)?, (row.try_get(1)?, row.try_get(2)?))))
        .collect()
}

fn task_id(write: &Write) -> &str {
    match write {
        Write::Create { id, .. } | Write::Update { id, .. } => id,
    }
}

/// The writes waiting for the writer, in arrival order.
type Queue = mpsc::Receiver<(Write, OutcomeSender)>;

/// Take what waits (at least one write), run it as one unit, answer each
/// caller. A failed batch fails every write in it: nothing half-written.
/// The writer keeps its own connection (except for SQLite in memory); with
/// `async_commit` that connection commits without waiting for the WAL
/// flush (see `store.postgres_async_task_commit`).
///
/// A kept connection is never tested by the pool, so one that PostgreSQL
/// ended while it sat idle fails the next batch: that batch runs once more
/// on a fresh connection. Running it again is safe: an update applies only
/// at the version it read and a create only to a new id, so a first run
/// that committed unseen makes the second one miss, never apply twice; the
/// miss is then recognised as this write (`recognise_own_writes`).
pub(super) async fn run_writer(
    pool: AnyPool,
    mut queue: Queue,
    single_connection: bool,
    async_commit: bool,
) {
    let mut own: Option<sqlx::pool::PoolConnection<sqlx::Any>> = None;
    loop {
        let mut batch = Vec::new();
        match queue.recv().await {
            Some(write) => batch.push(write),
            None => return,
        }
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(write) => batch.push(write),
                Err(_) => break,
            }
        }
        // A caller that left (told its store is down) was answered -32603:
        // its write is not run, so nothing stands that it was told failed.
        batch.retain(|(_, reply)| !reply.is_closed());
        if batch.is_empty() {
            continue;
        }
        let mut outcomes = write_batch(&pool, &mut own, async_commit, &batch).await;
        if let Err(error) = &outcomes
            && crate::db::connection_lost(error)
        {
            tracing::warn!(%error, writes = batch.len(), "task writer: the database connection was lost; writing the batch again on a fresh one");
            outcomes = match write_batch(&pool, &mut own, async_commit, &batch).await {
                Ok(mut outcomes) => match writer_connection(&pool, &mut own, async_commit).await {
                    Ok(connection) => recognise_own_writes(connection, &batch, &mut outcomes)
                        .await
                        .map(|()| outcomes),
                    Err(error) => Err(error),
                },
                failed => failed,
            };
        }
        if single_connection {
            own = None; // back to the pool for readers
        }
        match outcomes {
            Ok(outcomes) => {
                for ((_, reply), outcome) in batch.into_iter().zip(outcomes) {
                    let _ = reply.send(Ok(outcome));
                }
            }
            Err(error) => {
                // The connection may be the broken part: take a fresh one next.
                own = None;
                let error: StoreFault = Arc::new(error);
                for (_, reply) in batch {
                    let _ = reply.send(Err(Arc::clone(&error)));
                }
            }
        }
    }
}

/// One attempt at a batch on the writer's connection; a connection that
/// turned out to be gone is closed, not handed back to the pool.
async fn write_batch(
    pool: &AnyPool,
    own: &mut Option<sqlx::pool::PoolConnection<sqlx::Any>>,
    async_commit: bool,
    batch: &[(Write, OutcomeSender)],
) -> Result<Vec<WriteOutcome>, sqlx::Error> {
    let outcome = match writer_connection(pool, own, async_commit).await {
        Ok(connection) => commit_batch(connection, batch).await,
        Err(error) => Err(error),
    };
    if let Err(error) = &outcome
        && crate::db::connection_lost(error)
        && let Some(mut connection) = own.take()
    {
        connection.close_on_drop();
    }
    outcome
}

/// After a batch ran again: a write that missed (its id taken, its version
/// moved on) while the row holds exactly what it wrote (the same body, at
/// the version it would have made) committed in the first run, whose answer
/// was lost with the connection; it is reported done, not as a conflict.
async fn recognise_own_writes(
    connection: &mut AnyConnection,
    batch: &[(Write, OutcomeSender)],
    outcomes: &mut [WriteOutcome],
) -> Result<(), sqlx::Error> {
    for ((write, _), outcome) in batch.iter().zip(outcomes.iter_mut()) {
        let (id, body, version) = match (write, &outcome) {
            (Write::Create { id, body, .. }, WriteOutcome::Created(false)) => (id, body, 1),
            (
                Write::Update {
                    id,
                    body,
                    expected_version,
                    ..
                },
                WriteOutcome::Updated(None),
            ) => (id, body, expected_version + 1),
            _ => continue,
        };
        let row = sqlx::query(
            "SELECT push_configs FROM tasks WHERE id = $1 AND version = $2 AND body = $3",
        )
        .bind(id.as_str())
        .bind(version)
        .bind(&**body)
        .fetch_optional(&mut *connection)
        .await?;
        if let Some(row) = row {
            *outcome = match write {
                Write::Create { .. } => WriteOutcome::Created(true),
                Write::Update { .. } => WriteOutcome::Updated(Some((version, row.try_get(0)?))),
            };
        }
    }
    Ok(())
}

/// The writer's connection, kept across batches (SQLite in memory: taken
/// per batch, so reads get the only connection in between).
async fn writer_connection<'a>(
    pool: &AnyPool,
    own: &'a mut Option<sqlx::pool::PoolConnection<sqlx::Any>>,
    async_commit: bool,
) -> Result<&'a mut AnyConnection, sqlx::Error> {
    if own.is_none() {
        let mut connection = pool.acquire().await?;
        if async_commit {
            sqlx::query("SET synchronous_commit = off")
                .execute(&mut *connection)
                .await?;
        }
        *own = Some(connection);
    }
    match own {
        Some(connection) => Ok(&mut **connection),
        None => Err(sqlx::Error::PoolClosed),
    }
}

async fn commit_batch(
    connection: &mut AnyConnection,
    batch: &[(Write, OutcomeSender)],
) -> Result<Vec<WriteOutcome>, sqlx::Error> {
    // Rounds in which every task appears once, in arrival order: two
    // compare-and-set updates of one task must not meet in one statement.
    let mut rounds: Vec<Vec<usize>> = Vec::new();
    let mut pending: Vec<usize> = (0..batch.len()).collect();
    while !pending.is_empty() {
        let mut seen = std::collections::HashSet::new();
        let (round, later): (Vec<usize>, Vec<usize>) = pending
            .into_iter()
            .partition(|&index| seen.insert(task_id(&batch[index].0).to_string()));
        pending = later;
        let (creates, updates): (Vec<usize>, Vec<usize>) = round
            .into_iter()
            .partition(|&index| matches!(batch[index].0, Write::Create { .. }));
        rounds.extend(
            [creates, updates]
                .into_iter()
                .filter(|part| !part.is_empty()),
        );
    }
    let mut outcomes: Vec<Option<WriteOutcome>> = batch.iter().map(|_| None).collect();
    // One statement is atomic on its own: no BEGIN/COMMIT round trips.
    if let [only] = rounds.as_slice() {
        run_statement(connection, batch, only, &mut outcomes).await?;
    } else {
        let mut transaction = sqlx::Connection::begin(&mut *connection).await?;
        for statement in &rounds {
            run_statement(&mut transaction, batch, statement, &mut outcomes).await?;
        }
        transaction.commit().await?;
    }
    Ok(outcomes
        .into_iter()
        .map(|outcome| outcome.unwrap_or(WriteOutcome::Updated(None)))
        .collect())
}

/// One multi-row statement for writes of one kind.
async fn run_statement(
    connection: &mut AnyConnection,
    batch: &[(Write, OutcomeSender)],
    indexes: &[usize],
    outcomes: &mut [Option<WriteOutcome>],
) -> Result<(), sqlx::Error> {
    let writes: Vec<&Write> = indexes.iter().map(|&index| &batch[index].0).collect();
    if matches!(writes.first(), Some(Write::Create { .. })) {
        let inserted = insert_all(connection, &writes).await?;
        for &index in indexes {
            outcomes[index] = Some(WriteOutcome::Created(
                inserted.contains(task_id(&batch[index].0)),
            ));
        }
    } else {
        let mut updated = update_all(connection, &writes).await?;
        for &index in indexes {
            outcomes[index] = Some(WriteOutcome::Updated(
                updated.remove(task_id(&batch[index].0)),
            ));
        }
    }
    Ok(())
}

/// Where a write's result goes: its outcome, or the database error that
/// failed its batch (shared by every write of the batch).
pub(super) type OutcomeSender = oneshot::Sender<Result<WriteOutcome, StoreFault>>;

/// Where the store sends its writes.
pub(super) type Writes = mpsc::Sender<(Write, OutcomeSender)>;

/// Starts the shared writer task, one per store (PostgreSQL's writes made
/// on an actix worker go to that worker's own writer: `worker_writers`).
/// On PostgreSQL several writers (half the pool) each took the
/// two or three writes that waited, so every task paid for a statement, a
/// commit and a backend's wake-up of its own, and the backends contended
/// for the table's last pages (a p99 of tens of ms on 2 cores). One writer
/// takes everything that waited while its last batch ran: its batches grow
/// with the load and the cost per task shrinks.
pub(super) fn start(db: &Database, postgres_async_commit: bool) -> Writes {
    let (writes, queue) = mpsc::channel(4 * MAX_BATCH);
    let async_commit = match db.dialect {
        Dialect::Sqlite => false,
        Dialect::Postgres => postgres_async_commit,
    };
    tokio::spawn(run_writer(
        db.pool.clone(),
        queue,
        db.single_connection,
        async_commit,
    ));
    writes
}

/// Writes and batches for the writers' tests (here and `sqlite_writer`).
#[cfg(test)]
pub(super) mod test_writes {
    use super::{OutcomeSender, Write};
    use crate::tasks::store::TaskJson;
    use tokio::sync::oneshot;

    pub(crate) fn create(id: &str, body: &str) -> Write {
        Write::Create {
            id: id.into(),
            context_id: "c".into(),
            state: "working",
            terminal: 0,
            body: TaskJson::from(body),
            lease_owner: None,
            lease_until: None,
            push_configs: "[]".into(),
            owner: None,
            message_id: None,
        }
    }

    pub(crate) fn update(id: &str, body: &str, expected_version: i64) -> Write {
        Write::Update {
            id: id.into(),
            state: "completed",
            terminal: 1,
            body: TaskJson::from(body),
            lease_owner: None,
            lease_until: None,
            expected_version,
        }
    }

    /// Each write as the writer takes it (`Write`, or the SQLite writer's
    /// `PackedWrite`), with a reply nobody reads.
    pub(crate) fn batch<W: From<Write>>(writes: Vec<Write>) -> Vec<(W, OutcomeSender)> {
        writes
            .into_iter()
            .map(|write| (write.into(), oneshot::channel().0))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_writes::{batch, create, update};
    use super::*;
    use crate::db::test_support;

    /// The retry after a lost connection, when the first run had committed:
    /// the second run misses every write, and each is recognised as done.
    #[tokio::test]
    async fn a_batch_run_again_after_an_unseen_commit_reports_its_writes_done() {
        let db = test_support::sqlite().await;
        let mut connection = db.pool.acquire().await.unwrap();
        commit_batch(&mut connection, &batch(vec![create("u", "{\"u\":1}")]))
            .await
            .unwrap();
        let writes = batch(vec![create("t", "{\"t\":1}"), update("u", "{\"u\":2}", 1)]);
        let first = commit_batch(&mut connection, &writes).await.unwrap();
        assert!(matches!(
            first[..],
            [
                WriteOutcome::Created(true),
                WriteOutcome::Updated(Some((2, _)))
            ]
        ));
        let mut again = commit_batch(&mut connection, &writes).await.unwrap();
        assert!(
            matches!(
                again[..],
                [WriteOutcome::Created(false), WriteOutcome::Updated(None)]
            ),
            "guarded: nothing applies twice"
        );
        recognise_own_writes(&mut connection, &writes, &mut again)
            .await
            .unwrap();
        assert!(matches!(
            &again[..],
            [WriteOutcome::Created(true), WriteOutcome::Updated(Some((2, configs)))] if configs == "[]"
        ));

        // Someone else's row under the same id, or a version that moved on
        // with another body, stays a miss.
        let others = batch(vec![
            create("t", "{\"t\":\"other\"}"),
            update("u", "{\"u\":\"other\"}", 1),
        ]);
        let mut missed = commit_batch(&mut connection, &others).await.unwrap();
        recognise_own_writes(&mut connection, &others, &mut missed)
            .await
            .unwrap();
        assert!(matches!(
            missed[..],
            [WriteOutcome::Created(false), WriteOutcome::Updated(None)]
        ));
    }
}
