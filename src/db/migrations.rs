//! The schema: versioned migrations built into the binary, applied in
//! order at start under the migrator's lock (two instances starting at once
//! create it once).

use super::{Database, DbError, Dialect};
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use std::borrow::Cow;

/// Versioned migrations, applied in order at start; never edit one that has
/// shipped, add the next number instead.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "tasks and ledger",
        include_str!("migrations/0001_tasks_and_ledger.sql"),
    ),
    (
        3,
        "ledger execution state",
        include_str!("migrations/0003_ledger_execution.sql"),
    ),
    (
        4,
        "task owner",
        include_str!("migrations/0004_task_owner.sql"),
    ),
    (
        6,
        "owner kinds and contexts by owner",
        include_str!("migrations/0006_owner_kinds.sql"),
    ),
    (
        8,
        "open and waiting tasks",
        include_str!("migrations/0008_open_and_waiting_tasks.sql"),
    ),
    (
        10,
        "ledger rows keep the approval's trace and correlation id",
        include_str!("migrations/0010_ledger_trace.sql"),
    ),
    (
        11,
        "ledger rows keyed by their approver's issuer and tenant",
        include_str!("migrations/0011_ledger_approver_key.sql"),
    ),
    (
        12,
        "finished tasks counted per owner",
        include_str!("migrations/0012_finished_tasks_by_owner.sql"),
    ),
    (
        13,
        "audit outbox and audit state",
        include_str!("migrations/0013_audit_outbox.sql"),
    ),
    (
        15,
        "tasks remember the message that opened them",
        include_str!("migrations/0015_task_opened_by_message.sql"),
    ),
];

/// The migrations built into the binary, as sqlx's migrator takes them.
#[derive(Debug)]
struct Embedded(Vec<Migration>);

impl MigrationSource<'static> for Embedded {
    fn resolve(
        self,
    ) -> futures_util::future::BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async move { Ok(self.0) })
    }
}

/// SQLite only (where its SQL differs from PostgreSQL's), in version order
/// with the shared ones.
const SQLITE_MIGRATIONS: &[(i64, &str, &str)] = &[(
    9,
    "ledger keyed by order version and request",
    include_str!("migrations/0009_ledger_key_sqlite.sql"),
)];

/// PostgreSQL only, in version order with the shared ones.
const POSTGRES_MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        2,
        "task bodies stored uncompressed",
        include_str!("migrations/0002_postgres_body_storage.sql"),
    ),
    (
        5,
        "task bodies kept in the row",
        include_str!("migrations/0005_postgres_bodies_in_row.sql"),
    ),
    (
        9,
        "ledger keyed by order version and request",
        include_str!("migrations/0009_ledger_key_postgres.sql"),
    ),
];

impl Database {
    pub(super) async fn migrate(&self) -> Result<(), DbError> {
        self.migrate_until(i64::MAX).await
    }

    /// Apply the migrations up to version `last` (all: `i64::MAX`); tests
    /// build the schema of an older release with it.
    pub(crate) async fn migrate_until(&self, last: i64) -> Result<(), DbError> {
        let dialect_only = match self.dialect {
            Dialect::Sqlite => SQLITE_MIGRATIONS,
            Dialect::Postgres => POSTGRES_MIGRATIONS,
        };
        let mut ordered: Vec<_> = MIGRATIONS
            .iter()
            .chain(dialect_only)
            .filter(|(version, _, _)| *version <= last)
            .collect();
        ordered.sort_by_key(|(version, _, _)| *version);
        let migrations = ordered
            .into_iter()
            .map(|(version, description, sql)| {
                Migration::new(
                    *version,
                    Cow::Borrowed(*description),
                    MigrationType::Simple,
                    Cow::Borrowed(*sql),
                    false,
                )
            })
            .collect();
        // Two instances starting at once: the migrator takes an advisory
        // lock on PostgreSQL, so only one creates the schema.
        let migrator = Migrator::new(Embedded(migrations))
            .await
            .map_err(|source| DbError::Migrate {
                location: self.location.clone(),
                source,
            })?;
        migrator
            .run(&self.pool)
            .await
            .map_err(|source| DbError::Migrate {
                location: self.location.clone(),
                source,
            })
    }
}
