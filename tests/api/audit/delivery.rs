//! Security events and the configuration at start, delivered to the
//! Audit Log Service double through the outbox.

use crate::doubles::audit_log::AuditLogDouble;
use crate::helpers::key_server::KeyServer;
use crate::helpers::{Settings, TestApp, wait_until};
use serde_json::Value;
use std::time::Duration;

/// An app with authentication on, bound to `double` (plan oauth2), its
/// outbox polled every 50 ms, and `more` settings.
async fn bound_app(
    keys: &KeyServer,
    double: &AuditLogDouble,
    more: impl FnOnce(&mut Settings),
) -> TestApp {
    let services = double.vcap_services("oauth2");
    TestApp::builder()
        .auth(keys)
        .settings(|settings| {
            settings.bind_services(&services).expect("VCAP_SERVICES");
            settings.audit.poll_interval_ms = 50;
            more(settings);
        })
        .spawn()
        .await
}

async fn app(keys: &KeyServer, double: &AuditLogDouble) -> TestApp {
    bound_app(keys, double, |settings| settings.audit.retry_max_secs = 1).await
}

/// A request with a token that is no JWT, from `address` (the router's
/// `X-Forwarded-For`): 401.
async fn refused(app: &TestApp, address: &str) {
    let status = app
        .client
        .post(format!("{}/", app.address))
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer not-a-jwt")
        .header("X-Forwarded-For", address)
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#)
        .send()
        .await
        .expect("the service answers")
        .status();
    assert_eq!(status, 401);
}

fn data(event: &Value) -> Value {
    serde_json::from_str(event["data"].as_str().expect("data is a string")).expect("JSON data")
}

#[tokio::test]
async fn a_refused_token_is_one_security_event_with_the_exact_json() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    let app = app(&keys, &double).await;
    for _ in 0..5 {
        refused(&app, "203.0.113.7").await;
    }
    assert!(
        wait_until(Duration::from_secs(10), async || {
            !double.accepted("security-events").is_empty()
        })
        .await,
        "writes: {:?}",
        double.writes()
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = double.accepted("security-events");
    assert_eq!(
        events.len(),
        1,
        "five refusals in a minute are one event: {events:?}"
    );
    let event = &events[0];
    let keys_sent: Vec<&str> = event
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys_sent, ["data", "ip", "tenant", "time", "user", "uuid"]);
    assert_eq!(event["ip"], "203.0.113.7");
    assert_eq!(event["tenant"], "$PROVIDER");
    assert_eq!(event["user"], "anonymous");
    assert!(uuid::Uuid::parse_str(event["uuid"].as_str().unwrap()).is_ok());
    let time = event["time"].as_str().unwrap();
    assert!(
        time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
        "{time}"
    );
    assert_eq!(
        data(event),
        serde_json::json!({"event": "RequestRefused", "reason": "malformed", "user": "anonymous",
            "refusals": 1, "windowSeconds": 60})
    );
    let write = double
        .writes()
        .into_iter()
        .find(|write| write.kind == "security-events")
        .unwrap();
    assert_eq!(
        write.content_type.as_deref(),
        Some("application/json; charset=UTF-8")
    );
    assert!(
        !write.body.to_string().contains("not-a-jwt"),
        "never the token"
    );
    // The configuration the instance started with, once.
    let changes = double.accepted("configuration-changes");
    assert_eq!(changes.len(), 1, "{changes:?}");
    let names: Vec<&str> = changes[0]["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attribute| attribute["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["rules", "actions.executor"]);
    assert_eq!(changes[0]["attributes"][1]["new"], "ledger");
    assert_eq!(changes[0]["success"], true);
    assert_eq!(double.token_calls(), 1, "one token, cached");
    let health = app.get_json("/health").await;
    assert_eq!(health["status"], "UP");
    assert_eq!(health["audit"]["destination"], "auditlog");
}

#[tokio::test]
async fn with_the_service_answering_503_then_429_nothing_is_lost() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    double.answer_writes_with(Some(503), None);
    let app = app(&keys, &double).await;
    let addresses = ["198.51.100.1", "198.51.100.2", "198.51.100.3"];
    for address in addresses {
        refused(&app, address).await;
    }
    let answered = |status: u16| {
        let double = double.clone();
        async move || {
            double
                .writes()
                .iter()
                .filter(|w| w.status == status)
                .count()
                >= 4
        }
    };
    assert!(wait_until(Duration::from_secs(10), answered(503)).await);
    let health = app.get_json("/health").await;
    assert_eq!(
        health["status"], "UP",
        "a waiting outbox never fails the check"
    );
    assert!(
        health["audit"]["outbox"]["queued"].as_u64().unwrap() >= 1,
        "{health}"
    );
    double.answer_writes_with(Some(429), Some(1));
    assert!(wait_until(Duration::from_secs(10), answered(429)).await);
    double.answer_writes_with(None, None);
    assert!(
        wait_until(Duration::from_secs(15), async || {
            double.accepted("security-events").len() == 3
                && double.accepted("configuration-changes").len() == 1
        })
        .await,
        "writes: {:?}",
        double
            .writes()
            .iter()
            .map(|w| (w.kind.clone(), w.status))
            .collect::<Vec<_>>()
    );
    let mut ips: Vec<String> = double
        .accepted("security-events")
        .iter()
        .map(|event| event["ip"].as_str().unwrap().to_string())
        .collect();
    ips.sort();
    assert_eq!(ips, addresses);
    assert!(
        wait_until(Duration::from_secs(5), async || {
            let health = app.get_json("/health").await;
            health["audit"]["outbox"] == serde_json::json!({"queued": 0, "keptAside": 0})
        })
        .await
    );
}

