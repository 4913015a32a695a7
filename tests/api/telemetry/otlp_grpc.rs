//! OTLP over gRPC from the real binary to a loopback tonic collector: plain
//! gRPC from the `OTEL_EXPORTER_OTLP_*` variables, and SAP Cloud Logging's
//! binding (gRPC, mutual TLS with the binding's certificates, gzip), with
//! certificates made for each test. Traces and metrics both arrive; a
//! client certificate the collector does not trust gets nothing through,
//! and the drop counter says so.

use crate::doubles::otlp::{PemFiles, Pki, hex, prometheus_value, text};
use crate::helpers::binary::{Running, start_binary};
use crate::helpers::wait_until;
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as Number;
use opentelemetry_proto::tonic::trace::v1::Span;
use rcgen::ExtendedKeyUsagePurpose;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tonic::codec::CompressionEncoding;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};
use tonic::{Request, Response, Status};

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";

#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    resources: Vec<Vec<KeyValue>>,
    /// `grpc-encoding` of each export (empty when uncompressed).
    encodings: Vec<String>,
    /// (metric name, data point attributes, value) of every data point.
    points: Vec<(String, Vec<KeyValue>, f64)>,
}

#[derive(Clone, Default)]
struct Collector(Arc<Mutex<Received>>);

fn encoding<T>(request: &Request<T>) -> String {
    request
        .metadata()
        .get("grpc-encoding")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let encoding = encoding(&request);
        let mut received = self.0.lock().unwrap();
        received.encodings.push(encoding);
        for resource_spans in request.into_inner().resource_spans {
            if let Some(resource) = resource_spans.resource {
                received.resources.push(resource.attributes);
            }
            for scope in resource_spans.scope_spans {
                received.spans.extend(scope.spans);
            }
        }
        Ok(Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

#[tonic::async_trait]
impl MetricsService for Collector {
    async fn export(
        &self,
        request: Request<ExportMetricsServiceRequest>,
    ) -> Result<Response<ExportMetricsServiceResponse>, Status> {
        let mut received = self.0.lock().unwrap();
        for resource_metrics in request.into_inner().resource_metrics {
            for scope in resource_metrics.scope_metrics {
                for metric in scope.metrics {
                    let points: Vec<(Vec<KeyValue>, f64)> = match metric.data {
                        Some(Data::Sum(sum)) => sum
                            .data_points
                            .into_iter()
                            .map(|p| {
                                let value = match p.value {
                                    Some(Number::AsInt(i)) => i as f64,
                                    Some(Number::AsDouble(d)) => d,
                                    None => 0.0,
                                };
                                (p.attributes, value)
                            })
                            .collect(),
                        Some(Data::Histogram(histogram)) => histogram
                            .data_points
                            .into_iter()
                            .map(|p| (p.attributes, p.count as f64))
                            .collect(),
                        _ => Vec::new(),
                    };
                    for (attributes, value) in points {
                        received
                            .points
                            .push((metric.name.clone(), attributes, value));
                    }
                }
            }
        }
        Ok(Response::new(ExportMetricsServiceResponse {
            partial_success: None,
        }))
    }
}

/// A collector on 127.0.0.1, TLS when `tls` is given; returns its port.
async fn collector(tls: Option<ServerTlsConfig>) -> (u16, Collector) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let collector = Collector::default();
    let mut builder = Server::builder();
    if let Some(tls) = tls {
        builder = builder.tls_config(tls).unwrap();
    }
    let router = builder
        .add_service(
            TraceServiceServer::new(collector.clone()).accept_compressed(CompressionEncoding::Gzip),
        )
        .add_service(
            MetricsServiceServer::new(collector.clone())
                .accept_compressed(CompressionEncoding::Gzip),
        );
    tokio::spawn(router.serve_with_incoming(TcpIncoming::from(listener)));
    (port, collector)
}

/// The value of `name`'s data point whose attributes include `with`.
fn point(received: &Received, name: &str, with: &[(&str, &str)]) -> Option<f64> {
    received
        .points
        .iter()
        .rev()
        .find(|(metric, attributes, _)| {
            metric == name
                && with
                    .iter()
                    .all(|(key, value)| text(attributes, key).as_deref() == Some(*value))
        })
        .map(|(_, _, value)| *value)
}

async fn wait_for(what: &str, seconds: u64, mut done: impl FnMut() -> bool) {
    let arrived = wait_until(Duration::from_secs(seconds), async || done()).await;
    assert!(arrived, "timed out waiting for {what}");
}

async fn ask(port: u16) -> Value {
    crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{port}/"))
        .header("traceparent", format!("00-{TRACE_ID}-b7ad6b7169203331-01"))
        .json(&json!({
            "jsonrpc": "2.0", "id": 7, "method": "message/send",
            "params": { "message": crate::helpers::user_message("why is order 4711 blocked by credit") }
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Start the binary with `envs` (and a short batch delay and metric
/// interval), ask one question with a `traceparent`, and wait until its
/// spans and the request counter reached `collector`.
async fn export_one_request(envs: &[(&str, &str)], collector: &Collector) -> Running {
    let mut all = vec![
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "200"),
        ("AGENT__AUTH__MODE", "off"),
        ("RUST_LOG", "info"),
    ];
    all.extend_from_slice(envs);
    let running = start_binary(&all).await;
    let reply = ask(running.port).await;
    assert_eq!(reply["result"]["status"]["state"], "completed", "{reply}");
    let received = &collector.0;
    wait_for("the request's spans and the request counter", 15, || {
        let received = received.lock().unwrap();
        received.spans.iter().any(|s| s.name == "message/send")
            && received.spans.iter().any(|s| s.name == "a2a.turn")
            && point(&received, "a2a.requests", &[("rpc.method", "message/send")]).is_some()
    })
    .await;
    running
}

#[tokio::test]
async fn otel_variables_with_grpc_export_traces_and_metrics_to_a_collector() {
    let (port, collector) = collector(None).await;
    let endpoint = format!("http://127.0.0.1:{port}");
    let running = export_one_request(
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ],
        &collector,
    )
    .await;
    let received = &collector.0;
    {
        let received = received.lock().unwrap();
        let request = received
            .spans
            .iter()
            .find(|s| s.name == "message/send")
            .expect("a request span");
        assert_eq!(hex(&request.trace_id), TRACE_ID);
        assert_eq!(
            text(&request.attributes, "rpc.method").as_deref(),
            Some("message/send")
        );
        assert_eq!(
            text(&received.resources[0], "service.name").as_deref(),
            Some("order-exception-agent")
        );
        assert!(
            received.encodings.iter().all(String::is_empty),
            "no compression unless asked: {:?}",
            received.encodings
        );
        assert_eq!(
            point(
                &received,
                "a2a.requests",
                &[("rpc.method", "message/send"), ("outcome", "ok")]
            ),
            Some(1.0)
        );
        assert_eq!(
            point(
                &received,
                "a2a.request.duration",
                &[("rpc.method", "message/send")]
            ),
            Some(1.0),
            "one latency observation"
        );
        assert_eq!(
            point(
                &received,
                "a2a.task.outcomes",
                &[
                    ("a2a.task.state", "completed"),
                    ("a2a.specialist", "credit")
                ]
            ),
            Some(1.0)
        );
    }
    let log = running.terminate().await.join("\n");
    assert!(
        log.contains(&format!("traces over OTLP/gRPC to {endpoint}")),
        "the start-up log says where telemetry goes: {log}"
    );
}

#[tokio::test]
async fn the_export_and_metrics_endpoint_read_the_same_cumulative_figures() {
    let (port, collector) = collector(None).await;
    let endpoint = format!("http://127.0.0.1:{port}");
    let running = export_one_request(
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            // One reader serves both: a delta reading by either would take
            // the counts away from the other, so delta is not honoured.
            ("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "delta"),
            ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ],
        &collector,
    )
    .await;
    let received = &collector.0;
    // Several exports ran; /metrics still sees everything they saw.
    let exports = || received.lock().unwrap().points.len();
    let seen = exports();
    wait_for("a later export", 15, || exports() > seen).await;
    for (series, metric, attributes) in [
        (
            "a2a_requests_total{method=\"message/send\",outcome=\"ok\"}",
            "a2a.requests",
            &[("rpc.method", "message/send"), ("outcome", "ok")][..],
        ),
        (
            "a2a_request_duration_seconds_count{method=\"message/send\"}",
            "a2a.request.duration",
            &[("rpc.method", "message/send")][..],
        ),
    ] {
        assert_eq!(
            prometheus_value(running.port, series).await,
            Some(1),
            "{series}"
        );
        let exported = point(&received.lock().unwrap(), metric, attributes);
        assert_eq!(exported, Some(1.0), "{metric} as exported");
    }
    running.terminate().await;
}

/// A collector that demands a client certificate from `clients`.
async fn mutual_tls_collector(server: &Pki, clients: &Pki) -> (u16, Collector) {
    let (cert, key) = server.leaf(&["127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth);
    collector(Some(
        ServerTlsConfig::new()
            .identity(Identity::from_pem(cert, key))
            .client_ca_root(Certificate::from_pem(&clients.ca_pem)),
    ))
    .await
}

/// `VCAP_SERVICES` with a Cloud Logging binding as BTP writes it.
fn binding(port: u16, server_ca: &str, client: &(String, String)) -> String {
    json!({
        "cloud-logging": [{
            "label": "cloud-logging",
            "name": "order-agent-logs",
            "plan": "dev",
            "tags": ["Cloud Logging"],
            "credentials": {
                "ingest-otlp-endpoint": format!("127.0.0.1:{port}"),
                "ingest-otlp-cert": client.0,
                "ingest-otlp-key": client.1,
                "server-ca": server_ca,
                "ingest-endpoint": "unused.example.com",
            }
        }]
    })
    .to_string()
}

const VCAP_APPLICATION: &str = r#"{"application_id":"app-guid-1","application_name":"order-agent-test","space_id":"space-guid","space_name":"dev","organization_id":"org-guid","organization_name":"acme","process_type":"web","application_uris":["order-agent.cfapps.example.com"]}"#;

#[tokio::test]
async fn the_cloud_logging_binding_exports_over_grpc_with_mutual_tls_and_gzip() {
    let server_pki = Pki::new("ingest CA");
    let client_pki = Pki::new("client CA");
    let (port, collector) = mutual_tls_collector(&server_pki, &client_pki).await;
    let client = client_pki.leaf(&["order-agent"], ExtendedKeyUsagePurpose::ClientAuth);
    let services = binding(port, &server_pki.ca_pem, &client);
    let running = export_one_request(
        &[
            ("VCAP_APPLICATION", VCAP_APPLICATION),
            ("VCAP_SERVICES", services.as_str()),
        ],
        &collector,
    )
    .await;
    let received = &collector.0;
    {
        let received = received.lock().unwrap();
        let request = received
            .spans
            .iter()
            .find(|s| s.name == "message/send")
            .unwrap();
        assert_eq!(hex(&request.trace_id), TRACE_ID);
        let resource = &received.resources[0];
        for (key, value) in [
            ("service.name", "order-agent-test"),
            ("sap.cf.app_id", "app-guid-1"),
            ("sap.cf.source_id", "app-guid-1"),
            ("sap.cf.space_name", "dev"),
            ("sap.cf.org_name", "acme"),
            ("sap.cf.process.type", "web"),
        ] {
            assert_eq!(text(resource, key).as_deref(), Some(value), "{key}");
        }
        assert!(
            received.encodings.iter().all(|e| e == "gzip"),
            "Cloud Logging exports are gzipped: {:?}",
            received.encodings
        );
    }
    let log = running.terminate().await;
    // On Cloud Foundry the log is SAP JSON on stdout; the client key never
    // appears in it.
    let joined = log.join("\n");
    assert!(
        !joined.contains(client.1.lines().nth(1).unwrap()),
        "the key was logged"
    );
    let started = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| {
            line["msg"]
                .as_str()
                .is_some_and(|m| m.starts_with("OpenTelemetry export:"))
        })
        .unwrap_or_else(|| panic!("a start-up line about the export: {joined}"));
    let message = started["msg"].as_str().unwrap();
    assert!(
        message.contains("OTLP/gRPC (mutual TLS)")
            && message.contains("SAP Cloud Logging binding `order-agent-logs`"),
        "{message}"
    );
}

#[tokio::test]
async fn otel_certificate_variables_give_grpc_mutual_tls_to_any_collector() {
    let server_pki = Pki::new("collector CA");
    let client_pki = Pki::new("client CA");
    let (port, collector) = mutual_tls_collector(&server_pki, &client_pki).await;
    let client = client_pki.leaf(&["order-agent"], ExtendedKeyUsagePurpose::ClientAuth);
    let files = PemFiles::write(&server_pki.ca_pem, &client);
    let endpoint = format!("https://127.0.0.1:{port}");
    let mut envs = vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
    ];
    envs.extend(files.variables());
    let running = export_one_request(&envs, &collector).await;
    let request_trace = {
        let received = collector.0.lock().unwrap();
        let request = received
            .spans
            .iter()
            .find(|s| s.name == "message/send")
            .unwrap();
        hex(&request.trace_id)
    };
    assert_eq!(request_trace, TRACE_ID);
    let log = running.terminate().await.join("\n");
    assert!(
        log.contains(&format!("traces over OTLP/gRPC (mutual TLS) to {endpoint}")),
        "{log}"
    );
}

#[tokio::test]
async fn a_client_certificate_the_collector_does_not_trust_gets_nothing_through_and_is_counted() {
    let server_pki = Pki::new("ingest CA");
    let trusted_clients = Pki::new("client CA");
    let stranger = Pki::new("someone else");
    let (port, collector) = mutual_tls_collector(&server_pki, &trusted_clients).await;
    let client = stranger.leaf(&["order-agent"], ExtendedKeyUsagePurpose::ClientAuth);
    let services = binding(port, &server_pki.ca_pem, &client);
    let running = start_binary(&[
        ("VCAP_APPLICATION", VCAP_APPLICATION),
        ("VCAP_SERVICES", services.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("OTEL_METRICS_EXPORTER", "none"),
        ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ("AGENT__AUTH__MODE", "off"),
    ])
    .await;
    let reply = ask(running.port).await;
    assert_eq!(
        reply["result"]["status"]["state"], "completed",
        "requests are served whatever the collector does: {reply}"
    );
    let series = "a2a_telemetry_spans_dropped_total{reason=\"export_failed\"}";
    let counted = wait_until(Duration::from_secs(30), async || {
        prometheus_value(running.port, series).await.is_some()
    })
    .await;
    assert!(counted, "no failed export counted");
    assert!(
        collector.0.lock().unwrap().spans.is_empty(),
        "the collector accepted an untrusted client"
    );
    running.terminate().await;
}
