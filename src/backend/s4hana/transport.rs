//! How one OData read reaches S/4HANA and what its answer means: the target
//! for this user (direct, or through the destination: its token, or the
//! connectivity proxy with the user's principal), then one GET per read
//! with a timeout, retries of 429 and 503 with backoff (`Retry-After`
//! honoured) within the read's budget, and one `backend.read` span
//! (service, entity set, status, latency, retries, sales order; never a
//! token) over one HTTP client span per attempt (`telemetry::outbound`:
//! `http.client.request.duration` by OData service, `traceparent` and
//! `x-correlationid` sent), the retries counted by service. Statuses become
//! [`BackendError`]s: 403 `Forbidden`, 401 `Identity`, timeouts and 5xx
//! `NoAnswer`, 404 "not there" (`None`); a read that fails is an ERROR
//! span with its `error.type`.

use super::connectivity::ConnectivityProxy;
use super::odata;
use crate::backend::{BackendError, Subject};
use crate::btp::oauth::without_url;
use crate::btp::{DestinationClient, DestinationError};
use crate::secret::BearerToken;
use crate::secret::Secret;
use crate::telemetry::outbound::{Attempt, Peer, Request};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Direct mode's technical credentials.
#[derive(Clone)]
pub enum DirectAuth {
    Basic { user: String, password: Secret },
    ApiKey(Secret),
    None,
}

pub enum Connection {
    /// `backend.s4hana.url`: a technical user, for developers.
    Direct {
        base: reqwest::Url,
        auth: DirectAuth,
    },
    /// A BTP destination, looked up as the user.
    Destination {
        service: Arc<DestinationClient>,
        name: String,
        proxy: Option<Arc<ConnectivityProxy>>,
        allow_loopback_http: bool,
    },
}

/// Where this user's reads go, with which headers.
#[derive(Clone)]
pub struct Target {
    base: reqwest::Url,
    pub(super) headers: Vec<(String, String)>,
    /// Through the connectivity proxy.
    proxied: bool,
}

pub struct Transport {
    pub connection: Connection,
    pub http: reqwest::Client,
    pub sap_client: Option<String>,
    pub max_retries: u32,
    pub retry_base: Duration,
    pub read_budget: Duration,
}

/// One OData GET.
pub struct Read<'a> {
    pub service: &'static str,
    pub entity_set: &'static str,
    /// After the service root: `A_SalesOrder('4711')?$expand=…` (encoded).
    pub path: String,
    pub sales_order: Option<&'a str>,
    /// What a 403 names: sales order 4711, the credit account of customer 10023.
    pub what: Subject,
}

