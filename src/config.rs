//! Settings: defaults < optional config file < environment (`AGENT__…`) <
//! Cloud Foundry (`PORT`, `VCAP_APPLICATION`). The public URL is the one
//! exception: an explicit `PUBLIC_URL` or `server.public_url` beats
//! `VCAP_APPLICATION`, because CF does not promise the order of several routes.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub server: ServerSettings,
    pub tasks: crate::tasks::TaskSettings,
    pub card: CardSettings,
    pub backend: BackendSettings,
    pub auth: crate::auth::AuthSettings,
    pub push: crate::push::PushSettings,
    pub store: crate::db::StoreSettings,
    pub rules: RulesSettings,
    pub actions: crate::agent::execution::ActionSettings,
    pub telemetry: TelemetrySettings,
}

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// The rule book: who may do what. Unset entries keep the seed defaults.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RulesSettings {
    /// Role name → the actions that role may have filed (replaces the seed
    /// for that role).
    pub roles: std::collections::BTreeMap<String, Vec<String>>,
    /// Specialist skill id → the actions it may propose (replaces what the
    /// specialist declares; an empty list silences its proposals).
    pub proposals: std::collections::BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    pub host: String,
    pub port: u16,
    /// The JSON-RPC endpoint as callers see it (agent card `url`).
    pub public_url: Option<String>,
    /// actix worker threads; unset = one per physical core.
    pub workers: Option<usize>,
    /// Seconds to finish in-flight requests after SIGTERM (CF kills after 10).
    pub shutdown_timeout_secs: u64,
    /// A larger request body gets 413.
    pub max_body_bytes: usize,
    /// A request's headers must arrive within this after the connection
    /// opened, and its body within this after the headers; else 408 and the
    /// connection is closed.
    pub request_timeout_ms: u64,
    /// Bytes all request bodies being read or handled may hold at once
    /// (beyond the first 16 KiB of each, which always fit); a body that
    /// needs more gets 503 with `Retry-After`.
    pub body_bytes_in_flight: usize,
    /// Open connections at most (split over the workers); more wait to be
    /// accepted.
    pub max_connections: usize,
    /// A `: keep-alive` comment on quiet SSE streams this often.
    pub sse_keep_alive_ms: u64,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            host: "0.0.0.0".into(),
            port: 8080,
            public_url: None,
            workers: None,
            shutdown_timeout_secs: 5,
            max_body_bytes: 1024 * 1024,
            request_timeout_ms: 10_000,
            body_bytes_in_flight: 16 * 1024 * 1024,
            max_connections: 512,
            sse_keep_alive_ms: 15_000,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct CardSettings {
    pub name: String,
    pub description: String,
    pub provider_organization: String,
    pub provider_url: String,
    pub documentation_url: Option<String>,
    /// `Cache-Control: max-age` of the card, in seconds.
    pub cache_max_age_secs: u64,
}

impl Default for CardSettings {
    fn default() -> Self {
        CardSettings {
            name: "Order Exception Agent".into(),
            description: "Explains why SAP sales orders are stuck (credit blocks, price disputes, \
                          missing master data, delivery blocks) and proposes the next action."
                .into(),
            provider_organization: "order-exception-agent".into(),
            provider_url: "https://example.com/order-exception-agent".into(),
            documentation_url: None,
            cache_max_age_secs: 300,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct BackendSettings {
    /// `embedded` (the demo data, default) or `s4hana`.
    pub source: crate::backend::SourceKind,
    /// How to reach S/4HANA (docs/s4hana.md).
    pub s4hana: crate::backend::S4HanaSettings,
    /// What counts as which block (status values, codes, condition type, text id).
    pub blocks: crate::backend::BlockRules,
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
            source: crate::backend::SourceKind::Embedded,
            s4hana: crate::backend::S4HanaSettings::default(),
            blocks: crate::backend::BlockRules::default(),
            data_dir: None,
            latency_ms: 0,
            timeout_ms: 120_000,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration: {0}")]
    Load(#[from] config::ConfigError),
    #[error("VCAP_APPLICATION is not valid JSON: {0}")]
    VcapApplication(serde_json::Error),
    #[error("PORT `{0}` is not a port number")]
    Port(String),
    #[error("public URL `{url}` {reason}")]
    PublicUrl { url: String, reason: String },
}

/// The parts of `VCAP_APPLICATION` we use.
#[derive(Debug, Default, Deserialize)]
struct VcapApplication {
    #[serde(default)]
    application_uris: Vec<String>,
    #[serde(default)]
    uris: Vec<String>,
}

/// The environment as a function, so tests need not touch process globals.
pub trait EnvSource {
    fn var(&self, name: &str) -> Option<String>;
}

pub struct ProcessEnv;

/// A fixed environment for unit tests: `StaticEnv(&[("PORT", "8080")])`.
#[cfg(test)]
pub(crate) struct StaticEnv(pub &'static [(&'static str, &'static str)]);

#[cfg(test)]
impl EnvSource for StaticEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
    }
}

impl EnvSource for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|value| !value.is_empty())
    }
}

