//! Traces, metrics and logs of the real binary: spans and metrics exported
//! over OTLP/HTTP to a loopback receiver (decoded with the OTLP protobuf
//! types), the caller's `traceparent` as their parent, `traceparent` on
//! push deliveries, the authentication span, SAP JSON log lines carrying the
//! same trace ids, a flush at shutdown (also of a full queue behind a slow
//! collector), and a bounded, counted queue when the collector is down.

use crate::doubles::otlp::{PemFiles, Pki, hex, int, prometheus_value, string, text};
use crate::helpers::binary::start_binary;
use crate::helpers::wait_until;
use crate::helpers::webhook::WebhookReceiver;
use actix_web::{App, HttpResponse, HttpServer, web};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use rcgen::ExtendedKeyUsagePurpose;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

#[derive(Default)]
struct Seen {
    spans: Vec<Span>,
    /// Names of the metrics received.
    metrics: Vec<String>,
    /// Trace exports that arrived (also those still held).
    trace_exports: usize,
    /// Hold the first trace export until a metric export arrives (which
    /// happens at shutdown only): a collector that is slow while the queue
    /// fills.
    hold_first_export: bool,
    release: Arc<tokio::sync::Notify>,
}

type Shared = web::Data<Arc<Mutex<Seen>>>;

async fn traces(body: web::Bytes, seen: Shared) -> HttpResponse {
    let Ok(request) = ExportTraceServiceRequest::decode(body) else {
        return HttpResponse::BadRequest().finish();
    };
    let held = {
        let mut seen = seen.lock().unwrap();
        seen.trace_exports += 1;
        (seen.hold_first_export && seen.trace_exports == 1).then(|| Arc::clone(&seen.release))
    };
    if let Some(release) = held {
        release.notified().await;
    }
    let mut seen = seen.lock().unwrap();
    for resource in request.resource_spans {
        for scope in resource.scope_spans {
            seen.spans.extend(scope.spans);
        }
    }
    HttpResponse::Ok().finish()
}

async fn metrics(body: web::Bytes, seen: Shared) -> HttpResponse {
    let Ok(request) = ExportMetricsServiceRequest::decode(body) else {
        return HttpResponse::BadRequest().finish();
    };
    let mut seen = seen.lock().unwrap();
    for resource in request.resource_metrics {
        for scope in resource.scope_metrics {
            seen.metrics
                .extend(scope.metrics.into_iter().map(|m| m.name));
        }
    }
    seen.release.notify_one();
    HttpResponse::Ok().finish()
}

/// An OTLP/HTTP collector (`/v1/traces`, `/v1/metrics`) on loopback.
async fn receiver() -> (String, Arc<Mutex<Seen>>) {
    receiver_over(None).await
}

/// The same over TLS with `tls` (an `https://` URL), else plain HTTP.
async fn receiver_over(tls: Option<rustls::ServerConfig>) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let data = web::Data::new(Arc::clone(&seen));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/v1/traces", web::post().to(traces))
            .route("/v1/metrics", web::post().to(metrics))
    })
    .workers(1);
    let (scheme, server) = match tls {
        Some(config) => ("https", server.listen_rustls_0_23(listener, config)),
        None => ("http", server.listen(listener)),
    };
    tokio::spawn(server.unwrap().run());
    (format!("{scheme}://127.0.0.1:{port}"), seen)
}

/// TLS for the receiver: its certificate for 127.0.0.1 from `server`, and
/// a client certificate from `clients` required.
fn mutual_tls(server: &Pki, clients: &Pki) -> rustls::ServerConfig {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let (cert, key) = server.leaf(&["127.0.0.1"], ExtendedKeyUsagePurpose::ServerAuth);
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(clients.ca_pem.as_bytes()).unwrap())
        .unwrap();
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .unwrap();
    rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![CertificateDer::from_pem_slice(cert.as_bytes()).unwrap()],
            PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap(),
        )
        .unwrap()
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    text(&span.attributes, key)
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|span| span.name == name).collect()
}

