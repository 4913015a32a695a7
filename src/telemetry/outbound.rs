//! Outbound HTTP calls as OpenTelemetry's HTTP client conventions have
//! them: one client span per attempt (a retry is a span of its own with
//! `http.request.resend_count`), carrying `http.request.method`,
//! `server.address`, `server.port`, `url.template` (never the URL itself:
//! its path and query may hold an order number, a name or a secret) and
//! `http.response.status_code`; status ERROR with `error.type` (the status
//! code, or `timeout`, `connection_failed`, …) for an answer of 400 or more
//! and for no answer at all; the attempt's `traceparent` (and, towards
//! S/4HANA, `x-correlationid`) on the request; and its duration in the
//! `http.client.request.duration` histogram, labelled by who was called
//! (`peer.service`, and `odata.service` for S/4HANA) — bounded values,
//! never a host or URL a caller chose.

use std::time::Instant;
use tracing::field::Empty;

/// Who an outbound call goes to: the bounded `peer.service` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// S/4HANA's OData services (reads, writes, CSRF fetches).
    S4hana,
    /// The BTP Destination service's lookups.
    Destination,
    /// A client-credentials token endpoint (XSUAA/IAS: the Destination and
    /// connectivity services' tokens).
    Token,
    /// A push notification's webhook (A2A or Joule).
    Webhook,
}

impl Peer {
    pub fn as_str(self) -> &'static str {
        match self {
            Peer::S4hana => "s4hana",
            Peer::Destination => "destination",
            Peer::Token => "token",
            Peer::Webhook => "webhook",
        }
    }
}

/// One attempt of an outbound call, as its span and metric describe it.
pub struct Request<'a> {
    pub peer: Peer,
    pub method: &'static str,
    /// Where it goes; only its host and port are recorded.
    pub url: &'a reqwest::Url,
    /// The path with its variable parts as `{name}`, built from code
    /// (`/destination-configuration/v1/destinations/{name}`); `None` where
    /// the path is the caller's (a webhook).
    pub template: Option<String>,
    /// How many times this request was sent before (0 for the first try).
    pub resend_count: u32,
    /// The OData service of an S/4HANA call (a name from code).
    pub odata_service: Option<&'static str>,
}

/// An attempt in flight: its span, and what its metric point needs.
pub struct Attempt {
    span: tracing::Span,
    started: Instant,
    peer: Peer,
    method: &'static str,
    odata_service: Option<&'static str>,
}

/// A client span for `request` named `{method} {url.template}` (just the
/// method without a template), child of the current span.
fn client_span(request: &Request<'_>) -> tracing::Span {
    let name = match &request.template {
        Some(template) => format!("{} {template}", request.method),
        None => request.method.to_string(),
    };
    tracing::info_span!(
        "http.client",
        otel.name = name.as_str(),
        otel.kind = "client",
        peer.service = request.peer.as_str(),
        odata.service = Empty,
        http.request.method = Empty,
        server.address = Empty,
        server.port = Empty,
        url.template = Empty,
        http.request.resend_count = Empty,
        http.response.status_code = Empty,
        error.type = Empty,
        otel.status_description = Empty,
    )
}

impl Attempt {
    /// Start an attempt under a span of its own.
    pub fn start(request: &Request<'_>) -> Attempt {
        Attempt::on(client_span(request), request)
    }

    /// Start an attempt under `span`, a client span the caller made (with
    /// attributes of its own), which declares the fields this records:
    /// `http.request.method`, `server.address`, `server.port`,
    /// `url.template`, `http.request.resend_count`,
    /// `http.response.status_code`, `error.type`, `otel.status_description`.
    pub fn on(span: tracing::Span, request: &Request<'_>) -> Attempt {
        span.record("http.request.method", request.method);
        if let Some(host) = request.url.host_str() {
            span.record("server.address", host);
        }
        if let Some(port) = request.url.port_or_known_default() {
            span.record("server.port", i64::from(port));
        }
        if let Some(template) = &request.template {
            span.record("url.template", template.as_str());
        }
        if request.resend_count > 0 {
            span.record("http.request.resend_count", i64::from(request.resend_count));
        }
        if let Some(service) = request.odata_service {
            span.record("odata.service", service);
        }
        Attempt {
            span,
            started: Instant::now(),
            peer: request.peer,
            method: request.method,
            odata_service: request.odata_service,
        }
    }

