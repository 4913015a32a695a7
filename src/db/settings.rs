//! The store's settings (`store.*`, `AGENT__STORE__…`), and what they mean
//! at run time: which backend, the lease, the sweep, the retention.

use crate::secret::Secret;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Where tasks, push configs and the action ledger live. The database URL
/// is a [`Secret`] (a password may be in it): the start-up log names the
/// database by [`Database::location`](super::Database), without one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct StoreSettings {
    /// `sqlite`, `postgres` or `memory`. Unset: `postgres` when a database
    /// URL or a `postgresql-db` binding is there, else `sqlite`.
    pub backend: Option<StoreBackend>,
    /// The folder of the SQLite file (created when missing).
    pub data_dir: PathBuf,
    /// The SQLite file name inside `data_dir`, or `:memory:` (tests).
    pub sqlite_file: String,
    /// A PostgreSQL URL (also `DATABASE_URL`); wins over a binding.
    pub database_url: Option<Secret>,
    /// PostgreSQL pool size per instance (one connection the task writer's).
    pub max_connections: u32,
    /// `true`: task writes on PostgreSQL commit without waiting for the
    /// WAL flush, so a crash of the database server can lose tasks whose
    /// callers were already answered (never corrupted). Off by default:
    /// an answered task is durable.
    /// The ledger always waits.
    pub postgres_async_task_commit: bool,
    /// Finished tasks are deleted this many days after they finished (SQL
    /// stores); the action ledger is never deleted.
    pub retention_days: u64,
    /// A running turn's claim on its task; renewed while the turn runs. A
    /// claim that runs out (the instance died) ends the task `failed`.
    pub lease_secs: u64,
    /// How often the expired-lease and retention job runs.
    pub sweep_interval_secs: u64,
    /// The SQLite file's write-ahead log stays near this many MB (it is
    /// copied into the file and started over in time, and cut back to it
    /// after): the WAL and the file together must fit the disk (256 MB on
    /// Cloud Foundry by default).
    pub sqlite_wal_limit_mb: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreBackend {
    Sqlite,
    Postgres,
    Memory,
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings {
            backend: None,
            data_dir: PathBuf::from("var"),
            sqlite_file: "order-exception-agent.sqlite3".into(),
            database_url: None,
            max_connections: 10,
            postgres_async_task_commit: false,
            retention_days: 30,
            lease_secs: 30,
            sweep_interval_secs: 10,
            sqlite_wal_limit_mb: 64,
        }
    }
}

impl StoreSettings {
    /// The backend when `backend` is unset: PostgreSQL with a database URL
    /// or a `postgresql-db` binding (`postgres_bound`), else SQLite.
    pub fn default_backend(&self, postgres_bound: bool) -> StoreBackend {
        if self.database_url.is_some() || postgres_bound {
            StoreBackend::Postgres
        } else {
            StoreBackend::Sqlite
        }
    }

    /// A running turn's lease on its task; at least a second.
    pub fn lease(&self) -> Duration {
        Duration::from_secs(self.lease_secs.max(1))
    }

    /// How often expired leases and old finished tasks are looked for; at
    /// least a second.
    pub fn sweep_interval(&self) -> Duration {
        Duration::from_secs(self.sweep_interval_secs.max(1))
    }

    /// How long a finished task is kept.
    pub fn retention(&self) -> Duration {
        Duration::from_secs(self.retention_days.saturating_mul(86_400))
    }

    /// [`StoreSettings::sqlite_wal_limit_mb`] in bytes; at least 4 MB.
    pub fn sqlite_wal_limit_bytes(&self) -> u64 {
        self.sqlite_wal_limit_mb.max(4).saturating_mul(1024 * 1024)
    }

    /// The PostgreSQL pool size per instance; at least one.
    pub fn pool_size(&self) -> u32 {
        self.max_connections.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neither_debug_nor_serde_shows_the_database_url() {
        let settings = StoreSettings {
            database_url: Some(
                "postgres://agent:s3cret-pw@db.example:5432/orders?password=also-secret".into(),
            ),
            ..StoreSettings::default()
        };
        let shown = format!("{settings:?}");
        assert!(!shown.contains("s3cret-pw"), "{shown}");
        assert!(!shown.contains("also-secret"), "{shown}");
        assert!(!shown.contains("agent:"), "{shown}");
        let serialized = serde_json::to_string(&settings).expect("serializes");
        assert!(!serialized.contains("s3cret-pw"), "{serialized}");
        let unparsed = StoreSettings {
            database_url: Some("not a url with s3cret-pw".into()),
            ..StoreSettings::default()
        };
        assert!(!format!("{unparsed:?}").contains("s3cret-pw"));
    }

    #[test]
    fn conversions_and_clamps_live_on_the_settings() {
        let settings = StoreSettings {
            lease_secs: 0,
            sweep_interval_secs: 0,
            retention_days: 2,
            max_connections: 0,
            ..StoreSettings::default()
        };
        assert_eq!(settings.lease(), Duration::from_secs(1));
        assert_eq!(settings.sweep_interval(), Duration::from_secs(1));
        assert_eq!(settings.retention(), Duration::from_secs(2 * 86_400));
        assert_eq!(settings.pool_size(), 1);
        assert_eq!(settings.default_backend(false), StoreBackend::Sqlite);
        assert_eq!(settings.default_backend(true), StoreBackend::Postgres);
    }
}