async fn send(port: u16, traceparent: Option<&str>, body: Value) -> Value {
    send_as(port, traceparent, "", body).await
}

async fn send_as(port: u16, traceparent: Option<&str>, role: &str, body: Value) -> Value {
    let mut request = crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{port}/"))
        .header("x-correlationid", "corr-7")
        .json(&body);
    if !role.is_empty() {
        request = request.header("x-agent-role", role);
    }
    if let Some(traceparent) = traceparent {
        request = request.header("traceparent", traceparent);
    }
    request.send().await.unwrap().json().await.unwrap()
}

fn message_send(text: &str, hook: Option<String>) -> Value {
    let mut params = json!({
        "message": crate::helpers::user_message(text),
        "configuration": { "blocking": true },
    });
    if let Some(url) = hook {
        params["configuration"]["pushNotificationConfig"] = json!({ "url": url });
    }
    json!({ "jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params })
}

#[tokio::test]
async fn a_request_is_traced_from_the_callers_traceparent_to_the_push_and_flushed_at_shutdown() {
    let (url, seen) = receiver().await;
    let webhook = WebhookReceiver::start().await;
    // A long batch delay (and the default 60 s metric interval): spans and
    // metrics can only arrive through the flush at shutdown.
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "60000"),
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1"),
        ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true"),
        ("RUST_LOG", "info"),
    ])
    .await;
    // A string id, and a traceparent without tracestate.
    let mut request = message_send(
        "why is order 4711 blocked by credit",
        Some(format!("{}/hook", webhook.url)),
    );
    request["id"] = json!("req-1");
    let reply = send(
        running.port,
        Some(&format!("00-{TRACE_ID}-{PARENT_ID}-01")),
        request,
    )
    .await;
    assert_eq!(reply["result"]["status"]["state"], "completed", "{reply}");
    wait_until(Duration::from_secs(10), async || {
        !webhook.at("/hook").is_empty()
    })
    .await;
    assert!(
        seen.lock().unwrap().spans.is_empty() && seen.lock().unwrap().metrics.is_empty(),
        "nothing exported before the batch delay or the shutdown"
    );
    let log = running.terminate().await;

    let seen = seen.lock().unwrap();
    for metric in ["a2a.requests", "a2a.request.duration", "a2a.task.outcomes"] {
        assert!(
            seen.metrics.iter().any(|name| name == metric),
            "{metric} flushed at shutdown: {:?}",
            seen.metrics
        );
    }
    let spans = &seen.spans;
    // Named by its method, as the server span of a JSON-RPC call.
    let request = named(spans, "message/send");
    assert_eq!(request.len(), 1, "one request span: {spans:?}");
    let request = request[0];
    assert_eq!(hex(&request.trace_id), TRACE_ID);
    assert_eq!(hex(&request.parent_span_id), PARENT_ID);
    assert_eq!(attribute(request, "rpc.system").as_deref(), Some("jsonrpc"));
    assert_eq!(
        attribute(request, "rpc.method").as_deref(),
        Some("message/send")
    );
    // Integers and the id itself, as OpenTelemetry's conventions have them.
    assert_eq!(
        int(&request.attributes, "http.response.status_code"),
        Some(200),
        "an IntValue: {:?}",
        request.attributes
    );
    assert_eq!(
        string(&request.attributes, "rpc.jsonrpc.request_id").as_deref(),
        Some("req-1"),
        "the id without JSON quotes: {:?}",
        request.attributes
    );
    assert_eq!(
        attribute(request, "sap.correlation_id").as_deref(),
        Some("corr-7")
    );

    let turn = named(spans, "a2a.turn");
    assert_eq!(turn.len(), 1, "one turn: {spans:?}");
    let turn = turn[0];
    assert_eq!(hex(&turn.trace_id), TRACE_ID);
    assert_eq!(
        turn.parent_span_id, request.span_id,
        "the turn is the request's child"
    );
    assert_eq!(
        attribute(turn, "a2a.task.state").as_deref(),
        Some("completed")
    );
    assert_eq!(
        attribute(turn, "a2a.task.id").as_deref(),
        reply["result"]["id"].as_str()
    );
    assert_eq!(attribute(turn, "a2a.specialist").as_deref(), Some("credit"));
    assert!(attribute(turn, "a2a.router.scores").is_some());

    let specialist = named(spans, "specialist");
    assert_eq!(specialist.len(), 1, "{spans:?}");
    assert_eq!(specialist[0].parent_span_id, turn.span_id);
    let reads = named(spans, "backend.read");
    assert!(!reads.is_empty(), "backend reads are traced: {spans:?}");
    assert!(reads.iter().all(|read| hex(&read.trace_id) == TRACE_ID));
    assert!(
        reads
            .iter()
            .any(|read| attribute(read, "backend.object").as_deref() == Some("sales_order"))
    );

    let pushes = named(spans, "push.delivery");
    assert!(!pushes.is_empty(), "push deliveries are traced: {spans:?}");
    assert!(pushes.iter().all(|push| hex(&push.trace_id) == TRACE_ID));
    assert_eq!(attribute(pushes[0], "push.format").as_deref(), Some("a2a"));
    for push in &pushes {
        assert_eq!(
            int(&push.attributes, "push.attempt"),
            Some(1),
            "an IntValue: {:?}",
            push.attributes
        );
        assert_eq!(
            int(&push.attributes, "http.response.status_code"),
            Some(200),
            "an IntValue: {:?}",
            push.attributes
        );
    }
    // Each webhook call's `traceparent` and `tracestate`, when it had one.
    let calls = webhook.at("/hook");
    let header = |name: &str| -> Vec<Option<String>> {
        calls
            .iter()
            .map(|call| call.headers.get(name).cloned())
            .collect()
    };
    let (hooks, tracestates) = (header("traceparent"), header("tracestate"));
    assert!(
        tracestates.iter().all(Option::is_none),
        "no tracestate header when the request had none: {:?}",
        tracestates
    );
    let sent: Vec<String> = hooks.iter().flatten().cloned().collect();
    assert_eq!(sent.len(), hooks.len(), "every push carries traceparent");
    for traceparent in &sent {
        let parts: Vec<&str> = traceparent.split('-').collect();
        assert_eq!(parts[1], TRACE_ID, "{traceparent}");
        assert!(
            pushes.iter().any(|push| hex(&push.span_id) == parts[2]),
            "the webhook's parent is a push.delivery span: {traceparent}"
        );
    }

    // The per-request log line, as SAP JSON, joined to the request span.
    let line = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["msg"] == "jsonrpc request")
        .unwrap_or_else(|| panic!("a JSON request line: {log:?}"));
    assert_eq!(line["type"], "request", "SAP's request record: {line}");
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["correlation_id"], "corr-7");
    assert_eq!(line["component_type"], "application");
    assert_eq!(line["direction"], "IN");
    assert_eq!(line["request"], "/");
    assert_eq!(line["method"], "POST");
    assert_eq!(line["response_status"], 200);
    assert_eq!(line["remote_ip"], "127.0.0.1");
    assert_eq!(line["response_content_type"], "application/json");
    assert!(line["response_time_ms"].as_f64().is_some_and(|ms| ms > 0.0));
    assert!(line["request_size_b"].as_i64().is_some_and(|b| b > 0));
    assert!(line["response_size_b"].as_i64().is_some_and(|b| b > 0));
    assert_eq!(line["rpc.method"], "message/send");
    assert_eq!(line["rpc.id"], "req-1", "the id without JSON quotes");
    assert_eq!(line["a2a.task.state"], "completed");
    assert_eq!(line["user.id"], "local-user");
    assert_eq!(
        log.iter()
            .filter(|line| line.contains("\"jsonrpc request\""))
            .count(),
        1,
        "one request line per request"
    );
    assert!(line["written_at"].is_string() && line["written_ts"].is_string());
    assert_eq!(line["trace_id"], TRACE_ID);
    assert_eq!(
        line["span_id"].as_str(),
        Some(hex(&request.span_id).as_str())
    );
}

