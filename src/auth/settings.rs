//! Identity settings: the `identity` (and optional `xsuaa`) binding in
//! `VCAP_SERVICES`, or explicit settings for local runs, resolved into what
//! the validator needs. Refuses to start rather than run half-configured.

use super::issuer::TrailingSlash;
use crate::cloud_foundry::{CloudFoundry, TestsOnlyRefused, refuse_tests_only};
use crate::roles::BusinessRole;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthMode {
    Required,
    Off,
}

/// `auth.*` in the settings; every field optional, the binding fills gaps.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthSettings {
    /// `required` or `off`. Unset: required on Cloud Foundry or when identity
    /// settings are given, off for a bare local run.
    pub mode: Option<AuthMode>,
    /// Our IAS application's client id (the `aud` we accept).
    pub client_id: Option<String>,
    /// Our IAS tenant URL (`https://<tenant>.accounts.ondemand.com`).
    pub url: Option<String>,
    /// Trusted IAS domains (comma-separated in the environment).
    pub domains: Vec<String>,
    /// Our application tenant id: a token naming another tenant is refused.
    pub app_tid: Option<String>,
    /// The API permission group (`ias_apis`) a consuming app must hold.
    pub required_api: String,
    pub issuer_trailing_slash: TrailingSlash,
    /// `GROUP=role` pairs mapping IAS `groups` to roles. A group named like
    /// a role always maps to it.
    pub group_roles: Vec<String>,
    /// Require a token for the agent card too.
    pub protect_card: bool,
    /// Timeout for discovery and key requests, in milliseconds.
    pub http_timeout_ms: u64,
    /// How long fetched signing keys are used (background refresh after half).
    pub key_cache_ttl_secs: u64,
    /// TESTING ONLY: send discovery and key requests for every trusted issuer
    /// to this plain-http loopback URL. Refused on Cloud Foundry.
    pub test_key_server: Option<String>,
    pub xsuaa: XsuaaSettings,
}

impl Default for AuthSettings {
    fn default() -> Self {
        AuthSettings {
            mode: None,
            client_id: None,
            url: None,
            domains: Vec::new(),
            app_tid: None,
            required_api: "order-exception-agent".into(),
            issuer_trailing_slash: TrailingSlash::Tolerate,
            group_roles: Vec::new(),
            protect_card: false,
            http_timeout_ms: 3000,
            key_cache_ttl_secs: 900,
            test_key_server: None,
            xsuaa: XsuaaSettings::default(),
        }
    }
}

impl AuthSettings {
    /// Timeout of discovery and key requests, at least 100 ms.
    pub fn http_timeout(&self) -> Duration {
        Duration::from_millis(self.http_timeout_ms.max(100))
    }

    /// How long fetched keys are used: 1 s..30 min, so keys neither hammer
    /// IAS nor outlive a rotation.
    pub fn key_cache_ttl(&self) -> Duration {
        Duration::from_secs(self.key_cache_ttl_secs.clamp(1, 1800))
    }
}

/// `auth.xsuaa.*`: a hybrid XSUAA binding (optional).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct XsuaaSettings {
    pub client_id: Option<String>,
    pub xsappname: Option<String>,
    pub uaa_domain: Option<String>,
}

/// Everything the validator needs, checked.
#[derive(Debug, Clone)]
pub struct IdentityConfig {
    pub client_id: String,
    pub url: Option<String>,
    pub domains: Vec<String>,
    pub app_tid: Option<String>,
    pub required_api: String,
    pub trailing_slash: TrailingSlash,
    pub group_roles: HashMap<String, BusinessRole>,
    pub protect_card: bool,
    pub http_timeout: Duration,
    pub key_cache_ttl: Duration,
    pub test_key_server: Option<String>,
    pub xsuaa: Option<XsuaaConfig>,
}

#[derive(Debug, Clone)]
pub struct XsuaaConfig {
    pub client_id: String,
    pub xsappname: String,
    pub uaa_domain: String,
}

#[derive(Debug, Clone)]
pub enum ResolvedAuth {
    Off,
    Required(Box<IdentityConfig>),
}

