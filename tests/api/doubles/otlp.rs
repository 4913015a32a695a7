//! Reading OTLP exports and `/metrics` in the telemetry tests, a loopback
//! OTLP/HTTP collector that keeps every span and metric point
//! ([`Collector`]), and the certificates their TLS collectors and clients
//! use.

use actix_web::{App, HttpResponse, HttpServer, web};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as NumberValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};
use std::sync::{Arc, Mutex};

/// Trace and span ids as W3C hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An attribute's value as text (numbers and booleans printed).
pub fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .map(|value| match value {
            AnyValue::StringValue(s) => s.clone(),
            AnyValue::IntValue(i) => i.to_string(),
            AnyValue::DoubleValue(d) => d.to_string(),
            AnyValue::BoolValue(b) => b.to_string(),
            other => format!("{other:?}"),
        })
}

/// An attribute that must be an OTLP integer (`IntValue`); `None` when it
/// is missing or of another type (a number exported as a string).
pub fn int(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
    {
        Some(AnyValue::IntValue(value)) => Some(*value),
        _ => None,
    }
}

/// An attribute that must be an OTLP string (`StringValue`).
pub fn string(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
    {
        Some(AnyValue::StringValue(value)) => Some(value.clone()),
        _ => None,
    }
}

/// The value of one Prometheus series (`name{labels}`) the binary on
/// `port` serves at `/metrics`; `None` while it has no such series.
pub async fn prometheus_value(port: u16, series: &str) -> Option<u64> {
    let text = crate::helpers::http_client()
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
}

/// A CA, and a certificate for 127.0.0.1 (server) or a client, signed by it.
pub struct Pki {
    pub ca_pem: String,
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Pki {
    pub fn new(name: &str) -> Pki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Pki {
            ca_pem: issuer.pem(),
            issuer,
        }
    }