/// `count` credit questions, one after the other, each answered.
async fn ask_about_credit(port: u16, count: u64) {
    for _ in 0..count {
        let reply = send(
            port,
            None,
            message_send("why is order 4711 blocked by credit", None),
        )
        .await;
        assert_eq!(reply["result"]["status"]["state"], "completed", "{reply}");
    }
}

/// Spans dropped so far because the queue was full, from `/metrics`.
async fn dropped_for_a_full_queue(port: u16) -> u64 {
    prometheus_value(
        port,
        "a2a_telemetry_spans_dropped_total{reason=\"queue_full\"}",
    )
    .await
    .unwrap_or(0)
}

#[tokio::test]
async fn a_collector_that_is_down_does_not_slow_requests_and_the_queue_stays_bounded() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}", closed.local_addr().unwrap().port());
    drop(closed);
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        // Nothing leaves the queue before shutdown: it fills and drops.
        ("OTEL_BSP_SCHEDULE_DELAY", "60000"),
        ("OTEL_BSP_MAX_QUEUE_SIZE", "8"),
        ("OTEL_METRICS_EXPORTER", "none"),
        ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ("AGENT__AUTH__MODE", "off"),
        ("RUST_LOG", "info"),
    ])
    .await;
    const REQUESTS: u64 = 20;
    let started = Instant::now();
    ask_about_credit(running.port, REQUESTS).await;
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(5),
        "{REQUESTS} requests took {elapsed:?} with the collector down"
    );
    // Each request ends at least three spans (request, turn, specialist);
    // all but the 8 the queue holds are dropped and counted.
    let dropped = dropped_for_a_full_queue(running.port).await;
    assert!(
        dropped >= REQUESTS * 3 - 8,
        "{dropped} spans counted as dropped"
    );
    let stopping = Instant::now();
    let log = running.terminate().await;
    assert!(
        stopping.elapsed() < Duration::from_secs(9),
        "the shutdown flush is bounded"
    );
    // The shutdown line says how many were lost in all (queue full, and the
    // 8 queued ones whose export failed).
    let line = log
        .iter()
        .find(|line| line.contains("dropped_spans="))
        .unwrap_or_else(|| panic!("a dropped-span count: {log:?}"));
    let total: u64 = line
        .split("dropped_spans=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0);
    assert!(total >= dropped, "{line}");
}

