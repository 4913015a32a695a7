//! One `action.execute` span per approved action carried out (action,
//! order, outcome, attempts) with a `backend.write` span per S/4HANA write
//! inside it, never a token or CSRF token (the real binary, spans exported
//! over OTLP/HTTP to a loopback receiver).

use crate::doubles::otlp::{int, text};
use crate::doubles::s4hana::S4Double;
use crate::doubles::s4hana::users::known::COMM_USER;
use crate::helpers::binary::start_binary;
use crate::helpers::{approval, wait_until};
use crate::telemetry::s4hana_telemetry::receiver;
use std::time::Duration;

#[tokio::test]
async fn a_delivery_date_change_is_one_action_span_with_its_write_inside() {
    let s4 = S4Double::start().await;
    let (url, seen) = receiver().await;
    let running = start_binary(&[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("AGENT__BACKEND__SOURCE", "s4hana"),
        ("AGENT__BACKEND__S4HANA__URL", &s4.url),
        ("AGENT__BACKEND__S4HANA__USER", COMM_USER.0),
        ("AGENT__BACKEND__S4HANA__PASSWORD", COMM_USER.1),
        ("AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__ACTIONS__EXECUTOR", "s4hana"),
    ])
    .await;
    let app = running.app().as_role("ar_clerk");
    let asked = app
        .send_text("customer wants a later delivery date on 4740")
        .await;
    let dated = app.reply(&asked, &crate::helpers::delivery_day().us).await;
    let done = app.reply(&dated, "approve").await;
    assert_eq!(approval(&done)["entry"]["state"], "done", "{done}");
    let named = |name: &str| {
        seen.lock()
            .unwrap()
            .iter()
            .filter(|span| span.name == name)
            .cloned()
            .collect::<Vec<_>>()
    };
    wait_until(Duration::from_secs(10), async || {
        !named("action.execute").is_empty() && !named("backend.write").is_empty()
    })
    .await;
    let _ = running.terminate().await;
    let actions = named("action.execute");
    assert_eq!(actions.len(), 1);
    let action = &actions[0];
    assert_eq!(
        text(&action.attributes, "action.name").as_deref(),
        Some("request_delivery_date_change")
    );
    assert_eq!(
        text(&action.attributes, "sap.sales_order").as_deref(),
        Some("4740")
    );
    assert_eq!(
        text(&action.attributes, "action.outcome").as_deref(),
        Some("done")
    );
    assert_eq!(int(&action.attributes, "action.attempts"), Some(1));
    let writes = named("backend.write");
    assert_eq!(writes.len(), 1, "one MERGE");
    let write = &writes[0];
    assert_eq!(write.trace_id, action.trace_id);
    assert_eq!(write.parent_span_id, action.span_id);
    assert_eq!(
        text(&write.attributes, "http.request.method").as_deref(),
        Some("MERGE")
    );
    assert_eq!(
        int(&write.attributes, "http.response.status_code"),
        Some(204)
    );
    for span in seen.lock().unwrap().iter() {
        for attribute in &span.attributes {
            let value = format!("{:?}", attribute.value);
            assert!(
                !value.contains(COMM_USER.1),
                "a password in span {}",
                span.name
            );
            assert!(
                !value.to_lowercase().contains("basic "),
                "credentials in span {}",
                span.name
            );
        }
    }
}