impl Transport {
    /// The target for `user`: no call is made without a user token in
    /// destination mode (never a technical stand-in).
    pub async fn target(&self, user: Option<&BearerToken>) -> Result<Target, BackendError> {
        match &self.connection {
            Connection::Direct { base, auth } => {
                let mut headers = Vec::new();
                match auth {
                    DirectAuth::Basic { user, password } => {
                        use base64::Engine;
                        let encoded = base64::engine::general_purpose::STANDARD
                            .encode(format!("{user}:{}", password.expose()));
                        headers.push(("Authorization".into(), format!("Basic {encoded}")));
                    }
                    DirectAuth::ApiKey(key) => {
                        headers.push(("APIKey".into(), key.expose().to_string()))
                    }
                    DirectAuth::None => {}
                }
                if let Some(client) = &self.sap_client {
                    headers.push(("sap-client".into(), client.clone()));
                }
                Ok(Target {
                    base: base.clone(),
                    headers,
                    proxied: false,
                })
            }
            Connection::Destination {
                service,
                name,
                proxy,
                allow_loopback_http,
            } => {
                let Some(user) = user else {
                    return Err(BackendError::NoUser);
                };
                let found = service
                    .find(name, user)
                    .await
                    .map_err(|error| match error {
                        DestinationError::Exchange(reason) => BackendError::Identity(reason),
                        DestinationError::NoToken => BackendError::Identity(error.to_string()),
                        DestinationError::NotFound(_) | DestinationError::Url(_) => {
                            BackendError::Settings(error.to_string())
                        }
                        DestinationError::Token(_)
                        | DestinationError::Lookup(_)
                        | DestinationError::Unreadable(_) => {
                            BackendError::NoAnswer(format!("the Destination service: {error}"))
                        }
                    })?;
                tracing::debug!(
                    destination = %found.name,
                    authentication = %found.authentication,
                    proxy_type = %found.proxy_type,
                    "S/4HANA destination found"
                );
                let base = reqwest::Url::parse(&found.url).map_err(|error| {
                    BackendError::Settings(format!(
                        "the destination `{}` has no valid URL: {error}",
                        found.name
                    ))
                })?;
                let on_premise = found.proxy_type.eq_ignore_ascii_case("OnPremise");
                if !on_premise {
                    let plain_ok = *allow_loopback_http && crate::loopback::is_loopback(&base);
                    if base.scheme() != "https" && !(base.scheme() == "http" && plain_ok) {
                        return Err(BackendError::Settings(format!(
                            "the destination `{}` must use https",
                            found.name
                        )));
                    }
                }
                let mut headers = Vec::new();
                let mut proxied = false;
                match found.authentication.as_str() {
                    "OAuth2SAMLBearerAssertion"
                    | "OAuth2JWTBearer"
                    | "OAuth2UserTokenExchange"
                    | "BasicAuthentication" => {
                        if let Some((key, value)) = found.auth_header() {
                            headers.push((key.clone(), value.expose().to_string()));
                        } else if let (Some(user), Some(password)) = (&found.user, &found.password)
                        {
                            use base64::Engine;
                            let encoded = base64::engine::general_purpose::STANDARD
                                .encode(format!("{user}:{}", password.expose()));
                            headers.push(("Authorization".into(), format!("Basic {encoded}")));
                        }
                    }
                    "PrincipalPropagation" => {
                        if !on_premise {
                            return Err(BackendError::Settings(format!(
                                "the destination `{}` uses PrincipalPropagation, which needs ProxyType OnPremise",
                                found.name
                            )));
                        }
                        headers.push((
                            "SAP-Connectivity-Authentication".into(),
                            format!("Bearer {}", user.expose()),
                        ));
                    }
                    "NoAuthentication" => {}
                    other => {
                        return Err(BackendError::Settings(format!(
                            "the destination `{}` uses {other}, which this agent does not support",
                            found.name
                        )));
                    }
                }
                if on_premise {
                    let Some(proxy) = proxy else {
                        return Err(BackendError::Settings(
                            "an OnPremise destination needs the connectivity service: bind it"
                                .into(),
                        ));
                    };
                    let authorization = proxy
                        .proxy_authorization()
                        .await
                        .map_err(BackendError::NoAnswer)?;
                    headers.push(("Proxy-Authorization".into(), authorization));
                    if let Some(location) = &found.location_id {
                        headers.push(("SAP-Connectivity-SCC-Location_ID".into(), location.clone()));
                    }
                    proxied = true;
                }
                if let Some(client) = found.sap_client.as_ref().or(self.sap_client.as_ref()) {
                    headers.push(("sap-client".into(), client.clone()));
                }
                Ok(Target {
                    base,
                    headers,
                    proxied,
                })
            }
        }
    }

    pub(super) fn client(&self, target: &Target) -> &reqwest::Client {
        match (&self.connection, target.proxied) {
            (
                Connection::Destination {
                    proxy: Some(proxy), ..
                },
                true,
            ) => proxy.client(),
            _ => &self.http,
        }
    }

    /// `<base>/sap/opu/odata/sap/<service>/<path>`.
    pub(super) fn url(target: &Target, service: &str, path: &str) -> String {
        format!(
            "{}/sap/opu/odata/sap/{service}/{path}",
            target.base.as_str().trim_end_matches('/')
        )
    }

    /// GET and read `{"d": …}`; `None` for 404.
    pub async fn get(
        &self,
        target: &Target,
        read: Read<'_>,
    ) -> Result<Option<Value>, BackendError> {
        // The read as a whole; each HTTP attempt is a client span below it.
        let span = tracing::info_span!(
            "backend.read",
            otel.name = "backend.read",
            backend.system = "s4hana",
            odata.service = read.service,
            odata.entity_set = read.entity_set,
            sap.sales_order = read.sales_order.unwrap_or(""),
            http.response.status_code = tracing::field::Empty,
            backend.latency_ms = tracing::field::Empty,
            backend.retries = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
        );
        let started = Instant::now();
        let result = tracing::Instrument::instrument(
            self.get_with_retries(target, &read, started),
            span.clone(),
        )
        .await;
        span.record("backend.latency_ms", started.elapsed().as_millis() as i64);
        match &result {
            Ok((status, retries, _)) => {
                span.record("http.response.status_code", i64::from(*status));
                span.record("backend.retries", i64::from(*retries));
                crate::telemetry::metrics::s4hana_retries(read.service, *retries);
            }
            Err((status, retries, error)) => {
                if let Some(status) = status {
                    span.record("http.response.status_code", i64::from(*status));
                }
                span.record("backend.retries", i64::from(*retries));
                crate::telemetry::metrics::s4hana_retries(read.service, *retries);
                let error_type = match status {
                    Some(status) => status.to_string(),
                    None => error.kind().to_string(),
                };
                crate::telemetry::status::failed(&span, &error_type, &error.to_string());
            }
        }
        result
            .map(|(_, _, value)| value)
            .map_err(|(_, _, error)| error)
    }

