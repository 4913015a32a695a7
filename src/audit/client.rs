//! The write API v2 client: a client-credentials token (client secret, or
//! mutual TLS with the binding's certificate for plan `premium`), cached
//! until a minute before it expires and fetched by one caller at a time,
//! and one `POST {url}/audit-log/oauth2/v2/<kind>` per message
//! (reference/audit-log.md §1.3, §2). What an answer means for the outbox
//! is [`Sent`].

use super::binding::{AuditBinding, TokenCredentials};
use super::message::Kind;
use std::time::{Duration, Instant};

/// A token is dropped this long before it expires (CAP's 60 s, §1.3).
const TOKEN_MARGIN: Duration = Duration::from_secs(60);
/// One attempt's bound.
const TIMEOUT: Duration = Duration::from_secs(10);

/// How one attempt to send a message ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// 2xx: done.
    Accepted,
    /// 429 (with its `Retry-After`, if any), 5xx, 401 (the token was
    /// refused: a new one is fetched), a network error, no token: try again.
    Retry {
        reason: String,
        after: Option<Duration>,
    },
    /// Any other 4xx: sending it again cannot help; kept aside.
    Refused { reason: String },
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("audit: the binding's certificate or key cannot be used: {0}")]
    Identity(reqwest::Error),
    #[error("audit: cannot build an HTTP client: {0}")]
    Build(reqwest::Error),
}

struct CachedToken {
    value: crate::secret::Secret,
    good_until: Instant,
}

pub struct AuditClient {
    http: reqwest::Client,
    binding: AuditBinding,
    token: tokio::sync::Mutex<Option<CachedToken>>,
}

impl AuditClient {
    pub fn new(binding: AuditBinding) -> Result<AuditClient, ClientError> {
        let mut builder = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none());
        if let TokenCredentials::X509 { certificate, key } = &binding.credentials {
            let pem = format!("{}\n{}", certificate.expose(), key.expose());
            builder = builder.identity(
                reqwest::Identity::from_pem(pem.as_bytes()).map_err(ClientError::Identity)?,
            );
        }
        Ok(AuditClient {
            http: builder.build().map_err(ClientError::Build)?,
            binding,
            token: tokio::sync::Mutex::new(None),
        })
    }

    /// Send one message's JSON text to its kind's endpoint.
    pub async fn send(&self, kind: Kind, body: &str) -> Sent {
        let token = match self.token().await {
            Ok(token) => token,
            Err(failure) => return failure,
        };
        let url = format!(
            "{}/audit-log/oauth2/v2/{}",
            self.binding.api_url.trim_end_matches('/'),
            kind.path()
        );
        let response = self
            .http
            .post(url)
            .bearer_auth(token.expose())
            .header("Content-Type", "application/json; charset=UTF-8")
            .body(body.to_string())
            .send()
            .await;
        let response = match response {
            Ok(response) => response,
            Err(error) => {
                return Sent::Retry {
                    reason: format!(
                        "no answer: {}",
                        crate::telemetry::outbound::without_url(&error)
                    ),
                    after: None,
                };
            }
        };
        let status = response.status().as_u16();
        if status == 401 {
            // The token, not the message, was refused (revoked, or the
            // binding rotated): a new one next time, the message kept.
            *self.token.lock().await = None;
            return Sent::Retry {
                reason: "the write API answered 401".into(),
                after: None,
            };
        }
        classify(status, retry_after(&response), "the write API")
    }

    /// The cached token, or a new one (one fetch at a time: the others
    /// wait for it on the lock).
    async fn token(&self) -> Result<crate::secret::Secret, Sent> {
        let mut cached = self.token.lock().await;
        if let Some(token) = cached.as_ref()
            && Instant::now() < token.good_until
        {
            return Ok(token.value.clone());
        }
        let url = format!(
            "{}/oauth/token",
            self.binding.token_url.trim_end_matches('/')
        );
        let form = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", "client_credentials")
                .append_pair("response_type", "token")
                .append_pair("client_id", &self.binding.client_id);
            if let TokenCredentials::Secret { client_secret } = &self.binding.credentials {
                form.append_pair("client_secret", client_secret.expose());
            }
            form.finish()
        };
        let response = self
            .http
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .map_err(|error| Sent::Retry {
                reason: format!(
                    "token: no answer: {}",
                    crate::telemetry::outbound::without_url(&error)
                ),
                after: None,
            })?;
        let status = response.status().as_u16();
        if status != 200 {
            // Never the message's fault: it waits (with the backoff) until
            // a token comes, after the binding is fixed if need be.
            return Err(Sent::Retry {
                reason: format!("the token endpoint answered {status}"),
                after: retry_after(&response),
            });
        }
        let body: serde_json::Value = response.json().await.map_err(|_| Sent::Retry {
            reason: "token: the answer is not JSON".into(),
            after: None,
        })?;
        let value = body["access_token"]
            .as_str()
            .filter(|token| !token.is_empty())
            .ok_or_else(|| Sent::Retry {
                reason: "token: the answer has no access_token".into(),
                after: None,
            })?;
        let lifetime = body["expires_in"]
            .as_u64()
            .map(Duration::from_secs)
            .unwrap_or(Duration::from_secs(300));
        let token = crate::secret::Secret::new(value);
        *cached = Some(CachedToken {
            value: token.clone(),
            good_until: Instant::now() + lifetime.saturating_sub(TOKEN_MARGIN),
        });
        Ok(token)
    }
}

