//! Request-rate quotas: how often a caller, a tenant, or (authentication
//! off) anyone may call the JSON-RPC endpoint. Nothing else bounds the
//! rate: one caller on a few connections could otherwise create tasks as
//! fast as the instance writes them, and fill its disk. `gcra` is
//! the bucket's arithmetic, `quotas` the buckets by key, `refusal` the
//! answer past a quota, `settings` the `server.quota.*` settings.

mod gcra;
mod quotas;
mod refusal;
mod settings;

pub use quotas::{Quotas, Requester};
pub use refusal::QuotaRefused;
pub use settings::QuotaSettings;
