//! What the on-call engineer starts from, read where they read it: the
//! OTLP export (spans and metrics, from a loopback collector) and the SAP
//! JSON log lines of the real binary. One test per thing they would
//! otherwise miss: a task found from its id in the logs, failures marked as
//! failures, S/4HANA measured, push give-ups told apart, token rejections
//! by reason and throttled, state and zero counts exported, and the
//! conventions' names.

use crate::doubles::destination::{self, Destination, DestinationDouble};
use crate::doubles::otlp::{Collector, STATUS_ERROR, int, status, text};
use crate::doubles::s4hana::{S4Double, Step};
use crate::helpers::binary::{Running, start_binary};
use crate::helpers::key_server::{self, KeyServer};
use crate::helpers::wait_until;
use crate::helpers::webhook::WebhookReceiver;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::{Value, json};
use std::time::Duration;

/// The JSON log lines among everything the binary wrote.
fn json_lines(log: &[String]) -> Vec<Value> {
    log.iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .collect()
}

/// The server spans (one per request).
fn server_spans(spans: &[Span]) -> Vec<&Span> {
    spans
        .iter()
        .filter(|span| span.kind == SpanKind::Server as i32)
        .collect()
}

async fn call(port: u16, body: Value) -> Value {
    crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{port}/"))
        .header("x-correlationid", "corr-oncall")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn message_send(text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": {"message": crate::helpers::user_message(text),
                   "configuration": {"blocking": true}}})
}

/// Cloud Logging finds a task by its id: the request line of every call
/// names the task and its context (also a `tasks/get`, which sent only the
/// task id), under the names the spans use; no log line says `task.id`.
#[tokio::test]
async fn the_request_line_names_the_task_and_context_as_the_spans_do() {
    let collector = Collector::start().await;
    let webhook = WebhookReceiver::start().await;
    let mut envs = collector.variables().to_vec();
    envs.extend([
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1"),
        ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true"),
    ]);
    let running = start_binary(&envs).await;
    let mut send = message_send("why is order 4711 blocked by credit");
    send["params"]["configuration"]["pushNotificationConfig"] =
        json!({"url": format!("{}/hook", webhook.url)});
    let sent = call(running.port, send).await;
    let task_id = sent["result"]["id"].as_str().expect("a task").to_string();
    let context_id = sent["result"]["contextId"].as_str().unwrap().to_string();
    let got = call(
        running.port,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}),
    )
    .await;
    assert_eq!(got["result"]["id"], task_id.as_str(), "{got}");
    webhook.wait_for("/hook", 1).await;
    wait_until(Duration::from_secs(10), async || {
        server_spans(&collector.spans()).len() >= 2
    })
    .await;
    let log = json_lines(&running.terminate().await);

    let requests: Vec<&Value> = log
        .iter()
        .filter(|line| line["type"] == "request")
        .collect();
    assert_eq!(requests.len(), 2, "{log:?}");
    for line in &requests {
        assert_eq!(line["a2a.task.id"], task_id.as_str(), "{line}");
        assert_eq!(line["a2a.context.id"], context_id.as_str(), "{line}");
    }
    assert!(
        log.iter().all(|line| line.get("task.id").is_none()),
        "one name for the task id in logs and spans: {log:?}"
    );
    let delivered = log
        .iter()
        .find(|line| line["msg"] == "push delivery")
        .unwrap_or_else(|| panic!("a delivery line: {log:?}"));
    assert_eq!(delivered["a2a.task.id"], task_id.as_str());

    let spans = collector.spans();
    let servers = server_spans(&spans);
    assert_eq!(servers.len(), 2, "{spans:?}");
    for span in &servers {
        assert_eq!(
            text(&span.attributes, "a2a.task.id").as_deref(),
            Some(task_id.as_str())
        );
        assert_eq!(
            text(&span.attributes, "a2a.context.id").as_deref(),
            Some(context_id.as_str())
        );
    }
    let turn = collector.named("a2a.turn");
    assert_eq!(
        text(&turn[0].attributes, "a2a.task.id").as_deref(),
        Some(task_id.as_str())
    );
}