#[derive(Debug, thiserror::Error)]
pub enum AuthConfigError {
    #[error(
        "authentication is required but no client id is configured: bind an `identity` service \
         instance, or set AGENT__AUTH__CLIENT_ID and AGENT__AUTH__DOMAINS (or AGENT__AUTH__MODE=off \
         to run without authentication)"
    )]
    NoClientId,
    #[error(
        "authentication is required but no trusted IAS domains are configured: the identity binding \
         has no `domains`; set AGENT__AUTH__DOMAINS (e.g. accounts.ondemand.com)"
    )]
    NoDomains,
    #[error("auth.group_roles entry `{0}` is not GROUP=role")]
    GroupRole(String),
    #[error("auth.group_roles: {0}")]
    UnknownRole(#[from] crate::roles::UnknownRole),
    #[error(transparent)]
    TestsOnly(#[from] TestsOnlyRefused),
    #[error("auth.test_key_server must be a plain http:// loopback URL, got `{0}`")]
    TestKeyServerNotLoopback(String),
    #[error("the xsuaa binding lacks `{0}`")]
    Xsuaa(&'static str),
}

fn string(value: &Value, key: &str) -> Option<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The validator's configuration from `auth.*` and the `identity` (and
/// `xsuaa`) bindings.
pub fn resolve(
    settings: &AuthSettings,
    cloud_foundry: &CloudFoundry,
) -> Result<ResolvedAuth, AuthConfigError> {
    let on_cloud_foundry = cloud_foundry.on_cloud_foundry();
    let identity = cloud_foundry
        .services
        .credentials("identity")
        .cloned()
        .unwrap_or(Value::Null);
    let xsuaa_binding = cloud_foundry.services.credentials("xsuaa").cloned();

    let identity_given = settings.client_id.is_some() || !identity.is_null();
    let mode = settings
        .mode
        .unwrap_or(if on_cloud_foundry || identity_given {
            AuthMode::Required
        } else {
            AuthMode::Off
        });
    if mode == AuthMode::Off {
        return Ok(ResolvedAuth::Off);
    }

    let client_id = settings
        .client_id
        .clone()
        .or_else(|| string(&identity, "clientid"))
        .ok_or(AuthConfigError::NoClientId)?;
    // `domains` is an array; very old bindings had one string (accepted too).
    let mut domains = settings.domains.clone();
    if domains.is_empty() {
        match identity.get("domains").or_else(|| identity.get("domain")) {
            Some(Value::Array(items)) => {
                domains = items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            }
            Some(Value::String(one)) => domains = vec![one.clone()],
            _ => {}
        }
    }
    domains.retain(|d| !d.trim().is_empty());
    if domains.is_empty() {
        return Err(AuthConfigError::NoDomains);
    }

    let mut group_roles = HashMap::new();
    for role in BusinessRole::ALL {
        group_roles.insert(role.as_str().to_string(), role);
    }
    for entry in &settings.group_roles {
        let (group, role) = entry
            .split_once('=')
            .ok_or_else(|| AuthConfigError::GroupRole(entry.clone()))?;
        group_roles.insert(group.trim().to_string(), role.trim().parse()?);
    }

    // Judged on its parse, and the parse is what the key client calls.
    refuse_tests_only(
        on_cloud_foundry,
        &[("auth.test_key_server", settings.test_key_server.is_some())],
    )?;
    let test_key_server = match &settings.test_key_server {
        Some(url) => Some(
            crate::loopback::plain_http_loopback(url)
                .ok_or_else(|| AuthConfigError::TestKeyServerNotLoopback(url.clone()))?
                .to_string(),
        ),
        None => None,
    };

    let xsuaa = match (&settings.xsuaa.client_id, xsuaa_binding) {
        (Some(client_id), _) => Some(XsuaaConfig {
            client_id: client_id.clone(),
            xsappname: settings
                .xsuaa
                .xsappname
                .clone()
                .ok_or(AuthConfigError::Xsuaa("xsappname"))?,
            uaa_domain: settings
                .xsuaa
                .uaa_domain
                .clone()
                .ok_or(AuthConfigError::Xsuaa("uaadomain"))?,
        }),
        (None, Some(binding)) => Some(XsuaaConfig {
            client_id: string(&binding, "clientid").ok_or(AuthConfigError::Xsuaa("clientid"))?,
            xsappname: string(&binding, "xsappname").ok_or(AuthConfigError::Xsuaa("xsappname"))?,
            uaa_domain: string(&binding, "uaadomain").ok_or(AuthConfigError::Xsuaa("uaadomain"))?,
        }),
        (None, None) => None,
    };

    Ok(ResolvedAuth::Required(Box::new(IdentityConfig {
        client_id,
        url: settings.url.clone().or_else(|| string(&identity, "url")),
        domains,
        app_tid: settings
            .app_tid
            .clone()
            .or_else(|| string(&identity, "app_tid"))
            .or_else(|| string(&identity, "zone_uuid")),
        required_api: settings.required_api.clone(),
        trailing_slash: settings.issuer_trailing_slash,
        group_roles,
        protect_card: settings.protect_card,
        http_timeout: settings.http_timeout(),
        key_cache_ttl: settings.key_cache_ttl(),
        test_key_server,
        xsuaa,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct FakeEnv(Vec<(&'static str, String)>);
    impl crate::cloud_foundry::EnvSource for FakeEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.0
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone())
        }
    }

    const BINDING: &str = r#"{"identity":[{"label":"identity","credentials":{
        "clientid":"c-123","url":"https://tenant.accounts.ondemand.com",
        "domains":["accounts.ondemand.com","accounts.cloud.sap"],"app_tid":"t-1"}}]}"#;

    /// The bindings as `config.rs` reads them from `env`.
    fn cf(env: FakeEnv) -> CloudFoundry {
        CloudFoundry::from_env(&env).expect("valid JSON")
    }

    #[test]
    fn local_runs_without_identity_settings_are_off() {
        let resolved = resolve(&AuthSettings::default(), &cf(FakeEnv(vec![]))).unwrap();
        assert!(matches!(resolved, ResolvedAuth::Off));
    }

    #[test]
    fn cloud_foundry_requires_a_binding_and_says_what_is_missing() {
        let env = cf(FakeEnv(vec![("VCAP_APPLICATION", "{}".into())]));
        let error = resolve(&AuthSettings::default(), &env).unwrap_err();
        assert!(matches!(error, AuthConfigError::NoClientId));
        assert!(error.to_string().contains("identity"));

        let off = AuthSettings {
            mode: Some(AuthMode::Off),
            ..AuthSettings::default()
        };
        assert!(matches!(resolve(&off, &env).unwrap(), ResolvedAuth::Off));
    }

    #[test]
    fn the_identity_binding_fills_the_config() {
        let env = cf(FakeEnv(vec![
            ("VCAP_APPLICATION", "{}".into()),
            ("VCAP_SERVICES", BINDING.into()),
        ]));
        let ResolvedAuth::Required(config) = resolve(&AuthSettings::default(), &env).unwrap()
        else {
            panic!("required");
        };
        assert_eq!(config.client_id, "c-123");
        assert_eq!(
            config.domains,
            ["accounts.ondemand.com", "accounts.cloud.sap"]
        );
        assert_eq!(config.app_tid.as_deref(), Some("t-1"));
        assert_eq!(
            config.group_roles.get("ar_clerk"),
            Some(&BusinessRole::ArClerk)
        );
    }

    #[test]
    fn a_binding_without_domains_refuses_to_start() {
        let env = cf(FakeEnv(vec![(
            "VCAP_SERVICES",
            r#"{"identity":[{"credentials":{"clientid":"c"}}]}"#.into(),
        )]));
        assert!(matches!(
            resolve(&AuthSettings::default(), &env),
            Err(AuthConfigError::NoDomains)
        ));
    }

    #[test]
    fn the_test_key_server_is_refused_on_cloud_foundry_and_off_loopback() {
        let settings = AuthSettings {
            client_id: Some("c".into()),
            domains: vec!["accounts.test".into()],
            test_key_server: Some("http://127.0.0.1:9999".into()),
            ..AuthSettings::default()
        };
        assert!(resolve(&settings, &cf(FakeEnv(vec![]))).is_ok());
        let env = cf(FakeEnv(vec![("VCAP_APPLICATION", "{}".into())]));
        assert!(matches!(
            resolve(&settings, &env),
            Err(AuthConfigError::TestsOnly(_))
        ));
        for remote in [
            "http://keys.example.com",
            // Text that begins like loopback; the host is keys.example.com.
            "http://127.0.0.1.keys.example.com",
            "http://127.0.0.1@keys.example.com",
            "http://localhost@keys.example.com:9999",
            r"http://keys.example.com\@127.0.0.1",
        ] {
            let remote = AuthSettings {
                test_key_server: Some(remote.into()),
                ..settings.clone()
            };
            assert!(
                matches!(
                    resolve(&remote, &cf(FakeEnv(vec![]))),
                    Err(AuthConfigError::TestKeyServerNotLoopback(_))
                ),
                "{remote:?}"
            );
        }
        // What the key client gets is the parse.
        let spelled = AuthSettings {
            test_key_server: Some("http://0x7f.1:9999".into()),
            ..settings
        };
        let ResolvedAuth::Required(config) = resolve(&spelled, &cf(FakeEnv(vec![]))).unwrap()
        else {
            panic!("required");
        };
        assert_eq!(
            config.test_key_server.as_deref(),
            Some("http://127.0.0.1:9999/")
        );
    }

    #[test]
    fn group_mappings_are_parsed() {
        let settings = AuthSettings {
            client_id: Some("c".into()),
            domains: vec!["accounts.test".into()],
            group_roles: vec!["AR_Team=ar_clerk".into(), "Finance = credit_manager".into()],
            ..AuthSettings::default()
        };
        let ResolvedAuth::Required(config) = resolve(&settings, &cf(FakeEnv(vec![]))).unwrap()
        else {
            panic!("required");
        };
        assert_eq!(
            config.group_roles.get("AR_Team"),
            Some(&BusinessRole::ArClerk)
        );
        assert_eq!(
            config.group_roles.get("Finance"),
            Some(&BusinessRole::CreditManager)
        );
        let bad = AuthSettings {
            group_roles: vec!["X=boss".into()],
            ..settings
        };
        assert!(resolve(&bad, &cf(FakeEnv(vec![]))).is_err());
    }
}
