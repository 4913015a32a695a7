//! What an open database is (`Database`, its `Dialect`) and how opening
//! one fails (`DbError`): the types every file of this room shares, in a
//! leaf of their own so that the files that open, tune and migrate the
//! database use them without using `mod.rs`, which uses those files.

use super::availability::Availability;
use sqlx::AnyPool;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
pub struct Database {
    pub pool: AnyPool,
    pub dialect: Dialect,
    /// Where it is, for logs (no password).
    pub location: String,
    /// SQLite in memory lives in its one connection: nobody may keep it.
    pub single_connection: bool,
    /// The SQLite file, for the task writer's own connection; `None` for
    /// SQLite in memory and PostgreSQL.
    pub sqlite_file: Option<PathBuf>,
    /// Whether it is known down (PostgreSQL): statements fail at once
    /// while it is (`availability`).
    pub availability: Availability,
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("store: cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("store: the postgresql-db binding lacks `{0}`")]
    Binding(&'static str),
    #[error("store: the postgresql-db binding's `{field}` {reason}")]
    BindingField {
        field: &'static str,
        reason: &'static str,
    },
    #[error("store: cannot write the PostgreSQL root certificate to {path}: {source}")]
    RootCert {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("store: cannot connect to {location}: {source}")]
    Connect {
        location: String,
        source: sqlx::Error,
    },
    #[error("store: cannot open the task writer's connection to {location}: {source}")]
    WriterConnection {
        location: String,
        source: rusqlite::Error,
    },
    #[error("store: cannot start the task writer's thread for {location}: {source}")]
    WriterThread {
        location: String,
        source: std::io::Error,
    },
    #[error("store: migrating the schema of {location} failed: {source}")]
    Migrate {
        location: String,
        source: sqlx::migrate::MigrateError,
    },
}

impl DbError {
    /// Whether the settings or bindings are at fault (a malformed binding or
    /// database URL), as opposed to a database or disk that fails.
    pub fn is_bad_settings(&self) -> bool {
        match self {
            DbError::Binding(_) | DbError::BindingField { .. } => true,
            DbError::Connect { source, .. } => matches!(source, sqlx::Error::Configuration(_)),
            DbError::DataDir { .. }
            | DbError::RootCert { .. }
            | DbError::Migrate { .. }
            | DbError::WriterConnection { .. }
            | DbError::WriterThread { .. } => false,
        }
    }
}
