//! One JSON object per log line with the field names of SAP's logging
//! libraries (`written_at`, `written_ts`, `type`, `level`, `logger`, `msg`,
//! `correlation_id`, the `component_*` fields…) plus `trace_id`/`span_id`
//! so log lines join the exported spans. Event fields follow as their own
//! keys.

use crate::cloud_foundry::CfApplication;
use opentelemetry::trace::TraceContextExt;
use serde_json::{Map, Value};
use std::io::Write;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber, span};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The span field whose value becomes `correlation_id` of every line logged
/// inside the span.
pub const CORRELATION_FIELD: &str = "correlation_id";

/// The event field that makes a line a `type: request` record.
pub const LOG_TYPE_FIELD: &str = "log.type";

struct CorrelationId(String);

pub struct SapJsonLayer<W> {
    /// The fixed `component_*`, organization and space fields.
    fixed: Map<String, Value>,
    writer: W,
    /// The subscriber this layer is part of, to ask the OpenTelemetry layer
    /// for a span's ids (`get_default` is not usable inside `on_event`).
    dispatch: std::sync::OnceLock<tracing::dispatcher::WeakDispatch>,
}

impl<W> SapJsonLayer<W> {
    pub fn new(cf: Option<CfApplication>, writer: W) -> Self {
        let mut fixed = Map::new();
        fixed.insert("component_type".into(), "application".into());
        if let Some(cf) = cf {
            for (key, value) in [
                ("component_id", cf.application_id),
                ("component_name", cf.application_name),
                ("component_instance", cf.instance_index),
                ("organization_id", cf.organization_id),
                ("organization_name", cf.organization_name),
                ("space_id", cf.space_id),
                ("space_name", cf.space_name),
            ] {
                fixed.insert(key.into(), value.into());
            }
        }
        SapJsonLayer {
            fixed,
            writer,
            dispatch: std::sync::OnceLock::new(),
        }
    }
}

#[derive(Default)]
struct Fields {
    message: Option<String>,
    correlation: Option<String>,
    /// `log.type`: `request` for the per-request line, else `log`.
    log_type: Option<String>,
    other: Map<String, Value>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, Value::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, Value::from(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, Value::from(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.put(field, Value::from(format!("{value:?}")));
    }
}

impl Fields {
    fn put(&mut self, field: &Field, value: Value) {
        match field.name() {
            "message" => self.message = value.as_str().map(str::to_string),
            CORRELATION_FIELD => self.correlation = value.as_str().map(str::to_string),
            LOG_TYPE_FIELD => self.log_type = value.as_str().map(str::to_string),
            name => {
                self.other.insert(name.to_string(), value);
            }
        }
    }
}

impl<S, W> tracing_subscriber::Layer<S> for SapJsonLayer<W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
{
    fn on_register_dispatch(&self, subscriber: &tracing::Dispatch) {
        let _ = self.dispatch.set(subscriber.downgrade());
    }

    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let (Some(correlation), Some(span)) = (fields.correlation, ctx.span(id)) {
            span.extensions_mut().insert(CorrelationId(correlation));
        }
    }

