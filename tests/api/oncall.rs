//! What the on-call engineer starts from, read where they read it: the
//! OTLP export (spans and metrics, from a loopback collector) and the SAP
//! JSON log lines of the real binary. One test per thing they would
//! otherwise miss: a task found from its id in the logs, failures marked as
//! failures, S/4HANA measured, push give-ups told apart, token rejections
//! by reason and throttled, state and zero counts exported, and the
//! conventions' names.

use crate::helpers::binary::start_binary;
use crate::helpers::wait_until;
use crate::helpers::webhook::WebhookReceiver;
use crate::otlp::{Collector, STATUS_ERROR, int, status, text};
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
