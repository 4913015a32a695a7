//! The SQL task store (SQLite or PostgreSQL, one set of statements): each
//! task is one row holding its JSON (packed in a SQLite file:
//! `packed_body`), a compare-and-set version, the lease of
//! the instance running its turn, and its push configs. Task writes go
//! through a group commit: the writer thread of a SQLite file
//! (`sqlite_writer`), else the writer task of `group_commit`; reads and the
//! push config edits run on the pool.

mod erase;
mod group_commit;
mod listing;
mod packed_body;
mod push_json;
mod sqlite_writer;
mod trim;
mod worker_writers;

use super::listing::{TaskPage, TaskQuery};
use super::settings::FinishedCaps;
use super::store::{
    ErasedTasks, PushConfigSet, StoreError, StoredTask, TaskJson, TaskStore, Written, encode_task,
    opening_message_id,
};
use crate::a2a::{PushNotificationConfig, Task, TaskState};
use crate::db::{Database, DbError, Dialect, StoreSettings, now_ms};
use async_trait::async_trait;
use group_commit::{OutcomeSender, Write, WriteOutcome};
use sqlx::Row;
use std::time::Duration;
use tokio::sync::oneshot;

/// The writer tasks are gone (the runtime is shutting down).
#[derive(Debug, thiserror::Error)]
#[error("the task writer stopped")]
struct WriterStopped;

pub struct SqlTaskStore {
    db: Database,
    /// Who holds the leases this store writes (one id per process).
    instance: String,
    lease: Duration,
    writer: Writer,
    /// The last task write failed for want of space (for `/health`).
    out_of_space: std::sync::atomic::AtomicBool,
    /// Where the next trim of finished tasks looks from (Unix ms of
    /// finishing; `trim`): 0 at start, every finished task.
    trimmed_since: std::sync::atomic::AtomicI64,
}

/// Where task writes go.
enum Writer {
    /// The writer thread of a SQLite file.
    SqliteThread(sqlite_writer::Writes),
    /// The writer task on the pool (SQLite in memory).
    Pool(group_commit::Writes),
    /// PostgreSQL: a writer on each actix worker, and the shared one.
    Workers(worker_writers::WorkerWriters),
}

impl Writer {
    async fn send(&self, write: Write, reply: OutcomeSender) -> Result<(), WriterStopped> {
        match self {
            Writer::SqliteThread(writes) => writes
                .send((write.into(), reply))
                .map_err(|_| WriterStopped),
            Writer::Pool(writes) => writes.send((write, reply)).await.map_err(|_| WriterStopped),
            Writer::Workers(writers) => writers.send(write, reply).await.map_err(|_| WriterStopped),
        }
    }
}

/// A database error: the store did not answer.
/// Whether a write failed for want of space: SQLite's `SQLITE_FULL` (the
/// task writer's rusqlite, or sqlx), PostgreSQL's `disk_full` (53100).
fn no_space_left(fault: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    if let Some(error) = fault.downcast_ref::<rusqlite::Error>() {
        return error.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull);
    }
    if let Some(sqlx::Error::Database(error)) = fault.downcast_ref::<sqlx::Error>() {
        return matches!(error.code().as_deref(), Some("13" | "53100"));
    }
    false
}

/// The task ids in the first column of `rows`.
fn first_column_ids(rows: &[sqlx::any::AnyRow]) -> Result<Vec<String>, StoreError> {
    rows.iter()
        .map(|row| row.try_get::<String, _>(0).map_err(unavailable))
        .collect()
}

fn unavailable(error: sqlx::Error) -> StoreError {
    StoreError::unavailable(error)
}

fn decode<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> Result<T, StoreError> {
    serde_json::from_str(json).map_err(|error| StoreError::corrupt(what, error))
}

fn encode_push_configs(configs: &[PushNotificationConfig]) -> Result<String, StoreError> {
    push_json::encode(configs).map_err(|error| StoreError::corrupt("push configs", error))
}

fn decode_push_configs(json: &str) -> Result<Vec<PushNotificationConfig>, StoreError> {
    push_json::decode(json).map_err(|error| StoreError::corrupt("push configs", error))
}

fn leased(state: TaskState) -> bool {
    matches!(state, TaskState::Submitted | TaskState::Working)
}

fn version(value: i64) -> u64 {
    value.max(0).unsigned_abs()
}