#[tokio::test]
async fn spans_queued_behind_a_slow_collector_are_flushed_at_shutdown() {
    let (url, seen) = receiver().await;
    seen.lock().unwrap().hold_first_export = true;
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "30000"),
        ("OTEL_BSP_SCHEDULE_DELAY", "60000"),
        // Batches of 8: the first is held by the collector, the next 8 wait
        // in the queue, the rest are dropped.
        ("OTEL_BSP_MAX_QUEUE_SIZE", "8"),
        ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ("AGENT__AUTH__MODE", "off"),
    ])
    .await;
    const REQUESTS: u64 = 10;
    ask_about_credit(running.port, REQUESTS).await;
    let dropped = dropped_for_a_full_queue(running.port).await;
    assert!(
        dropped >= REQUESTS * 3 - 16,
        "the queue filled behind the held export: {dropped} spans counted as dropped"
    );
    wait_until(Duration::from_secs(10), async || {
        seen.lock().unwrap().trace_exports > 0
    })
    .await;
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.trace_exports, 1, "one export, held");
        assert!(seen.spans.is_empty() && seen.metrics.is_empty());
    }
    // The metrics' last reading at shutdown releases the held export; the
    // shutdown must still be queued behind the full queue and wait for it.
    let log = running.terminate().await;
    let seen = seen.lock().unwrap();
    assert!(!seen.metrics.is_empty(), "the last metric reading");
    assert_eq!(
        seen.spans.len(),
        16,
        "the held batch and the full queue behind it, flushed at shutdown: {log:?}"
    );
    assert!(
        !log.iter()
            .any(|line| line.contains("did not flush in time")),
        "{log:?}"
    );
}