#[tokio::test]
async fn a_standard_plan_or_a_missing_field_refuses_the_start_with_the_reason() {
    let double = AuditLogDouble::start().await;
    let mut settings = TestApp::builder().into_settings();
    settings
        .bind_services(&double.vcap_services("standard"))
        .expect("VCAP_SERVICES");
    let Err(error) = crate::helpers::Application::build(settings).await else {
        panic!("the start goes on with a standard plan");
    };
    assert!(
        error
            .to_string()
            .contains("plan `standard`, which SAP deprecated"),
        "{error}"
    );
    assert_eq!(error.exit_code(), 2);
    // An oauth2 binding without its secret: refused, naming the field.
    let mut binding: Value = serde_json::from_str(&double.vcap_services("oauth2")).unwrap();
    binding["auditlog"][0]["credentials"]["uaa"]
        .as_object_mut()
        .unwrap()
        .remove("clientsecret");
    let mut settings = TestApp::builder().into_settings();
    settings
        .bind_services(&binding.to_string())
        .expect("VCAP_SERVICES");
    let Err(error) = crate::helpers::Application::build(settings).await else {
        panic!("the start goes on without the client secret");
    };
    assert_eq!(
        error.to_string(),
        "audit: the auditlog binding lacks `uaa.clientsecret`"
    );
    assert_eq!(error.exit_code(), 2);
    assert!(double.writes().is_empty());
}

#[tokio::test]
async fn a_quota_refusal_is_a_security_event_naming_the_caller() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    let app = bound_app(&keys, &double, |settings| {
        settings.server.quota.caller_per_sec = 1;
        settings.server.quota.caller_burst = 1;
    })
    .await;
    let token = crate::helpers::key_server::token(&crate::helpers::key_server::user_claims());
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let status = app
            .client
            .post(format!("{}/", app.address))
            .header("Content-Type", "application/json")
            .header("Authorization", format!("Bearer {token}"))
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#)
            .send()
            .await
            .expect("the service answers")
            .status()
            .as_u16();
        statuses.push(status);
    }
    assert!(
        statuses.iter().filter(|s| **s == 429).count() >= 2,
        "{statuses:?}"
    );
    assert!(
        wait_until(Duration::from_secs(10), async || {
            !double.accepted("security-events").is_empty()
        })
        .await
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events = double.accepted("security-events");
    assert_eq!(
        events.len(),
        1,
        "refusals of one minute are one event: {events:?}"
    );
    let data = data(&events[0]);
    assert_eq!(data["reason"], "caller");
    assert_eq!(events[0]["ip"], "127.0.0.1");
    assert_ne!(events[0]["user"], "anonymous", "the caller is named");
    assert_eq!(events[0]["user"], data["user"]);
}

#[tokio::test]
async fn without_a_binding_the_events_are_type_audit_log_lines() {
    let keys = KeyServer::start().await;
    let running = crate::helpers::binary::start_binary(&[
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        (
            "AGENT__AUTH__CLIENT_ID",
            crate::helpers::key_server::CLIENT_ID,
        ),
        ("AGENT__AUTH__DOMAINS", "accounts.test"),
        ("AGENT__AUTH__APP_TID", crate::helpers::key_server::APP_TID),
        ("AGENT__AUTH__URL", crate::helpers::key_server::ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", &keys.url),
    ])
    .await;
    let app = running.app();
    // Not an address: the peer's is used instead.
    for _ in 0..3 {
        refused(&app, "<script>").await;
    }
    let lines = running.terminate().await;
    let audit: Vec<Value> = lines
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "audit")
        .collect();
    let kinds: Vec<&str> = audit
        .iter()
        .map(|line| line["audit.kind"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        kinds,
        ["configuration-changes", "security-events"],
        "{audit:?}"
    );
    let message: Value =
        serde_json::from_str(audit[1]["audit.message"].as_str().expect("the message")).unwrap();
    assert_eq!(message["ip"], "127.0.0.1");
    assert_eq!(data(&message)["reason"], "malformed");
    assert_eq!(data(&message)["refusals"], 1);
}

#[tokio::test]
async fn a_message_the_service_refuses_with_400_is_kept_aside_and_never_resent() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    double.answer_writes_with(Some(400), None);
    let app = app(&keys, &double).await;
    refused(&app, "192.0.2.9").await;
    assert!(
        wait_until(Duration::from_secs(10), async || {
            let health = app.get_json("/health").await;
            health["audit"]["outbox"] == serde_json::json!({"queued": 0, "keptAside": 2})
        })
        .await,
        "the configuration change and the security event are kept aside"
    );
    double.answer_writes_with(None, None);
    let before = double.writes().len();
    assert_eq!(before, 2, "one attempt each");
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(double.writes().len(), before, "never sent again");
    let metrics = app
        .client
        .get(format!("{}/health", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(
        metrics.status(),
        200,
        "a kept-aside message never fails /health"
    );
}

#[tokio::test]
async fn refusals_held_back_are_reported_once_their_window_passes() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    let app = bound_app(&keys, &double, |settings| {
        settings.audit.security_event_window_secs = 1;
    })
    .await;
    for _ in 0..5 {
        refused(&app, "203.0.113.8").await;
    }
    assert!(
        wait_until(Duration::from_secs(10), async || {
            double.accepted("security-events").len() == 2
        })
        .await,
        "{:?}",
        double.accepted("security-events")
    );
    let refusals: Vec<Value> = double
        .accepted("security-events")
        .iter()
        .map(|event| data(event)["refusals"].clone())
        .collect();
    assert_eq!(
        refusals,
        [1, 4],
        "the first at once, the four held back later"
    );
}
