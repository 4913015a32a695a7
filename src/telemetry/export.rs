//! The OTLP exporters for traces and metrics, over HTTP/protobuf (reqwest)
//! or gRPC (tonic, rustls): spans behind a bounded, counted batch queue,
//! metrics on a periodic reader (`OTEL_METRIC_EXPORT_INTERVAL`, 60 s), which
//! `metrics::install` makes the meter provider's one reader.

use super::settings::TelemetrySettings;
use super::span_queue::{self, BoundedSpanProcessor};
use super::target::{self, ExportTarget, TargetError, TlsMaterial, Transport};
use crate::cloud_foundry::{CfApplication, EnvSource, VcapServices};
use opentelemetry::KeyValue;
use opentelemetry_otlp::tonic_types::transport::{Certificate, ClientTlsConfig, Identity};
use opentelemetry_otlp::{
    Compression, MetricExporter, Protocol, SpanExporter, WithExportConfig, WithHttpConfig,
    WithTonicConfig,
};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::periodic_reader_with_async_runtime::PeriodicReader;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::time::Duration;

/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    ExportTarget(#[from] TargetError),
    #[error("cannot build the OTLP HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
    #[error("cannot build the OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
}

/// What is exported; `None` for a signal not configured.
pub struct Providers {
    pub traces: Option<SdkTracerProvider>,
    pub metrics: Option<PeriodicReader<MetricExporter>>,
    /// One line for the start-up log: where and how.
    pub description: String,
    pub notes: Vec<String>,
}

/// Build the exporters the settings and environment ask for.
pub fn providers(
    settings: &TelemetrySettings,
    services: &VcapServices,
    env: &dyn EnvSource,
    cf: Option<&CfApplication>,
) -> Result<Providers, ExportError> {
    let targets = target::resolve(settings, services, env)?;
    // ring is the binary's one rustls provider (reqwest and tonic use it).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let resource = resource(cf);
    let traces = match &targets.traces {
        Some(target) => {
            let capacity = span_queue::capacity_from(env.var("OTEL_BSP_MAX_QUEUE_SIZE"));
            let processor = BoundedSpanProcessor::new(span_exporter(target)?, capacity);
            Some(
                SdkTracerProvider::builder()
                    .with_span_processor(processor)
                    .with_resource(resource)
                    .build(),
            )
        }
        None => None,
    };
    let metrics = match &targets.metrics {
        Some(target) => Some(
            PeriodicReader::builder(metric_exporter(target)?, opentelemetry_sdk::runtime::Tokio)
                .build(),
        ),
        None => None,
    };
    let describe = |signal: &str, target: &Option<ExportTarget>| match target {
        Some(target) => format!(
            "{signal} over {} to {}",
            match target.transport {
                Transport::HttpProtobuf => "OTLP/HTTP",
                Transport::Grpc if target.tls.client_pem.is_some() => "OTLP/gRPC (mutual TLS)",
                Transport::Grpc => "OTLP/gRPC",
            },
            target.endpoint
        ),
        None => format!("no {signal}"),
    };
    Ok(Providers {
        traces,
        metrics,
        description: format!(
            "{}, {} (from {})",
            describe("traces", &targets.traces),
            describe("metrics", &targets.metrics),
            targets.source
        ),
        notes: targets.notes,
    })
}

fn span_exporter(target: &ExportTarget) -> Result<SpanExporter, ExportError> {
    Ok(match target.transport {
        Transport::HttpProtobuf => http(SpanExporter::builder().with_http(), target)?.build()?,
        Transport::Grpc => grpc(SpanExporter::builder().with_tonic(), target).build()?,
    })
}

fn metric_exporter(target: &ExportTarget) -> Result<MetricExporter, ExportError> {
    Ok(match target.transport {
        Transport::HttpProtobuf => http(MetricExporter::builder().with_http(), target)?.build()?,
        Transport::Grpc => grpc(MetricExporter::builder().with_tonic(), target).build()?,
    })
}

/// An OTLP/HTTP exporter builder (spans or metrics) aimed at `target`.
fn http<B: WithExportConfig + WithHttpConfig>(
    builder: B,
    target: &ExportTarget,
) -> Result<B, ExportError> {
    Ok(builder
        .with_http_client(http_client(&target.tls)?)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(&target.endpoint)
        .with_timeout(EXPORT_TIMEOUT))
}

/// An OTLP/gRPC exporter builder (spans or metrics) aimed at `target`.
fn grpc<B: WithExportConfig + WithTonicConfig>(builder: B, target: &ExportTarget) -> B {
    let mut builder = builder
        .with_endpoint(&target.endpoint)
        .with_timeout(EXPORT_TIMEOUT);
    if let Some(tls) = tonic_tls(target) {
        builder = builder.with_tls_config(tls);
    }
    if target.gzip {
        builder = builder.with_compression(Compression::Gzip);
    }
    builder
}

