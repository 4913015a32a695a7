//! Logs, traces and metrics. Logs: readable text on stderr (every value
//! escaped, so a caller's input cannot forge a line), or one JSON object
//! per line on stdout in SAP Cloud Logging's field format. Traces:
//! `tracing` spans exported over OTLP (HTTP/protobuf or gRPC; SAP Cloud
//! Logging's binding is gRPC with mutual TLS) when a destination is
//! configured, batched in a bounded queue (full = dropped and counted, never
//! blocking a request). Metrics: `/metrics` and the same OTLP destination.
//! W3C trace context comes in on requests and goes out on HTTP calls.
//! Integer span attributes are recorded as `i64`: tracing-opentelemetry
//! exports unsigned values as strings, OpenTelemetry's conventions want
//! integers (`http.response.status_code`, `push.attempt`).

pub(crate) mod caller_tags;
mod cloud_logging;
pub mod content;
mod export;
pub mod metrics;
pub mod outbound;
pub mod propagation;
mod sap_json;
mod settings;
mod span_queue;
pub mod status;
mod target;
mod text;
pub mod throttle;

use crate::cloud_foundry::{CloudFoundry, EnvSource};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

pub use caller_tags::CallerTags;
pub use settings::{LogFormat, TelemetrySettings};

/// The filter of the service when `RUST_LOG` is not set.
pub const SERVICE_LOG: &str = "info,actix_server=warn";

/// Install the global subscriber once (later calls are no-ops), with
/// `default_filter` when `RUST_LOG` is not set (the client commands log
/// warnings only). Text on stderr, no export.
pub fn init_with_default(default_filter: &str) {
    let _ = tracing_subscriber::registry()
        .with(filter(default_filter))
        .with(text::layer())
        .try_init();
}

fn filter(default_filter: &str) -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter))
}

