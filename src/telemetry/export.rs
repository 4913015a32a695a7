//! The OTLP/HTTP (protobuf) span exporter behind a bounded batch queue.

use super::cf::CfApplication;
use crate::config::{EnvSource, TelemetrySettings};
use opentelemetry::KeyValue;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("no OTLP endpoint is configured")]
    NotConfigured,
    #[error(
        "a SAP Cloud Logging binding with OTLP ingestion is bound, but its gRPC + mTLS export is not built in: \
         set OTEL_EXPORTER_OTLP_ENDPOINT to an OTLP/HTTP collector to export spans"
    )]
    CloudLoggingNotSupported,
    #[error("OTEL_EXPORTER_OTLP_PROTOCOL `{0}` is not supported: only http/protobuf is built in")]
    Protocol(String),
    #[error("cannot build the OTLP HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
    #[error("cannot build the OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
}

/// Where spans go: `telemetry.otlp_endpoint` (+ `/v1/traces`), else
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (as is), else
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`); `None` = no export.
pub fn traces_endpoint(settings: &TelemetrySettings, env: &dyn EnvSource) -> Option<String> {
    let with_path = |base: &str| format!("{}/v1/traces", base.trim_end_matches('/'));
    if env
        .var("OTEL_SDK_DISABLED")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || env
            .var("OTEL_TRACES_EXPORTER")
            .is_some_and(|v| v.eq_ignore_ascii_case("none"))
    {
        return None;
    }
    if let Some(base) = settings.otlp_endpoint.as_deref().filter(|s| !s.is_empty()) {
        return Some(with_path(base));
    }
    env.var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").or_else(|| {
        env.var("OTEL_EXPORTER_OTLP_ENDPOINT")
            .map(|b| with_path(&b))
    })
}

/// Whether `VCAP_SERVICES` has a Cloud Logging binding (label
/// `cloud-logging` or tag `Cloud Logging`) with an `ingest-otlp-endpoint`.
pub fn cloud_logging_bound(env: &dyn EnvSource) -> bool {
    let Some(vcap) = env
        .var("VCAP_SERVICES")
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
    else {
        return false;
    };
    let Some(services) = vcap.as_object() else {
        return false;
    };
    services
        .values()
        .filter_map(|bindings| bindings.as_array())
        .flatten()
        .filter(|binding| {
            binding["label"] == "cloud-logging"
                || binding["tags"]
                    .as_array()
                    .is_some_and(|tags| tags.iter().any(|tag| tag == "Cloud Logging"))
        })
        .any(|binding| binding["credentials"]["ingest-otlp-endpoint"].is_string())
}

/// `service.name`, `service.version` and the Cloud Foundry attributes.
pub fn resource(cf: Option<&CfApplication>) -> Resource {
    let name = cf
        .map(|cf| cf.application_name.clone())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| env!("CARGO_PKG_NAME").to_string());
    let mut attributes = vec![KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))];
    if let Some(cf) = cf {
        for (key, value) in [
            ("sap.cf.app_id", &cf.application_id),
            ("sap.cf.app_name", &cf.application_name),
            ("sap.cf.org_id", &cf.organization_id),
            ("sap.cf.org_name", &cf.organization_name),
            ("sap.cf.space_id", &cf.space_id),
            ("sap.cf.space_name", &cf.space_name),
            ("sap.cf.instance_id", &cf.instance_index),
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

/// A provider exporting over OTLP/HTTP; the batch queue (`OTEL_BSP_*`,
/// default 2048 spans, 5 s delay) drops spans when full.
pub fn tracer_provider(
    settings: &TelemetrySettings,
    env: &dyn EnvSource,
    cf: Option<&CfApplication>,
) -> Result<SdkTracerProvider, ExportError> {
    let Some(endpoint) = traces_endpoint(settings, env) else {
        return Err(if cloud_logging_bound(env) {
            ExportError::CloudLoggingNotSupported
        } else {
            ExportError::NotConfigured
        });
    };
    let protocol = env
        .var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .or_else(|| env.var("OTEL_EXPORTER_OTLP_PROTOCOL"));
    if let Some(protocol) = protocol.filter(|p| p != "http/protobuf") {
        return Err(ExportError::Protocol(protocol));
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let timeout = Duration::from_secs(10);
    let http = reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(2))
        .build()?;
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(http)
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(endpoint)
        .with_timeout(timeout)
        .build()?;
    let processor =
        BatchSpanProcessor::builder(exporter, opentelemetry_sdk::runtime::Tokio).build();
    Ok(SdkTracerProvider::builder()
        .with_span_processor(processor)
        .with_resource(resource(cf))
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::config::StaticEnv as Env;

    #[test]
    fn the_endpoint_comes_from_settings_then_the_otel_variables() {
        let none = TelemetrySettings::default();
        assert_eq!(traces_endpoint(&none, &Env(&[])), None);
        assert_eq!(
            traces_endpoint(
                &none,
                &Env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")])
            )
            .as_deref(),
            Some("http://collector:4318/v1/traces")
        );
        assert_eq!(
            traces_endpoint(
                &none,
                &Env(&[
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
                    ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/t"),
                ])
            )
            .as_deref(),
            Some("http://traces:4318/t")
        );
        let set = TelemetrySettings {
            otlp_endpoint: Some("http://mine:4318".into()),
            ..TelemetrySettings::default()
        };
        assert_eq!(
            traces_endpoint(
                &set,
                &Env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")])
            )
            .as_deref(),
            Some("http://mine:4318/v1/traces")
        );
        assert_eq!(
            traces_endpoint(&set, &Env(&[("OTEL_SDK_DISABLED", "true")])),
            None
        );
    }

    #[test]
    fn a_cloud_logging_binding_alone_is_reported_not_silently_ignored() {
        let bound = Env(&[(
            "VCAP_SERVICES",
            r#"{"cloud-logging":[{"label":"cloud-logging","tags":["Cloud Logging"],"credentials":{"ingest-otlp-endpoint":"ingest.example.com:443"}}]}"#,
        )]);
        assert!(cloud_logging_bound(&bound));
        assert!(matches!(
            tracer_provider(&TelemetrySettings::default(), &bound, None).err(),
            Some(ExportError::CloudLoggingNotSupported)
        ));
        let without_otlp = Env(&[(
            "VCAP_SERVICES",
            r#"{"cloud-logging":[{"label":"cloud-logging","credentials":{"ingest-endpoint":"x"}}]}"#,
        )]);
        assert!(!cloud_logging_bound(&without_otlp));
        assert!(matches!(
            tracer_provider(&TelemetrySettings::default(), &without_otlp, None).err(),
            Some(ExportError::NotConfigured)
        ));
    }

    #[test]
    fn grpc_is_refused_with_a_reason() {
        let error = tracer_provider(
            &TelemetrySettings::default(),
            &Env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ]),
            None,
        )
        .err();
        assert!(matches!(error, Some(ExportError::Protocol(p)) if p == "grpc"));
    }
}