/// Failures are marked as failures: a JSON-RPC error answer and a request
/// refused over HTTP make their server span ERROR with a message and
/// `error.type` (the JSON-RPC code, the HTTP status); a failed turn makes
/// its `a2a.turn` span ERROR with what the user was told; a successful
/// call and turn stay unset.
#[tokio::test]
async fn error_answers_and_failed_turns_are_error_spans_with_a_message_and_error_type() {
    let collector = Collector::start().await;
    let mut envs = collector.variables().to_vec();
    envs.push(("AGENT__AUTH__MODE", "off"));
    let running = start_binary(&envs).await;
    let failed = call(
        running.port,
        message_send("why is order 9999 blocked by credit"),
    )
    .await;
    assert_eq!(failed["result"]["status"]["state"], "failed", "{failed}");
    let completed = call(
        running.port,
        message_send("why is order 4711 blocked by credit"),
    )
    .await;
    assert_eq!(
        completed["result"]["status"]["state"], "completed",
        "{completed}"
    );
    let unknown = call(
        running.port,
        json!({"jsonrpc": "2.0", "id": "get-1", "method": "tasks/get", "params": {"id": "no-such-task"}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    let refused = crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{}/", running.port))
        .header("content-type", "text/plain")
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 415);
    wait_until(Duration::from_secs(10), async || {
        server_spans(&collector.spans()).len() >= 4 && collector.named("a2a.turn").len() >= 2
    })
    .await;
    running.terminate().await;

    let spans = collector.spans();
    let servers = server_spans(&spans);
    let by_id = |id: &str| {
        servers
            .iter()
            .find(|span| text(&span.attributes, "rpc.jsonrpc.request_id").as_deref() == Some(id))
            .copied()
            .unwrap_or_else(|| panic!("the span of request {id}: {servers:?}"))
    };
    let get = by_id("get-1");
    let (code, message) = status(get);
    assert_eq!(code, STATUS_ERROR, "{get:?}");
    assert!(!message.is_empty(), "a message: {get:?}");
    assert_eq!(
        text(&get.attributes, "error.type").as_deref(),
        Some("-32001")
    );
    let transport = servers
        .iter()
        .find(|span| int(&span.attributes, "http.response.status_code") == Some(415))
        .unwrap_or_else(|| panic!("the 415: {servers:?}"));
    assert_eq!(status(transport).0, STATUS_ERROR);
    assert_eq!(
        text(&transport.attributes, "error.type").as_deref(),
        Some("415")
    );
    for ok in servers
        .iter()
        .filter(|span| text(&span.attributes, "a2a.task.state").is_some())
    {
        assert_eq!(status(ok).0, 0, "a result is no error: {ok:?}");
        assert!(text(&ok.attributes, "error.type").is_none());
    }

    let turns = collector.named("a2a.turn");
    let failed_turn = turns
        .iter()
        .find(|turn| text(&turn.attributes, "a2a.task.state").as_deref() == Some("failed"))
        .expect("the failed turn");
    let (code, message) = status(failed_turn);
    assert_eq!(code, STATUS_ERROR);
    assert!(message.contains("9999 not found"), "{message}");
    assert_eq!(
        text(&failed_turn.attributes, "error.type").as_deref(),
        Some("agent_failed")
    );
    let completed_turn = turns
        .iter()
        .find(|turn| text(&turn.attributes, "a2a.task.state").as_deref() == Some("completed"))
        .expect("the completed turn");
    assert_eq!(status(completed_turn).0, 0);
}

/// The S/4HANA source of the real binary through the Destination double,
/// as a person (the key server's user token), exporting to `collector`.
struct S4Setup {
    keys: KeyServer,
    s4: S4Double,
    destinations: DestinationDouble,
}

impl S4Setup {
    async fn start() -> S4Setup {
        let keys = KeyServer::start().await;
        let s4 = S4Double::start().await;
        let destinations =
            DestinationDouble::start(vec![Destination::saml_bearer("S4HANA_ORDERS", &s4.url)])
                .await;
        S4Setup {
            keys,
            s4,
            destinations,
        }
    }

    async fn binary(&self, collector: &Collector, more: &[(&str, &str)]) -> Running {
        let mut envs: Vec<(&str, &str)> = collector.variables().to_vec();
        envs.extend([
            ("AGENT__AUTH__CLIENT_ID", key_server::CLIENT_ID),
            ("AGENT__AUTH__DOMAINS", "accounts.test"),
            ("AGENT__AUTH__APP_TID", key_server::APP_TID),
            ("AGENT__AUTH__URL", key_server::ISSUER),
            ("AGENT__AUTH__TEST_KEY_SERVER", self.keys.url.as_str()),
            ("AGENT__BACKEND__SOURCE", "s4hana"),
            ("AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP", "true"),
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__TOKEN_URL",
                self.destinations.url.as_str(),
            ),
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__URI",
                self.destinations.url.as_str(),
            ),
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__CLIENT_ID",
                destination::CLIENT_ID,
            ),
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__CLIENT_SECRET",
                destination::CLIENT_SECRET,
            ),
        ]);
        envs.extend_from_slice(more);
        start_binary(&envs).await
    }
}