impl Settings {
    /// Load from defaults, the optional file, `AGENT__…` variables and CF.
    pub fn load(config_file: Option<&Path>) -> Result<Settings, ConfigError> {
        let mut builder =
            config::Config::builder().add_source(config::Config::try_from(&Settings::default())?);
        if let Some(path) = config_file {
            builder = builder.add_source(config::File::from(path).required(true));
        }
        // The one place `AGENT__…` variables are read. An empty one counts as
        // unset (`AGENT__AUTH__APP_TID=` keeps the binding's tenant, not "").
        builder = builder.add_source(
            config::Environment::with_prefix("AGENT")
                .prefix_separator("__")
                .separator("__")
                .ignore_empty(true)
                .try_parsing(true)
                .list_separator(",")
                .with_list_parse_key("auth.domains")
                .with_list_parse_key("auth.group_roles")
                .with_list_parse_key("push.allowed_hosts")
                .with_list_parse_key("push.joule_hosts")
                .with_list_parse_key("backend.blocks.credit_blocked_statuses")
                .with_list_parse_key("backend.blocks.credit_released_statuses")
                .with_list_parse_key("backend.blocks.delivery_block_codes")
                .with_list_parse_key("backend.blocks.price_dispute_billing_blocks")
                .with_list_parse_key("backend.blocks.required_address_fields")
                .with_list_parse_key("backend.blocks.checked_partner_functions"),
        );
        let mut settings: Settings = builder.build()?.try_deserialize()?;
        settings.apply_cloud_foundry(&ProcessEnv)?;
        Ok(settings)
    }

    /// `PORT` wins over everything; `PUBLIC_URL`, then `server.public_url`,
    /// then `VCAP_APPLICATION.application_uris[0]` give the public URL.
    pub fn apply_cloud_foundry(&mut self, env: &dyn EnvSource) -> Result<(), ConfigError> {
        if let Some(port) = env.var("PORT") {
            self.server.port = port.trim().parse().map_err(|_| ConfigError::Port(port))?;
        }
        if self.store.database_url.is_none() {
            self.store.database_url = env.var("DATABASE_URL");
        }
        if let Some(url) = env.var("PUBLIC_URL") {
            self.server.public_url = Some(url);
        }
        if self.server.public_url.is_none()
            && let Some(vcap) = env.var("VCAP_APPLICATION")
        {
            let vcap: VcapApplication =
                serde_json::from_str(&vcap).map_err(ConfigError::VcapApplication)?;
            let host = vcap.application_uris.first().or(vcap.uris.first());
            self.server.public_url = host.map(|host| format!("https://{host}/"));
        }
        if let Some(url) = self.server.public_url.take() {
            self.server.public_url = Some(normalize_public_url(&url)?);
        }
        Ok(())
    }
}

