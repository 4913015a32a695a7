//! The SQL database behind the durable stores: SQLite (embedded default) or
//! PostgreSQL (several instances). Which one the settings ask for and
//! opening it (here), what an open database is and how opening fails
//! (`database`), the `postgresql-db` binding read as a URL
//! (`binding`), SQLite's tuning and checkpoints (`sqlite`), the PostgreSQL
//! pool (`postgres`), the schema migrations (`migrations`), connections
//! replaced unseen (`reconnect`), a database known down refused at once
//! and probed until it answers (`availability`), owner keys of an older form brought to
//! the current one (`legacy_owners`) and the settings (`settings`). Besides
//! this room's schema changes, only `tasks/` and `agent/ledger` run queries
//! on it; the SQL there is written
//! once for both databases (`$n` parameters, `ON CONFLICT`, `RETURNING` work
//! in both).

mod availability;
mod binding;
mod database;
mod legacy_owners;
mod migrations;
mod postgres;
mod reconnect;
mod settings;
mod sqlite;

pub use availability::DatabaseDown;
pub use database::{Database, DbError, Dialect};
pub use legacy_owners::LegacyOwners;
pub use postgres::isolated_postgres_schema;
pub use reconnect::{connection_lost, once_more};
pub use settings::{StoreBackend, StoreSettings};
pub use sqlite::writer_connection as sqlite_writer_connection;

use crate::cloud_foundry::VcapServices;
use std::future::Future;

/// Which store the settings and the bindings ask for.
pub fn backend(settings: &StoreSettings, services: &VcapServices) -> StoreBackend {
    settings.backend.unwrap_or_else(|| {
        let bound = binding::postgres_binding(services).is_some();
        settings.default_backend(bound)
    })
}

impl Database {
    /// Connect to the database the settings name (or the `postgresql-db`
    /// binding in `services`) and bring its schema up to date. `None` for
    /// the memory backend.
    pub async fn open(
        settings: &StoreSettings,
        services: &VcapServices,
    ) -> Result<Option<Database>, DbError> {
        sqlx::any::install_default_drivers();
        let database = match backend(settings, services) {
            StoreBackend::Memory => return Ok(None),
            StoreBackend::Sqlite => sqlite::open(settings).await?,
            StoreBackend::Postgres => postgres::open(settings, services).await?,
        };
        database.migrate().await?;
        Ok(Some(database))
    }
}

impl Database {
    /// [`once_more`](reconnect::once_more) on this database: refused at once while it is known
    /// down (and released as soon as it is found down while waiting),
    /// each failure shown to its availability.
    pub async fn once_more<T, F, Fut>(&self, statement: F) -> Result<T, sqlx::Error>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, sqlx::Error>>,
    {
        let availability = &self.availability;
        availability
            .unless_down(reconnect::once_more_seen(statement, |error| {
                availability.observe(error)
            }))
            .await
    }
}

/// Milliseconds since the Unix epoch, the time unit of every SQL column.
pub fn now_ms() -> i64 {
    let now = time::OffsetDateTime::now_utc();
    (now.unix_timestamp_nanos() / 1_000_000) as i64
}

/// Test databases for the unit tests of the SQL stores.
#[cfg(test)]
pub(crate) mod test_support {
    use super::Database;
    use super::{StoreBackend, StoreSettings};

    /// A fresh SQLite database in memory, migrated.
    pub async fn sqlite() -> Database {
        let settings = StoreSettings {
            backend: Some(StoreBackend::Sqlite),
            sqlite_file: ":memory:".into(),
            ..StoreSettings::default()
        };
        Database::open(&settings, &Default::default())
            .await
            .expect("sqlite opens")
            .expect("a database")
    }

    /// A fresh SQLite database in memory with the schema as migration
    /// `last` left it (an older release's), for tests of the later ones.
    pub async fn sqlite_until(last: i64) -> Database {
        sqlx::any::install_default_drivers();
        let settings = StoreSettings {
            backend: Some(StoreBackend::Sqlite),
            sqlite_file: ":memory:".into(),
            ..StoreSettings::default()
        };
        let database = super::sqlite::open(&settings).await.expect("sqlite opens");
        database.migrate_until(last).await.expect("migrated");
        database
    }

    /// [`sqlite_until`] on a fresh schema of `TEST_DATABASE_URL`.
    pub async fn postgres_until(test: &str, last: i64) -> Option<Database> {
        let Ok(url) = std::env::var("TEST_DATABASE_URL") else {
            eprintln!("SKIPPED {test}: TEST_DATABASE_URL is not set (PostgreSQL tests)");
            return None;
        };
        let settings = StoreSettings {
            backend: Some(StoreBackend::Postgres),
            database_url: Some(
                super::isolated_postgres_schema(&url)
                    .await
                    .expect("a fresh schema")
                    .into(),
            ),
            ..StoreSettings::default()
        };
        let database = super::postgres::open(&settings, &Default::default())
            .await
            .expect("postgres opens");
        database.migrate_until(last).await.expect("migrated");
        Some(database)
    }

    /// A fresh folder under the system's temp dir, removed on drop.
    pub struct TempDir(pub std::path::PathBuf);

    impl TempDir {
        pub fn new() -> TempDir {
            let dir = std::env::temp_dir().join(format!("oea-{}", uuid::Uuid::new_v4().simple()));
            std::fs::create_dir_all(&dir).expect("a temp dir");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A fresh SQLite file in `dir`, migrated, as the service opens it.
    pub async fn sqlite_file(dir: &TempDir) -> Database {
        let settings = StoreSettings {
            backend: Some(StoreBackend::Sqlite),
            data_dir: dir.0.clone(),
            ..StoreSettings::default()
        };
        Database::open(&settings, &Default::default())
            .await
            .expect("sqlite opens")
            .expect("a database")
    }

    /// A fresh schema on `TEST_DATABASE_URL`, migrated; `None` (said
    /// skipped) without the variable.
    pub async fn postgres(test: &str) -> Option<Database> {
        let Ok(url) = std::env::var("TEST_DATABASE_URL") else {
            eprintln!("SKIPPED {test}: TEST_DATABASE_URL is not set (PostgreSQL tests)");
            return None;
        };
        let settings = StoreSettings {
            backend: Some(StoreBackend::Postgres),
            database_url: Some(
                super::isolated_postgres_schema(&url)
                    .await
                    .expect("a fresh schema")
                    .into(),
            ),
            ..StoreSettings::default()
        };
        Some(
            Database::open(&settings, &Default::default())
                .await
                .expect("postgres opens")
                .expect("a database"),
        )
    }
}