    #[allow(clippy::type_complexity)]
    async fn get_with_retries(
        &self,
        target: &Target,
        read: &Read<'_>,
        started: Instant,
    ) -> Result<(u16, u32, Option<Value>), (Option<u16>, u32, BackendError)> {
        let url = Self::url(target, read.service, &read.path);
        let parsed = reqwest::Url::parse(&url).map_err(|error| {
            (
                None,
                0,
                BackendError::Settings(format!("the S/4HANA URL does not parse: {error}")),
            )
        })?;
        let template = crate::telemetry::outbound::odata_template(read.service, &read.path);
        let mut retries = 0u32;
        loop {
            let attempt = Attempt::start(&Request {
                peer: Peer::S4hana,
                method: "GET",
                url: &parsed,
                template: Some(template.clone()),
                resend_count: retries,
                odata_service: Some(read.service),
            });
            let mut request = self
                .client(target)
                .get(parsed.clone())
                .header("Accept", "application/json");
            for (name, value) in &target.headers {
                request = request.header(name.as_str(), value.as_str());
            }
            if let Some(correlation) = crate::telemetry::outbound::correlation_id() {
                request = request.header("x-correlationid", correlation);
            }
            let response = match attempt.send(request).await {
                Ok(response) => {
                    attempt.answered(response.status().as_u16());
                    response
                }
                Err(error) => {
                    attempt.no_answer(&error);
                    let detail = without_url(&error);
                    tracing::warn!(service = read.service, entity_set = read.entity_set, %detail, "S/4HANA read failed");
                    return Err((None, retries, BackendError::NoAnswer(detail)));
                }
            };
            let status = response.status().as_u16();
            if matches!(status, 429 | 503) && retries < self.max_retries {
                let wait = retry_after(&response)
                    .unwrap_or_else(|| self.retry_base.saturating_mul(1 << retries.min(10)));
                if started.elapsed() + wait < self.read_budget {
                    tracing::info!(
                        service = read.service,
                        entity_set = read.entity_set,
                        status,
                        wait_ms = wait.as_millis() as u64,
                        "S/4HANA asked to retry"
                    );
                    retries += 1;
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            let body = match response.text().await {
                Ok(body) => body,
                Err(error) => {
                    return Err((
                        Some(status),
                        retries,
                        BackendError::NoAnswer(without_url(&error)),
                    ));
                }
            };
            if status == 200 {
                let value: Value = serde_json::from_str(&body).map_err(|_| {
                    (
                        Some(status),
                        retries,
                        BackendError::Unavailable("S/4HANA answered no OData JSON".into()),
                    )
                })?;
                let Some(payload) = odata::payload(&value) else {
                    return Err((
                        Some(status),
                        retries,
                        BackendError::Unavailable("S/4HANA answered no `d` envelope".into()),
                    ));
                };
                return Ok((status, retries, Some(payload.clone())));
            }
            let error = odata::sap_error(&body);
            tracing::warn!(
                service = read.service,
                entity_set = read.entity_set,
                sales_order = read.sales_order.unwrap_or(""),
                status,
                sap.error_code = %error.code,
                sap.transaction_id = %error.transaction_id,
                message = %error.message,
                // S/4HANA's words: in the log line, not in the span.
                telemetry.content = tracing::field::Empty,
                "S/4HANA refused the read"
            );
            let mapped = match status {
                404 => return Ok((status, retries, None)),
                403 => BackendError::Forbidden(read.what.clone()),
                401 => BackendError::Identity(format!(
                    "S/4HANA answered 401{}",
                    if error.message.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", error.message)
                    }
                )),
                500..=599 | 429 => BackendError::NoAnswer(format!("HTTP {status}")),
                _ => BackendError::Unavailable(format!(
                    "S/4HANA answered {status}{}",
                    if error.message.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", error.message)
                    }
                )),
            };
            return Err((Some(status), retries, mapped));
        }
    }
}

impl Transport {
    /// One GET whose status is all that matters (`$metadata` for
    /// `diagnose`): the status, or why there was none.
    pub async fn probe(&self, target: &Target, service: &str, path: &str) -> Result<u16, String> {
        let mut request = self.client(target).get(Self::url(target, service, path));
        for (name, value) in &target.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        request
            .send()
            .await
            .map(|response| response.status().as_u16())
            .map_err(|error| without_url(&error))
    }

    /// The base URL of a target (for `diagnose`).
    pub fn base_of(target: &Target) -> &reqwest::Url {
        &target.base
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not used by S/4).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    response
        .headers()
        .get("retry-after")?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}