/// The public URL as parsed by `reqwest::Url` (WHATWG) and serialized:
/// `https://Agent.Example.com` → `https://agent.example.com/`. Refused: what
/// does not parse, schemes other than http and https, user info (the card
/// is public), a query or fragment. The path ends in `/`.
pub fn normalize_public_url(text: &str) -> Result<String, ConfigError> {
    let refuse = |url: &str, reason: &str| ConfigError::PublicUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let mut url = reqwest::Url::parse(text.trim())
        .map_err(|error| refuse(text, &format!("does not parse: {error}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse(text, "must start with http:// or https://"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Shown without them: they may be a secret.
        let _ = url.set_username("");
        let _ = url.set_password(None);
        return Err(refuse(url.as_str(), "must not carry user information"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refuse(text, "must not have a query or a fragment"));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct FakeEnv(HashMap<&'static str, &'static str>);
    impl EnvSource for FakeEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|v| v.to_string())
        }
    }

    #[test]
    fn a_toml_file_overrides_the_defaults() {
        let path = std::env::temp_dir().join(format!("agent-{}.toml", uuid::Uuid::new_v4()));
        std::fs::write(
            &path,
            "[card]\nname = \"From the file\"\n[tasks]\nmax_finished = 7\nstrict_task_ids = true\n",
        )
        .unwrap();
        let settings = Settings::load(Some(&path));
        let _ = std::fs::remove_file(&path);
        let settings = settings.unwrap();
        assert_eq!(settings.card.name, "From the file");
        assert_eq!(settings.tasks.max_finished, 7);
        assert!(settings.tasks.strict_task_ids);
        assert_eq!(
            settings.tasks.retention_secs, 3600,
            "unset keys keep their defaults"
        );
    }

    #[test]
    fn a_missing_or_broken_file_is_an_error() {
        assert!(Settings::load(Some(Path::new("/nonexistent/agent.toml"))).is_err());
        let path = std::env::temp_dir().join(format!("agent-{}.toml", uuid::Uuid::new_v4()));
        std::fs::write(&path, "[tasks]\nmax_finished = \"many\"\n").unwrap();
        let result = Settings::load(Some(&path));
        let _ = std::fs::remove_file(&path);
        assert!(result.is_err());
    }

    #[test]
    fn cloud_foundry_port_and_route_are_used() {
        let mut settings = Settings::default();
        let env = FakeEnv(HashMap::from([
            ("PORT", "9001"),
            (
                "VCAP_APPLICATION",
                r#"{"application_uris":["agent.cfapps.eu10.hana.ondemand.com"]}"#,
            ),
        ]));
        settings.apply_cloud_foundry(&env).unwrap();
        assert_eq!(settings.server.port, 9001);
        assert_eq!(
            settings.server.public_url.as_deref(),
            Some("https://agent.cfapps.eu10.hana.ondemand.com/")
        );
    }

    #[test]
    fn an_explicit_public_url_beats_vcap_application() {
        let mut settings = Settings::default();
        let env = FakeEnv(HashMap::from([
            ("PUBLIC_URL", "https://agent.example.com"),
            (
                "VCAP_APPLICATION",
                r#"{"application_uris":["other.example.com"]}"#,
            ),
        ]));
        settings.apply_cloud_foundry(&env).unwrap();
        assert_eq!(
            settings.server.public_url.as_deref(),
            Some("https://agent.example.com/")
        );
    }

    #[test]
    fn bad_values_are_refused_with_a_reason() {
        let mut settings = Settings::default();
        let env = FakeEnv(HashMap::from([("PORT", "eighty")]));
        assert!(matches!(
            settings.apply_cloud_foundry(&env),
            Err(ConfigError::Port(_))
        ));
        let env = FakeEnv(HashMap::from([("VCAP_APPLICATION", "{")]));
        assert!(matches!(
            Settings::default().apply_cloud_foundry(&env),
            Err(ConfigError::VcapApplication(_))
        ));
        let env = FakeEnv(HashMap::from([("PUBLIC_URL", "agent.example.com")]));
        assert!(matches!(
            Settings::default().apply_cloud_foundry(&env),
            Err(ConfigError::PublicUrl { .. })
        ));
    }

    #[test]
    fn the_public_url_is_the_parse() {
        for (given, card) in [
            ("https://agent.example.com", "https://agent.example.com/"),
            (
                " https://Agent.Example.COM/a2a ",
                "https://agent.example.com/a2a/",
            ),
            (
                "https://agent.example.com:443/",
                "https://agent.example.com/",
            ),
            (
                r"https://agent.example.com\a2a",
                "https://agent.example.com/a2a/",
            ),
            ("http://[::1]:8080", "http://[::1]:8080/"),
        ] {
            assert_eq!(normalize_public_url(given).unwrap(), card, "{given}");
        }
        for (given, reason) in [
            ("agent.example.com", "does not parse"),
            ("http://", "does not parse"),
            ("https://agent example.com/", "does not parse"),
            ("ftp://agent.example.com/", "http:// or https://"),
            ("https://agent.example.com?x=1", "query"),
            ("https://agent.example.com/#top", "fragment"),
        ] {
            let error = normalize_public_url(given).unwrap_err().to_string();
            assert!(error.contains(reason), "{given}: {error}");
        }
        let error = normalize_public_url("https://user:secret@agent.example.com/")
            .unwrap_err()
            .to_string();
        assert!(error.contains("user information"), "{error}");
        assert!(!error.contains("secret"), "{error}");
        // A route is judged the same way.
        let env = FakeEnv(HashMap::from([(
            "VCAP_APPLICATION",
            r#"{"application_uris":["user@agent.cfapps.eu10.hana.ondemand.com"]}"#,
        )]));
        assert!(matches!(
            Settings::default().apply_cloud_foundry(&env),
            Err(ConfigError::PublicUrl { .. })
        ));
    }
}