/// `message/send` of `text` as the key server's user, with a correlation id.
async fn ask_as_user(port: u16, text: &str, correlation: &str) -> Value {
    crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{port}/"))
        .bearer_auth(key_server::token(&key_server::user_claims()))
        .header("x-correlationid", correlation)
        .json(&message_send(text))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// S/4HANA is measured and its calls follow the HTTP client conventions:
/// one client span per attempt (the retry with `http.request.resend_count`)
/// under the read's `backend.read`, with method, server, port and the
/// OData URL template (no order number); a 503 and a 500 are ERROR with
/// `error.type`, and so is a read that fails; the Destination service and
/// its token endpoint are client spans too; S/4HANA gets `traceparent` and
/// the caller's `x-correlationid`; `http.client.request.duration` counts
/// the attempts by OData service and status, and `a2a.s4hana.retries` the
/// retry, with every service read so far at least at 0.
#[tokio::test]
async fn s4hana_calls_are_client_spans_per_attempt_and_measured_by_service() {
    let setup = S4Setup::start().await;
    setup
        .s4
        .script("A_SalesOrder('4711')", vec![Step::StatusRetryAfter(503, 0)]);
    setup.s4.always("A_SalesOrder('4712')", Step::Status(500));
    let collector = Collector::start().await;
    let running = setup.binary(&collector, &[]).await;
    let answered = ask_as_user(
        running.port,
        "why is order 4711 blocked by credit",
        "corr-s4",
    )
    .await;
    assert_eq!(
        answered["result"]["status"]["state"], "completed",
        "{answered}"
    );
    let failed = ask_as_user(
        running.port,
        "why is order 4712 blocked by credit",
        "corr-s4b",
    )
    .await;
    assert_eq!(failed["result"]["status"]["state"], "failed", "{failed}");
    let order_attempts = || {
        collector
            .spans()
            .into_iter()
            .filter(|span| {
                span.kind == SpanKind::Client as i32
                    && text(&span.attributes, "url.template").as_deref()
                        == Some("/sap/opu/odata/sap/API_SALES_ORDER_SRV/A_SalesOrder({key})")
            })
            .collect::<Vec<_>>()
    };
    wait_until(Duration::from_secs(10), async || {
        order_attempts().len() >= 3
            && collector
                .value(
                    "a2a.s4hana.retries",
                    &[("odata.service", "API_SALES_ORDER_SRV")],
                )
                .is_some_and(|retries| retries >= 1.0)
    })
    .await;
    running.terminate().await;

    let attempts = order_attempts();
    let with_status = |code: i64| {
        attempts
            .iter()
            .find(|span| int(&span.attributes, "http.response.status_code") == Some(code))
            .unwrap_or_else(|| panic!("an attempt answered {code}: {attempts:?}"))
    };
    let (refused, retried, broken) = (with_status(503), with_status(200), with_status(500));
    assert_eq!(status(refused).0, STATUS_ERROR, "{refused:?}");
    assert_eq!(
        text(&refused.attributes, "error.type").as_deref(),
        Some("503")
    );
    assert_eq!(int(&refused.attributes, "http.request.resend_count"), None);
    assert_eq!(status(retried).0, 0, "{retried:?}");
    assert_eq!(
        int(&retried.attributes, "http.request.resend_count"),
        Some(1)
    );
    assert_eq!(
        refused.parent_span_id, retried.parent_span_id,
        "one read, two attempts"
    );
    assert_eq!(status(broken).0, STATUS_ERROR);
    assert_eq!(
        text(&broken.attributes, "error.type").as_deref(),
        Some("500")
    );
    for attempt in [refused, retried, broken] {
        assert_eq!(
            text(&attempt.attributes, "http.request.method").as_deref(),
            Some("GET")
        );
        assert_eq!(
            text(&attempt.attributes, "server.address").as_deref(),
            Some("127.0.0.1")
        );
        assert!(int(&attempt.attributes, "server.port").is_some());
        assert!(
            !format!("{:?}", attempt.attributes).contains("4711"),
            "no order number outside the read span: {attempt:?}"
        );
    }
    let reads = collector.named("backend.read");
    let failed_read = reads
        .iter()
        .find(|read| read.span_id == broken.parent_span_id)
        .expect("the failed read");
    let (code, message) = status(failed_read);
    assert_eq!(code, STATUS_ERROR);
    assert!(!message.is_empty());
    assert_eq!(
        text(&failed_read.attributes, "error.type").as_deref(),
        Some("500")
    );
    let spans = collector.spans();
    let named_client = |template: &str| {
        spans.iter().any(|span| {
            span.kind == SpanKind::Client as i32
                && text(&span.attributes, "url.template").as_deref() == Some(template)
        })
    };
    assert!(named_client(
        "/destination-configuration/v1/destinations/{name}"
    ));
    assert!(named_client("/oauth/token"));

    let calls = setup.s4.requests();
    let order_calls: Vec<_> = calls
        .iter()
        .filter(|call| call.target.contains("A_SalesOrder('4711')"))
        .collect();
    assert!(!order_calls.is_empty());
    for call in order_calls {
        assert_eq!(call.header("x-correlationid"), Some("corr-s4"), "{call:?}");
        assert!(call.header("traceparent").is_some(), "{call:?}");
    }

    let s4_sales = [
        ("peer.service", "s4hana"),
        ("odata.service", "API_SALES_ORDER_SRV"),
    ];
    let count = |more: &[(&str, &str)]| {
        let mut labels = s4_sales.to_vec();
        labels.extend_from_slice(more);
        collector
            .value("http.client.request.duration", &labels)
            .unwrap_or(0.0)
    };
    assert!(count(&[("http.response.status_code", "503"), ("error.type", "503")]) >= 1.0);
    assert!(count(&[("http.response.status_code", "500"), ("error.type", "500")]) >= 1.0);
    assert!(count(&[("http.response.status_code", "200")]) >= 1.0);
    assert!(
        collector
            .value(
                "http.client.request.duration",
                &[("peer.service", "destination")]
            )
            .is_some()
    );
    let retries = collector.metric("a2a.s4hana.retries").expect("the retries");
    assert!(
        retries.iter().any(|point| point.value == 0.0),
        "a service read without retries is there at 0: {retries:?}"
    );
    setup.keys.stop().await;
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// Push failures can be told apart: a webhook that answers 500 makes each
/// attempt an ERROR `push.delivery` span (`error.type` 500, the retry with
/// `http.request.resend_count`), counts its attempts as failed and the
/// delivery once as given up with its reason and format (the outcomes that
/// did not happen are there at 0), and the give-up line is a warning that
/// names the trace, the caller's correlation id, the attempts made and the
/// last status.
#[tokio::test]
async fn a_push_given_up_is_counted_once_with_its_reason_and_logged_with_trace_and_status() {
    let collector = Collector::start().await;
    let webhook = WebhookReceiver::start().await;
    webhook.fail("/hook", 100);
    let mut envs = collector.variables().to_vec();
    envs.extend([
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1"),
        ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true"),
        ("AGENT__PUSH__MAX_ATTEMPTS", "2"),
        ("AGENT__PUSH__RETRY_BASE_MS", "10"),
    ]);
    let running = start_binary(&envs).await;
    let mut send = message_send("why is order 4711 blocked by credit");
    send["params"]["configuration"]["pushNotificationConfig"] =
        json!({"url": format!("{}/hook", webhook.url)});
    let sent = crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{}/", running.port))
        .header("x-correlationid", "corr-push")
        .header("traceparent", format!("00-{TRACE_ID}-00f067aa0ba902b7-01"))
        .json(&send)
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let task_id = sent["result"]["id"].as_str().expect("a task").to_string();
    let given_up = [
        ("result", "given_up"),
        ("reason", "status_5xx"),
        ("format", "a2a"),
    ];
    wait_until(Duration::from_secs(10), async || {
        collector.value("a2a.push.deliveries", &given_up) == Some(1.0)
            && collector.named("push.delivery").len() >= 2
    })
    .await;
    let log = json_lines(&running.terminate().await);

    assert_eq!(collector.value("a2a.push.deliveries", &given_up), Some(1.0));
    assert_eq!(
        collector.value(
            "a2a.push.deliveries",
            &[
                ("result", "delivered"),
                ("reason", "-"),
                ("format", "joule")
            ]
        ),
        Some(0.0),
        "an outcome that did not happen is there at 0"
    );
    assert_eq!(
        collector.value(
            "a2a.push.attempts",
            &[("result", "failed"), ("format", "a2a")]
        ),
        Some(2.0)
    );
    assert_eq!(
        collector.value(
            "http.client.request.duration",
            &[("peer.service", "webhook"), ("error.type", "500")]
        ),
        Some(2.0)
    );
    let attempts = collector.named("push.delivery");
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    for attempt in &attempts {
        assert_eq!(status(attempt).0, STATUS_ERROR, "{attempt:?}");
        assert_eq!(
            text(&attempt.attributes, "error.type").as_deref(),
            Some("500")
        );
        assert_eq!(
            text(&attempt.attributes, "http.request.method").as_deref(),
            Some("POST")
        );
        assert_eq!(
            text(&attempt.attributes, "server.address").as_deref(),
            Some("127.0.0.1")
        );
    }
    let resends: Vec<Option<i64>> = attempts
        .iter()
        .map(|attempt| int(&attempt.attributes, "http.request.resend_count"))
        .collect();
    assert!(
        resends.contains(&None) && resends.contains(&Some(1)),
        "{resends:?}"
    );

    let failed_tries: Vec<&Value> = log
        .iter()
        .filter(|line| line["msg"] == "push delivery failed")
        .collect();
    assert_eq!(failed_tries.len(), 2, "{log:?}");
    assert!(failed_tries.iter().all(|line| line["level"] == "WARN"));
    let line = log
        .iter()
        .find(|line| line["msg"] == "push delivery given up")
        .unwrap_or_else(|| panic!("the give-up line: {log:?}"));
    assert_eq!(line["level"], "WARN");
    assert_eq!(line["trace_id"], TRACE_ID, "{line}");
    assert_eq!(line["correlation_id"], "corr-push", "{line}");
    assert_eq!(line["push.attempts"], 2, "{line}");
    assert_eq!(line["push.status"], 500, "{line}");
    assert_eq!(line["push.reason"], "status_5xx", "{line}");
    assert_eq!(line["push.format"], "a2a", "{line}");
    assert_eq!(line["a2a.task.id"], task_id.as_str(), "{line}");
}

/// Token rejections by reason: expired, bad signature, unknown key, wrong
/// audience, wrong tenant and malformed tokens each count under their own
/// `reason`, every refused call counts in `a2a.requests` (method `-`,
/// outcome the HTTP status), the `authenticate` span is ERROR with the
/// reason as `error.type`, and a reason repeated at speed is logged once
/// per interval, not once per call.
#[tokio::test]
async fn token_rejections_are_counted_by_reason_and_logged_once_per_reason() {
    use crate::helpers::key_server::{now, sign, token, user_claims, with};
    let keys = KeyServer::start().await;
    let collector = Collector::start().await;
    let mut envs = collector.variables().to_vec();
    envs.extend([
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__CLIENT_ID", key_server::CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", "accounts.test"),
        ("AGENT__AUTH__APP_TID", key_server::APP_TID),
        ("AGENT__AUTH__URL", key_server::ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", keys.url.as_str()),
    ]);
    let running = start_binary(&envs).await;
    let expired = token(&with(user_claims(), "exp", json!(now() - 3600)));
    let cases: Vec<(&str, String, usize)> = vec![
        ("expired", expired, 5),
        (
            "bad_signature",
            sign(&user_claims(), Some("key-1"), "attacker"),
            2,
        ),
        (
            "unknown_key",
            sign(&user_claims(), Some("key-2"), "key-2"),
            1,
        ),
        (
            "wrong_audience",
            token(&with(user_claims(), "aud", json!("someone-else"))),
            1,
        ),
        (
            "wrong_tenant",
            token(&with(user_claims(), "app_tid", json!("another-tenant"))),
            1,
        ),
        ("malformed", "not-a-jwt".to_string(), 1),
    ];
    for (reason, bearer, times) in &cases {
        for _ in 0..*times {
            let response = crate::helpers::http_client()
                .post(format!("http://127.0.0.1:{}/", running.port))
                .bearer_auth(bearer)
                .json(&message_send("why is order 4711 blocked by credit"))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 401, "{reason}");
        }
    }
    let refused: usize = cases.iter().map(|(_, _, times)| times).sum();
    wait_until(Duration::from_secs(10), async || {
        collector
            .value("a2a.requests", &[("rpc.method", "-"), ("outcome", "401")])
            .is_some_and(|count| count as usize >= refused)
    })
    .await;
    let log = json_lines(&running.terminate().await);
    keys.stop().await;

    for (reason, _, times) in &cases {
        assert_eq!(
            collector.value("a2a.token.rejections", &[("reason", reason)]),
            Some(*times as f64),
            "{reason}"
        );
        let lines: Vec<&Value> = log
            .iter()
            .filter(|line| {
                line["msg"] == "request rejected by authentication"
                    && line["auth.reason"] == *reason
            })
            .collect();
        assert_eq!(
            lines.len(),
            1,
            "one line for {reason} within the interval: {log:?}"
        );
        assert_eq!(lines[0]["level"], "WARN");
        assert_eq!(
            lines[0]["rejections_not_logged"], 0,
            "the first line of its reason"
        );
    }
    assert_eq!(
        collector.value("a2a.token.rejections", &[("reason", "invalid")]),
        None,
        "no catch-all reason"
    );
    assert_eq!(
        collector.value("a2a.requests", &[("rpc.method", "-"), ("outcome", "401")]),
        Some(refused as f64),
        "refused calls are requests too"
    );
    let auths = collector.named("authenticate");
    let expired_spans: Vec<_> = auths
        .iter()
        .filter(|span| text(&span.attributes, "error.type").as_deref() == Some("expired"))
        .collect();
    assert_eq!(expired_spans.len(), 5, "{auths:?}");
    assert!(
        expired_spans
            .iter()
            .all(|span| status(span).0 == STATUS_ERROR)
    );
}

/// State, and zero, are exported: the first OTLP reading of a fresh
/// instance already has every counter of a fixed label set at 0 (requests
/// per method, the known specialists' outcomes, push outcomes, token
/// rejection reasons, store errors, lease expiries); a turn that runs shows
/// in `a2a.turns.running` and `a2a.tasks.open`; a turn whose instance was
/// killed ends `failed` on the survivor and counts as a lease expiry; the
/// store's calls are timed.
#[tokio::test]
async fn state_gauges_lease_expiries_and_counters_at_zero_are_exported() {
    let dir = std::env::temp_dir().join(format!("oea-oncall-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir_text = dir.to_string_lossy().to_string();
    let store = [
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__STORE__BACKEND", "sqlite"),
        ("AGENT__STORE__DATA_DIR", dir_text.as_str()),
        ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3"),
        ("AGENT__STORE__LEASE_SECS", "1"),
        ("AGENT__STORE__SWEEP_INTERVAL_SECS", "1"),
        ("AGENT__BACKEND__LATENCY_MS", "4000"),
    ];
    let not_blocking = |text: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": {"message": crate::helpers::user_message(text),
                       "configuration": {"blocking": false}}})
    };
    // An instance that dies in the middle of a turn.
    let mut doomed = start_binary(&store).await;
    let started = call(
        doomed.port,
        not_blocking("why is order 4711 blocked by credit"),
    )
    .await;
    assert_eq!(started["result"]["status"]["state"], "working", "{started}");
    tokio::time::sleep(Duration::from_millis(600)).await;
    doomed.child.kill().expect("kill -9");
    let _ = doomed.child.wait();

    let collector = Collector::start().await;
    let mut envs = collector.variables().to_vec();
    envs.extend(store);
    let survivor = start_binary(&envs).await;
    wait_until(Duration::from_secs(10), async || {
        collector.first_metric("a2a.requests").is_some()
    })
    .await;
    let first = |name: &str, labels: &[(&str, &str)]| {
        collector.first_metric(name).and_then(|points| {
            points
                .iter()
                .find(|point| {
                    labels
                        .iter()
                        .all(|(key, value)| point.label(key).as_deref() == Some(*value))
                })
                .map(|point| point.value)
        })
    };
    for (name, labels) in [
        (
            "a2a.requests",
            vec![("rpc.method", "message/send"), ("outcome", "ok")],
        ),
        (
            "a2a.requests",
            vec![("rpc.method", "tasks/get"), ("outcome", "ok")],
        ),
        (
            "a2a.task.outcomes",
            vec![("a2a.task.state", "failed"), ("a2a.specialist", "credit")],
        ),
        (
            "a2a.push.deliveries",
            vec![
                ("result", "given_up"),
                ("reason", "status_5xx"),
                ("format", "joule"),
            ],
        ),
        ("a2a.token.rejections", vec![("reason", "bad_signature")]),
        ("a2a.store.errors", vec![("error.type", "unavailable")]),
        ("a2a.budget.expiries", vec![]),
        (
            "a2a.telemetry.spans.dropped",
            vec![("reason", "queue_full")],
        ),
    ] {
        assert_eq!(
            first(name, &labels),
            Some(0.0),
            "{name} {labels:?} at 0 from the start"
        );
    }

    // The survivor's sweep ends the dead instance's task.
    wait_until(Duration::from_secs(15), async || {
        collector.value("a2a.task.lease_expiries", &[]) == Some(1.0)
    })
    .await;
    assert_eq!(collector.value("a2a.task.lease_expiries", &[]), Some(1.0));
    let task = call(
        survivor.port,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
               "params": {"id": started["result"]["id"]}}),
    )
    .await;
    assert_eq!(task["result"]["status"]["state"], "failed", "{task}");

    // A turn of its own: running, and open in the store.
    let running = call(
        survivor.port,
        not_blocking("why is order 4711 blocked by credit"),
    )
    .await;
    assert_eq!(running["result"]["status"]["state"], "working", "{running}");
    wait_until(Duration::from_secs(5), async || {
        collector.value("a2a.turns.running", &[]) == Some(1.0)
            && collector.value("a2a.tasks.open", &[]) == Some(1.0)
    })
    .await;
    assert_eq!(collector.value("a2a.turns.running", &[]), Some(1.0));
    assert_eq!(collector.value("a2a.tasks.open", &[]), Some(1.0));
    wait_until(Duration::from_secs(10), async || {
        collector.value("a2a.turns.running", &[]) == Some(0.0)
            && collector.value("a2a.tasks.open", &[]) == Some(0.0)
    })
    .await;
    assert_eq!(
        collector.value("a2a.turns.running", &[]),
        Some(0.0),
        "the turn ended"
    );
    assert_eq!(collector.value("a2a.tasks.open", &[]), Some(0.0));
    assert!(
        collector
            .value(
                "a2a.store.duration",
                &[("operation", "create"), ("outcome", "ok")]
            )
            .is_some_and(|calls| calls >= 1.0)
    );
    survivor.terminate().await;
    let _ = std::fs::remove_dir_all(&dir);
    // Every metric the service exports is documented for the operator.
    let docs = repository_file("docs/telemetry.md");
    for name in collector.metric_names() {
        assert!(
            docs.contains(&format!("`{name}")),
            "{name} in docs/telemetry.md"
        );
    }
}

