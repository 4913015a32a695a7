//! The outbound action hook: an approved action that no released S/4HANA
//! API files (a dispute case, a master data change) is POSTed as JSON to
//! the customer's own process (SAP Build Process Automation, a ticket
//! system, an iFlow), reached through a BTP destination: at each delivery
//! the Destination service gives the URL (`destinationConfiguration.URL`)
//! and the auth headers (`authTokens[].http_header`) as the approver. The
//! URL is judged by the webhook guard's one parser and delivered exactly as
//! parsed through its [`GuardedResolver`](super::guard::GuardedResolver)
//! (no redirects, no private addresses unless a test allows them). A fixed
//! `url` (judged once at start: one the guard refuses stops the start) is
//! the local/dev alternative; with both set
//! the destination wins. Transient answers (timeouts, 429, 5xx) are retried
//! with backoff within one delivery; the receiver's answer (status and at
//! most 200 characters of its body) is returned for the ledger. The body
//! carries `idempotency_key`, also sent as the `Idempotency-Key` header, so
//! a receiver can drop a repeat.

use super::guard::{self, GuardSettings, Webhook};
use crate::btp::{DestinationClient, DestinationError, DestinationSettings};
use crate::secret::{BearerToken, Secret};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// `push.action_hook.*`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionHookSettings {
    /// A fixed receiver, for local/dev runs without a Destination service;
    /// `destination` wins when both are set.
    pub url: Option<String>,
    /// The destination that gives the receiver's URL and auth headers, as
    /// the approver (the Destination service of `push.destination` or the
    /// `destination` binding).
    pub destination: Option<String>,
    /// Host patterns the receiver may be on (`*.domain` = any subdomain).
    pub allowed_hosts: Vec<String>,
    /// TESTING ONLY: plain http to loopback hosts.
    pub allow_loopback_http: bool,
    /// TESTING ONLY: private, loopback and link-local targets.
    pub allow_private_addresses: bool,
    /// Tries per delivery (transient failures only).
    pub max_attempts: u32,
    pub retry_base_ms: u64,
    pub timeout_ms: u64,
}

impl Default for ActionHookSettings {
    fn default() -> Self {
        ActionHookSettings {
            url: None,
            destination: None,
            allowed_hosts: Vec::new(),
            allow_loopback_http: false,
            allow_private_addresses: false,
            max_attempts: 3,
            retry_base_ms: 500,
            timeout_ms: 10_000,
        }
    }
}

/// Why the hook did not take the action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// The guard refused the URL, or the receiver refused (4xx): final.
    #[error("{0}")]
    Refused(String),
    /// No answer after the delivery's tries: worth another attempt later.
    #[error("{0}")]
    Transient(String),
}

/// Why the hook cannot be set up: bad settings stop the start.
#[derive(Debug, thiserror::Error)]
pub enum HookSetupError {
    #[error(transparent)]
    TestsOnly(#[from] crate::cloud_foundry::TestsOnlyRefused),
    #[error(
        "push.action_hook.destination `{0}` needs a Destination service (push.destination or a `destination` binding)"
    )]
    NoDestinationService(String),
    /// `url` is judged once, at start: one the guard refuses stops it.
    #[error("push.action_hook.url `{url}` is refused: {reason}")]
    UrlRefused { url: String, reason: String },
    #[error("cannot build the action hook's HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
}

impl HookSetupError {
    pub fn is_bad_settings(&self) -> bool {
        !matches!(self, HookSetupError::HttpClient(_))
    }
}

/// Where the hook delivers.
enum Target {
    /// `url`, as the guard judged it at start.
    Fixed(Webhook),
    /// `destination`: looked up (URL and auth headers) at each delivery.
    Destination(DestinationClient),
}

pub struct ActionHook {
    target: Target,
    guard: GuardSettings,
    client: reqwest::Client,
    settings: ActionHookSettings,
}

/// Where one delivery goes and what it carries besides the payload.
struct Resolved {
    webhook: Webhook,
    headers: Vec<(String, Secret)>,
}

impl ActionHook {
    /// The hook the settings describe; `None` without a destination or a
    /// URL. The TESTS ONLY allowances are refused on Cloud Foundry.
    pub fn from_settings(
        settings: &ActionHookSettings,
        destination: &DestinationSettings,
        binding: &Value,
        on_cloud_foundry: bool,
    ) -> Result<Option<Self>, HookSetupError> {
        if settings.destination.is_none() && settings.url.is_none() {
            return Ok(None);
        }
        crate::cloud_foundry::refuse_tests_only(
            on_cloud_foundry,
            &[
                (
                    "push.action_hook.allow_loopback_http",
                    settings.allow_loopback_http,
                ),
                (
                    "push.action_hook.allow_private_addresses",
                    settings.allow_private_addresses,
                ),
            ],
        )?;
        let guard = GuardSettings {
            allowed_hosts: settings.allowed_hosts.clone(),
            allow_loopback_http: settings.allow_loopback_http,
            allow_private_addresses: settings.allow_private_addresses,
        };
        let target = match (&settings.destination, &settings.url) {
            (Some(name), url) => {
                if url.is_some() {
                    tracing::warn!(
                        destination = %name,
                        "push.action_hook.url is ignored: the destination gives the hook's URL"
                    );
                }
                let named = DestinationSettings {
                    name: name.clone(),
                    ..destination.clone()
                };
                let client = DestinationClient::from_settings(&named, binding)?
                    .ok_or_else(|| HookSetupError::NoDestinationService(name.clone()))?;
                Target::Destination(client)
            }
            (None, Some(url)) => Target::Fixed(guard.check(url).map_err(|refused| {
                HookSetupError::UrlRefused {
                    // Scheme, host, path: user information and query
                    // may hold a secret.
                    url: guard::shown_text(url),
                    reason: refused.to_string(),
                }
            })?),
            (None, None) => return Ok(None),
        };
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(Duration::from_millis(settings.timeout_ms.max(1)))
            .dns_resolver(std::sync::Arc::new(guard.resolver()))
            .build()?;
        Ok(Some(ActionHook {
            target,
            guard,
            client,
            settings: settings.clone(),
        }))
    }

