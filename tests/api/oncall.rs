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
use crate::otlp::{Collector, text};
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
