//! What `/health` says of the task store and the action ledger: which
//! backend holds them and whether they survive a restart where the app
//! runs (on Cloud Foundry a SQLite file is on an ephemeral disk).

/// The store as `/health` shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StoreHealth {
    pub backend: &'static str,
    /// Tasks and the ledger survive a restart, restage or crash of the
    /// instance: PostgreSQL; a SQLite file off Cloud Foundry (its disk
    /// stays); never the memory store, nor SQLite on a container's disk.
    pub durable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<&'static str>,
}

const NOT_DURABLE: &str = "tasks and the action ledger do not survive a restart: bind a \
                           postgresql-db instance (docs/deploy-btp.md)";

impl StoreHealth {
    /// The health of `backend` where the app runs.
    pub fn of(backend: crate::db::StoreBackend, on_cloud_foundry: bool) -> StoreHealth {
        use crate::db::StoreBackend::*;
        let (name, durable) = match backend {
            Postgres => ("postgresql", true),
            Sqlite => ("sqlite", !on_cloud_foundry),
            Memory => ("memory", false),
        };
        StoreHealth {
            backend: name,
            durable,
            warning: (!durable).then_some(NOT_DURABLE),
        }
    }
}