#[tokio::test]
async fn a_request_record_names_the_id_itself_and_the_json_rpc_error_code_only_for_errors() {
    let running = start_binary(&[
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__MODE", "off"),
    ])
    .await;
    let answered = send(
        running.port,
        None,
        message_send("why is order 4711 blocked by credit", None),
    )
    .await;
    assert_eq!(
        answered["result"]["status"]["state"], "completed",
        "{answered}"
    );
    let unknown = send(
        running.port,
        None,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/unknown", "params": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let missing = send(
        running.port,
        None,
        json!({"jsonrpc": "2.0", "id": "req-3", "method": "tasks/get", "params": {"id": "no-such-task"}}),
    )
    .await;
    assert_eq!(missing["error"]["code"], -32001, "{missing}");
    let log = running.terminate().await;
    let codes: Vec<(String, Option<i64>)> = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "request")
        .map(|record| {
            (
                record["rpc.id"].as_str().unwrap_or("").to_string(),
                record.get("rpc.error_code").and_then(Value::as_i64),
            )
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            ("1".to_string(), None),
            ("2".to_string(), Some(-32601)),
            ("req-3".to_string(), Some(-32001)),
        ],
        "{log:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_is_a_child_span_with_issuer_client_and_outcome_never_the_token() {
    use crate::helpers::key_server::*;
    let keys = KeyServer::start().await;
    let (url, seen) = receiver().await;
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ("AGENT__AUTH__CLIENT_ID", CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", "accounts.test"),
        ("AGENT__AUTH__APP_TID", APP_TID),
        ("AGENT__AUTH__URL", ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", &keys.url),
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
    ])
    .await;
    let good = token(&user_claims());
    let expired = token(&with(user_claims(), "exp", json!(now() - 3600)));
    let body = message_send("why is order 4711 blocked by credit", None);
    for (token, status) in [(&good, 200), (&good, 200), (&expired, 401)] {
        let response = crate::helpers::http_client()
            .post(format!("http://127.0.0.1:{}/", running.port))
            .header("Authorization", format!("Bearer {token}"))
            .header("traceparent", format!("00-{TRACE_ID}-{PARENT_ID}-01"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status);
    }
    let count = |name: &str| {
        seen.lock()
            .unwrap()
            .spans
            .iter()
            .filter(|s| s.name == name)
            .count()
    };
    wait_until(Duration::from_secs(10), async || count("authenticate") >= 3).await;
    let rejections = prometheus_value(
        running.port,
        "a2a_token_rejections_total{reason=\"expired\"}",
    )
    .await;
    let log = running.terminate().await;
    keys.stop().await;
    // One request record per call, the refused one included.
    let records: Vec<Value> = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "request")
        .collect();
    let statuses: Vec<(i64, String)> = records
        .iter()
        .map(|r| {
            (
                r["response_status"].as_i64().unwrap_or(0),
                r["user.id"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            (200, "user-uuid-42".to_string()),
            (200, "user-uuid-42".to_string()),
            (401, "-".to_string()),
        ]
    );

    let seen = seen.lock().unwrap();
    let auths = named(&seen.spans, "authenticate");
    assert_eq!(auths.len(), 3, "{:?}", seen.spans);
    // The request spans: `message/send`, and `jsonrpc` for the refused one.
    let requests: Vec<&Span> = seen
        .spans
        .iter()
        .filter(|span| span.name == "message/send" || span.name == "jsonrpc")
        .collect();
    for auth in &auths {
        assert_eq!(hex(&auth.trace_id), TRACE_ID);
        assert!(
            requests.iter().any(|r| r.span_id == auth.parent_span_id),
            "authentication is a child of its request span"
        );
        assert_eq!(
            attribute(auth, "auth.issuer_host").as_deref(),
            Some("tenant.accounts.test")
        );
    }
    let outcomes: Vec<Option<String>> =
        auths.iter().map(|a| attribute(a, "auth.outcome")).collect();
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| o.as_deref() == Some("ok"))
            .count(),
        2,
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains(&Some("invalid".to_string())),
        "{outcomes:?}"
    );
    let accepted = auths
        .iter()
        .find(|a| attribute(a, "auth.outcome").as_deref() == Some("ok"))
        .unwrap();
    assert_eq!(
        attribute(accepted, "auth.client_id").as_deref(),
        Some("joule-proxy-client")
    );
    // Neither the token nor its signature is in any exported attribute.
    let exported = format!("{:?}", seen.spans);
    for token in [&good, &expired] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(!exported.contains(signature), "a token was exported");
    }
    assert_eq!(rejections, Some(1), "the refused token is counted");
}

