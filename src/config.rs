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
    /// The audit outbox and its security events (docs/audit.md).
    pub audit: crate::audit::AuditSettings,
    /// TESTS ONLY: the conformance agent (refused on Cloud Foundry).
    pub conformance: crate::agent::ConformanceSettings,
    /// `VCAP_APPLICATION`, `VCAP_SERVICES`, `CF_INSTANCE_INDEX` as read at
    /// load; not a setting (never in a file or serialized). Default: off
    /// Cloud Foundry, nothing bound.
    #[serde(skip)]
    pub cloud_foundry: CloudFoundry,
    /// The clock expiries are judged by (the system's; tests move it);
    /// not a setting either.
    #[serde(skip)]
    pub clock: crate::clock::Clock,
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
        // Names or values that are not UTF-8 are no settings of ours.
        let variables = std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        });
        Settings::load_from(config_file, variables, &ProcessEnv)
    }

    /// [`Settings::load`] with the `AGENT__…` variables and the Cloud
    /// Foundry environment given (tests give their own). Every variable is
    /// a string; its shape is the setting's own type: where that is a list
    /// the value is split on `,`, where it is a map into `KEY=VALUE` pairs
    /// ([`environment`]).
    pub fn load_from(
        config_file: Option<&Path>,
        variables: impl IntoIterator<Item = (String, String)>,
        env: &dyn EnvSource,
    ) -> Result<Settings, ConfigError> {
        let mut variables = environment::AgentVariables::new(variables);
        loop {
            let mut builder = config::Config::builder()
                .add_source(config::Config::try_from(&Settings::default())?);
            if let Some(path) = config_file {
                builder = builder.add_source(config::File::from(path).required(true));
            }
            let built = builder.add_source(variables.clone()).build()?;
            match built.try_deserialize::<Settings>() {
                Ok(mut settings) => {
                    settings.apply_cloud_foundry(env)?;
                    return Ok(settings);
                }
                // A list or a map given as one string: split it, try again
                // (each setting once, so this ends).
                Err(error) if variables.reshape(&error) => continue,
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// `VCAP_SERVICES` as Cloud Foundry would give it, for tests that bind
    /// the service doubles to an in-process app (the audit log tests).
    pub fn bind_services(&mut self, vcap_services: &str) -> Result<(), CloudFoundryError> {
        self.cloud_foundry.services = crate::cloud_foundry::VcapServices::parse(vcap_services)?;
        Ok(())
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
            self.store.database_url = env.var("DATABASE_URL").map(crate::secret::Secret::new);
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

/// The `AGENT__…` variables as one configuration source. `AGENT__A__B_C`
/// is the setting `a.b_c`; an empty variable counts as unset. A value is a
/// string until the setting's type asks for more, and then one rule holds
/// for every setting: a list is the value split on `,` (items trimmed,
/// empty ones dropped), a map is the value split on `,` into `KEY=VALUE`
/// pairs (the keys keep their case; each value again takes the shape its
/// entry asks for). Which settings are lists or maps is not written down
/// anywhere here: deserializing says it (serde's "expected a sequence" /
/// "expected a map" for the key), the string is reshaped and the settings
/// are read again, each setting at most once.
mod environment {
    use config::{ConfigError, Map, Source, Value, ValueKind};
    use std::collections::BTreeMap;

    const PREFIX: &str = "agent__";

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Shape {
        List,
        Map,
    }

    #[derive(Debug, Clone)]
    pub struct AgentVariables {
        /// Setting path (`push.action_hook.allowed_hosts`) → (variable, value).
        variables: BTreeMap<String, (String, String)>,
        /// The settings whose type asked for a list or a map.
        shapes: BTreeMap<String, Shape>,
    }

    impl AgentVariables {
        pub fn new(variables: impl IntoIterator<Item = (String, String)>) -> Self {
            let variables = variables
                .into_iter()
                .filter(|(_, value)| !value.is_empty())
                .filter_map(|(name, value)| {
                    let lower = name.to_lowercase();
                    let rest = lower.strip_prefix(PREFIX)?;
                    if rest.is_empty() {
                        return None;
                    }
                    Some((
                        rest.split("__").collect::<Vec<_>>().join("."),
                        (name, value),
                    ))
                })
                .collect();
            AgentVariables {
                variables,
                shapes: BTreeMap::new(),
            }
        }

        /// Whether `error` is a list or a map given as a string by one of
        /// these variables (or by an entry of a map one of them gave); if so
        /// that setting takes the shape from now on.
        pub fn reshape(&mut self, error: &ConfigError) -> bool {
            let ConfigError::At {
                error: inner,
                key: Some(key),
                ..
            } = error
            else {
                return false;
            };
            let message = inner.to_string();
            if !message.starts_with("invalid type: string") {
                return false;
            }
            let shape = if message.ends_with("expected a sequence") {
                Shape::List
            } else if message.ends_with("expected a map") {
                Shape::Map
            } else {
                return false;
            };
            let ours = self.variables.contains_key(key)
                || self.shapes.iter().any(|(path, shape)| {
                    *shape == Shape::Map
                        && key
                            .strip_prefix(path.as_str())
                            .is_some_and(|rest| rest.starts_with('.'))
                });
            if !ours || self.shapes.contains_key(key) {
                return false;
            }
            self.shapes.insert(key.clone(), shape);
            true
        }

        /// `raw` as the setting at `path` takes it.
        fn value(&self, origin: &String, path: &str, raw: &str) -> Result<Value, ConfigError> {
            let items = || {
                raw.split(',')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
            };
            let kind = match self.shapes.get(path) {
                None => ValueKind::String(raw.to_string()),
                Some(Shape::List) => ValueKind::Array(
                    items()
                        .map(|item| Value::new(Some(origin), ValueKind::String(item.into())))
                        .collect(),
                ),
                Some(Shape::Map) => {
                    let mut map = Map::new();
                    for item in items() {
                        let Some((key, value)) = item.split_once('=') else {
                            return Err(ConfigError::Message(format!(
                                "{origin}: `{item}` is not KEY=VALUE (a map is KEY=VALUE,KEY=VALUE)"
                            )));
                        };
                        let key = key.trim();
                        if key.is_empty() {
                            return Err(ConfigError::Message(format!(
                                "{origin}: `{item}` has no key (a map is KEY=VALUE,KEY=VALUE)"
                            )));
                        }
                        let entry = self.value(origin, &format!("{path}.{key}"), value.trim())?;
                        map.insert(key.to_string(), entry);
                    }
                    ValueKind::Table(map)
                }
            };
            Ok(Value::new(Some(origin), kind))
        }
    }

    impl Source for AgentVariables {
        fn clone_into_box(&self) -> Box<dyn Source + Send + Sync> {
            Box::new(self.clone())
        }

        fn collect(&self) -> Result<Map<String, Value>, ConfigError> {
            let mut map = Map::new();
            for (path, (name, raw)) in &self.variables {
                let origin = format!("environment variable {name}");
                map.insert(path.clone(), self.value(&origin, path, raw)?);
            }
            Ok(map)
        }
    }
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

    fn from_variables(variables: &[(&str, &str)]) -> Result<Settings, ConfigError> {
        Settings::load_from(
            None,
            variables
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string())),
            &FakeEnv(HashMap::new()),
        )
    }

    #[test]
    fn lists_and_maps_come_from_the_environment_by_one_rule() {
        let settings = from_variables(&[
            (
                "AGENT__PUSH__ACTION_HOOK__ALLOWED_HOSTS",
                "hooks.example.com, *.example.org,",
            ),
            (
                "AGENT__BACKEND__BLOCKS__BLOCK_TEXTS",
                "ZL=later, please=no,Z9 = other words",
            ),
            (
                "AGENT__RULES__ROLES__AR_CLERK",
                "open_dispute_case,request_credit_review",
            ),
            ("AGENT__RULES__DECISIONS", "release_credit_block=ar_clerk"),
            ("AGENT__ACTIONS__NOTE_TEXT_ID", "0002"),
            ("AGENT__SERVER__PORT", "9001"),
            ("AGENT__TASKS__STRICT_TASK_IDS", "true"),
        ])
        .unwrap();
        assert_eq!(
            settings.push.action_hook.allowed_hosts,
            ["hooks.example.com", "*.example.org"]
        );
        let texts = &settings.backend.blocks.block_texts;
        assert_eq!(texts["Z9"], "other words", "{texts:?}");
        assert_eq!(
            texts["ZP"], "customer disputes the price",
            "the defaults' other entries stay, as with a file"
        );
        assert_eq!(
            settings.rules.roles["ar_clerk"],
            ["open_dispute_case", "request_credit_review"]
        );
        assert_eq!(
            settings.rules.decisions["release_credit_block"],
            ["ar_clerk"]
        );
        assert_eq!(
            settings.actions.note_text_id, "0002",
            "a string stays a string"
        );
        assert_eq!(settings.server.port, 9001);
        assert!(settings.tasks.strict_task_ids);
        // `ZL=later, please=no` is two items: `ZL=later` and `please=no`.
        assert_eq!(texts["ZL"], "later");
        assert_eq!(texts["please"], "no");
    }

    #[test]
    fn a_map_item_that_is_not_key_value_is_refused_with_its_variable() {
        let error = from_variables(&[("AGENT__BACKEND__BLOCKS__BLOCK_TEXTS", "ZL")])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("AGENT__BACKEND__BLOCKS__BLOCK_TEXTS") && error.contains("KEY=VALUE"),
            "{error}"
        );
        let error = from_variables(&[("AGENT__SERVER__PORT", "eighty")])
            .unwrap_err()
            .to_string();
        assert!(error.contains("server.port"), "{error}");
    }

    /// The keys of one settings table (its first column), with the
    /// shorthands the docs use expanded: `.uri` and `retry_base_ms` after a
    /// full key, `a.{b,c}`, `<role>`; bare keys take `prefix`.
    fn table_keys(text: &str, prefix: &str) -> Vec<(String, String)> {
        let mut keys = Vec::new();
        for row in text.lines().filter(|line| line.starts_with("| `")) {
            let cell = row.split('|').nth(1).unwrap_or_default();
            let mut previous: Option<String> = None;
            for token in cell.split('`').skip(1).step_by(2) {
                let token = token
                    .replace("<role>", "docs_test")
                    .replace("<skill>", "docs_test")
                    .replace("<decision>", "docs_test");
                let parent = |full: &Option<String>| {
                    full.as_deref()
                        .and_then(|key| key.rsplit_once('.'))
                        .map(|(parent, _)| parent.to_string())
                };
                let expanded: Vec<String> = if let Some((head, rest)) = token.split_once('{') {
                    rest.trim_end_matches('}')
                        .split(',')
                        .map(|leaf| format!("{head}{leaf}"))
                        .collect()
                } else if let Some(leaf) = token.strip_prefix('.') {
                    vec![format!(
                        "{}.{leaf}",
                        parent(&previous).expect("a key before")
                    )]
                } else if !token.contains('.') {
                    match parent(&previous) {
                        Some(parent) => vec![format!("{parent}.{token}")],
                        None => vec![format!("{prefix}{token}")],
                    }
                } else {
                    vec![token.to_string()]
                };
                previous = expanded.last().cloned();
                keys.extend(expanded.into_iter().map(|key| (key, row.to_string())));
            }
        }
        keys
    }

    /// Every setting the tables of docs/configuration.md list, and of the
    /// tables it sends the reader to (actions, S/4HANA).
    fn documented_settings() -> Vec<(String, String)> {
        let read = |file: &str| {
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file))
                .expect("the docs are there")
        };
        let section = |text: &str, heading: &str| {
            let start = text.find(heading).expect("the section is there");
            let rest = &text[start + heading.len()..];
            rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
        };
        let s4hana = read("docs/s4hana.md");
        let mut keys = table_keys(&read("docs/configuration.md"), "");
        keys.extend(table_keys(
            &section(&read("docs/actions.md"), "## Settings"),
            "",
        ));
        keys.extend(table_keys(
            &section(&s4hana, "## What counts as which block"),
            "backend.blocks.",
        ));
        keys.extend(table_keys(&section(&s4hana, "## All S/4HANA settings"), ""));
        keys
    }

    /// Whether the setting holds `raw` as the environment rule reads it.
    fn taken(raw: &str, got: &serde_json::Value) -> bool {
        use serde_json::Value;
        let items: Vec<&str> = raw
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .collect();
        match got {
            // A secret serializes as `[redacted]`: the variable reached it
            // (its default is unset), its value is never shown.
            Value::String(text) => text == raw || text == crate::secret::REDACTED,
            Value::Number(number) => number.to_string() == raw,
            Value::Bool(flag) => raw.parse::<bool>().ok() == Some(*flag),
            Value::Array(values) => {
                values.len() == items.len()
                    && items
                        .iter()
                        .zip(values)
                        .all(|(item, value)| taken(item, value))
            }
            Value::Object(map) => items.iter().all(|item| {
                item.split_once('=').is_some_and(|(key, value)| {
                    map.get(key.trim())
                        .is_some_and(|got| taken(value.trim(), got))
                })
            }),
            Value::Null => false,
        }
    }

    #[test]
    fn every_documented_setting_is_taken_from_its_environment_variable() {
        use serde_json::Value;
        let documented = documented_settings();
        assert!(
            documented.len() > 80,
            "the tables were read: {}",
            documented.len()
        );
        let defaults = serde_json::to_value(Settings::default()).unwrap();
        let at = |value: &Value, key: &str| {
            key.split('.')
                .try_fold(value, |value, segment| value.get(segment))
                .cloned()
                .unwrap_or(Value::Null)
        };
        let mut refused = Vec::new();
        for (key, row) in &documented {
            let variable = format!("AGENT__{}", key.to_uppercase().replace('.', "__"));
            let default = at(&defaults, key);
            let words: Vec<String> = row
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .filter(|word| Value::String(word.clone()) != default)
                .collect();
            let mut candidates: Vec<String> = match &default {
                Value::Bool(flag) => vec![(!flag).to_string()],
                Value::Number(number) => {
                    vec![(number.as_f64().unwrap_or(0.0) as u64 + 1).to_string()]
                }
                Value::Array(_) => vec!["docs-a,docs-b".into()],
                Value::Object(_) => vec!["DOCS_A=one,docs_b=two words".into()],
                Value::String(_) | Value::Null => words,
            };
            candidates.extend(
                ["7", "true", "https://docs-test.example.com/", "docs-test"].map(String::from),
            );
            let works = candidates.iter().find(|candidate| {
                from_variables(&[(variable.as_str(), candidate.as_str())])
                    .ok()
                    .and_then(|settings| serde_json::to_value(settings).ok())
                    .is_some_and(|loaded| {
                        let got = at(&loaded, key);
                        got != default && taken(candidate, &got)
                    })
            });
            if works.is_none() {
                refused.push(format!(
                    "{key} ({variable}): {:?}",
                    from_variables(&[(variable.as_str(), candidates[0].as_str())])
                        .err()
                        .map(|e| e.to_string())
                ));
            }
        }
        assert!(
            refused.is_empty(),
            "not taken from the environment:\n{}",
            refused.join("\n")
        );
    }

    /// Every `AGENT__NAME=value` the docs write in a code span is a
    /// variable an admin may copy: it must load.
    #[test]
    fn every_environment_example_in_the_docs_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut pages = vec![root.join("README.md")];
        for entry in std::fs::read_dir(root.join("docs")).unwrap() {
            pages.push(entry.unwrap().path());
        }
        let mut checked = 0;
        let mut refused = Vec::new();
        for page in pages
            .iter()
            .filter(|page| page.extension().is_some_and(|e| e == "md"))
        {
            let text = std::fs::read_to_string(page).unwrap();
            // Code spans: the odd pieces between backticks of a line.
            for span in text
                .lines()
                .flat_map(|line| line.split('`').skip(1).step_by(2))
            {
                let Some((name, value)) = span.split_once('=') else {
                    continue;
                };
                if !name.starts_with("AGENT__") || name.contains(' ') || value.contains('<') {
                    continue;
                }
                checked += 1;
                if let Err(error) = from_variables(&[(name, value)]) {
                    refused.push(format!("{}: `{span}`: {error}", page.display()));
                }
            }
        }
        assert!(checked >= 10, "found {checked} examples");
        assert!(refused.is_empty(), "{}", refused.join("\n"));
    }
}