    /// The URL and headers of this delivery: the fixed URL, or what the
    /// destination says as the approver, its URL judged by the guard.
    async fn resolve(&self, user_token: Option<&BearerToken>) -> Result<Resolved, HookError> {
        let destination = match &self.target {
            Target::Fixed(webhook) => {
                return Ok(Resolved {
                    webhook: webhook.clone(),
                    headers: Vec::new(),
                });
            }
            Target::Destination(destination) => destination,
        };
        let name = destination.name();
        let user = user_token.ok_or_else(|| {
            HookError::Refused("the action hook's destination needs the approver's identity".into())
        })?;
        let found = destination
            .find(name, user)
            .await
            .map_err(|error| match error {
                DestinationError::Token(_) | DestinationError::Lookup(_) => {
                    HookError::Transient(format!("the action hook's destination {name}: {error}"))
                }
                _ => HookError::Refused(format!("the action hook's destination {name}: {error}")),
            })?;
        if found.proxy_type != "Internet" {
            return Err(HookError::Refused(format!(
                "the action hook's destination {name} is {} (only Internet destinations are reached)",
                found.proxy_type
            )));
        }
        if found.url.is_empty() {
            return Err(HookError::Refused(format!(
                "the action hook's destination {name} has no URL"
            )));
        }
        let webhook = self.guard.check(&found.url).map_err(|refused| {
            tracing::warn!(destination = name, %refused, "the action hook's destination URL is refused by the webhook guard");
            HookError::Refused(format!(
                "the action hook URL of destination {name} is refused: {refused}"
            ))
        })?;
        Ok(Resolved {
            webhook,
            headers: found.auth_headers,
        })
    }

    /// POST `payload`; the receiver's answer.
    pub async fn deliver(
        &self,
        payload: &Value,
        idempotency_key: &str,
        user_token: Option<&BearerToken>,
    ) -> Result<String, HookError> {
        let Resolved {
            webhook: target,
            headers,
        } = self.resolve(user_token).await?;
        let span = tracing::info_span!(
            "action_hook.deliver",
            otel.name = "action_hook.deliver",
            otel.kind = "client",
            server.address = target.host.as_str(),
            http.response.status_code = tracing::field::Empty,
            action_hook.attempts = tracing::field::Empty,
        );
        let tries = self.settings.max_attempts.max(1);
        let mut last = String::new();
        for attempt in 1..=tries {
            span.record("action_hook.attempts", i64::from(attempt));
            let mut request = self
                .client
                .post(target.url.clone())
                .header("Idempotency-Key", idempotency_key)
                .json(payload);
            for (name, value) in &headers {
                request = request.header(name.as_str(), value.expose());
            }
            let request = crate::telemetry::propagation::inject(request);
            let sent = tracing::Instrument::instrument(request.send(), span.clone()).await;
            match sent {
                Ok(response) => {
                    let status = response.status().as_u16();
                    span.record("http.response.status_code", i64::from(status));
                    let body: String = response
                        .text()
                        .await
                        .unwrap_or_default()
                        .chars()
                        .take(200)
                        .collect();
                    let answer = if body.trim().is_empty() {
                        format!("HTTP {status}")
                    } else {
                        format!("HTTP {status}: {}", body.trim())
                    };
                    match status {
                        200..=299 => return Ok(answer),
                        408 | 429 | 500..=599 => last = answer,
                        _ => {
                            return Err(HookError::Refused(format!(
                                "the action hook answered {answer}"
                            )));
                        }
                    }
                }
                Err(error) => {
                    if let Some(refused) = guard::refused_resolution(&error) {
                        return Err(HookError::Refused(format!(
                            "the action hook URL is refused: {refused}"
                        )));
                    }
                    last = if error.is_timeout() {
                        "no answer in time".into()
                    } else {
                        "the connection failed".into()
                    };
                }
            }
            if attempt < tries {
                let wait = self
                    .settings
                    .retry_base_ms
                    .saturating_mul(1 << (attempt - 1).min(10));
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
        }
        Err(HookError::Transient(format!(
            "the action hook did not take it after {tries} tries ({last})"
        )))
    }
}
