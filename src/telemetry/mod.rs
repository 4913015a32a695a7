//! Logs and traces. Logs: readable text on stderr, or one JSON object per
//! line on stdout in SAP Cloud Logging's field format. Traces: `tracing`
//! spans exported over OTLP/HTTP (protobuf) when an endpoint is configured,
//! batched in a bounded queue (full = dropped, never blocking a request).
//! W3C trace context comes in on requests and goes out on HTTP calls.

mod cf;
mod export;
pub mod metrics;
pub mod propagation;
mod sap_json;

use crate::config::{EnvSource, LogFormat, TelemetrySettings};
use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

pub use cf::CfApplication;
pub use export::ExportError;

/// The filter of the service when `RUST_LOG` is not set.
pub const SERVICE_LOG: &str = "info,actix_server=warn";

/// Install the global subscriber once; later calls (tests) are no-ops.
pub fn init() {
    init_with_default(SERVICE_LOG);
}

/// Like `init`, with another filter when `RUST_LOG` is not set (the client
/// commands log warnings only). Text on stderr, no export.
pub fn init_with_default(default_filter: &str) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter(default_filter))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

fn filter(default_filter: &str) -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter))
}

/// Flushes and stops the trace export; `shutdown` (or drop) once the server
/// has stopped.
#[must_use = "dropping the guard stops the trace export"]
pub struct Telemetry {
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Telemetry {
    /// Whether spans are exported.
    pub fn exporting(&self) -> bool {
        self.provider.is_some()
    }

    /// Export what is queued, then stop; gives up after `limit` so the
    /// process still exits inside Cloud Foundry's SIGTERM window.
    pub async fn shutdown(mut self, limit: std::time::Duration) {
        let Some(provider) = self.provider.take() else {
            return;
        };
        let flushed = tokio::task::spawn_blocking(move || provider.shutdown());
        match tokio::time::timeout(limit, flushed).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(error))) => tracing::warn!(%error, "trace export shutdown failed"),
            Ok(Err(error)) => tracing::warn!(%error, "trace export shutdown panicked"),
            Err(_) => tracing::warn!(
                limit_ms = limit.as_millis() as u64,
                "trace export did not flush in time; pending spans dropped"
            ),
        }
    }
}

/// The service's logging and tracing, from the settings and the
/// environment. Must run inside the tokio runtime (the export task).
pub fn init_service(settings: &TelemetrySettings, env: &dyn EnvSource) -> Telemetry {
    let cf = CfApplication::from_env(env);
    let format = settings.log_format.unwrap_or(if cf.is_some() {
        LogFormat::Json
    } else {
        LogFormat::Text
    });
    let export = export::tracer_provider(settings, env, cf.as_ref());
    let (provider, export_note) = match export {
        Ok(provider) => (Some(provider), None),
        Err(error) => (None, Some(error)),
    };
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let otel_layer = provider.as_ref().map(|provider| {
        use opentelemetry::trace::TracerProvider as _;
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("order-exception-agent"))
            .with_tracked_inactivity(false)
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
    let registry = tracing_subscriber::registry()
        .with(filter(SERVICE_LOG))
        .with(otel_layer)
        .with(id_layer);
    let installed = match format {
        LogFormat::Json => registry
            .with(sap_json::SapJsonLayer::new(cf.clone(), std::io::stdout))
            .try_init(),
        LogFormat::Text => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .with_ansi(std::io::stderr().is_terminal()),
            )
            .try_init(),
    };
    if installed.is_err() {
        return Telemetry { provider: None };
    }
    match (&provider, export_note) {
        (Some(_), _) => tracing::info!("traces exported over OTLP/HTTP"),
        (None, Some(ExportError::NotConfigured)) | (None, None) => {
            tracing::debug!("no OTLP endpoint configured: traces are not exported")
        }
        (None, Some(error)) => tracing::warn!(%error, "traces are not exported"),
    }
    Telemetry { provider }
}