/// The conventions' names: the server span is named by its method (0.3
/// `message/send`, 1.0 `SendMessage`; `jsonrpc` for a method the service
/// does not serve, never the caller's text) and carries OpenTelemetry's
/// HTTP server attributes; the turn carries the GenAI agent attributes;
/// the metrics count a 1.0 method under its own name.
#[tokio::test]
async fn the_server_span_is_named_by_its_method_with_http_server_and_genai_attributes() {
    let collector = Collector::start().await;
    let mut envs = collector.variables().to_vec();
    envs.push(("AGENT__AUTH__MODE", "off"));
    let running = start_binary(&envs).await;
    let client = crate::helpers::http_client();
    let url = format!("http://127.0.0.1:{}/", running.port);
    let sent = client
        .post(&url)
        .header("user-agent", "joule-test/1.0")
        .json(&message_send("why is order 4711 blocked by credit"))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    let context_id = sent["result"]["contextId"]
        .as_str()
        .expect("a task")
        .to_string();
    let v1 = client
        .post(&url)
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage",
            "params": {"message": {"messageId": "m-v1", "role": "ROLE_USER",
                "parts": [{"text": "why is order 4711 blocked by credit"}]}}}))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert!(v1.get("result").is_some(), "{v1}");
    let unknown = call(
        running.port,
        json!({"jsonrpc": "2.0", "id": 3, "method": "made/up-by-a-caller", "params": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let port = running.port;
    wait_until(Duration::from_secs(10), async || {
        server_spans(&collector.spans()).len() >= 3
            && collector.value(
                "a2a.requests",
                &[("rpc.method", "SendMessage"), ("outcome", "ok")],
            ) == Some(1.0)
    })
    .await;
    running.terminate().await;

    let spans = collector.spans();
    let servers = server_spans(&spans);
    let names: Vec<&str> = servers.iter().map(|span| span.name.as_str()).collect();
    assert!(names.contains(&"message/send"), "{names:?}");
    assert!(names.contains(&"SendMessage"), "{names:?}");
    assert!(
        names.contains(&"jsonrpc"),
        "an unknown method keeps the system's name: {names:?}"
    );
    assert!(!names.iter().any(|name| name.contains("made/up")));
    let send = servers
        .iter()
        .find(|span| span.name == "message/send")
        .unwrap();
    for (key, value) in [
        ("http.request.method", "POST"),
        ("http.route", "/"),
        ("url.path", "/"),
        ("url.scheme", "http"),
        ("server.address", "127.0.0.1"),
        ("client.address", "127.0.0.1"),
        ("network.protocol.version", "1.1"),
        ("user_agent.original", "joule-test/1.0"),
    ] {
        assert_eq!(text(&send.attributes, key).as_deref(), Some(value), "{key}");
    }
    assert_eq!(int(&send.attributes, "server.port"), Some(i64::from(port)));
    let turn = collector
        .named("a2a.turn")
        .into_iter()
        .find(|turn| {
            text(&turn.attributes, "a2a.context.id").as_deref() == Some(context_id.as_str())
        })
        .expect("the turn");
    assert_eq!(
        text(&turn.attributes, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(
        text(&turn.attributes, "gen_ai.conversation.id").as_deref(),
        Some(context_id.as_str())
    );
    assert_eq!(
        collector.value(
            "a2a.requests",
            &[("rpc.method", "SendMessage"), ("outcome", "ok")]
        ),
        Some(1.0),
        "a 1.0 method is counted under its name, not `other`"
    );
}

/// A file of the repository.
fn repository_file(relative: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative))
        .unwrap_or_else(|error| panic!("{relative}: {error}"))
}

/// The dashboard for SAP Cloud Logging (OpenSearch Dashboards saved
/// objects, NDJSON) parses, holds together (every reference points to an
/// object of the file, every search is on the dashboard, on one of the
/// three index patterns the docs name), and its searches are the runbook's
/// queries, over fields the docs say the service writes.
#[test]
fn the_cloud_logging_dashboard_is_the_runbooks_queries_as_saved_objects() {
    let text = repository_file("deploy/cloud-logging-dashboard.ndjson");
    let docs = repository_file("docs/telemetry.md");
    let flat_docs = docs.split_whitespace().collect::<Vec<_>>().join(" ");
    let objects: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let ids: std::collections::BTreeSet<(String, String)> = objects
        .iter()
        .map(|o| {
            (
                o["type"].as_str().unwrap().to_string(),
                o["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let of_type = |kind: &'static str| objects.iter().filter(move |o| o["type"] == kind);
    let patterns: Vec<&str> = of_type("index-pattern")
        .map(|o| o["attributes"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        patterns,
        ["logs-cfsyslog-*", "otel-v1-apm-span-*", "metrics-otel-v1-*"]
    );
    for pattern in &patterns {
        assert!(
            docs.contains(&format!("`{pattern}`")),
            "{pattern} in the docs"
        );
    }
    for object in &objects {
        for reference in object["references"].as_array().unwrap() {
            let target = (
                reference["type"].as_str().unwrap().to_string(),
                reference["id"].as_str().unwrap().to_string(),
            );
            assert!(ids.contains(&target), "{target:?} of {}", object["id"]);
        }
    }
    let searches: Vec<&Value> = of_type("search").collect();
    assert!(searches.len() >= 6, "the five alerts and finding a task");
    for search in &searches {
        let source: Value = serde_json::from_str(
            search["attributes"]["kibanaSavedObjectMeta"]["searchSourceJSON"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(source["query"]["language"], "kuery");
        let query = source["query"]["query"].as_str().unwrap();
        assert!(
            flat_docs.contains(&format!("`{query}`")),
            "the runbook has the query `{query}`"
        );
        let names = search["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["name"].as_str().unwrap())
            .collect::<Vec<_>>();
        assert_eq!(source["indexRefName"], names[0]);
        for field in query_fields(query) {
            // Span and metric attributes as SAP Cloud Logging stores them.
            let attribute = field
                .strip_prefix("span.attributes.")
                .or_else(|| field.strip_prefix("metric.attributes."))
                .map(|name| name.replace('@', "."));
            match attribute {
                Some(name) => assert!(documented(&docs, &name), "{name} documented"),
                None => assert!(
                    ["name", "status.code", "msg", "a2a.task.id"].contains(&field.as_str()),
                    "{field}: a field the docs name"
                ),
            }
        }
        // A metric queried by name is one the service exports.
        if let Some(metric) = query
            .strip_prefix("name:\"")
            .and_then(|rest| rest.split('"').next())
        {
            assert!(docs.contains(&format!("`{metric}")), "{metric} documented");
        }
    }
    let dashboard = of_type("dashboard").next().expect("a dashboard");
    let panels: Vec<Value> =
        serde_json::from_str(dashboard["attributes"]["panelsJSON"].as_str().unwrap()).unwrap();
    let references = dashboard["references"].as_array().unwrap();
    assert_eq!(
        panels.len(),
        searches.len(),
        "every search is on the dashboard"
    );
    for panel in &panels {
        let name = panel["panelRefName"].as_str().unwrap();
        assert!(references.iter().any(|r| r["name"] == name), "{name}");
    }
}

/// Whether `docs` names `name` as a word of its own (not inside a longer
/// name): `` `push.reason` ``, `{result,reason,format}`.
fn documented(docs: &str, name: &str) -> bool {
    let part_of_a_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@');
    docs.match_indices(name).any(|(at, _)| {
        let before = docs[..at].chars().next_back();
        let after = docs[at + name.len()..].chars().next();
        !before.is_some_and(part_of_a_name) && !after.is_some_and(part_of_a_name)
    })
}

/// The field names a DQL query filters on (`field:value`, `field >= n`).
fn query_fields(query: &str) -> Vec<String> {
    let mut fields = Vec::new();
    for word in query.split_whitespace() {
        let name = word
            .split(':')
            .next()
            .filter(|_| word.contains(':'))
            .map(str::to_string);
        if let Some(name) = name {
            fields.push(name.trim_start_matches('(').to_string());
        }
    }
    let words: Vec<&str> = query.split_whitespace().collect();
    for pair in words.windows(2) {
        if matches!(pair[1], ">=" | "<=" | ">" | "<") {
            fields.push(pair[0].to_string());
        }
    }
    fields
}
