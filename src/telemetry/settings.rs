//! The telemetry settings (`telemetry.*`): the log format, the OTLP
//! endpoint, whether `/metrics` answers, whether spans may quote others'
//! words. Kept in the telemetry room;
//! `config.rs` only layers them.

use serde::{Deserialize, Serialize};

/// Logs and OpenTelemetry export (see docs/telemetry.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TelemetrySettings {
    /// `text` or `json` (SAP Cloud Logging fields on stdout). Unset: `json`
    /// on Cloud Foundry (`VCAP_APPLICATION` present), else `text`.
    pub log_format: Option<LogFormat>,
    /// OTLP/HTTP base URL (`/v1/traces` is appended); wins over
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`. Unset and no OTEL variable: no export.
    pub otlp_endpoint: Option<String>,
    /// Serve Prometheus text at `GET /metrics` (unauthenticated; off by default).
    pub metrics_endpoint: bool,
    /// Let spans carry what S/4HANA or an action hook said (their error
    /// messages, as the log lines do): for debugging only, off by default.
    pub debug_content: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}
