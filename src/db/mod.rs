//! The SQL database behind the durable stores: SQLite (embedded default) or
//! PostgreSQL (several instances). Connects, creates or migrates the schema
//! at start, and hands out the pool. Only `tasks/` and `agent/ledger` run
//! queries on it; the SQL there is written once for both databases
//! (`$n` parameters, `ON CONFLICT`, `RETURNING` work in both).

mod reconnect;
pub use reconnect::{connection_lost, once_more};

use crate::config::{EnvSource, StoreBackend, StoreSettings};
use serde_json::Value;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::error::BoxDynError;
use sqlx::migrate::MigrationSource;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Executor};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// Versioned migrations, applied in order at start; never edit one that has
/// shipped, add the next number instead.
const MIGRATIONS: &[(i64, &str, &str)] = &[(
    1,
    "tasks and ledger",
    include_str!("migrations/0001_tasks_and_ledger.sql"),
)];

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

/// PostgreSQL only, after the shared ones.
const POSTGRES_MIGRATIONS: &[(i64, &str, &str)] = &[(
    2,
    "task bodies stored uncompressed",
    include_str!("migrations/0002_postgres_body_storage.sql"),
)];

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
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("store: cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("store: VCAP_SERVICES is not valid JSON: {0}")]
    Vcap(serde_json::Error),
    #[error("store: the postgresql-db binding lacks `{0}`")]
    Binding(&'static str),
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
            DbError::Vcap(_) | DbError::Binding(_) => true,
            DbError::Connect { source, .. } => matches!(source, sqlx::Error::Configuration(_)),
            DbError::DataDir { .. } | DbError::RootCert { .. } | DbError::Migrate { .. } => false,
        }
    }
}

/// Which store the settings and the environment ask for.
pub fn backend(settings: &StoreSettings, env: &dyn EnvSource) -> StoreBackend {
    settings.backend.unwrap_or_else(|| {
        let bound = env
            .var("VCAP_SERVICES")
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .is_some_and(|vcap| postgres_binding(&vcap).is_some());
        if settings.database_url.is_some() || bound {
            StoreBackend::Postgres
        } else {
            StoreBackend::Sqlite
        }
    })
}

fn postgres_binding(vcap: &Value) -> Option<&Value> {
    let credentials = vcap.get("postgresql-db")?.get(0)?.get("credentials")?;
    // One trial broker nests them once more.
    Some(credentials.get("credentials").unwrap_or(credentials))
}

fn text<'a>(credentials: &'a Value, key: &'static str) -> Result<&'a str, DbError> {
    credentials
        .get(key)
        .and_then(Value::as_str)
        .filter(|value| !value.is_empty())
        .ok_or(DbError::Binding(key))
}

/// The URL for a `postgresql-db` binding, built from the discrete fields
/// (its `uri` has been seen without credentials). Its root certificate is
/// written next to the SQLite file, since the driver reads it from a path.
fn binding_url(credentials: &Value, data_dir: &Path) -> Result<String, DbError> {
    let host = text(credentials, "hostname")?;
    let port = match credentials.get("port") {
        Some(Value::String(port)) => port.clone(),
        Some(Value::Number(port)) => port.to_string(),
        _ => return Err(DbError::Binding("port")),
    };
    let database = text(credentials, "dbname")?;
    let user = text(credentials, "username")?;
    let password = text(credentials, "password")?;
    let mut url = format!(
        "postgres://{}:{}@{host}:{port}/{database}",
        percent_encode(user),
        percent_encode(password)
    );
    if let Ok(pem) = text(credentials, "sslrootcert") {
        std::fs::create_dir_all(data_dir).map_err(|source| DbError::DataDir {
            path: data_dir.to_path_buf(),
            source,
        })?;
        let path = data_dir.join("postgresql-root.pem");
        std::fs::write(&path, pem).map_err(|source| DbError::RootCert {
            path: path.clone(),
            source,
        })?;
        url.push_str(&format!(
            "?sslmode=verify-full&sslrootcert={}",
            percent_encode(&path.to_string_lossy())
        ));
    } else {
        url.push_str("?sslmode=require");
    }
    Ok(url)
}

/// Enough of RFC 3986 for user info and query values.
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// `postgres://user:secret@host/db` → `postgres://host/db`, for logs.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let rest = &url[at + 1..];
            let rest = rest.split('?').next().unwrap_or(rest);
            format!("{}{rest}", &url[..scheme + 3])
        }
        _ => url.split('?').next().unwrap_or(url).to_string(),
    }
}

impl Database {
    /// Connect to the database the settings name and bring its schema up
    /// to date. `None` for the memory backend.
    pub async fn open(
        settings: &StoreSettings,
        env: &dyn EnvSource,
    ) -> Result<Option<Database>, DbError> {
        sqlx::any::install_default_drivers();
        let database = match backend(settings, env) {
            StoreBackend::Memory => return Ok(None),
            StoreBackend::Sqlite => Self::open_sqlite(settings).await?,
            StoreBackend::Postgres => Self::open_postgres(settings, env).await?,
        };
        database.migrate().await?;
        Ok(Some(database))
    }