    /// (certificate PEM, PKCS#8 key PEM).
    pub fn leaf(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// A CA certificate and a client certificate + key written to files, as the
/// `OTEL_EXPORTER_OTLP_*CERTIFICATE`/`_CLIENT_KEY` variables name them;
/// the folder goes when this is dropped.
pub struct PemFiles {
    folder: std::path::PathBuf,
    pub ca: String,
    pub cert: String,
    pub key: String,
}

impl PemFiles {
    pub fn write(ca_pem: &str, client: &(String, String)) -> PemFiles {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let folder = std::env::temp_dir().join(format!(
            "otlp-certs-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&folder).unwrap();
        let file = |name: &str, pem: &str| {
            let path = folder.join(name);
            std::fs::write(&path, pem).unwrap();
            path.to_string_lossy().into_owned()
        };
        PemFiles {
            ca: file("ca.pem", ca_pem),
            cert: file("client.pem", &client.0),
            key: file("client.key", &client.1),
            folder,
        }
    }

    /// The three variables, for `start_binary`.
    pub fn variables(&self) -> [(&'static str, &str); 3] {
        [
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", self.ca.as_str()),
            ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", self.cert.as_str()),
            ("OTEL_EXPORTER_OTLP_CLIENT_KEY", self.key.as_str()),
        ]
    }
}

impl Drop for PemFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// One metric data point as a test reads it: its attributes, and its value
/// (a sum or gauge) or, for a histogram, its count and sum.
#[derive(Debug, Clone)]
pub struct Point {
    pub attributes: Vec<KeyValue>,
    pub value: f64,
    /// A histogram's count of observations; `None` for a sum or gauge.
    pub count: Option<u64>,
}

impl Point {
    /// The value of attribute `key` as text.
    pub fn label(&self, key: &str) -> Option<String> {
        text(&self.attributes, key)
    }
}

#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    /// Each metric export as it came: (metric name, its points).
    readings: Vec<Vec<(String, Vec<Point>)>>,
}

/// An OTLP/HTTP collector on loopback (`/v1/traces`, `/v1/metrics`) that
/// keeps every span and every metric reading.
#[derive(Clone)]
pub struct Collector {
    /// `http://127.0.0.1:<port>`, for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub url: String,
    received: Arc<Mutex<Received>>,
}

async fn collect_traces(
    body: web::Bytes,
    received: web::Data<Arc<Mutex<Received>>>,
) -> HttpResponse {
    let Ok(request) = ExportTraceServiceRequest::decode(body) else {
        return HttpResponse::BadRequest().finish();
    };
    let mut received = received.lock().unwrap();
    for resource in request.resource_spans {
        for scope in resource.scope_spans {
            received.spans.extend(scope.spans);
        }
    }
    HttpResponse::Ok().finish()
}

async fn collect_metrics(
    body: web::Bytes,
    received: web::Data<Arc<Mutex<Received>>>,
) -> HttpResponse {
    let Ok(request) = ExportMetricsServiceRequest::decode(body) else {
        return HttpResponse::BadRequest().finish();
    };
    let mut reading = Vec::new();
    for resource in request.resource_metrics {
        for scope in resource.scope_metrics {
            for metric in scope.metrics {
                let number = |value: Option<NumberValue>| match value {
                    Some(NumberValue::AsInt(value)) => value as f64,
                    Some(NumberValue::AsDouble(value)) => value,
                    None => f64::NAN,
                };
                let points: Vec<Point> = match metric.data {
                    Some(Data::Sum(sum)) => sum
                        .data_points
                        .into_iter()
                        .map(|p| Point {
                            attributes: p.attributes,
                            value: number(p.value),
                            count: None,
                        })
                        .collect(),
                    Some(Data::Gauge(gauge)) => gauge
                        .data_points
                        .into_iter()
                        .map(|p| Point {
                            attributes: p.attributes,
                            value: number(p.value),
                            count: None,
                        })
                        .collect(),
                    Some(Data::Histogram(histogram)) => histogram
                        .data_points
                        .into_iter()
                        .map(|p| Point {
                            attributes: p.attributes,
                            value: p.sum.unwrap_or(f64::NAN),
                            count: Some(p.count),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                reading.push((metric.name, points));
            }
        }
    }
    received.lock().unwrap().readings.push(reading);
    HttpResponse::Ok().finish()
}

impl Collector {
    pub async fn start() -> Collector {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let received = Arc::new(Mutex::new(Received::default()));
        let data = web::Data::new(Arc::clone(&received));
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::PayloadConfig::new(16 * 1024 * 1024))
                .route("/v1/traces", web::post().to(collect_traces))
                .route("/v1/metrics", web::post().to(collect_metrics))
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        tokio::spawn(server);
        Collector { url, received }
    }

    /// The variables that export to this collector quickly: spans every
    /// 100 ms, metrics every 200 ms.
    pub fn variables(&self) -> [(&'static str, &str); 3] {
        [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", self.url.as_str()),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_METRIC_EXPORT_INTERVAL", "200"),
        ]
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Span> {
        self.received.lock().unwrap().spans.clone()
    }

    /// The spans named `name`.
    pub fn named(&self, name: &str) -> Vec<Span> {
        self.spans()
            .into_iter()
            .filter(|span| span.name == name)
            .collect()
    }

    /// The points of metric `name` in the latest reading that has it
    /// (readings are cumulative); `None` before one has.
    pub fn metric(&self, name: &str) -> Option<Vec<Point>> {
        let received = self.received.lock().unwrap();
        received.readings.iter().rev().find_map(|reading| {
            reading
                .iter()
                .find(|(metric, _)| metric == name)
                .map(|(_, points)| points.clone())
        })
    }

    /// The names of every metric received.
    pub fn metric_names(&self) -> std::collections::BTreeSet<String> {
        let received = self.received.lock().unwrap();
        received
            .readings
            .iter()
            .flatten()
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The points of metric `name` in the very first reading that has it.
    pub fn first_metric(&self, name: &str) -> Option<Vec<Point>> {
        let received = self.received.lock().unwrap();
        received.readings.iter().find_map(|reading| {
            reading
                .iter()
                .find(|(metric, _)| metric == name)
                .map(|(_, points)| points.clone())
        })
    }

    /// The latest value (a histogram's count) of metric `name`, summed over
    /// its points whose attributes include every pair of `labels`; `None`
    /// when no point matches.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let points = self.metric(name)?;
        let matching: Vec<&Point> = points
            .iter()
            .filter(|point| {
                labels
                    .iter()
                    .all(|(key, value)| point.label(key).as_deref() == Some(*value))
            })
            .collect();
        (!matching.is_empty()).then(|| {
            matching
                .iter()
                .map(|point| point.count.map_or(point.value, |count| count as f64))
                .sum()
        })
    }
}

/// The span's status code (0 unset, 1 ok, 2 error) and message.
pub fn status(span: &Span) -> (i32, String) {
    span.status
        .as_ref()
        .map(|status| (status.code, status.message.clone()))
        .unwrap_or((0, String::new()))
}

/// OTLP's code for a span whose status is ERROR.
pub const STATUS_ERROR: i32 = 2;