    fn on_record(&self, id: &span::Id, values: &span::Record<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        values.record(&mut fields);
        if let (Some(correlation), Some(span)) = (fields.correlation, ctx.span(id)) {
            span.extensions_mut().replace(CorrelationId(correlation));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let now = time::OffsetDateTime::now_utc();
        let mut line = Map::new();
        line.insert("written_at".into(), crate::clock::rfc3339(now).into());
        line.insert(
            "written_ts".into(),
            now.unix_timestamp_nanos().to_string().into(),
        );
        line.insert(
            "type".into(),
            match fields.log_type.as_deref() {
                Some("request") => "request",
                Some("audit") => "audit",
                _ => "log",
            }
            .into(),
        );
        line.insert(
            "level".into(),
            event.metadata().level().as_str().to_string().into(),
        );
        line.insert("logger".into(), event.metadata().target().into());
        if let Some(thread) = std::thread::current().name() {
            line.insert("thread".into(), thread.into());
        }
        line.insert("msg".into(), fields.message.unwrap_or_default().into());
        let span = ctx.event_span(event);
        let correlation = span.as_ref().and_then(|span| {
            span.scope()
                .find_map(|s| s.extensions().get::<CorrelationId>().map(|c| c.0.clone()))
        });
        let ids = span.as_ref().and_then(|span| {
            let dispatch = self.dispatch.get()?.upgrade()?;
            tracing_opentelemetry::get_otel_context(&span.id(), &dispatch)
        });
        let ids = ids
            .map(|cx| cx.span().span_context().clone())
            .filter(|sc| sc.is_valid())
            .map(|sc| (sc.trace_id().to_string(), sc.span_id().to_string()));
        // An event that names its own correlation id (a line written for a
        // call outside its spans) says it best.
        let correlation = fields
            .correlation
            .take()
            .or(correlation)
            .or_else(|| ids.as_ref().map(|(trace, _)| trace.clone()));
        line.insert(
            "correlation_id".into(),
            correlation.unwrap_or_else(|| "-".into()).into(),
        );
        if let Some((trace_id, span_id)) = ids {
            line.insert("trace_id".into(), trace_id.into());
            line.insert("span_id".into(), span_id.into());
        }
        for (key, value) in &self.fixed {
            line.insert(key.clone(), value.clone());
        }
        for (key, value) in fields.other {
            line.entry(key).or_insert(value);
        }
        let Ok(mut bytes) = serde_json::to_vec(&Value::Object(line)) else {
            return;
        };
        bytes.push(b'\n');
        let _ = self.writer.make_writer().write_all(&bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::layer::SubscriberExt;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'w> MakeWriter<'w> for Buffer {
        type Writer = Buffer;
        fn make_writer(&'w self) -> Buffer {
            self.clone()
        }
    }

    #[test]
    fn lines_carry_sap_fields_trace_ids_and_the_correlation_id() {
        use opentelemetry::trace::TracerProvider as _;
        let buffer = Buffer::default();
        let cf = CfApplication {
            application_id: "app-guid".into(),
            application_name: "agent".into(),
            space_name: "dev".into(),
            instance_index: "1".into(),
            ..CfApplication::default()
        };
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")))
            .with(SapJsonLayer::new(Some(cf), buffer.clone()));
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("request", correlation_id = "corr-1");
            let _entered = span.enter();
            tracing::info!(rpc.method = "message/send", "jsonrpc request");
            tracing::info!(log.type = "request", response_status = 200, "jsonrpc request");
            tracing::warn!(
                correlation_id = "corr-own",
                "a line naming its own correlation"
            );
            tracing::info!(log.type = "audit", audit.kind = "security-events", "audit");
        });
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(
            lines[1]["type"], "request",
            "log.type makes a request record"
        );
        assert_eq!(lines[1]["response_status"], 200);
        assert!(lines[1].get("log.type").is_none());
        assert_eq!(lines[3]["type"], "audit", "log.type makes an audit record");
        assert_eq!(
            lines[2]["correlation_id"], "corr-own",
            "the event's own wins"
        );
        let line = &lines[0];
        assert_eq!(line["type"], "log");
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["msg"], "jsonrpc request");
        assert_eq!(line["correlation_id"], "corr-1");
        assert_eq!(line["component_name"], "agent");
        assert_eq!(line["component_id"], "app-guid");
        assert_eq!(line["component_instance"], "1");
        assert_eq!(line["space_name"], "dev");
        assert_eq!(line["rpc.method"], "message/send");
        assert_eq!(line["trace_id"].as_str().map(str::len), Some(32));
        assert_eq!(line["span_id"].as_str().map(str::len), Some(16));
        assert!(line["written_ts"].as_str().unwrap().parse::<u128>().is_ok());
        let written_at = line["written_at"].as_str().unwrap();
        assert!(
            written_at.len() == 24 && written_at.ends_with('Z'),
            "{written_at}"
        );
    }
}
