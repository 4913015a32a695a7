//! PostgreSQL, for several instances: a URL from the settings or the
//! `postgresql-db` binding, a bounded pool (and the same connect options
//! for the probe of a database found unreachable: `availability`); and
//! fresh schemas for tests and benchmarks.

use super::binding::{binding_url, postgres_binding, redact};
use super::{Database, DbError, Dialect, StoreSettings};
use crate::cloud_foundry::VcapServices;
use crate::secret::Secret;
use sqlx::Executor;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use std::str::FromStr;
use std::time::Duration;

pub(super) async fn open(
    settings: &StoreSettings,
    services: &VcapServices,
) -> Result<Database, DbError> {
    let url = match &settings.database_url {
        Some(url) => url.clone(),
        None => {
            let credentials = postgres_binding(services).ok_or(DbError::Binding("credentials"))?;
            Secret::new(binding_url(credentials, &settings.data_dir)?)
        }
    };
    let location = format!("PostgreSQL {}", redact(url.expose()));
    let options = AnyConnectOptions::from_str(url.expose()).map_err(|source| DbError::Connect {
        location: location.clone(),
        source,
    })?;
    let pool = AnyPoolOptions::new()
        .max_connections(settings.pool_size())
        .acquire_timeout(Duration::from_secs(5))
        .connect_with(options.clone())
        .await
        .map_err(|source| DbError::Connect {
            location: location.clone(),
            source,
        })?;
    Ok(Database {
        pool,
        dialect: Dialect::Postgres,
        availability: super::availability::Availability::probed(options, &location),
        location,
        single_connection: false,
        sqlite_file: None,
    })
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
