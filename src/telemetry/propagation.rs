//! W3C trace context (`traceparent`, `tracestate`) in and out.

use opentelemetry::propagation::{Extractor, Injector};
use tracing_opentelemetry::OpenTelemetrySpanExt;

struct ActixHeaders<'a>(&'a actix_web::http::header::HeaderMap);

impl Extractor for ActixHeaders<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}

/// Make the caller's trace (if its headers carry one) the parent of `span`.
/// Call before anything is logged in `span`.
pub fn adopt_remote_parent(span: &tracing::Span, headers: &actix_web::http::header::HeaderMap) {
    if headers.get("traceparent").is_none() {
        return;
    }
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&ActixHeaders(headers))
    });
    let _ = span.set_parent(parent);
}

struct Headers(Vec<(String, String)>);

impl Injector for Headers {
    /// An empty value is no header: the propagator hands over an empty
    /// `tracestate` when the trace has none, and W3C Trace Context wants
    /// the header left out then.
    fn set(&mut self, key: &str, value: String) {
        if !value.is_empty() {
            self.0.push((key.to_string(), value));
        }
    }
}

/// `request` with the current span's `traceparent` (and `tracestate` when
/// the trace carries one).
pub fn inject(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    inject_span(request, &tracing::Span::current())
}

/// `request` with `span`'s `traceparent` (and `tracestate`).
pub fn inject_span(
    mut request: reqwest::RequestBuilder,
    span: &tracing::Span,
) -> reqwest::RequestBuilder {
    let context = span.context();
    let mut headers = Headers(Vec::new());
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut headers)
    });
    for (name, value) in headers.0 {
        request = request.header(name, value);
    }
    request
}
