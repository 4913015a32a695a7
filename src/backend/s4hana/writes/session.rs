//! One write's round trip: the session's CSRF token and cookies (fetched
//! on first use with `x-csrf-token: Fetch` on a GET of the service root,
//! fetched once more in a new session on a 403 with `x-csrf-token:
//! Required`), the request with `If-Match` when given, the status mapped
//! to a [`WriteError`], and one `backend.write` span (method, service,
//! entity set, order, status; never a token, cookie or CSRF token; ERROR
//! with `error.type` when refused) over one HTTP client span per request
//! (`telemetry::outbound`, with `traceparent` and `x-correlationid`).

use super::super::odata;
use super::super::transport::Transport;
use super::writer::{S4Writer, WriteError};
use crate::backend::Subject;
use crate::btp::oauth::without_url;
use crate::telemetry::outbound::{Attempt, Peer, Request, correlation_id, odata_template};

/// `url` parsed for an attempt's span, or the write's error.
fn parsed(url: &str) -> Result<reqwest::Url, WriteError> {
    reqwest::Url::parse(url)
        .map_err(|error| WriteError::Refused(format!("the S/4HANA URL does not parse: {error}")))
}

/// The client span of one request to `service`, `path` after its root.
fn attempt(method: &'static str, url: &reqwest::Url, service: &'static str, path: &str) -> Attempt {
    Attempt::start(&Request {
        peer: Peer::S4hana,
        method,
        url,
        template: Some(odata_template(service, path)),
        resend_count: 0,
        odata_service: Some(service),
    })
}

/// `request` with the caller's `x-correlationid` (else the trace id).
fn correlated(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    match correlation_id() {
        Some(correlation) => request.header("x-correlationid", correlation),
        None => request,
    }
}

/// One modifying call.
pub(super) struct Write<'a> {
    pub(super) method: &'static str,
    pub(super) service: &'static str,
    pub(super) entity_set: &'static str,
    pub(super) path: String,
    pub(super) body: Option<String>,
    pub(super) if_match: Option<&'a str>,
    pub(super) order: &'a str,
}

impl S4Writer {
    /// The session's CSRF token and cookies, fetched on first use (or again).
    async fn csrf(
        &self,
        service: &'static str,
        again: bool,
    ) -> Result<(String, String), WriteError> {
        let mut session = self.session.lock().await;
        if let (Some(pair), false) = (session.as_ref(), again) {
            return Ok(pair.clone());
        }
        let transport = &self.shared.transport;
        let url = format!(
            "{}/",
            Transport::url(&self.target, service, "").trim_end_matches('/')
        );
        let url = parsed(&url)?;
        let attempt = attempt("GET", &url, service, "");
        let mut request = transport
            .client(&self.target)
            .get(url)
            .header("Accept", "application/json")
            .header("x-csrf-token", "Fetch");
        for (name, value) in &self.target.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = attempt.send(correlated(request)).await.map_err(|error| {
            attempt.no_answer(&error);
            WriteError::Transient(without_url(&error))
        })?;
        let status = response.status().as_u16();
        attempt.answered(status);
        let token = response
            .headers()
            .get("x-csrf-token")
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        let cookies: Vec<String> = response
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .filter_map(|cookie| cookie.split(';').next().map(|pair| pair.trim().to_string()))
            .collect();
        let token = match (status, token) {
            (200, Some(token)) if !token.eq_ignore_ascii_case("required") => token,
            (403, _) => return Err(WriteError::Forbidden(Subject::Service(service.to_string()))),
            (401, _) => return Err(WriteError::Identity("S/4HANA answered 401".into())),
            (429 | 500..=599, _) => return Err(WriteError::Transient(format!("HTTP {status}"))),
            _ => {
                return Err(WriteError::Refused(format!(
                    "S/4HANA gave no CSRF token (HTTP {status})"
                )));
            }
        };
        let pair = (token, cookies.join("; "));
        *session = Some(pair.clone());
        Ok(pair)
    }