/// A filter that turns every span away.
type NoSpans = tracing_subscriber::filter::FilterFn<fn(&tracing::Metadata<'_>) -> bool>;

/// A global filter that lets events through and no span, for when no layer
/// wants spans (text logs, nothing exported): then the registry makes none
/// at all. The text layer's own events-only filter is not enough: the
/// registry still builds every span a per-layer filter turns away (under
/// load about 5 % of a request's time, bench/README.md). `None` when spans
/// are wanted.
fn events_only_unless(spans_wanted: bool) -> Option<NoSpans> {
    let events_only: fn(&tracing::Metadata<'_>) -> bool = |metadata| !metadata.is_span();
    (!spans_wanted).then(|| tracing_subscriber::filter::filter_fn(events_only))
}

/// Flushes and stops the OTLP export; `shutdown` (or drop) once the server
/// has stopped.
#[must_use = "dropping the guard stops the OTLP export"]
pub struct Telemetry {
    traces: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
    metrics: Option<opentelemetry_sdk::metrics::SdkMeterProvider>,
}

impl Telemetry {
    /// Export what is queued (spans, and the metrics' last reading), then
    /// stop; gives up after `limit` so the process still exits inside Cloud
    /// Foundry's SIGTERM window.
    pub async fn shutdown(mut self, limit: std::time::Duration) {
        let traces = self.traces.take();
        let metrics = self.metrics.take();
        if traces.is_none() && metrics.is_none() {
            return;
        }
        // Both block on their export tasks, which run on this runtime. They
        // run side by side so a slow trace collector does not cost the
        // metrics their last reading.
        let traces_flushed =
            traces.map(|provider| tokio::task::spawn_blocking(move || provider.shutdown()));
        let metrics_flushed =
            metrics.map(|provider| tokio::task::spawn_blocking(move || provider.shutdown()));
        let flushed = async {
            for (signal, handle) in [("trace", traces_flushed), ("metric", metrics_flushed)] {
                let Some(handle) = handle else { continue };
                match handle.await {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => tracing::warn!(%error, "{signal} export shutdown failed"),
                    Err(error) => tracing::warn!(%error, "{signal} export shutdown panicked"),
                }
            }
        };
        if tokio::time::timeout(limit, flushed).await.is_err() {
            tracing::warn!(
                limit_ms = limit.as_millis() as u64,
                "OTLP export did not flush in time; pending spans dropped"
            );
        }
        let dropped = metrics::spans_dropped_total();
        if dropped > 0 {
            tracing::warn!(
                dropped_spans = dropped,
                "spans were dropped while running (queue full or collector unreachable)"
            );
        }
    }
}

static JSON_LOGS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the service writes SAP JSON lines (set by `init_service`): the
/// request log writes SAP's request fields only there, since text lines
/// are read by people and cost time per request.
pub fn json_logs() -> bool {
    JSON_LOGS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The service's logging and tracing, from the settings, the Cloud Foundry
/// bindings and the `OTEL_*` variables of `env`. Must run inside the tokio
/// runtime (the export task).
pub fn init_service(
    settings: &TelemetrySettings,
    cloud_foundry: &CloudFoundry,
    env: &dyn EnvSource,
) -> Telemetry {
    let cf = cloud_foundry.application.clone();
    let format = settings.log_format.unwrap_or(if cf.is_some() {
        LogFormat::Json
    } else {
        LogFormat::Text
    });
    JSON_LOGS.store(
        format == LogFormat::Json,
        std::sync::atomic::Ordering::Relaxed,
    );
    let (provider, metrics_export, export_note) =
        match export::providers(settings, &cloud_foundry.services, env, cf.as_ref()) {
            Ok(built) => (
                built.traces,
                built.metrics,
                Ok((built.description, built.notes)),
            ),
            Err(error) => (None, None, Err(error)),
        };
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    content::allow_in_spans(settings.debug_content);
    let otel_layer = provider.as_ref().map(|provider| {
        use opentelemetry::trace::TracerProvider as _;
        use tracing_subscriber::Layer as _;
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("order-exception-agent"))
            .with_tracked_inactivity(false)
            .with_filter(content::span_export_filter())
    });
    // Trace ids are wanted in JSON logs even without export: a local
    // provider without exporter still gives spans their ids. Text logs do
    // not print them, so they skip that per-span cost.
    let id_layer = match (&provider, format) {
        (Some(_), _) | (None, LogFormat::Text) => None,
        (None, LogFormat::Json) => {
            use opentelemetry::trace::TracerProvider as _;
            let local = opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
            Some(
                tracing_opentelemetry::layer()
                    .with_tracer(local.tracer("order-exception-agent"))
                    .with_tracked_inactivity(false),
            )
        }
    };
    let spans_wanted = otel_layer.is_some() || id_layer.is_some() || format == LogFormat::Json;
    let registry = tracing_subscriber::registry()
        .with(filter(SERVICE_LOG))
        .with(events_only_unless(spans_wanted))
        .with(otel_layer)
        .with(id_layer);
    let installed = match format {
        LogFormat::Json => registry
            .with(sap_json::SapJsonLayer::new(cf.clone(), std::io::stdout))
            .try_init(),
        LogFormat::Text => registry.with(text::layer()).try_init(),
    };
    if installed.is_err() {
        return Telemetry {
            traces: None,
            metrics: None,
        };
    }
    // One meter provider counts for /metrics and, when exporting, OTLP.
    let exporting_metrics = metrics_export.is_some();
    let meter_provider = match metrics::install(metrics_export, export::resource(cf.as_ref())) {
        Ok(meter_provider) => exporting_metrics.then_some(meter_provider),
        Err(error) => {
            tracing::warn!(%error, "OpenTelemetry metrics are not exported");
            None
        }
    };
    match export_note {
        Ok((description, notes)) => {
            for note in notes {
                tracing::warn!("{note}");
            }
            if provider.is_some() || meter_provider.is_some() {
                tracing::info!("OpenTelemetry export: {description}");
            } else {
                tracing::debug!("no OTLP destination configured: nothing is exported");
            }
        }
        Err(error) => tracing::warn!(%error, "OpenTelemetry data is not exported"),
    }
    Telemetry {
        traces: provider,
        metrics: meter_provider,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With text logs and nothing exported no span is made; with a layer
    /// that wants spans they are.
    #[test]
    fn spans_are_made_only_when_a_layer_wants_them() {
        for spans_wanted in [false, true] {
            let subscriber = tracing_subscriber::registry()
                .with(EnvFilter::new("info"))
                .with(events_only_unless(spans_wanted))
                .with(text::layer());
            tracing::subscriber::with_default(subscriber, || {
                let span = tracing::info_span!("jsonrpc", rpc.method = "message/send");
                assert_eq!(span.is_disabled(), !spans_wanted);
                assert!(tracing::enabled!(tracing::Level::INFO), "events still pass");
            });
        }
    }
}
