//! The backend's own settings (`backend.source`, `backend.s4hana.…`,
//! `backend.blocks.…`), kept in the backend room; `config.rs` only layers
//! them. docs/s4hana.md explains each one.

use super::BlockRules;
use crate::btp::DestinationServiceSettings;
use crate::secret::Secret;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct BackendSettings {
    /// `embedded` (the demo data, default) or `s4hana`.
    pub source: SourceKind,
    /// How to reach S/4HANA (docs/s4hana.md).
    pub s4hana: S4HanaSettings,
    /// What counts as which block (status values, codes, condition type, text id).
    pub blocks: BlockRules,
    /// A folder with the demo data files; unset = the data built into the binary.
    pub data_dir: Option<PathBuf>,
    /// Added to every read of the embedded data, to demo the async path.
    pub latency_ms: u64,
    /// A turn whose backend reads take longer fails with a clear message.
    pub timeout_ms: u64,
}

impl Default for BackendSettings {
    fn default() -> Self {
        BackendSettings {
            source: SourceKind::Embedded,
            s4hana: S4HanaSettings::default(),
            blocks: BlockRules::default(),
            data_dir: None,
            latency_ms: 0,
            timeout_ms: 120_000,
        }
    }
}

impl BackendSettings {
    /// Added to every read of the embedded data.
    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms)
    }

    /// How long a turn's backend reads may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Where orders come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// The demo data built into the binary (or `backend.data_dir`).
    #[default]
    Embedded,
    /// S/4HANA's OData V2 APIs, as the user, through a BTP destination (or
    /// directly with `backend.s4hana.url`).
    S4hana,
}

/// How to reach S/4HANA.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct S4HanaSettings {
    /// Direct mode (developers without BTP): the system's base URL, e.g.
    /// `https://sandbox.api.sap.com/s4hanacloud`. Unset: the destination.
    pub url: Option<String>,
    /// Direct mode: a technical user for basic authentication.
    pub user: Option<String>,
    pub password: Option<Secret>,
    /// Direct mode: the `APIKey` header (SAP Business Accelerator Hub sandbox).
    pub api_key: Option<Secret>,
    /// The BTP destination (Destination service) naming the system.
    pub destination: String,
    /// The Destination service; unset fields come from the `destination`
    /// binding in VCAP_SERVICES.
    pub destination_service: DestinationServiceSettings,
    /// The connectivity service (on-premise proxy); unset fields come from
    /// the `connectivity` binding.
    pub connectivity: ConnectivityCredentials,
    /// `sap-client` to send (a destination's own `sap-client` wins).
    pub sap_client: Option<String>,
    /// TESTS ONLY: plain http to loopback addresses (the S/4HANA URL, the
    /// Destination and connectivity services). Refused on Cloud Foundry.
    pub allow_loopback_http: bool,
    /// Every HTTP call (S/4HANA, Destination service, token endpoints) gives
    /// up after this long.
    pub call_timeout_ms: u64,
    /// 429/502/503/504 on a read are retried this many times at most…
    pub max_retries: u32,
    /// …with this backoff (doubling, or `Retry-After` when S/4 sends one)…
    pub retry_base_ms: u64,
    /// …as long as one read, retries included, stays within this.
    pub read_budget_ms: u64,
    /// Tokens from the Destination service are used until this many seconds
    /// before they expire.
    pub token_expiry_margin_secs: u64,
    /// The credit segment of `CreditManagementAccount`; unset: the first
    /// account of the business partner.
    pub credit_segment: Option<String>,
    /// Price records are filtered on this sales organisation and
    /// distribution channel when set.
    pub sales_organization: Option<String>,
    pub distribution_channel: Option<String>,
    /// At most this many orders are listed for a triage of blocked orders.
    pub max_listed_orders: u32,
}

impl Default for S4HanaSettings {
    fn default() -> Self {
        S4HanaSettings {
            url: None,
            user: None,
            password: None,
            api_key: None,
            destination: "S4HANA_ORDERS".into(),
            destination_service: DestinationServiceSettings::default(),
            connectivity: ConnectivityCredentials::default(),
            sap_client: None,
            allow_loopback_http: false,
            call_timeout_ms: 10_000,
            max_retries: 3,
            retry_base_ms: 250,
            read_budget_ms: 20_000,
            token_expiry_margin_secs: 60,
            credit_segment: None,
            sales_organization: None,
            distribution_channel: None,
            max_listed_orders: 200,
        }
    }
}

/// The `connectivity` binding's fields the proxy needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ConnectivityCredentials {
    /// The token server (`token_service_url`, else `url`).
    pub token_url: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<Secret>,
    pub proxy_host: Option<String>,
    pub proxy_port: Option<u16>,
}

#[cfg(test)]
mod secret_tests {
    use super::*;

    #[test]
    fn debug_shows_no_password_key_or_client_secret() {
        let settings = S4HanaSettings {
            password: Some("pw-SECRET-1".into()),
            api_key: Some("key-SECRET-2".into()),
            destination_service: DestinationServiceSettings {
                client_secret: Some("cs-SECRET-3".into()),
                ..DestinationServiceSettings::default()
            },
            connectivity: ConnectivityCredentials {
                client_secret: Some("cs-SECRET-4".into()),
                ..ConnectivityCredentials::default()
            },
            ..S4HanaSettings::default()
        };
        let shown = format!("{settings:?}");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("REDACTED"), "{shown}");
        let serialized = serde_json::to_string(&settings).expect("serializes");
        assert!(!serialized.contains("SECRET"), "{serialized}");
    }
}
