//! The outbound action hook: an approved action that no released S/4HANA
//! API files (a dispute case, a master data change) is POSTed as JSON to
//! the customer's own process (SAP Build Process Automation, a ticket
//! system, an iFlow). The URL is judged by the webhook guard's one parser
//! and delivered through its [`GuardedResolver`](super::guard::GuardedResolver)
//! (no redirects, no private addresses unless a test allows them); with
//! `destination` set, the `Authorization` header is minted by the BTP
//! Destination service as the approver. Transient answers (timeouts, 429,
//! 5xx) are retried with backoff within one delivery; the receiver's answer
//! (status and at most 200 characters of its body) is returned for the
//! ledger. The body carries `idempotency_key`, also sent as the
//! `Idempotency-Key` header, so a receiver can drop a repeat.

use super::guard::{self, GuardSettings, Webhook};
use crate::btp::DestinationClient;
use crate::btp::DestinationSettings;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// `push.action_hook.*`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionHookSettings {
    /// The receiver; unset: no hook.
    pub url: Option<String>,
    /// A destination that mints the `Authorization` header as the approver.
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

pub struct ActionHook {
    /// The judged URL, or why the guard refused it.
    target: Result<Webhook, String>,
    client: reqwest::Client,
    destination: Option<DestinationClient>,
    settings: ActionHookSettings,
}

impl ActionHook {
    /// The hook the settings describe; `None` without a URL.
    pub fn from_settings(
        settings: &ActionHookSettings,
        destination: &DestinationSettings,
        binding: &Value,
    ) -> Result<Option<Self>, reqwest::Error> {
        let Some(url) = &settings.url else {
            return Ok(None);
        };
        let guard = GuardSettings {
            allowed_hosts: settings.allowed_hosts.clone(),
            allow_loopback_http: settings.allow_loopback_http,
            allow_private_addresses: settings.allow_private_addresses,
        };
        let target = guard.check(url).map_err(|refused| {
            tracing::warn!(%refused, "the action hook URL is refused by the webhook guard");
            format!("the action hook URL is refused: {refused}")
        });
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(Duration::from_millis(settings.timeout_ms.max(1)))
            .dns_resolver(std::sync::Arc::new(guard.resolver()))
            .build()?;
        let destination = match &settings.destination {
            Some(name) => {
                let named = DestinationSettings {
                    name: name.clone(),
                    ..destination.clone()
                };
                DestinationClient::from_settings(&named, binding)?
            }
            None => None,
        };
        Ok(Some(ActionHook {
            target,
            client,
            destination,
            settings: settings.clone(),
        }))
    }

    /// POST `payload`; the receiver's answer.
    pub async fn deliver(
        &self,
        payload: &Value,
        idempotency_key: &str,
        user_token: Option<&str>,
    ) -> Result<String, HookError> {
        let target = self
            .target
            .as_ref()
            .map_err(|why| HookError::Refused(why.clone()))?;
        let span = tracing::info_span!(
            "action_hook.deliver",
            otel.name = "action_hook.deliver",
            otel.kind = "client",
            server.address = target.host.as_str(),
            http.response.status_code = tracing::field::Empty,
            action_hook.attempts = tracing::field::Empty,
        );
        let authorization = match (&self.destination, user_token) {
            (Some(destination), Some(user)) => Some(
                destination
                    .authorization(user)
                    .await
                    .map_err(|error| HookError::Transient(error.to_string()))?,
            ),
            (Some(_), None) => {
                return Err(HookError::Refused(
                    "the action hook's destination needs the approver's identity".into(),
                ));
            }
            (None, _) => None,
        };
        let tries = self.settings.max_attempts.max(1);
        let mut last = String::new();
        for attempt in 1..=tries {
            span.record("action_hook.attempts", i64::from(attempt));
            let mut request = self
                .client
                .post(target.url.clone())
                .header("Idempotency-Key", idempotency_key)
                .json(payload);
            if let Some(authorization) = &authorization {
                request = request.header("Authorization", authorization);
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
