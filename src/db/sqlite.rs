//! SQLite, the embedded default: a file in `store.data_dir` (or memory, for
//! tests), WAL with NORMAL sync. The sqlx pool serves reads, the ledger and
//! the migrations; task writes have a connection of their own
//! (`writer_connection`, used by `tasks/sql/sqlite_writer.rs`), which also
//! runs the checkpoints.

use super::{Database, DbError, Dialect};
use crate::db::StoreSettings;
use sqlx::Executor;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

pub(super) async fn open(settings: &StoreSettings) -> Result<Database, DbError> {
    let in_memory = settings.sqlite_file == ":memory:";
    let mut file = None;
    let (url, location) = if in_memory {
        (
            "sqlite::memory:".to_string(),
            "SQLite in memory".to_string(),
        )
    } else {
        std::fs::create_dir_all(&settings.data_dir).map_err(|source| DbError::DataDir {
            path: settings.data_dir.clone(),
            source,
        })?;
        let path = settings.data_dir.join(&settings.sqlite_file);
        file = Some(path.clone());
        (
            format!("sqlite://{}?mode=rwc", path.to_string_lossy()),
            format!("SQLite {}", path.display()),
        )
    };
    let options = AnyConnectOptions::from_str(&url).map_err(|source| DbError::Connect {
        location: location.clone(),
        source,
    })?;
    // Two connections for a file: reads, the ledger and the push config
    // edits (WAL lets them read while the task writer writes on its own
    // connection). One for `:memory:`, which lives in its connection (and
    // whose task writes go through this pool too).
    let pool = AnyPoolOptions::new()
        .max_connections(if in_memory { 1 } else { 2 })
        .min_connections(1)
        // An in-process file has no server to end a connection, so sqlx's
        // test of it before each acquire would only add a second hand-off
        // to the connection's thread on every read.
        .test_before_acquire(false)
        .idle_timeout(None)
        .max_lifetime(None)
        .after_connect(move |connection, _| {
            Box::pin(async move {
                if !in_memory {
                    // WAL + NORMAL: durable across a process crash, one
                    // fsync per checkpoint instead of per commit.
                    // Checkpoints run on the task writer's connection
                    // (`writer_connection`); the automatic one here is
                    // only a backstop. A 4 MB page cache holds the
                    // indexes of ~100 000 tasks (the bodies are read
                    // once and stay in the OS's cache); 16 MB took the
                    // peak RSS past 30 MB and bought no throughput.
                    connection
                        .execute(
                            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                                 PRAGMA wal_autocheckpoint = 20000; PRAGMA cache_size = -4096;",
                        )
                        .await?;
                }
                Ok(())
            })
        })
        .connect_with(options)
        .await
        .map_err(|source| DbError::Connect {
            location: location.clone(),
            source,
        })?;
    Ok(Database {
        pool,
        dialect: Dialect::Sqlite,
        availability: super::availability::Availability::always_up(&location),
        location,
        single_connection: in_memory,
        sqlite_file: file,
    })
}

/// A connection of the task writer to the SQLite `file` (in WAL mode since
/// `open`; the writer's own and its copier's): NORMAL sync, a 1 MB page
/// cache (the writer appends: it touches the right edge of the table and of
/// its indexes; a copy reads the WAL, not the cache; 4 MB here kept the
/// RSS growing for minutes), no automatic checkpoints (the writer and its
/// copier run them), and the busy timeout sqlx sets, for when a write of
/// the pool holds the lock.
pub fn writer_connection(file: &Path) -> Result<rusqlite::Connection, DbError> {
    let failed = |source| DbError::WriterConnection {
        location: format!("SQLite {}", file.display()),
        source,
    };
    let connection = rusqlite::Connection::open(file).map_err(failed)?;
    connection
        .execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; \
             PRAGMA cache_size = -1024;",
        )
        .map_err(failed)?;
    connection.busy_timeout(BUSY_TIMEOUT).map_err(failed)?;
    Ok(connection)
}

/// How long a write waits for another connection's write to end (sqlx's
/// default for its own SQLite connections).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