impl SqlTaskStore {
    /// The store the settings describe (lease, asynchronous commits of task
    /// writes on PostgreSQL) on `db`, its leases held by `instance`.
    pub fn from_settings(
        db: Database,
        instance: String,
        settings: &StoreSettings,
    ) -> Result<Self, DbError> {
        Self::with_wal_limit(
            db,
            instance,
            settings.lease(),
            settings.postgres_async_task_commit,
            settings.sqlite_wal_limit_bytes(),
        )
    }

    /// [`SqlTaskStore::with_wal_limit`] with the default WAL limit.
    #[cfg(test)]
    pub fn new(
        db: Database,
        instance: String,
        lease: Duration,
        postgres_async_commit: bool,
    ) -> Result<Self, DbError> {
        let wal_limit = StoreSettings::default().sqlite_wal_limit_bytes();
        Self::with_wal_limit(db, instance, lease, postgres_async_commit, wal_limit)
    }

    /// Starts the task writer: a thread with its own connection for a
    /// SQLite file (`sqlite_writer`), else a task on the pool
    /// (`group_commit`); a SQLite file's WAL is kept near
    /// `wal_limit_bytes`. Fails when that connection or thread cannot be
    /// had.
    pub fn with_wal_limit(
        db: Database,
        instance: String,
        lease: Duration,
        postgres_async_commit: bool,
        wal_limit_bytes: u64,
    ) -> Result<Self, DbError> {
        let writer = match &db.sqlite_file {
            Some(file) => {
                let writer = crate::db::sqlite_writer_connection(file)?;
                let copier = crate::db::sqlite_writer_connection(file)?;
                Writer::SqliteThread(
                    sqlite_writer::start(writer, copier, file, wal_limit_bytes).map_err(
                        |source| DbError::WriterThread {
                            location: db.location.clone(),
                            source,
                        },
                    )?,
                )
            }
            None => {
                let shared = group_commit::start(&db, postgres_async_commit);
                match db.dialect {
                    Dialect::Postgres => Writer::Workers(worker_writers::WorkerWriters::new(
                        db.pool.clone(),
                        postgres_async_commit,
                        shared,
                    )),
                    Dialect::Sqlite => Writer::Pool(shared),
                }
            }
        };
        Ok(SqlTaskStore {
            db,
            instance,
            lease,
            writer,
            out_of_space: std::sync::atomic::AtomicBool::new(false),
            trimmed_since: std::sync::atomic::AtomicI64::new(0),
        })
    }

    /// One task write through the writer. While the database is known
    /// down it is refused at once (and one waiting is released as soon as
    /// it is found down): the caller is told -32603 without waiting out the
    /// pool, and a write whose caller left is not run (`group_commit`).
    async fn write(&self, write: Write) -> Result<WriteOutcome, StoreError> {
        let availability = &self.db.availability;
        let written = availability
            .unless_down(async {
                let (reply, answer) = oneshot::channel();
                self.writer
                    .send(write, reply)
                    .await
                    .map_err(StoreError::unavailable)?;
                answer
                    .await
                    .map_err(|_| StoreError::unavailable(WriterStopped))
            })
            .await?;
        if let Err(fault) = &written
            && let Some(error) = fault.downcast_ref::<sqlx::Error>()
        {
            availability.observe(error);
        }
        let out_of_space = written
            .as_ref()
            .is_err_and(|fault| no_space_left(fault.as_ref()));
        self.out_of_space
            .store(out_of_space, std::sync::atomic::Ordering::Relaxed);
        written.map_err(|fault| {
            if out_of_space {
                StoreError::DiskFull(fault)
            } else {
                StoreError::Unavailable(fault)
            }
        })
    }

    /// The lease columns for a task in `state`, written with it.
    fn lease_for(&self, state: TaskState) -> (Option<String>, Option<i64>) {
        if leased(state) {
            let until = now_ms() + self.lease.as_millis() as i64;
            (Some(self.instance.clone()), Some(until))
        } else {
            (None, None)
        }
    }

    /// Why an update matched no row.
    async fn explain_miss(&self, task_id: &str) -> StoreError {
        let row = self
            .db
            .once_more(|| {
                sqlx::query("SELECT terminal FROM tasks WHERE id = $1")
                    .bind(task_id)
                    .fetch_optional(&self.db.pool)
            })
            .await;
        match row {
            Err(error) => unavailable(error),
            Ok(None) => StoreError::NotFound(task_id.to_string()),
            Ok(Some(row)) => match row.try_get::<i64, _>(0) {
                Ok(1) => StoreError::Terminal(task_id.to_string()),
                Ok(_) => StoreError::Conflict(task_id.to_string()),
                Err(error) => unavailable(error),
            },
        }
    }

