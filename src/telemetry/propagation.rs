//! W3C trace context (`traceparent`, `tracestate`) in and out. Incoming
//! headers are read through [`RequestHeaders`], so this room knows no HTTP
//! server (the actix adapter is in `http/`); outgoing calls are reqwest's.

use opentelemetry::propagation::{Extractor, Injector};
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// A request's headers, as the propagator reads them.
pub trait RequestHeaders {
    /// The value of header `name` (lower case) as text; `None` when absent
    /// or not visible ASCII.
    fn header(&self, name: &str) -> Option<&str>;
    /// The names of the headers present.
    fn names(&self) -> Vec<&str>;
}

struct AsExtractor<'a>(&'a dyn RequestHeaders);

impl Extractor for AsExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.header(key)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.names()
    }
}

/// Make the caller's trace (if its headers carry one) the parent of `span`.
/// Call before anything is logged in `span`.
pub fn adopt_remote_parent(span: &tracing::Span, headers: &dyn RequestHeaders) {
    if headers.header("traceparent").is_none() {
        return;
    }
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&AsExtractor(headers))
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

/// `span`'s W3C `traceparent`, to keep with what it started and to link a
/// later trace to it (`link`); `None` when it has no valid context (no
/// span is made).
pub fn traceparent(span: &tracing::Span) -> Option<String> {
    let context = span.context();
    let mut headers = Headers(Vec::new());
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut headers)
    });
    headers
        .0
        .into_iter()
        .find_map(|(name, value)| (name == "traceparent").then_some(value))
}

/// One header as a propagator reads it.
struct Traceparent<'a>(&'a str);

impl Extractor for Traceparent<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        (key == "traceparent").then_some(self.0)
    }

    fn keys(&self) -> Vec<&str> {
        vec!["traceparent"]
    }
}

/// Link `span` to the span a stored `traceparent` names (a later attempt
/// to the approval that caused it), before `span` starts; the linked
/// trace's id. A `traceparent` that does not parse links nothing.
pub fn link(span: &tracing::Span, traceparent: &str) -> Option<String> {
    use opentelemetry::trace::TraceContextExt;
    let context = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&Traceparent(traceparent))
    });
    let linked = context.span().span_context().clone();
    if !linked.is_valid() {
        return None;
    }
    let trace_id = linked.trace_id().to_string();
    span.add_link(linked);
    Some(trace_id)
}

/// Give `span` the name `name` in the exported trace, also after the span
/// was started (a child span starts its parent, and a started span takes no
/// new `otel.name`).
pub fn rename(span: &tracing::Span, name: &'static str) {
    use opentelemetry::trace::TraceContextExt;
    span.context().span().update_name(name);
}

/// The W3C trace id of `span` (32 hex digits), `None` when it has none
/// (no span is made, or the trace is not valid): for log lines written
/// outside the span that should still name its trace.
pub fn trace_id(span: &tracing::Span) -> Option<String> {
    use opentelemetry::trace::TraceContextExt;
    let context = span.context();
    let otel_span = context.span();
    let ids = otel_span.span_context();
    ids.is_valid().then(|| ids.trace_id().to_string())
}