#[tokio::test]
async fn an_approval_and_its_ledger_write_are_traced() {
    let (url, seen) = receiver().await;
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("AGENT__AUTH__MODE", "off"),
    ])
    .await;
    let asked = send_as(
        running.port,
        None,
        "ar_clerk",
        message_send("Order 4725: Pricing: customer disputes the price.", None),
    )
    .await;
    let task = &asked["result"];
    assert_eq!(task["status"]["state"], "input-required", "{asked}");
    let mut approve = message_send("approve", None);
    approve["params"]["message"]["taskId"] = task["id"].clone();
    approve["params"]["message"]["contextId"] = task["contextId"].clone();
    let filed = send_as(running.port, None, "ar_clerk", approve).await;
    assert_eq!(filed["result"]["status"]["state"], "completed", "{filed}");
    // Exported by the batch delay, before any shutdown.
    let has = |name: &str| seen.lock().unwrap().spans.iter().any(|s| s.name == name);
    wait_until(Duration::from_secs(10), async || {
        has("approval") && has("ledger.write") && has("rulebook.decision")
    })
    .await;
    {
        let seen = seen.lock().unwrap();
        let approval = named(&seen.spans, "approval");
        assert_eq!(approval.len(), 1, "{:?}", seen.spans);
        assert_eq!(
            attribute(approval[0], "approval.decision").as_deref(),
            Some("Approve")
        );
        assert_eq!(
            attribute(approval[0], "sap.sales_order").as_deref(),
            Some("4725")
        );
        // The rule book was asked twice: when offering, and again when filing.
        let decisions = named(&seen.spans, "rulebook.decision");
        assert_eq!(decisions.len(), 2, "{:?}", seen.spans);
        for decision in decisions {
            assert_eq!(
                attribute(decision, "rules.decision").as_deref(),
                Some("granted")
            );
            assert_eq!(
                attribute(decision, "rules.role").as_deref(),
                Some("ar_clerk")
            );
            assert_eq!(
                attribute(decision, "rules.specialist").as_deref(),
                Some("pricing")
            );
        }
        let write = named(&seen.spans, "ledger.write");
        assert_eq!(write.len(), 1, "{:?}", seen.spans);
        assert_eq!(write[0].parent_span_id, approval[0].span_id);
        assert_eq!(
            attribute(write[0], "ledger.outcome").as_deref(),
            Some("filed")
        );
    }
    running.terminate().await;
}

