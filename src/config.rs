//! Settings: defaults < optional config file < environment (`AGENT__…`) <
//! Cloud Foundry (`PORT`, `VCAP_APPLICATION`). The public URL is the one
//! exception: an explicit `PUBLIC_URL` or `server.public_url` beats
//! `VCAP_APPLICATION`, because CF does not promise the order of several routes.
//! The Cloud Foundry environment is read here, once (`cloud_foundry.rs`),
//! and travels with the settings to the rooms that need a binding.

use crate::cloud_foundry::{CloudFoundry, CloudFoundryError};
pub use crate::cloud_foundry::{EnvSource, ProcessEnv};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub server: crate::http::ServerSettings,
    pub tasks: crate::tasks::TaskSettings,
    pub card: crate::http::CardSettings,
    pub backend: crate::backend::BackendSettings,
    pub auth: crate::auth::AuthSettings,
    pub push: crate::push::PushSettings,
    pub store: crate::db::StoreSettings,
    pub rules: crate::agent::rulebook::RulesSettings,
    /// How the agent fans a batch of several orders out to the specialists.
    pub batch: crate::agent::BatchSettings,
    /// Which executor carries approved actions out (ledger only by default).
    pub actions: crate::agent::execution::ActionSettings,
    pub telemetry: crate::telemetry::TelemetrySettings,
    /// TESTS ONLY: the conformance agent (refused on Cloud Foundry).
    pub conformance: crate::agent::ConformanceSettings,
    /// `VCAP_APPLICATION`, `VCAP_SERVICES`, `CF_INSTANCE_INDEX` as read at
    /// load; not a setting (never in a file or serialized). Default: off
    /// Cloud Foundry, nothing bound.
    #[serde(skip)]
    pub cloud_foundry: CloudFoundry,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("configuration: {0}")]
    Load(#[from] config::ConfigError),
    #[error(transparent)]
    CloudFoundry(#[from] CloudFoundryError),
    #[error("PORT `{0}` is not a port number")]
    Port(String),
    #[error("public URL `{url}` {reason}")]
    PublicUrl { url: String, reason: String },
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

    /// Read the Cloud Foundry environment into `cloud_foundry`. `PORT` wins
    /// over everything; `PUBLIC_URL`, then `server.public_url`, then
    /// `VCAP_APPLICATION.application_uris[0]` give the public URL.
    pub fn apply_cloud_foundry(&mut self, env: &dyn EnvSource) -> Result<(), ConfigError> {
        self.cloud_foundry = CloudFoundry::from_env(env)?;
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
            && let Some(application) = &self.cloud_foundry.application
        {
            let host = application.first_route();
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
            Err(ConfigError::CloudFoundry(_))
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
