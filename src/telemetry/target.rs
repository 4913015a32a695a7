//! Where each signal (traces, metrics) is exported, from the settings, the
//! standard `OTEL_*` variables and the SAP Cloud Logging binding, in that
//! order. Nothing configured means no export at all.

use super::cloud_logging::{self, CloudLoggingBinding};
use super::settings::TelemetrySettings;
use crate::cloud_foundry::{EnvSource, VcapServices};
use crate::secret::Secret;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// OTLP/HTTP with protobuf bodies, to `<base>/v1/<signal>`.
    HttpProtobuf,
    /// OTLP/gRPC, to the base URL.
    Grpc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Traces,
    Metrics,
}

impl Signal {
    fn name(self) -> &'static str {
        match self {
            Signal::Traces => "TRACES",
            Signal::Metrics => "METRICS",
        }
    }

    fn http_path(self) -> &'static str {
        match self {
            Signal::Traces => "/v1/traces",
            Signal::Metrics => "/v1/metrics",
        }
    }
}

/// Certificates for a TLS connection, as PEM text; the client key a
/// [`Secret`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TlsMaterial {
    /// Extra trust anchor for the collector's certificate.
    pub ca_pem: Option<String>,
    /// Client certificate and PKCS#8 key, for mutual TLS.
    pub client_pem: Option<(String, Secret)>,
    /// The name the server certificate must carry, when not the URL's host.
    pub domain: Option<String>,
}

/// One signal's destination.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportTarget {
    pub transport: Transport,
    pub endpoint: String,
    pub tls: TlsMaterial,
    /// gzip the payload (Cloud Logging); otherwise the crate reads
    /// `OTEL_EXPORTER_OTLP_COMPRESSION`.
    pub gzip: bool,
}

/// Both signals' destinations and what the start-up log says about them.
#[derive(Debug, Default)]
pub struct ExportTargets {
    pub traces: Option<ExportTarget>,
    pub metrics: Option<ExportTarget>,
    /// Where the configuration came from, for the start-up log.
    pub source: String,
    /// Things an admin should know (a skipped binding, an unused one).
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{variable} `{value}` is not supported: use `grpc` or `http/protobuf`")]
    Protocol { variable: String, value: String },
    #[error("cannot read {variable} ({path}): {source}")]
    File {
        variable: String,
        path: String,
        source: std::io::Error,
    },
}

/// The destinations of traces and metrics.
pub fn resolve(
    settings: &TelemetrySettings,
    services: &VcapServices,
    env: &dyn EnvSource,
) -> Result<ExportTargets, TargetError> {
    let mut targets = ExportTargets::default();
    if env
        .var("OTEL_SDK_DISABLED")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    {
        targets.source = "OTEL_SDK_DISABLED".into();
        return Ok(targets);
    }
    let setting = settings.otlp_endpoint.as_deref().filter(|s| !s.is_empty());
    let endpoint_variable_set = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
    .iter()
    .any(|name| env.var(name).is_some());
    let lookup = cloud_logging::lookup(services);
    targets.notes = lookup.skipped;
    if setting.is_some() || endpoint_variable_set {
        targets.source = if setting.is_some() {
            "telemetry.otlp_endpoint".into()
        } else {
            "OTEL_EXPORTER_OTLP_* variables".into()
        };
        if let Some(binding) = &lookup.binding {
            targets.notes.push(format!(
                "the Cloud Logging binding `{}` is not used for OTLP: {} is set and wins",
                binding.name, targets.source
            ));
        }
        let target = |signal| {
            if disabled(env, signal) {
                Ok(None)
            } else {
                from_variables(setting, env, signal)
            }
        };
        targets.traces = target(Signal::Traces)?;
        targets.metrics = target(Signal::Metrics)?;
    } else if let Some(binding) = lookup.binding {
        targets.source = format!("SAP Cloud Logging binding `{}`", binding.name);
        let target = cloud_logging_target(&binding);
        targets.traces = (!disabled(env, Signal::Traces)).then(|| target.clone());
        targets.metrics = (!disabled(env, Signal::Metrics)).then_some(target);
    }
    Ok(targets)
}

