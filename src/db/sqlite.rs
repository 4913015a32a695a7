//! SQLite, the embedded default: a file in `store.data_dir` (or memory, for
//! tests), WAL with NORMAL sync, and checkpoints beside the writer.

use super::{Database, DbError, Dialect};
use crate::db::StoreSettings;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor, Row};
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

/// How often the WAL is copied into the database file. Often: each PASSIVE
/// checkpoint then syncs and copies little, and the writer's pauses (its
/// WAL writes wait for that sync; the RESTART holds it off) stay short:
/// p99 5-7 ms at 25 ms against 17 ms at 250 ms, at the same throughput.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(25);

/// A WAL this long (frames, 4 MB of 4 kB pages) is restarted after its
/// checkpoint: written again from its start instead of growing.
const RESTART_AFTER_FRAMES: i64 = 1024;

/// A restart waits until the writer added fewer frames than this (1 MB)
/// during one PASSIVE checkpoint: what the RESTART checkpoint still copies
/// while it holds the writer off.
const RESTART_WITHIN_FRAMES: i64 = 256;

/// PASSIVE checkpoints at most this often in a row before a restart.
const CATCH_UP_ROUNDS: usize = 4;

/// Copy the WAL into the database file forty times a second from the
/// readers' connection, and restart it when it got long.
///
/// A PASSIVE checkpoint runs beside the writer and never blocks it, but
/// under steady writes it never catches up with the end of the WAL (the
/// writer commits while it copies), and only a WAL whose every frame is in
/// the database file can be written again from its start. Such a WAL grows
/// up to `wal_autocheckpoint`; from then on every commit of the writer
/// tries a checkpoint itself, and the one that gets it copies and syncs
/// everything the PASSIVE ones left (tens of ms, every request in the group
/// commit waits). So a long WAL is caught up with by PASSIVE checkpoints in
/// a row (each copies what the writer added during the one before) and then
/// gets a RESTART checkpoint: it holds the writer off (SQLite's busy
/// handler) while it copies the last few frames and syncs, and the next
/// commit starts the WAL over. A few ms of pause for the writer per restart
/// instead of stalls that grow with the WAL.
fn checkpoint_in_background(pool: AnyPool) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(CHECKPOINT_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if pool.is_closed() {
                return;
            }
            if let Err(error) = checkpoint(&pool).await {
                tracing::warn!(%error, "SQLite checkpoint failed");
            }
        }
    });
}

/// A PASSIVE checkpoint; when the WAL got long, more until they caught up
/// with the writer, and a RESTART one.
async fn checkpoint(pool: &AnyPool) -> Result<(), sqlx::Error> {
    let mut wal_frames = wal_checkpoint(pool, "PASSIVE").await?;
    if wal_frames < RESTART_AFTER_FRAMES {
        return Ok(());
    }
    for _ in 0..CATCH_UP_ROUNDS {
        let before = wal_frames;
        wal_frames = wal_checkpoint(pool, "PASSIVE").await?;
        if wal_frames - before < RESTART_WITHIN_FRAMES {
            break;
        }
    }
    wal_checkpoint(pool, "RESTART").await?;
    Ok(())
}

/// Runs `PRAGMA wal_checkpoint(mode)`; the frames in the WAL.
async fn wal_checkpoint(pool: &AnyPool, mode: &str) -> Result<i64, sqlx::Error> {
    // Its columns: busy (0/1), frames in the WAL, frames checkpointed.
    let row = sqlx::query(&format!("PRAGMA wal_checkpoint({mode})"))
        .fetch_one(pool)
        .await?;
    row.try_get(1)
}