    /// Read-modify-write of a task's push configs, retried when another
    /// writer changed them in between. `None` when the task is unknown.
    /// The update is a compare-and-set on the configs it read, so running
    /// it again after a lost connection cannot undo another writer's change.
    async fn edit_push_configs<T>(
        &self,
        task_id: &str,
        edit: impl Fn(&mut Vec<PushNotificationConfig>) -> T,
    ) -> Result<Option<T>, StoreError> {
        for _ in 0..5 {
            let row = self
                .db
                .once_more(|| {
                    sqlx::query("SELECT push_configs FROM tasks WHERE id = $1")
                        .bind(task_id)
                        .fetch_optional(&self.db.pool)
                })
                .await
                .map_err(unavailable)?;
            let Some(row) = row else {
                return Ok(None);
            };
            let before: String = row.try_get(0).map_err(unavailable)?;
            let mut configs = decode_push_configs(&before)?;
            let outcome = edit(&mut configs);
            let after = encode_push_configs(&configs)?;
            let changed = self
                .db
                .once_more(|| {
                    sqlx::query(
                        "UPDATE tasks SET push_configs = $1 WHERE id = $2 AND push_configs = $3",
                    )
                    .bind(after.as_str())
                    .bind(task_id)
                    .bind(before.as_str())
                    .execute(&self.db.pool)
                })
                .await
                .map_err(unavailable)?;
            if changed.rows_affected() == 1 {
                return Ok(Some(outcome));
            }
        }
        Err(StoreError::Conflict(task_id.to_string()))
    }
}

