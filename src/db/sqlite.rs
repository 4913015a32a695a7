//! SQLite, the embedded default: a file in `store.data_dir` (or memory, for
//! tests), WAL with NORMAL sync, and checkpoints beside the writer.

use super::{Database, DbError, Dialect};
use crate::db::StoreSettings;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};
use std::str::FromStr;
use std::time::Duration;

pub(super) async fn open(settings: &StoreSettings) -> Result<Database, DbError> {
    let in_memory = settings.sqlite_file == ":memory:";
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
        (
            format!("sqlite://{}?mode=rwc", path.to_string_lossy()),
            format!("SQLite {}", path.display()),
        )
    };
    let options = AnyConnectOptions::from_str(&url).map_err(|source| DbError::Connect {
        location: location.clone(),
        source,
    })?;
    // Two connections for a file: the task writer keeps one (SQLite has
    // one writer at a time anyway), readers and the ledger share the
    // other (WAL lets them read while the writer writes). One for
    // `:memory:`, which lives in its connection.
    let pool = AnyPoolOptions::new()
        .max_connections(if in_memory { 1 } else { 2 })
        .min_connections(1)
        .idle_timeout(None)
        .max_lifetime(None)
        .after_connect(move |connection, _| {
            Box::pin(async move {
                if !in_memory {
                    // WAL + NORMAL: durable across a process crash, one
                    // fsync per checkpoint instead of per commit.
                    // Checkpoints run beside the writer (see
                    // `checkpoint_in_background`); the automatic one is
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
    if !in_memory {
        checkpoint_in_background(pool.clone());
    }
    Ok(Database {
        pool,
        dialect: Dialect::Sqlite,
        location,
        single_connection: in_memory,
    })
}

/// Copy the WAL into the database file four times a second from the readers'
/// connection. A checkpoint the writer ran itself (SQLite's automatic one)
/// would stall every request in its group commit for tens of ms; a PASSIVE
/// one beside it never blocks the writer.
fn checkpoint_in_background(pool: AnyPool) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_millis(250));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if pool.is_closed() {
                return;
            }
            if let Err(error) = pool.execute("PRAGMA wal_checkpoint(PASSIVE)").await {
                tracing::warn!(%error, "SQLite checkpoint failed");
            }
        }
    });
}
