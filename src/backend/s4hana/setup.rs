//! Building the S/4HANA source from `backend.s4hana` and the bindings: the
//! direct mode (`url` + basic credentials or an `APIKey`), or the
//! destination (the `destination` binding, and the `connectivity` binding
//! for on-premise systems). Plain http only to loopback under the TESTS
//! ONLY setting, which Cloud Foundry refuses. The bindings come from
//! `cloud_foundry.rs`, which read `VCAP_SERVICES` once for all.

use super::connectivity::{ConnectivityBinding, ConnectivityProxy};
use super::transport::{Connection, DirectAuth, Transport};
use super::{S4HanaSource, S4Shared};
use crate::backend::{BackendError, BlockRules, S4HanaSettings};
use crate::btp::{DestinationClient, DestinationService, binding_field as field};
use crate::cloud_foundry::{CloudFoundry, refuse_tests_only};
use crate::secret::Secret;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

fn bad(reason: impl Into<String>) -> BackendError {
    BackendError::Settings(reason.into())
}

/// A URL that is https, or plain http to loopback when the test setting allows.
fn checked_url(
    text: &str,
    what: &str,
    allow_loopback_http: bool,
) -> Result<reqwest::Url, BackendError> {
    let url = reqwest::Url::parse(text.trim())
        .map_err(|error| bad(format!("{what} `{text}` does not parse: {error}")))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if allow_loopback_http && crate::loopback::is_loopback(&url) => Ok(url),
        "http" => Err(bad(format!(
            "{what} `{text}` must use https (plain http only to loopback, with backend.s4hana.allow_loopback_http, for tests)"
        ))),
        _ => Err(bad(format!("{what} `{text}` must use https"))),
    }
}

/// The first binding's credentials under `label` in VCAP_SERVICES.
fn binding(env: &CloudFoundry, label: &str) -> Value {
    env.services.credentials(label).cloned().unwrap_or_default()
}

/// The HTTP client of every direct S/4HANA and BTP service call.
fn http(settings: &S4HanaSettings) -> Result<reqwest::Client, BackendError> {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(settings.call_timeout_ms.max(1)))
        .connect_timeout(Duration::from_millis(
            settings.call_timeout_ms.clamp(1, 5_000),
        ))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| bad(format!("cannot build the S/4HANA HTTP client: {error}")))
}

/// The S/4HANA source the settings describe; the personal data its
/// readers read is reported to `audit`.
pub fn build(
    settings: &S4HanaSettings,
    rules: BlockRules,
    env: &CloudFoundry,
    audit: crate::audit::Audit,
) -> Result<S4HanaSource, BackendError> {
    refuse_tests_only(
        env.on_cloud_foundry(),
        &[(
            "backend.s4hana.allow_loopback_http",
            settings.allow_loopback_http,
        )],
    )
    .map_err(|refused| bad(refused.to_string()))?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = http(settings)?;
    let connection = connection(settings, env, &http)?;
    Ok(S4HanaSource::new(S4Shared {
        transport: Transport {
            connection,
            http,
            sap_client: settings.sap_client.clone(),
            max_retries: settings.max_retries,
            retry_base: Duration::from_millis(settings.retry_base_ms),
            read_budget: Duration::from_millis(settings.read_budget_ms.max(1)),
        },
        rules,
        settings: settings.clone(),
        audit,
    }))
}

fn connection(
    settings: &S4HanaSettings,
    env: &CloudFoundry,
    http: &reqwest::Client,
) -> Result<Connection, BackendError> {
    let allow = settings.allow_loopback_http;
    if let Some(url) = &settings.url {
        let base = checked_url(url, "backend.s4hana.url", allow)?;
        let auth = match (&settings.user, &settings.password, &settings.api_key) {
            (Some(_), _, Some(_)) => {
                return Err(bad(
                    "backend.s4hana: give either user/password or api_key, not both",
                ));
            }
            (Some(user), Some(password), None) => DirectAuth::Basic {
                user: user.clone(),
                password: password.clone(),
            },
            (Some(_), None, None) => {
                return Err(bad("backend.s4hana.user needs backend.s4hana.password"));
            }
            (None, _, Some(key)) => DirectAuth::ApiKey(key.clone()),
            (None, _, None) => DirectAuth::None,
        };
        tracing::warn!(
            url = %base,
            "S/4HANA IS READ AS A TECHNICAL USER (direct mode, backend.s4hana.url): no per-user \
             authorization applies. For development only; use a destination in production."
        );
        return Ok(Connection::Direct { base, auth });
    }
    let Some(found) = (settings.destination_service).service(&binding(env, "destination")) else {
        return Err(bad(
            "backend.source = s4hana needs a destination service (bind one, or set \
             backend.s4hana.destination_service.*) or backend.s4hana.url (direct mode)",
        ));
    };
    let margin = Duration::from_secs(settings.token_expiry_margin_secs);
    let service = DestinationClient::new(
        DestinationService {
            token_url: checked_url(&found.token_url, "the Destination service token URL", allow)?
                .to_string(),
            uri: checked_url(&found.uri, "the Destination service URL", allow)?.to_string(),
            ..found
        },
        settings.destination.clone(),
        http.clone(),
    )
    .with_expiry_margin(margin);
    let connectivity = binding(env, "connectivity");
    let given = &settings.connectivity;
    let proxy = match (
        given
            .token_url
            .clone()
            .or_else(|| field(&connectivity, &["token_service_url", "url"])),
        given
            .client_id
            .clone()
            .or_else(|| field(&connectivity, &["clientid"])),
        given
            .client_secret
            .clone()
            .or_else(|| field(&connectivity, &["clientsecret"]).map(Secret::new)),
        given
            .proxy_host
            .clone()
            .or_else(|| field(&connectivity, &["onpremise_proxy_host"])),
        given.proxy_port.map(|port| port.to_string()).or_else(|| {
            field(
                &connectivity,
                &["onpremise_proxy_http_port", "onpremise_proxy_port"],
            )
        }),
    ) {
        (Some(token_url), Some(client_id), Some(client_secret), Some(host), Some(port)) => {
            let port: u16 = port.trim().parse().map_err(|_| {
                bad(format!(
                    "the connectivity proxy port `{port}` is not a port"
                ))
            })?;
            let proxy = ConnectivityProxy::new(
                ConnectivityBinding {
                    token_url: checked_url(&token_url, "the connectivity token URL", allow)?,
                    client_id,
                    client_secret,
                    proxy_host: host,
                    proxy_port: port,
                },
                http.clone(),
                Duration::from_millis(settings.call_timeout_ms.max(1)),
                margin,
            )
            .map_err(bad)?;
            Some(Arc::new(proxy))
        }
        _ => None,
    };
    Ok(Connection::Destination {
        service: Arc::new(service),
        name: settings.destination.clone(),
        proxy,
        allow_loopback_http: allow,
    })
}