    async fn open_sqlite(settings: &StoreSettings) -> Result<Database, DbError> {
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
                        // only a backstop. A 16 MB page cache keeps the
                        // indexes in memory.
                        connection
                            .execute(
                                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                                 PRAGMA wal_autocheckpoint = 20000; PRAGMA cache_size = -16384;",
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

    async fn open_postgres(
        settings: &StoreSettings,
        env: &dyn EnvSource,
    ) -> Result<Database, DbError> {
        let url = match &settings.database_url {
            Some(url) => url.clone(),
            None => {
                let vcap: Value = env
                    .var("VCAP_SERVICES")
                    .map(|text| serde_json::from_str(&text).map_err(DbError::Vcap))
                    .transpose()?
                    .unwrap_or_default();
                let credentials = postgres_binding(&vcap).ok_or(DbError::Binding("credentials"))?;
                binding_url(credentials, &settings.data_dir)?
            }
        };
        let location = format!("PostgreSQL {}", redact(&url));
        let options = AnyConnectOptions::from_str(&url).map_err(|source| DbError::Connect {
            location: location.clone(),
            source,
        })?;
        let pool = AnyPoolOptions::new()
            .max_connections(settings.max_connections.max(1))
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await
            .map_err(|source| DbError::Connect {
                location: location.clone(),
                source,
            })?;
        Ok(Database {
            pool,
            dialect: Dialect::Postgres,
            location,
            single_connection: false,
        })
    }

    async fn migrate(&self) -> Result<(), DbError> {
        let dialect_only = match self.dialect {
            Dialect::Sqlite => &[][..],
            Dialect::Postgres => POSTGRES_MIGRATIONS,
        };
        let migrations = MIGRATIONS
            .iter()
            .chain(dialect_only)
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

/// A fresh, empty PostgreSQL schema on the server at `base_url`, and the
/// URL that uses it: tests and benchmarks share one database without
/// seeing each other's rows.
pub async fn isolated_postgres_schema(base_url: &str) -> Result<String, DbError> {
    sqlx::any::install_default_drivers();
    let location = format!("PostgreSQL {}", redact(base_url));
    let schema = format!("oea_{}", uuid::Uuid::new_v4().simple());
    let connect_error = |source| DbError::Connect {
        location: location.clone(),
        source,
    };
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .connect(base_url)
        .await
        .map_err(connect_error)?;
    pool.execute(format!("CREATE SCHEMA {schema}").as_str())
        .await
        .map_err(connect_error)?;
    pool.close().await;
    let separator = if base_url.contains('?') { '&' } else { '?' };
    Ok(format!(
        "{base_url}{separator}options=-c%20search_path%3D{schema}"
    ))
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

/// Milliseconds since the Unix epoch, the time unit of every SQL column.
pub fn now_ms() -> i64 {
    let now = time::OffsetDateTime::now_utc();
    (now.unix_timestamp_nanos() / 1_000_000) as i64
}

/// Test databases for the unit tests of the SQL stores.
#[cfg(test)]
pub(crate) mod test_support {
    use super::Database;
    use crate::config::{StaticEnv, StoreBackend, StoreSettings};

    const NO_ENV: StaticEnv = StaticEnv(&[]);

    /// A fresh SQLite database in memory, migrated.
    pub async fn sqlite() -> Database {
        let settings = StoreSettings {
            backend: Some(StoreBackend::Sqlite),
            sqlite_file: ":memory:".into(),
            ..StoreSettings::default()
        };
        Database::open(&settings, &NO_ENV)
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
                    .expect("a fresh schema"),
            ),
            ..StoreSettings::default()
        };
        Some(
            Database::open(&settings, &NO_ENV)
                .await
                .expect("postgres opens")
                .expect("a database"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn binding_url_is_built_from_the_discrete_fields() {
        let credentials = json!({
            "hostname": "db.example", "port": "5432", "dbname": "d",
            "username": "u", "password": "p@ss:word",
            "uri": "postgres://db.example:5432/d"
        });
        let url = binding_url(&credentials, Path::new("/tmp")).expect("url");
        assert_eq!(
            url,
            "postgres://u:p%40ss%3Aword@db.example:5432/d?sslmode=require"
        );
        assert_eq!(redact(&url), "postgres://db.example:5432/d");
    }

    #[test]
    fn a_binding_without_a_password_is_named() {
        let credentials = json!({"hostname": "h", "port": 5432, "dbname": "d", "username": "u"});
        let error = binding_url(&credentials, Path::new("/tmp")).expect_err("no password");
        assert_eq!(
            error.to_string(),
            "store: the postgresql-db binding lacks `password`"
        );
    }
}