#[async_trait]
impl TaskStore for SqlTaskStore {
    async fn get(&self, task_id: &str) -> Result<Option<StoredTask>, StoreError> {
        let row = self
            .db
            .once_more(|| {
                sqlx::query("SELECT body, version, owner FROM tasks WHERE id = $1")
                    .bind(task_id)
                    .fetch_optional(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let what = format!("task {task_id}");
        let stored_version: i64 = row.try_get(1).map_err(unavailable)?;
        let owner: Option<String> = row.try_get(2).map_err(unavailable)?;
        let task =
            match packed_body::body_json(&row, 0, &what).and_then(|body| decode(&body, &what)) {
                Ok(task) => task,
                Err(StoreError::Corrupt { source, .. }) => {
                    return Err(StoreError::UnreadableTask {
                        id: task_id.to_string(),
                        owner,
                        source,
                    });
                }
                Err(error) => return Err(error),
            };
        Ok(Some(StoredTask {
            task,
            version: version(stored_version),
            owner,
        }))
    }

    async fn open_tasks_of(&self, owner: Option<&str>, at_most: u64) -> Result<u64, StoreError> {
        // Counted in `tasks_open_by_owner` (open rows only), and no further
        // than the bound: the cost does not grow with what a caller holds.
        let limit = i64::try_from(at_most).unwrap_or(i64::MAX);
        let row = self
            .db
            .once_more(|| {
                let query = match owner {
                    Some(owner) => sqlx::query(
                        "SELECT COUNT(*) FROM (SELECT 1 FROM tasks \
                     WHERE owner = $1 AND terminal = 0 LIMIT $2) AS open_tasks",
                    )
                    .bind(owner)
                    .bind(limit),
                    None => sqlx::query(
                        "SELECT COUNT(*) FROM (SELECT 1 FROM tasks \
                     WHERE owner IS NULL AND terminal = 0 LIMIT $1) AS open_tasks",
                    )
                    .bind(limit),
                };
                query.fetch_one(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let count: i64 = row.try_get(0).map_err(unavailable)?;
        Ok(count.max(0).unsigned_abs())
    }

    async fn waiting_since(&self, before_ms: i64, at_most: u64) -> Result<Vec<String>, StoreError> {
        let limit = i64::try_from(at_most).unwrap_or(i64::MAX);
        let rows = self
            .db
            .once_more(|| {
                sqlx::query(
                    "SELECT id FROM tasks WHERE state = 'input-required' AND updated_ms < $1 \
                 ORDER BY updated_ms LIMIT $2",
                )
                .bind(before_ms)
                .bind(limit)
                .fetch_all(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        first_column_ids(&rows)
    }

    async fn opened_by(
        &self,
        owner: Option<&str>,
        message_id: &str,
    ) -> Result<Option<String>, StoreError> {
        // `tasks_by_message` answers it; two tasks of one message (two
        // repeats that raced) answer the first (ids are UUIDv7: time first).
        let row = self
            .db
            .once_more(|| {
                let query = match owner {
                    Some(owner) => sqlx::query(
                        "SELECT id FROM tasks WHERE message_id = $1 AND owner = $2 \
                     ORDER BY id LIMIT 1",
                    )
                    .bind(message_id)
                    .bind(owner),
                    None => sqlx::query(
                        "SELECT id FROM tasks WHERE message_id = $1 AND owner IS NULL \
                     ORDER BY id LIMIT 1",
                    )
                    .bind(message_id),
                };
                query.fetch_optional(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        row.map(|row| row.try_get::<String, _>(0).map_err(unavailable))
            .transpose()
    }

    async fn context_held_by_another(
        &self,
        context_id: &str,
        owner: &str,
    ) -> Result<bool, StoreError> {
        // `tasks_by_context` answers it from the index alone.
        let row = self
            .db
            .once_more(|| {
                sqlx::query(
                    "SELECT 1 FROM tasks WHERE context_id = $1 \
                 AND (owner IS NULL OR owner <> $2) LIMIT 1",
                )
                .bind(context_id)
                .bind(owner)
                .fetch_optional(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        Ok(row.is_some())
    }

    async fn create(
        &self,
        task: &Task,
        push_configs: &[PushNotificationConfig],
        owner: Option<&str>,
    ) -> Result<Written, StoreError> {
        let body = encode_task(task)?;
        let encoded_push_configs = encode_push_configs(push_configs)?;
        let state = task.status.state;
        let (lease_owner, lease_until) = self.lease_for(state);
        let created = self
            .write(Write::Create {
                id: task.id.clone(),
                context_id: task.context_id.clone(),
                state: state.as_str(),
                terminal: i64::from(state.is_terminal()),
                body: TaskJson::clone(&body),
                lease_owner,
                lease_until,
                push_configs: encoded_push_configs,
                owner: owner.map(str::to_string),
                message_id: opening_message_id(task).map(str::to_string),
            })
            .await?;
        if !matches!(created, WriteOutcome::Created(true)) {
            return Err(StoreError::AlreadyExists(task.id.clone()));
        }
        Ok(Written {
            version: 1,
            push_configs: push_configs.to_vec(),
            json: body,
        })
    }

    async fn update(&self, task: &Task, expected_version: u64) -> Result<Written, StoreError> {
        let body = encode_task(task)?;
        let state = task.status.state;
        let (lease_owner, lease_until) = self.lease_for(state);
        let updated = self
            .write(Write::Update {
                id: task.id.clone(),
                state: state.as_str(),
                terminal: i64::from(state.is_terminal()),
                body: TaskJson::clone(&body),
                lease_owner,
                lease_until,
                expected_version: expected_version as i64,
            })
            .await?;
        let WriteOutcome::Updated(Some((new_version, push_configs))) = updated else {
            return Err(self.explain_miss(&task.id).await);
        };
        Ok(Written {
            version: version(new_version),
            push_configs: decode_push_configs(&push_configs)?,
            json: body,
        })
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        self.list_page(query).await
    }

    async fn set_push_config(
        &self,
        task_id: &str,
        config: &PushNotificationConfig,
        most: usize,
    ) -> Result<PushConfigSet, StoreError> {
        // The bound is judged on the configs the compare-and-set read.
        self.edit_push_configs(task_id, |configs| {
            super::store::add_push_config(configs, config, most)
        })
        .await?
        .ok_or_else(|| StoreError::NotFound(task_id.to_string()))
    }

    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, StoreError> {
        let row = self
            .db
            .once_more(|| {
                sqlx::query("SELECT push_configs FROM tasks WHERE id = $1")
                    .bind(task_id)
                    .fetch_optional(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        match row {
            None => Ok(Vec::new()),
            Some(row) => decode_push_configs(&row.try_get::<String, _>(0).map_err(unavailable)?),
        }
    }

    async fn delete_push_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError> {
        let removed = self
            .edit_push_configs(task_id, |configs| {
                let before = configs.len();
                configs.retain(|c| c.id.as_deref() != Some(config_id));
                configs.len() != before
            })
            .await?;
        Ok(removed.unwrap_or(false))
    }

    async fn erase_owner(&self, owner: &str) -> Result<ErasedTasks, StoreError> {
        self.erase(owner).await
    }

    fn out_of_space(&self) -> bool {
        self.out_of_space.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn database_down(&self) -> bool {
        self.db.availability.is_down()
    }

    async fn renew_leases(&self, task_ids: &[String]) -> Result<(), StoreError> {
        let until = now_ms() + self.lease.as_millis() as i64;
        // Setting the same deadline twice is setting it once.
        for task_id in task_ids {
            self.db
                .once_more(|| {
                    sqlx::query(
                        "UPDATE tasks SET lease_until_ms = $1 \
                     WHERE id = $2 AND lease_owner = $3 AND terminal = 0",
                    )
                    .bind(until)
                    .bind(task_id)
                    .bind(&self.instance)
                    .execute(&self.db.pool)
                })
                .await
                .map_err(unavailable)?;
        }
        Ok(())
    }

    async fn expired_leases(&self) -> Result<Vec<String>, StoreError> {
        let now = now_ms();
        let rows = self
            .db
            .once_more(|| {
                sqlx::query(
                    "SELECT id FROM tasks WHERE lease_until_ms IS NOT NULL AND lease_until_ms < $1 \
                 ORDER BY lease_until_ms LIMIT 100",
                )
                .bind(now)
                .fetch_all(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        first_column_ids(&rows)
    }

    async fn count_open(&self) -> Result<Option<u64>, StoreError> {
        let row = self
            .db
            .once_more(|| {
                sqlx::query("SELECT COUNT(*) FROM tasks WHERE terminal = 0")
                    .fetch_one(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let count: i64 = row.try_get(0).map_err(unavailable)?;
        Ok(Some(count.max(0).unsigned_abs()))
    }

    async fn purge_finished(&self, before_ms: i64) -> Result<u64, StoreError> {
        // Deleting twice deletes what once would (the count may come out low).
        let deleted = self
            .db
            .once_more(|| {
                sqlx::query("DELETE FROM tasks WHERE terminal = 1 AND updated_ms < $1")
                    .bind(before_ms)
                    .execute(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        Ok(deleted.rows_affected())
    }

    async fn trim_finished(&self, caps: FinishedCaps) -> Result<u64, StoreError> {
        self.trim(caps).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::test_support;
    use crate::tasks::contract::{
        Expect, behaves_like_a_task_store, bounds_like_a_task_store, erases_like_a_task_store,
        lists_like_a_task_store, task, trims_like_a_task_store,
    };

    const LEASE: Duration = Duration::from_secs(1);

    /// `error` says that task `expected` does not read back (with the owner
    /// its row names), and is not worth trying again.
    fn assert_corrupt(error: &StoreError, expected: &str) {
        assert!(
            matches!(error, StoreError::UnreadableTask { id, .. } if format!("task {id}") == expected),
            "{error:?}"
        );
        assert!(!error.is_transient());
    }

    fn store(db: Database) -> SqlTaskStore {
        SqlTaskStore::new(db, "instance-a".into(), LEASE, true).expect("the writer starts")
    }

    /// SQLite in memory: task writes through the pool's group commit.
    #[tokio::test]
    async fn sqlite_in_memory_behaves_like_a_task_store() {
        let store = store(test_support::sqlite().await);
        behaves_like_a_task_store(&store, Expect::shared(LEASE)).await;
        lists_like_a_task_store(&store).await;
    }

    /// A SQLite file (the default): task writes on the writer thread.
    #[tokio::test]
    async fn sqlite_file_behaves_like_a_task_store() {
        let dir = test_support::TempDir::new();
        let store = store(test_support::sqlite_file(&dir).await);
        behaves_like_a_task_store(&store, Expect::shared(LEASE)).await;
        lists_like_a_task_store(&store).await;
    }

    /// A row that does not decode is corrupt (not worth a retry); a store
    /// that does not answer is unavailable, its cause kept for the log.
    #[tokio::test]
    async fn a_row_that_does_not_decode_is_corrupt_and_a_closed_pool_unavailable() {
        let db = test_support::sqlite().await;
        let store = store(db.clone());
        store
            .create(&task("t", TaskState::Working), &[], None)
            .await
            .unwrap();
        sqlx::query("UPDATE tasks SET body = 'not json' WHERE id = 't'")
            .execute(&db.pool)
            .await
            .unwrap();
        let corrupt = store.get("t").await.expect_err("does not decode");
        assert_corrupt(&corrupt, "task t");

        db.pool.close().await;
        let down = store.get("t").await.expect_err("no pool");
        assert!(matches!(down, StoreError::Unavailable(_)), "{down:?}");
        assert!(down.is_transient());
        let cause = std::error::Error::source(&down).expect("the cause is kept");
        assert!(cause.to_string().contains("closed"), "{cause}");
    }

    /// On a SQLite file a body is stored packed; a row written as text
    /// before bodies were packed still reads (by `get` and `list`); a packed
    /// body that does not unpack is corrupt, not a panic.
    #[tokio::test]
    async fn a_sqlite_file_packs_bodies_and_still_reads_text_ones() {
        let dir = test_support::TempDir::new();
        let db = test_support::sqlite_file(&dir).await;
        let store = store(db.clone());
        let packed = task("packed", TaskState::Completed);
        store.create(&packed, &[], None).await.unwrap();
        let kind: String = sqlx::query_scalar("SELECT typeof(body) FROM tasks WHERE id = 'packed'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
        assert_eq!(kind, "blob");
        assert_eq!(store.get("packed").await.unwrap().unwrap().task, packed);

        let old = task("old", TaskState::Completed);
        sqlx::query(
            "INSERT INTO tasks (id, context_id, state, terminal, body, version, updated_ms) \
             VALUES ('old', $1, 'completed', 1, $2, 1, 0)",
        )
        .bind(&old.context_id)
        .bind(serde_json::to_string(&old).unwrap())
        .execute(&db.pool)
        .await
        .unwrap();
        assert_eq!(store.get("old").await.unwrap().unwrap().task, old);
        let listed = store.list(&TaskQuery::everything(10)).await.unwrap();
        let ids: Vec<&str> = listed.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["packed", "old"]);

        sqlx::query("UPDATE tasks SET body = x'ffffffff00' WHERE id = 'packed'")
            .execute(&db.pool)
            .await
            .unwrap();
        let corrupt = store.get("packed").await.expect_err("does not unpack");
        assert_corrupt(&corrupt, "task packed");
        // The listing leaves the unreadable task out; the page still comes.
        let listed = store.list(&TaskQuery::everything(10)).await.unwrap();
        let ids: Vec<&str> = listed.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["old"]);
    }

    /// An unreadable task's row still names its owner, so the engine can
    /// tell the owner (and only the owner) that it does not read back.
    #[tokio::test]
    async fn an_unreadable_task_names_its_owner() {
        let db = test_support::sqlite().await;
        let store = store(db.clone());
        store
            .create(
                &task("t", TaskState::InputRequired),
                &[],
                Some("user:alice"),
            )
            .await
            .unwrap();
        sqlx::query("UPDATE tasks SET body = '{' WHERE id = 't'")
            .execute(&db.pool)
            .await
            .unwrap();
        let error = store.get("t").await.expect_err("does not decode");
        assert!(
            matches!(&error, StoreError::UnreadableTask { id, owner, .. }
                if id == "t" && owner.as_deref() == Some("user:alice")),
            "{error:?}"
        );
    }

    /// The bounds' part of the contract, each on a store of its own.
    #[tokio::test]
    async fn sql_stores_bound_like_a_task_store() {
        bounds_like_a_task_store(&store(test_support::sqlite().await)).await;
        let dir = test_support::TempDir::new();
        bounds_like_a_task_store(&store(test_support::sqlite_file(&dir).await)).await;
        if let Some(db) = test_support::postgres("sql_stores_bound_like_a_task_store").await {
            bounds_like_a_task_store(&store(db)).await;
        }
    }

    /// Erasing an owner, each on a store of its own.
    #[tokio::test]
    async fn sql_stores_erase_like_a_task_store() {
        erases_like_a_task_store(&store(test_support::sqlite().await)).await;
        let dir = test_support::TempDir::new();
        erases_like_a_task_store(&store(test_support::sqlite_file(&dir).await)).await;
        if let Some(db) = test_support::postgres("sql_stores_erase_like_a_task_store").await {
            erases_like_a_task_store(&store(db)).await;
        }
    }

    /// The trim's part of the contract, each on a store of its own; and
    /// the tasks without an owner (authentication off) trimmed to their
    /// own cap, the instance's.
    #[tokio::test]
    async fn sql_stores_trim_like_a_task_store() {
        let caps = FinishedCaps {
            per_caller: 2,
            without_owner: 3,
        };
        let dir = test_support::TempDir::new();
        let mut stores = vec![
            store(test_support::sqlite().await),
            store(test_support::sqlite_file(&dir).await),
        ];
        if let Some(db) = test_support::postgres("sql_stores_trim_like_a_task_store").await {
            stores.push(store(db));
        }
        for store in stores {
            trims_like_a_task_store(&store, caps).await;
            for n in 0..5 {
                store
                    .create(&task(&format!("none-{n}"), TaskState::Completed), &[], None)
                    .await
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            assert_eq!(store.trim_finished(caps).await.unwrap(), 2);
            for (id, kept) in [("none-1", false), ("none-2", true), ("t-4", true)] {
                assert_eq!(store.get(id).await.unwrap().is_some(), kept, "{id}");
            }
            assert_eq!(store.trim_finished(caps).await.unwrap(), 0, "trimmed once");
        }
    }

    #[tokio::test]
    async fn postgres_behaves_like_a_task_store() {
        let Some(db) = test_support::postgres("postgres_behaves_like_a_task_store").await else {
            return;
        };
        let store = store(db);
        behaves_like_a_task_store(&store, Expect::shared(LEASE)).await;
        lists_like_a_task_store(&store).await;
    }

    /// Task owners of the form before realms (`user:<id>`,
    /// `client:<id>`), adopted for the one bound identity service's realm
    /// at start, are that realm's callers' tasks; a second run changes
    /// nothing, keys of the new form and tasks of nobody are left alone.
    async fn old_owners_become_the_bound_realm_s(db: Database) {
        use crate::tasks::{IdentityRealm, OwnerScope};
        let store = store(db.clone());
        for (id, owner) in [
            ("old-user", Some("user:alice")),
            ("old-client", Some("client:reporting")),
            ("nobody", None),
            ("new-user", Some("xsuaa:z-1:user:alice")),
        ] {
            store
                .create(&task(id, TaskState::Completed), &[], owner)
                .await
                .unwrap();
        }
        let realm = IdentityRealm::new("ias", "t-1");
        let mine = |scope: OwnerScope| TaskQuery {
            scope,
            ..TaskQuery::everything(10)
        };
        let ids = |page: TaskPage| -> Vec<String> {
            page.tasks.into_iter().map(|task| task.id).collect()
        };
        let alice = mine(OwnerScope::user(&realm, "alice"));
        assert!(ids(store.list(&alice).await.unwrap()).is_empty());
        let counted = db.count_legacy_owners().await.unwrap();
        assert_eq!((counted.tasks, counted.ledger_rows), (2, 0));

        let adopted = db.adopt_legacy_owners(realm.key_prefix()).await.unwrap();
        assert_eq!((adopted.tasks, adopted.ledger_rows), (2, 0));
        assert_eq!(ids(store.list(&alice).await.unwrap()), ["old-user"]);
        let reporting = mine(OwnerScope::client(&realm, "reporting"));
        assert_eq!(ids(store.list(&reporting).await.unwrap()), ["old-client"]);
        let other_alice = mine(OwnerScope::user(
            &IdentityRealm::new("xsuaa", "z-1"),
            "alice",
        ));
        assert_eq!(ids(store.list(&other_alice).await.unwrap()), ["new-user"]);
        let nobody = store.get("nobody").await.unwrap().unwrap();
        assert_eq!(nobody.owner, None);

        let again = db.adopt_legacy_owners(realm.key_prefix()).await.unwrap();
        assert_eq!((again.tasks, again.ledger_rows), (0, 0));
        assert_eq!(ids(store.list(&alice).await.unwrap()), ["old-user"]);
    }

    #[tokio::test]
    async fn sqlite_old_owners_become_the_bound_realm_s() {
        old_owners_become_the_bound_realm_s(test_support::sqlite().await).await;
    }

    #[tokio::test]
    async fn postgres_old_owners_become_the_bound_realm_s() {
        let Some(db) = test_support::postgres("postgres_old_owners_become").await else {
            return;
        };
        old_owners_become_the_bound_realm_s(db).await;
    }
}