    /// Send one write; the body of an accepted answer.
    pub(super) async fn send(
        &self,
        write: Write<'_>,
        accepted: &[u16],
    ) -> Result<String, WriteError> {
        // The write as a whole; each HTTP request is a client span below it.
        let span = tracing::info_span!(
            "backend.write",
            otel.name = "backend.write",
            backend.system = "s4hana",
            http.request.method = write.method,
            odata.service = write.service,
            odata.entity_set = write.entity_set,
            sap.sales_order = write.order,
            http.response.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
        );
        let result =
            tracing::Instrument::instrument(self.send_once(&write, accepted), span.clone()).await;
        match &result {
            Ok((status, _)) => {
                span.record("http.response.status_code", i64::from(*status));
            }
            Err((status, error)) => {
                if let Some(status) = status {
                    span.record("http.response.status_code", i64::from(*status));
                }
                let error_type = match status {
                    Some(status) => status.to_string(),
                    None => error.kind().to_string(),
                };
                crate::telemetry::status::failed(&span, &error_type, &error.to_string());
            }
        }
        result.map(|(_, body)| body).map_err(|(_, error)| error)
    }

    async fn send_once(
        &self,
        write: &Write<'_>,
        accepted: &[u16],
    ) -> Result<(u16, String), (Option<u16>, WriteError)> {
        let transport = &self.shared.transport;
        let url = Transport::url(&self.target, write.service, &write.path);
        let mut fetched_again = false;
        loop {
            let (token, cookies) = self
                .csrf(write.service, fetched_again)
                .await
                .map_err(|error| (None, error))?;
            let method = reqwest::Method::from_bytes(write.method.as_bytes())
                .map_err(|_| (None, WriteError::Refused("bad method".into())))?;
            let target_url = parsed(&url).map_err(|error| (None, error))?;
            let attempt = attempt(write.method, &target_url, write.service, &write.path);
            let mut request = transport
                .client(&self.target)
                .request(method, target_url)
                .header("Accept", "application/json")
                .header("x-csrf-token", token);
            if !cookies.is_empty() {
                request = request.header("Cookie", cookies);
            }
            for (name, value) in &self.target.headers {
                request = request.header(name.as_str(), value.as_str());
            }
            if let Some(etag) = write.if_match {
                request = request.header("If-Match", etag);
            }
            if let Some(body) = &write.body {
                request = request
                    .header("Content-Type", "application/json")
                    .body(body.clone());
            }
            let response = attempt.send(correlated(request)).await.map_err(|error| {
                attempt.no_answer(&error);
                (None, WriteError::Transient(without_url(&error)))
            })?;
            let status = response.status().as_u16();
            attempt.answered(status);
            let csrf_required = response
                .headers()
                .get("x-csrf-token")
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| value.eq_ignore_ascii_case("required"));
            let body = response
                .text()
                .await
                .map_err(|error| (Some(status), WriteError::Transient(without_url(&error))))?;
            if accepted.contains(&status) {
                return Ok((status, body));
            }
            if status == 403 && csrf_required && !fetched_again {
                fetched_again = true;
                continue;
            }
            let error = odata::sap_error(&body);
            tracing::warn!(
                service = write.service,
                entity_set = write.entity_set,
                sales_order = write.order,
                status,
                sap.error_code = %error.code,
                sap.transaction_id = %error.transaction_id,
                message = %error.message,
                // S/4HANA's words: in the log line, not in the span.
                telemetry.content = tracing::field::Empty,
                "S/4HANA refused the write"
            );
            let mapped = match status {
                412 => WriteError::Stale(write.order.to_string()),
                403 => WriteError::Forbidden(Subject::SalesOrder(write.order.to_string())),
                401 => WriteError::Identity("S/4HANA answered 401".into()),
                404 => WriteError::NotFound(write.order.to_string()),
                408 | 429 | 500..=599 => WriteError::Transient(format!("HTTP {status}")),
                _ if !error.message.is_empty() => {
                    WriteError::Refused(format!("{} ({status})", error.message))
                }
                _ => WriteError::Refused(format!("S/4HANA answered {status}")),
            };
            return Err((Some(status), mapped));
        }
    }
}