    /// Send `request` in this attempt's span, with its `traceparent` (and
    /// `tracestate` when the trace has one).
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let request = super::propagation::inject_span(request, &self.span);
        tracing::Instrument::instrument(request.send(), self.span.clone()).await
    }

    /// The attempt was answered with `status`: 400 and above is an error
    /// (OpenTelemetry's rule for client spans), `error.type` the status.
    pub fn answered(&self, status: u16) {
        self.span
            .record("http.response.status_code", i64::from(status));
        let error_type = (status >= 400).then(|| status.to_string());
        if let Some(error_type) = &error_type {
            let reason = reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|code| code.canonical_reason())
                .unwrap_or("error");
            super::status::failed(&self.span, error_type, &format!("HTTP {status} {reason}"));
        }
        self.measure(Some(status), error_type.as_deref());
    }

    /// The attempt got no answer: `error` says why (told without its URL).
    pub fn no_answer(&self, error: &reqwest::Error) {
        let error_type = transport_error_type(error);
        super::status::failed(&self.span, error_type, &without_url(error));
        self.measure(None, Some(error_type));
    }

    /// The attempt was stopped on our side (`error_type` names why: e.g.
    /// the webhook guard refused the address it resolved to).
    pub fn stopped(&self, error_type: &str, message: &str) {
        super::status::failed(&self.span, error_type, message);
        self.measure(None, Some(error_type));
    }

    fn measure(&self, status: Option<u16>, error_type: Option<&str>) {
        super::metrics::http_client_request(super::metrics::ClientCall {
            peer: self.peer.as_str(),
            odata_service: self.odata_service,
            method: self.method,
            status,
            error_type,
            seconds: self.started.elapsed().as_secs_f64(),
        });
    }
}

/// The class of a failed request without an answer, for `error.type`.
pub fn transport_error_type(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timeout"
    } else if error.is_connect() {
        "connection_failed"
    } else if error.is_builder() {
        "request_invalid"
    } else if error.is_body() || error.is_decode() {
        "response_unreadable"
    } else {
        "_OTHER"
    }
}

/// A reqwest error without the URL it carries (a query may hold a name or
/// a secret), its causes joined.
pub fn without_url(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "failed"
    };
    let mut text = kind.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text = format!("{kind}: {inner}");
        source = inner.source();
    }
    text
}

/// The `x-correlationid` to send along: the caller's (set around its turn,
/// see [`correlation_scope`]), else the current trace id, so S/4HANA's
/// logs and ours meet on one id.
pub fn correlation_id() -> Option<String> {
    if let Ok(Some(caller)) = CORRELATION.try_with(Clone::clone) {
        return Some(caller);
    }
    super::propagation::trace_id(&tracing::Span::current())
}

/// The caller's `x-correlationid` only (set around its turn), `None`
/// without one.
pub fn callers_correlation_id() -> Option<String> {
    CORRELATION.try_with(Clone::clone).ok().flatten()
}

tokio::task_local! {
    static CORRELATION: Option<String>;
}

/// Run `work` with `correlation_id` (the caller's `x-correlationid`) as
/// what its outbound calls send.
pub async fn correlation_scope<F: std::future::Future>(
    correlation_id: Option<String>,
    work: F,
) -> F::Output {
    CORRELATION.scope(correlation_id, work).await
}

/// The template of an OData path (after the service root): the query
/// dropped and every key predicate `(…)` written `({key})`, so
/// `A_SalesOrder('4711')/to_Item?$top=5` is `A_SalesOrder({key})/to_Item`.
pub fn odata_template(service: &str, path: &str) -> String {
    let path = path.split('?').next().unwrap_or("");
    let mut template = format!("/sap/opu/odata/sap/{service}/");
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '(' => {
                if depth == 0 {
                    template.push_str("({key})");
                }
                depth += 1;
            }
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => template.push(c),
            _ => {}
        }
    }
    template
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_odata_template_has_no_key_and_no_query() {
        assert_eq!(
            odata_template(
                "API_SALES_ORDER_SRV",
                "A_SalesOrder('4711')?$expand=to_Item"
            ),
            "/sap/opu/odata/sap/API_SALES_ORDER_SRV/A_SalesOrder({key})"
        );
        assert_eq!(
            odata_template(
                "API_BUSINESS_PARTNER",
                "A_BusinessPartnerAddress(BusinessPartner='10(2)',AddressID='7')/to_Email"
            ),
            "/sap/opu/odata/sap/API_BUSINESS_PARTNER/A_BusinessPartnerAddress({key})/to_Email"
        );
        assert_eq!(
            odata_template("API_SALES_ORDER_SRV", ""),
            "/sap/opu/odata/sap/API_SALES_ORDER_SRV/"
        );
    }

    #[tokio::test]
    async fn the_callers_correlation_id_is_sent_inside_its_scope_only() {
        let inside = correlation_scope(Some("corr-9".into()), async { correlation_id() }).await;
        assert_eq!(inside.as_deref(), Some("corr-9"));
        assert_eq!(correlation_id(), None, "no scope, no span: nothing");
    }
}