/// The HTTP client of the OTLP/HTTP exporters, with the certificates from
/// `OTEL_EXPORTER_OTLP_*CERTIFICATE` when given.
fn http_client(tls: &TlsMaterial) -> Result<reqwest::Client, reqwest::Error> {
    let mut builder = reqwest::Client::builder()
        .timeout(EXPORT_TIMEOUT)
        .connect_timeout(Duration::from_secs(2));
    if let Some(ca) = &tls.ca_pem {
        builder = builder.add_root_certificate(reqwest::Certificate::from_pem(ca.as_bytes())?);
    }
    if let Some((cert, key)) = &tls.client_pem {
        let pem = format!("{}\n{}", cert.trim_end(), key.expose());
        builder = builder.identity(reqwest::Identity::from_pem(pem.as_bytes())?);
    }
    builder.build()
}

/// TLS for an `https://` gRPC endpoint: the public roots plus the given
/// CA (Cloud Logging's `server-ca`; SAP's exporters disagree on which of
/// the two to trust, so both are), the client identity for mutual TLS, and
/// the server name. `None` for plain `http://`.
fn tonic_tls(target: &ExportTarget) -> Option<ClientTlsConfig> {
    if !target.endpoint.starts_with("https://") {
        return None;
    }
    let tls = &target.tls;
    let mut config = ClientTlsConfig::new().with_webpki_roots();
    if let Some(ca) = &tls.ca_pem {
        config = config.ca_certificate(Certificate::from_pem(ca));
    }
    if let Some((cert, key)) = &tls.client_pem {
        config = config.identity(Identity::from_pem(cert, key.expose()));
    }
    if let Some(domain) = &tls.domain {
        config = config.domain_name(domain.clone());
    }
    Some(config)
}

/// `service.name`, `service.version` and the Cloud Foundry attributes SAP's
/// own exporter sets.
pub fn resource(cf: Option<&CfApplication>) -> Resource {
    let name = cf
        .map(|cf| cf.application_name.clone())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| env!("CARGO_PKG_NAME").to_string());
    let mut attributes = vec![KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))];
    if let Some(cf) = cf {
        for (key, value) in [
            ("sap.cf.source_id", &cf.application_id),
            ("sap.cf.app_id", &cf.application_id),
            ("sap.cf.app_name", &cf.application_name),
            ("sap.cf.org_id", &cf.organization_id),
            ("sap.cf.org_name", &cf.organization_name),
            ("sap.cf.space_id", &cf.space_id),
            ("sap.cf.space_name", &cf.space_name),
            ("sap.cf.instance_id", &cf.instance_index),
            ("sap.cf.process.id", &cf.process_id),
            ("sap.cf.process.type", &cf.process_type),
        ] {
            if !value.is_empty() {
                attributes.push(KeyValue::new(key, value.clone()));
            }
        }
    }
    Resource::builder()
        .with_service_name(name)
        .with_attributes(attributes)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud_foundry::StaticEnv as Env;

    #[tokio::test]
    async fn nothing_configured_builds_no_provider() {
        let built = providers(
            &TelemetrySettings::default(),
            &VcapServices::default(),
            &Env(&[]),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(built.traces.is_none() && built.metrics.is_none());
    }

    #[tokio::test]
    async fn a_binding_with_a_broken_certificate_is_an_error_not_a_panic() {
        let error = providers(
            &TelemetrySettings::default(),
            &VcapServices::parse(
                r#"{"cloud-logging":[{"label":"cloud-logging","name":"logs",
                "credentials":{"ingest-otlp-endpoint":"127.0.0.1:9",
                "ingest-otlp-cert":"not a certificate","ingest-otlp-key":"not a key",
                "server-ca":"not a CA"}}]}"#,
            )
            .unwrap(),
            &Env(&[]),
            None,
        )
        .err();
        assert!(matches!(error, Some(ExportError::Exporter(_))), "{error:?}");
    }

    #[test]
    fn the_resource_names_the_service_and_the_cf_application() {
        let cf = CfApplication {
            application_id: "app-1".into(),
            application_name: "order-agent".into(),
            space_name: "dev".into(),
            instance_index: "0".into(),
            process_type: "web".into(),
            ..CfApplication::default()
        };
        let resource = resource(Some(&cf));
        let get = |key: &str| {
            resource
                .get(&opentelemetry::Key::from_static_str(match key {
                    "service.name" => "service.name",
                    "sap.cf.app_id" => "sap.cf.app_id",
                    "sap.cf.source_id" => "sap.cf.source_id",
                    "sap.cf.process.type" => "sap.cf.process.type",
                    _ => "service.version",
                }))
                .map(|v| v.to_string())
        };
        assert_eq!(get("service.name").as_deref(), Some("order-agent"));
        assert_eq!(get("sap.cf.app_id").as_deref(), Some("app-1"));
        assert_eq!(get("sap.cf.source_id").as_deref(), Some("app-1"));
        assert_eq!(get("sap.cf.process.type").as_deref(), Some("web"));
        assert_eq!(
            get("service.version").as_deref(),
            Some(env!("CARGO_PKG_VERSION"))
        );
    }
}