/// 2xx accepted; 429, 5xx retried; any other status kept aside.
fn classify(status: u16, after: Option<Duration>, whom: &str) -> Sent {
    match status {
        200..=299 => Sent::Accepted,
        429 | 500..=599 => Sent::Retry {
            reason: format!("{whom} answered {status}"),
            after,
        },
        _ => Sent::Refused {
            reason: format!("{whom} answered {status}"),
        },
    }
}

/// `Retry-After` in seconds (the service documents none; honoured if sent).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(|seconds| Duration::from_secs(seconds.min(3_600)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn premium(certificate: &str, key: &str) -> AuditBinding {
        AuditBinding {
            plan: "premium".into(),
            api_url: "https://api.auditlog.example:6081".into(),
            token_url: "https://sub.authentication.cert.example".into(),
            client_id: "c".into(),
            credentials: TokenCredentials::X509 {
                certificate: certificate.into(),
                key: key.into(),
            },
        }
    }

    #[test]
    fn a_premium_binding_is_a_client_certificate_and_a_bad_one_stops_the_start() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let generated = rcgen::generate_simple_self_signed(vec!["agent".to_string()]).unwrap();
        let certificate = generated.cert.pem();
        let key = generated.signing_key.serialize_pem();
        assert!(AuditClient::new(premium(&certificate, &key)).is_ok());
        let Err(error) = AuditClient::new(premium(&certificate, "not a key")) else {
            panic!("a certificate without its key is refused");
        };
        assert!(matches!(error, ClientError::Identity(_)), "{error}");
        assert!(!error.to_string().contains("BEGIN"), "{error}");
    }

    #[test]
    fn answers_are_sorted_into_done_retry_and_kept_aside() {
        assert_eq!(classify(201, None, "x"), Sent::Accepted);
        assert!(matches!(classify(429, None, "x"), Sent::Retry { .. }));
        assert!(matches!(classify(503, None, "x"), Sent::Retry { .. }));
        assert!(matches!(classify(502, None, "x"), Sent::Retry { .. }));
        assert!(matches!(classify(400, None, "x"), Sent::Refused { .. }));
        assert!(matches!(classify(413, None, "x"), Sent::Refused { .. }));
        assert!(matches!(classify(401, None, "x"), Sent::Refused { .. }));
    }
}