/// `OTEL_TRACES_EXPORTER=none` / `OTEL_METRICS_EXPORTER=none`.
fn disabled(env: &dyn EnvSource, signal: Signal) -> bool {
    env.var(&format!("OTEL_{}_EXPORTER", signal.name()))
        .is_some_and(|v| v.eq_ignore_ascii_case("none"))
}

fn cloud_logging_target(binding: &CloudLoggingBinding) -> ExportTarget {
    ExportTarget {
        transport: Transport::Grpc,
        endpoint: binding.url(),
        tls: TlsMaterial {
            ca_pem: Some(binding.server_ca_pem.clone()),
            client_pem: Some((
                binding.client_cert_pem.clone(),
                binding.client_key_pem.clone(),
            )),
            domain: Some(binding.host().to_string()),
        },
        gzip: true,
    }
}

/// The signal's protocol, endpoint and certificates from `setting`
/// (`telemetry.otlp_endpoint`, which wins over any endpoint variable) and the
/// `OTEL_EXPORTER_OTLP_[<SIGNAL>_]*` variables (the signal's own wins).
fn from_variables(
    setting: Option<&str>,
    env: &dyn EnvSource,
    signal: Signal,
) -> Result<Option<ExportTarget>, TargetError> {
    let specific = |suffix: &str| {
        let own = format!("OTEL_EXPORTER_OTLP_{}_{suffix}", signal.name());
        let general = format!("OTEL_EXPORTER_OTLP_{suffix}");
        env.var(&own)
            .map(|value| (own, value))
            .or_else(|| env.var(&general).map(|value| (general, value)))
    };
    let transport = match specific("PROTOCOL") {
        None => Transport::HttpProtobuf,
        Some((_, value)) if value == "http/protobuf" => Transport::HttpProtobuf,
        Some((_, value)) if value == "grpc" => Transport::Grpc,
        Some((variable, value)) => return Err(TargetError::Protocol { variable, value }),
    };
    let base = |base: &str| match transport {
        Transport::HttpProtobuf => format!("{}{}", base.trim_end_matches('/'), signal.http_path()),
        Transport::Grpc => base.to_string(),
    };
    let endpoint = match setting {
        Some(configured) => Some(base(configured)),
        None => env
            .var(&format!("OTEL_EXPORTER_OTLP_{}_ENDPOINT", signal.name()))
            .or_else(|| env.var("OTEL_EXPORTER_OTLP_ENDPOINT").map(|b| base(&b))),
    };
    let Some(endpoint) = endpoint else {
        return Ok(None);
    };
    let read = |suffix: &str| -> Result<Option<String>, TargetError> {
        let Some((variable, path)) = specific(suffix) else {
            return Ok(None);
        };
        std::fs::read_to_string(&path)
            .map(Some)
            .map_err(|source| TargetError::File {
                variable,
                path,
                source,
            })
    };
    let tls = TlsMaterial {
        ca_pem: read("CERTIFICATE")?,
        client_pem: read("CLIENT_CERTIFICATE")?.zip(read("CLIENT_KEY")?.map(Secret::new)),
        domain: None,
    };
    Ok(Some(ExportTarget {
        transport,
        endpoint,
        tls,
        gzip: false,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud_foundry::StaticEnv as Env;

    fn endpoints(settings: &TelemetrySettings, env: &Env) -> (Option<String>, Option<String>) {
        let targets = resolve(settings, &VcapServices::default(), env).unwrap();
        (
            targets.traces.map(|t| t.endpoint),
            targets.metrics.map(|t| t.endpoint),
        )
    }

    const BINDING: &str = r#"{"cloud-logging":[{"label":"cloud-logging","name":"logs",
        "credentials":{"ingest-otlp-endpoint":"ingest.example.com:443",
        "ingest-otlp-cert":"CERT","ingest-otlp-key":"KEY","server-ca":"CA"}}]}"#;

    fn bound() -> VcapServices {
        VcapServices::parse(BINDING).unwrap()
    }

    #[test]
    fn nothing_configured_exports_nothing() {
        let targets = resolve(
            &TelemetrySettings::default(),
            &VcapServices::default(),
            &Env(&[]),
        )
        .unwrap();
        assert!(targets.traces.is_none() && targets.metrics.is_none());
    }

    #[test]
    fn http_endpoints_get_the_signal_path_unless_given_per_signal() {
        let none = TelemetrySettings::default();
        assert_eq!(
            endpoints(
                &none,
                &Env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")])
            ),
            (
                Some("http://collector:4318/v1/traces".into()),
                Some("http://collector:4318/v1/metrics".into())
            )
        );
        assert_eq!(
            endpoints(
                &none,
                &Env(&[("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces:4318/t")])
            ),
            (Some("http://traces:4318/t".into()), None)
        );
        let set = TelemetrySettings {
            otlp_endpoint: Some("http://mine:4318".into()),
            ..TelemetrySettings::default()
        };
        assert_eq!(
            endpoints(
                &set,
                &Env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")])
            )
            .0
            .as_deref(),
            Some("http://mine:4318/v1/traces")
        );
    }

    #[test]
    fn grpc_uses_the_base_url_and_a_signal_can_be_switched_off() {
        let targets = resolve(
            &TelemetrySettings::default(),
            &VcapServices::default(),
            &Env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
                ("OTEL_METRICS_EXPORTER", "none"),
            ]),
        )
        .unwrap();
        let traces = targets.traces.unwrap();
        assert_eq!(traces.transport, Transport::Grpc);
        assert_eq!(traces.endpoint, "http://collector:4317");
        assert!(targets.metrics.is_none());
    }

    #[test]
    fn an_unknown_protocol_or_a_missing_certificate_file_is_an_error() {
        let error = resolve(
            &TelemetrySettings::default(),
            &VcapServices::default(),
            &Env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
                ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
            ]),
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL `http/json`")
        );
        let error = resolve(
            &TelemetrySettings::default(),
            &VcapServices::default(),
            &Env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector:4317"),
                ("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem"),
            ]),
        )
        .unwrap_err();
        assert!(matches!(error, TargetError::File { .. }), "{error}");
    }

    #[test]
    fn the_cloud_logging_binding_is_grpc_with_mutual_tls_and_gzip() {
        let targets = resolve(&TelemetrySettings::default(), &bound(), &Env(&[])).unwrap();
        assert_eq!(targets.source, "SAP Cloud Logging binding `logs`");
        let traces = targets.traces.unwrap();
        assert_eq!(traces.transport, Transport::Grpc);
        assert_eq!(traces.endpoint, "https://ingest.example.com:443");
        assert_eq!(traces.tls.ca_pem.as_deref(), Some("CA"));
        assert_eq!(
            traces.tls.client_pem,
            Some(("CERT".to_string(), Secret::new("KEY")))
        );
        assert_eq!(traces.tls.domain.as_deref(), Some("ingest.example.com"));
        assert!(traces.gzip);
        assert_eq!(targets.metrics, Some(traces));
    }

    #[test]
    fn explicit_variables_win_over_the_binding_and_say_so() {
        let targets = resolve(
            &TelemetrySettings::default(),
            &bound(),
            &Env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")]),
        )
        .unwrap();
        assert_eq!(
            targets.traces.unwrap().endpoint,
            "http://collector:4318/v1/traces"
        );
        assert!(
            targets.notes[0].contains("`logs` is not used"),
            "{:?}",
            targets.notes
        );
        let disabled = resolve(
            &TelemetrySettings::default(),
            &bound(),
            &Env(&[("OTEL_SDK_DISABLED", "true")]),
        )
        .unwrap();
        assert!(disabled.traces.is_none() && disabled.metrics.is_none());
    }
}