#[tokio::test]
async fn metrics_are_served_as_prometheus_text_only_when_asked() {
    let off = crate::helpers::TestApp::spawn().await;
    let status = crate::helpers::http_client()
        .get(format!("{}/metrics", off.address))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 404, "/metrics is off by default");

    let running = start_binary(&[
        ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ("AGENT__AUTH__MODE", "off"),
    ])
    .await;
    let reply = send(
        running.port,
        None,
        message_send("why is order 4711 blocked by credit", None),
    )
    .await;
    assert_eq!(reply["result"]["status"]["state"], "completed", "{reply}");
    let response = crate::helpers::http_client()
        .get(format!("http://127.0.0.1:{}/metrics", running.port))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = response.text().await.unwrap();
    for expected in [
        "a2a_requests_total{method=\"message/send\",outcome=\"ok\"} 1",
        "a2a_request_duration_seconds_count{method=\"message/send\"} 1",
        "a2a_task_outcomes_total{state=\"completed\",specialist=\"credit\"} 1",
        "a2a_budget_expiries_total 0",
    ] {
        assert!(text.contains(expected), "{expected} in {text}");
    }
    running.terminate().await;
}

#[tokio::test]
async fn a_budget_expiry_is_an_event_of_the_request_span_and_counted() {
    let (url, seen) = receiver().await;
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("AGENT__TELEMETRY__METRICS_ENDPOINT", "true"),
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__TASKS__BUDGET_MS", "100"),
        ("AGENT__BACKEND__LATENCY_MS", "400"),
    ])
    .await;
    let reply = send(
        running.port,
        None,
        message_send("why is order 4711 blocked by credit", None),
    )
    .await;
    assert_eq!(reply["result"]["status"]["state"], "working", "{reply}");
    let turn_done = || {
        seen.lock()
            .unwrap()
            .spans
            .iter()
            .any(|span| span.name == "a2a.turn")
    };
    wait_until(Duration::from_secs(10), async || turn_done()).await;
    {
        let seen = seen.lock().unwrap();
        let request = named(&seen.spans, "message/send");
        assert_eq!(request.len(), 1, "{:?}", seen.spans);
        assert!(
            request[0]
                .events
                .iter()
                .any(|event| event.name.starts_with("budget expired")),
            "{:?}",
            request[0].events
        );
        assert_eq!(
            attribute(request[0], "a2a.task.state").as_deref(),
            Some("working")
        );
        let turn = named(&seen.spans, "a2a.turn");
        assert_eq!(turn.len(), 1);
        assert_eq!(turn[0].parent_span_id, request[0].span_id);
        assert_eq!(
            attribute(turn[0], "a2a.task.state").as_deref(),
            Some("completed")
        );
    }
    assert_eq!(
        prometheus_value(running.port, "a2a_budget_expiries_total").await,
        Some(1)
    );
    running.terminate().await;
}

#[tokio::test]
async fn otel_certificate_variables_give_http_mutual_tls() {
    let server_pki = Pki::new("collector CA");
    let client_pki = Pki::new("client CA");
    let (url, seen) = receiver_over(Some(mutual_tls(&server_pki, &client_pki))).await;
    let client = client_pki.leaf(&["order-agent"], ExtendedKeyUsagePurpose::ClientAuth);
    let files = PemFiles::write(&server_pki.ca_pem, &client);
    let mut envs = vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("AGENT__AUTH__MODE", "off"),
        ("RUST_LOG", "info"),
    ];
    envs.extend(files.variables());
    let running = start_binary(&envs).await;
    let reply = send(
        running.port,
        Some(&format!("00-{TRACE_ID}-{PARENT_ID}-01")),
        message_send("why is order 4711 blocked by credit", None),
    )
    .await;
    assert_eq!(reply["result"]["status"]["state"], "completed", "{reply}");
    let has_request = || {
        seen.lock()
            .unwrap()
            .spans
            .iter()
            .any(|s| s.name == "message/send")
    };
    wait_until(Duration::from_secs(10), async || has_request()).await;
    let log = running.terminate().await.join("\n");
    let seen = seen.lock().unwrap();
    let request = named(&seen.spans, "message/send");
    assert_eq!(request.len(), 1, "the span came over mutual TLS: {log}");
    assert_eq!(hex(&request[0].trace_id), TRACE_ID);
    assert!(
        log.contains(&format!("traces over OTLP/HTTP to {url}/v1/traces")),
        "{log}"
    );
}
