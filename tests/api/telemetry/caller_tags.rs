//! Whose call a trace is, and what it never says: the server span and the
//! turn span carry the token's tenant (`sap.tenancy.tenant_id`) and the
//! person (`user.id`), a technical token the tenant only; the request
//! metrics carry the tenant, never the user (the request log line names it
//! as `tenant_id`); and neither spans nor metrics
//! hold the user's message text or the customer's note from S/4HANA.

use crate::doubles::otlp::{Collector, text};
use crate::helpers::binary::start_binary;
use crate::helpers::key_server::*;
use crate::helpers::wait_until;
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{Value, json};
use std::time::Duration;

/// In the user's message; never in a span or metric.
const MARKER: &str = "zq7marker";
/// The start of order 4725's customer note (`data/orders.json`), which the
/// pricing specialist quotes to the user; never in a span or metric.
const CUSTOMER_NOTE: &str = "Price agreed at 3500";

async fn call(port: u16, token: &str, body: &Value) -> Value {
    let response = crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{port}/"))
        .header("Authorization", format!("Bearer {token}"))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

fn tag(span: &Span, key: &str) -> Option<String> {
    text(&span.attributes, key)
}

#[tokio::test]
async fn spans_name_the_tenant_and_user_metrics_the_tenant_and_neither_the_users_words() {
    let keys = KeyServer::start().await;
    let collector = Collector::start().await;
    let mut envs = collector.variables().to_vec();
    envs.extend([
        ("AGENT__AUTH__CLIENT_ID", CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", DOMAIN),
        ("AGENT__AUTH__APP_TID", APP_TID),
        ("AGENT__AUTH__URL", ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", keys.url.as_str()),
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
    ]);
    let running = start_binary(&envs).await;
    let user = token(&user_claims());
    let technical = token(&technical_claims());
    let asked = call(
        running.port,
        &user,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": crate::helpers::user_message(&format!(
                "{MARKER}: the customer disputes the price on the invoice for 4725"
            )),
            "configuration": {"blocking": true}}}),
    )
    .await;
    // The note reached the user: it is in the task, not in telemetry.
    assert!(asked.to_string().contains(CUSTOMER_NOTE), "{asked}");
    call(
        running.port,
        &technical,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                "params": {"id": "no-such-task"}}),
    )
    .await;
    wait_until(Duration::from_secs(10), async || {
        !collector.named("a2a.turn").is_empty()
            && !collector.named("tasks/get").is_empty()
            && collector
                .value("a2a.requests", &[("sap.tenancy.tenant_id", APP_TID)])
                .is_some_and(|calls| calls >= 2.0)
    })
    .await;
    let duration = collector.value(
        "a2a.request.duration",
        &[
            ("rpc.method", "message/send"),
            ("sap.tenancy.tenant_id", APP_TID),
        ],
    );
    let log = running.terminate().await;
    keys.stop().await;
    // The request records name the tenant as SAP's request logs do.
    let tenants: Vec<String> = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "request")
        .map(|line| line["tenant_id"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(tenants, [APP_TID, APP_TID]);

    for span in collector
        .named("message/send")
        .iter()
        .chain(&collector.named("a2a.turn"))
    {
        assert_eq!(
            tag(span, "sap.tenancy.tenant_id").as_deref(),
            Some(APP_TID),
            "{}",
            span.name
        );
        assert_eq!(
            tag(span, "user.id").as_deref(),
            Some("user-uuid-42"),
            "{}",
            span.name
        );
    }
    let technical_call = &collector.named("tasks/get")[0];
    assert_eq!(
        tag(technical_call, "sap.tenancy.tenant_id").as_deref(),
        Some(APP_TID)
    );
    assert_eq!(
        tag(technical_call, "user.id"),
        None,
        "a technical token is no user"
    );
    assert_eq!(duration, Some(1.0), "the send's latency, by tenant");
    let points = collector.metric("a2a.requests").unwrap();
    assert!(
        points.iter().all(|point| point.label("user.id").is_none()),
        "{points:?}"
    );

    let spans = format!("{:?}", collector.spans());
    let metrics: Vec<String> = collector
        .metric_names()
        .iter()
        .map(|name| format!("{:?}", collector.metric(name)))
        .collect();
    for words in [MARKER, CUSTOMER_NOTE] {
        assert!(!spans.contains(words), "{words:?} in a span");
        assert!(
            !metrics.iter().any(|metric| metric.contains(words)),
            "{words:?} in a metric"
        );
    }
}
