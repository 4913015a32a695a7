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
            DbError::Vcap(_) | DbError::Binding(_) | DbError::BindingField { .. } => true,
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
/// (its `uri` has been seen without credentials) with `reqwest::Url`
/// setters, so a field is always that field: `@`, `/`, `?`, `#` or `:` in a
/// user, password or database name are encoded, a host or port that is not
/// one is refused. Its root certificate is written next to the SQLite file,
/// since the driver reads it from a path.
fn binding_url(credentials: &Value, data_dir: &Path) -> Result<String, DbError> {
    let host = text(credentials, "hostname")?;
    let port = match credentials.get("port") {
        Some(Value::String(port)) => port.trim().parse::<u16>().ok(),
        Some(Value::Number(port)) => port.as_u64().and_then(|p| u16::try_from(p).ok()),
        _ => return Err(DbError::Binding("port")),
    }
    .filter(|port| *port != 0)
    .ok_or(DbError::BindingField {
        field: "port",
        reason: "is not a port number",
    })?;
    let database = text(credentials, "dbname")?;
    let user = text(credentials, "username")?;
    let password = text(credentials, "password")?;
    let not_a_host = || DbError::BindingField {
        field: "hostname",
        reason: "is not a host name or IP address",
    };
    let mut url = reqwest::Url::parse("postgres://localhost").map_err(|_| not_a_host())?;
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => url.set_ip_host(ip).map_err(|_| not_a_host())?,
        // The driver takes the host as written (no decoding): names only.
        Err(_) if is_host_name(host) => url.set_host(Some(host)).map_err(|_| not_a_host())?,
        Err(_) => return Err(not_a_host()),
    }
    let encoded = |field| DbError::BindingField {
        field,
        reason: "cannot be put in a URL",
    };
    url.set_port(Some(port)).map_err(|_| encoded("port"))?;
    // Encoded here (the setters would leave `%` as it is), decoded by the driver.
    url.set_username(&percent_encode(user))
        .map_err(|_| encoded("username"))?;
    url.set_password(Some(&percent_encode(password)))
        .map_err(|_| encoded("password"))?;
    url.set_path(&format!("/{}", percent_encode(database)));
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
        url.query_pairs_mut()
            .append_pair("sslmode", "verify-full")
            .append_pair("sslrootcert", &path.to_string_lossy());
    } else {
        url.query_pairs_mut().append_pair("sslmode", "require");
    }
    Ok(url.into())
}

/// DNS labels (letters, digits, `-`, `_`) joined by dots.
fn is_host_name(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 253
        && host.trim_end_matches('.').split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Everything but RFC 3986's unreserved characters, for user info and the
/// database name (the driver percent-decodes them).
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// `postgres://user:secret@host/db?…` → `postgres://host/db`, for logs: the
/// parse without user info, query and fragment; a URL that does not parse
/// is not shown at all (it may hold a password anywhere).
fn redact(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            // Both fail only for URLs without a host, which carry no user info.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.into()
        }
        Err(error) => format!("(a database URL that does not parse: {error})"),
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
    // Added to the parse, not spliced onto the text.
    let mut url = reqwest::Url::parse(base_url).map_err(|error| DbError::Connect {
        location: location.clone(),
        source: sqlx::Error::Configuration(error.into()),
    })?;
    url.query_pairs_mut()
        .append_pair("options", &format!("-c search_path={schema}"));
    Ok(url.into())
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

    /// `%XX` back to bytes, as the driver reads user info.
    fn percent_decode(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() {
                out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("hex"));
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn binding_fields_stay_fields_whatever_they_contain() {
        let password = "p@ss/w?rd#1:%41 é";
        let credentials = json!({
            "hostname": "db.example", "port": 6543, "dbname": "d/b?x#1%41",
            "username": "u@s:er/", "password": password,
        });
        let url = binding_url(&credentials, Path::new("/tmp")).expect("url");
        // The driver's own reading of the URL.
        let options = sqlx::postgres::PgConnectOptions::from_str(&url).expect("sqlx parses it");
        assert_eq!(options.get_host(), "db.example", "{url}");
        assert_eq!(options.get_port(), 6543, "{url}");
        assert_eq!(options.get_username(), "u@s:er/", "{url}");
        assert_eq!(options.get_database(), Some("d/b?x#1%41"), "{url}");
        assert!(
            matches!(options.get_ssl_mode(), sqlx::postgres::PgSslMode::Require),
            "{url}"
        );
        let parsed = reqwest::Url::parse(&url).unwrap();
        assert_eq!(
            percent_decode(parsed.password().unwrap()),
            password,
            "{url}"
        );
        assert_eq!(
            redact(&url),
            "postgres://db.example:6543/d%2Fb%3Fx%231%2541"
        );
        assert!(!redact(&url).contains("ss"), "no password in the location");
    }

    #[test]
    fn a_host_or_port_that_is_not_one_is_refused() {
        for (host, port) in [
            ("evil.example/other", json!(5432)),
            ("u:p@evil.example", json!(5432)),
            ("db.example?host=evil", json!(5432)),
            ("db.example:5433", json!(5432)),
            ("db example", json!(5432)),
            ("db.example", json!("5432/x")),
            ("db.example", json!(70000)),
            ("db.example", json!(0)),
        ] {
            let credentials = json!({"hostname": host, "port": port, "dbname": "d",
                "username": "u", "password": "p"});
            let error = binding_url(&credentials, Path::new("/tmp"))
                .expect_err("refused")
                .to_string();
            assert!(
                error.contains("binding's `hostname`") || error.contains("binding's `port`"),
                "{host} {port}: {error}"
            );
        }
        for host in ["10.1.2.3", "::1", "db-1.internal_zone.example."] {
            let credentials = json!({"hostname": host, "port": "5432", "dbname": "d",
                "username": "u", "password": "p"});
            let url = binding_url(&credentials, Path::new("/tmp")).expect(host);
            let options = sqlx::postgres::PgConnectOptions::from_str(&url).expect("sqlx parses it");
            assert_eq!(options.get_host().trim_matches(['[', ']']), host, "{url}");
        }
    }

    #[test]
    fn the_root_certificate_path_is_a_query_value() {
        let dir =
            std::env::temp_dir().join(format!("oea db & ?{}#", uuid::Uuid::new_v4().simple()));
        let credentials = json!({"hostname": "h", "port": 5432, "dbname": "d",
            "username": "u", "password": "p", "sslrootcert": "-----BEGIN CERTIFICATE-----"});
        let url = binding_url(&credentials, &dir).expect("url");
        let _ = std::fs::remove_dir_all(&dir);
        let parsed = reqwest::Url::parse(&url).unwrap();
        let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
        assert_eq!(
            pairs,
            [
                ("sslmode".to_string(), "verify-full".to_string()),
                (
                    "sslrootcert".to_string(),
                    dir.join("postgresql-root.pem")
                        .to_string_lossy()
                        .into_owned()
                )
            ]
        );
        assert_eq!(parsed.fragment(), None, "{url}");
    }

    #[test]
    fn a_url_that_does_not_parse_is_not_shown() {
        let shown = redact("postgres://u:sec ret@[db/x");
        assert!(!shown.contains("sec"), "{shown}");
        assert_eq!(
            redact("postgres://u:secret@db.example:5432/d?sslmode=require&password=x#f"),
            "postgres://db.example:5432/d"
        );
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
