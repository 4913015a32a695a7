//! Push notifications: config methods, the webhook guard, and delivery to a
//! real webhook receiver on loopback (A2A format, retries, order, no
//! head-of-line blocking between tasks).

use crate::helpers::destination::DestinationStub;
use crate::helpers::webhook::WebhookReceiver as Receiver;
use crate::helpers::{
    GuardSettings, STILL_WORKING, ScriptedAgent, TestApp, TestAppBuilder, delivery_client,
    refused_resolution, state, user_message, wait_until,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Loopback webhooks allowed, as only tests may; quick retries.
fn push_app(delay_ms: u64) -> TestAppBuilder {
    TestApp::builder()
        .budget_ms(100)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| {
            settings.push.retry_base_ms = 50;
            settings.push.max_attempts = 3;
            settings.push.timeout_ms = 500;
        })
        .agent(ScriptedAgent::slow(delay_ms))
}

#[tokio::test]
async fn a_turn_past_the_budget_is_pushed_once_in_a2a_format() {
    let receiver = Receiver::start().await;
    let app = push_app(300).spawn().await;
    let body = app
        .rpc(
            "message/send",
            json!({
                "message": user_message("slow job"),
                "configuration": { "pushNotificationConfig": {
                    "url": format!("{}/hook-a", receiver.url),
                    "token": "task-token-1",
                    "authentication": { "schemes": ["Bearer"], "credentials": "receiver-secret" }
                } }
            }),
        )
        .await;
    let task = body["result"].clone();
    assert_eq!(state(&task), "working", "answered at the budget");
    let calls = receiver.wait_for("/hook-a", 1).await;
    assert_eq!(calls.len(), 1, "delivered once");
    let call = &calls[0];
    crate::helpers::assert_schema("Task", &call.body);
    assert_eq!(call.body["id"], task["id"]);
    assert_eq!(call.body["status"]["state"], "completed");
    assert_eq!(
        call.headers
            .get("x-a2a-notification-token")
            .map(String::as_str),
        Some("task-token-1")
    );
    assert_eq!(
        call.headers.get("authorization").map(String::as_str),
        Some("Bearer receiver-secret")
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.at("/hook-a").len(), 1, "and only once");
}

#[tokio::test]
async fn with_a_webhook_blocking_defaults_to_false_but_an_explicit_true_waits() {
    let receiver = Receiver::start().await;
    let app = TestApp::builder()
        .budget_ms(5_000)
        .loopback_webhooks(&["127.0.0.1"])
        .agent(ScriptedAgent::slow(200))
        .spawn()
        .await;
    let hook = json!({ "url": format!("{}/async", receiver.url) });
    let at_once = app
        .rpc("message/send", json!({ "message": user_message("a"), "configuration": { "pushNotificationConfig": hook } }))
        .await;
    assert!(
        ["submitted", "working"].contains(&state(&at_once["result"])),
        "{at_once}"
    );
    let waited = app
        .rpc(
            "message/send",
            json!({ "message": user_message("b"), "configuration": { "pushNotificationConfig": hook, "blocking": true } }),
        )
        .await;
    assert_eq!(state(&waited["result"]), "completed");
    assert_eq!(receiver.wait_for("/async", 2).await.len(), 2, "both pushed");
}

#[tokio::test]
async fn config_methods_set_get_list_delete() {
    let receiver = Receiver::start().await;
    // The turn works for a while: configs are for tasks not yet finished.
    let app = push_app(10_000).spawn().await;
    let task = app
        .rpc(
            "message/send",
            json!({ "message": user_message("x"), "configuration": { "blocking": false } }),
        )
        .await["result"]
        .clone();
    let id = task["id"].clone();
    for config_id in ["one", "two"] {
        let set = app
            .rpc(
                "tasks/pushNotificationConfig/set",
                json!({ "taskId": id, "pushNotificationConfig": { "id": config_id, "url": format!("{}/{config_id}", receiver.url) } }),
            )
            .await;
        assert_eq!(set["result"]["pushNotificationConfig"]["id"], config_id);
    }
    let list = app
        .rpc("tasks/pushNotificationConfig/list", json!({ "id": id }))
        .await;
    assert_eq!(list["result"].as_array().unwrap().len(), 2);
    let get = app
        .rpc(
            "tasks/pushNotificationConfig/get",
            json!({ "id": id, "pushNotificationConfigId": "two" }),
        )
        .await;
    assert_eq!(
        get["result"]["pushNotificationConfig"]["url"],
        format!("{}/two", receiver.url)
    );
    let deleted = app
        .rpc(
            "tasks/pushNotificationConfig/delete",
            json!({ "id": id, "pushNotificationConfigId": "one" }),
        )
        .await;
    assert_eq!(deleted["result"], Value::Null);
    let list = app
        .rpc("tasks/pushNotificationConfig/list", json!({ "id": id }))
        .await;
    assert_eq!(list["result"].as_array().unwrap().len(), 1);
    let error = app
        .rpc_error(
            "tasks/pushNotificationConfig/get",
            json!({ "id": id, "pushNotificationConfigId": "one" }),
        )
        .await;
    assert_eq!(error["code"], -32001);
    // Without an id the task id names the config.
    let set = app
        .rpc(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": id, "pushNotificationConfig": { "url": format!("{}/x", receiver.url) } }),
        )
        .await;
    assert_eq!(set["result"]["pushNotificationConfig"]["id"], id);
}

#[tokio::test]
async fn the_guard_refuses_unsafe_webhooks_with_a_reason() {
    let app = TestApp::spawn().await;
    let task = app.send_text("why is it blocked by credit").await;
    for (url, reason) in [
        ("http://sapdas.eu10.sapdas.cloud.sap/cb", "https"),
        ("https://10.0.0.5/hook", "allowlist"),
        ("https://hooks.attacker.example/x", "allowlist"),
        ("http://127.0.0.1:9/hook", "https"),
        (
            "https://user:pw@sapdas.eu10.sapdas.cloud.sap/cb",
            "user information",
        ),
    ] {
        let error = app
            .rpc_error(
                "tasks/pushNotificationConfig/set",
                json!({ "taskId": task["id"], "pushNotificationConfig": { "url": url } }),
            )
            .await;
        assert_eq!(error["code"], -32602, "{url}");
        assert!(
            error["message"].as_str().unwrap().contains(reason),
            "{url}: {error}"
        );
    }
    // Allowed by name but resolving to loopback: refused without the test allowance.
    let app = TestApp::builder()
        .settings(|settings| {
            settings.push.allowed_hosts = vec!["localhost".into(), "*.sapdas.cloud.sap".into()];
        })
        .spawn()
        .await;
    let error = app
        .rpc_error(
            "message/send",
            json!({ "message": user_message("x"), "configuration": { "pushNotificationConfig": { "url": "https://localhost/hook" } } }),
        )
        .await;
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("pushNotificationConfig"),
        "{error}"
    );
    let ok = app
        .rpc(
            "message/send",
            json!({ "message": user_message("why is order 4711 blocked by credit"), "configuration": { "pushNotificationConfig": { "url": "https://sapdas.eu10.sapdas.cloud.sap/api/agent/v1/callback/a2a" } } }),
        )
        .await;
    assert!(
        ["submitted", "working"].contains(&state(&ok["result"])),
        "Joule's host is allowed by default, and with a webhook the answer comes at once: {ok}"
    );
}

/// IPv6 forms that carry an IPv4 address (here the metadata service's and
/// a public one) are refused even on the allowlist, as is site-local.
#[tokio::test]
async fn ipv6_forms_of_ipv4_addresses_are_refused_as_webhooks() {
    let literals: Vec<std::net::Ipv6Addr> = [
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::a9fe:a9fe",
        "2002:a9fe:a9fe::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "::a9fe:a9fe",
        "::ffff:0:808:808",
        "fec0::1",
    ]
    .iter()
    .map(|ip| ip.parse().expect("an IPv6 address"))
    .collect();
    let allowed: Vec<String> = literals.iter().map(ToString::to_string).collect();
    let app = TestApp::builder()
        .settings(move |settings| settings.push.allowed_hosts = allowed)
        .spawn()
        .await;
    let task = app.send_text("why is it blocked by credit").await;
    for ip in &literals {
        let url = format!("https://[{ip}]/hook");
        let error = app
            .rpc_error(
                "tasks/pushNotificationConfig/set",
                json!({ "taskId": task["id"], "pushNotificationConfig": { "url": url } }),
            )
            .await;
        assert_eq!(error["code"], -32602, "{url}: {error}");
        let message = error["message"].as_str().unwrap_or("");
        assert!(
            message.contains("an IPv6 form of an IPv4 address")
                || message.contains("is private, loopback or link-local"),
            "{url}: {error}"
        );
    }
}

#[tokio::test]
async fn failed_deliveries_retry_and_stop_at_the_bound() {
    let receiver = Receiver::start().await;
    receiver.fail("/flaky", 2);
    receiver.fail("/down", 100);
    let app = push_app(0).spawn().await;
    for path in ["/flaky", "/down"] {
        app.rpc(
            "message/send",
            json!({ "message": user_message("job"), "configuration": { "pushNotificationConfig": { "url": format!("{}{path}", receiver.url) } } }),
        )
        .await;
    }
    let flaky = receiver.wait_for("/flaky", 3).await;
    assert_eq!(flaky.len(), 3, "two 500s, then delivered");
    let down = receiver.wait_for("/down", 3).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        receiver.at("/down").len(),
        3,
        "gave up after max_attempts: {}",
        down.len()
    );
}

#[tokio::test]
async fn a_hanging_receiver_does_not_hold_up_other_tasks() {
    let receiver = Receiver::start().await;
    let app = push_app(0).spawn().await;
    for path in ["/hang-1", "/quick"] {
        app.rpc(
            "message/send",
            json!({ "message": user_message("job"), "configuration": { "pushNotificationConfig": { "url": format!("{}{path}", receiver.url) } } }),
        )
        .await;
    }
    let quick = receiver.wait_for("/quick", 1).await;
    assert_eq!(quick.len(), 1);
    assert_eq!(quick[0].body["status"]["state"], "completed");
}

#[tokio::test]
async fn joule_callbacks_get_the_envelope_the_correlation_headers_and_an_exchanged_token() {
    let receiver = Receiver::start().await;
    let destination = DestinationStub::start("JOULE_ASYNC_API").await;
    let calls = &destination.calls;
    let app = TestApp::builder()
        .budget_ms(100)
        .loopback_webhooks(&["127.0.0.1", "localhost"])
        .joule_callbacks(&destination)
        .settings(|settings| settings.push.heartbeat_ms = 0)
        .agent(ScriptedAgent::slow(300))
        .spawn()
        .await;
    let joule_url = receiver.url.replace("127.0.0.1", "localhost") + "/api/agent/v1/callback/a2a";
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("conversationid", "conv-1")
        .header("x-correlationid", "corr-1")
        .header("Authorization", "Bearer user-jwt-from-joule")
        .json(&json!({
            "jsonrpc": "2.0", "id": "corr-1", "method": "message/send",
            "params": { "message": user_message("slow job"), "configuration": { "pushNotificationConfig": { "url": joule_url } } }
        }))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["result"]["status"]["state"], "working");
    let calls_seen = receiver.wait_for("/api/agent/v1/callback/a2a", 1).await;
    assert_eq!(calls_seen.len(), 1);
    let call = &calls_seen[0];
    assert_eq!(call.body["jsonrpc"], "2.0");
    assert_eq!(call.body["id"], "corr-1");
    assert_eq!(call.body["result"]["status"]["state"], "completed");
    crate::helpers::assert_schema("Task", &call.body["result"]);
    assert_eq!(
        call.headers.get("conversationid").map(String::as_str),
        Some("conv-1")
    );
    assert_eq!(
        call.headers.get("x-correlationid").map(String::as_str),
        Some("corr-1")
    );
    assert_eq!(
        call.headers.get("authorization").map(String::as_str),
        Some("Bearer joule-api-token")
    );
    {
        let calls = calls.lock().unwrap();
        assert_eq!(
            calls.user_tokens,
            ["user-jwt-from-joule"],
            "the user token was exchanged"
        );
        assert_eq!(calls.bearer, ["Bearer dest-access"]);
    }
    // A second task of the same user: the minted token is reused.
    let second = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", "Bearer user-jwt-from-joule")
        .json(&json!({
            "jsonrpc": "2.0", "id": "corr-2", "method": "message/send",
            "params": { "message": user_message("another"), "configuration": { "pushNotificationConfig": { "url": joule_url } } }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(second.status().as_u16(), 200);
    assert_eq!(
        receiver
            .wait_for("/api/agent/v1/callback/a2a", 2)
            .await
            .len(),
        2
    );
    let calls = calls.lock().unwrap();
    assert_eq!(
        calls.user_tokens.len(),
        1,
        "one exchange for both callbacks"
    );
    assert_eq!(calls.token_requests, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lowercase_bearer_token_is_validated_and_exchanged_for_the_joule_callback() {
    use crate::helpers::key_server::*;
    let keys = KeyServer::start().await;
    let receiver = Receiver::start().await;
    let destination = DestinationStub::start("JOULE_ASYNC_API").await;
    let calls = &destination.calls;
    let app = TestApp::builder()
        .auth(&keys)
        .budget_ms(100)
        .loopback_webhooks(&["localhost"])
        .joule_callbacks(&destination)
        .settings(|settings| settings.push.heartbeat_ms = 0)
        .agent(ScriptedAgent::slow(300))
        .spawn()
        .await;
    let user_token = token(&user_claims());
    let joule_url = receiver.url.replace("127.0.0.1", "localhost") + "/api/agent/v1/callback/a2a";
    // The scheme in lower case, as RFC 7235 allows: one parse decides both
    // the authentication and the token the callback exchanges.
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", format!("bearer {user_token}"))
        .json(&json!({
            "jsonrpc": "2.0", "id": "corr-lower", "method": "message/send",
            "params": { "message": user_message("slow job"), "configuration": { "pushNotificationConfig": { "url": joule_url } } }
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "the token is accepted");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["result"]["status"]["state"], "working", "{body}");
    let delivered = receiver.wait_for("/api/agent/v1/callback/a2a", 1).await;
    assert_eq!(delivered.len(), 1, "the callback went out");
    assert_eq!(
        delivered[0]
            .headers
            .get("authorization")
            .map(String::as_str),
        Some("Bearer joule-api-token")
    );
    assert_eq!(
        calls.lock().unwrap().user_tokens,
        [user_token],
        "the user token reached the token exchange"
    );
    keys.stop().await;
}

#[tokio::test]
async fn working_heartbeats_arrive_while_the_turn_works_then_the_result() {
    let receiver = Receiver::start().await;
    let app = TestApp::builder()
        .budget_ms(50)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| settings.push.heartbeat_ms = 100)
        .agent(ScriptedAgent::slow(450))
        .spawn()
        .await;
    app.rpc(
        "message/send",
        json!({ "message": user_message("slow job"), "configuration": { "pushNotificationConfig": { "url": format!("{}/beats", receiver.url) } } }),
    )
    .await;
    let mut calls = Vec::new();
    wait_until(Duration::from_secs(10), async || {
        calls = receiver.at("/beats");
        calls
            .last()
            .is_some_and(|c| c.body["status"]["state"] == "completed")
    })
    .await;
    let states: Vec<&str> = calls
        .iter()
        .map(|c| c.body["status"]["state"].as_str().unwrap_or("?"))
        .collect();
    assert!(states.len() >= 3, "heartbeats then the result: {states:?}");
    let (last, beats) = states.split_last().unwrap();
    assert_eq!(*last, "completed");
    assert!(beats.iter().all(|s| *s == "working"), "{states:?}");
    assert_eq!(
        calls[0].body["status"]["message"]["parts"][0]["text"],
        STILL_WORKING
    );
}

/// A TCP listener on loopback that only counts the connections it accepts:
/// the proof that nothing connected, whatever protocol would have followed.
struct ConnectionCounter {
    port: u16,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
}

impl ConnectionCounter {
    async fn start() -> ConnectionCounter {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = accepted.clone();
        tokio::spawn(async move {
            while let Ok((connection, _)) = listener.accept().await {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                drop(connection);
            }
        });
        ConnectionCounter { port, accepted }
    }

    fn accepted(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[tokio::test]
async fn a_backslash_url_is_judged_by_the_host_the_client_would_reach() {
    // Default settings: only *.sapdas.cloud.sap. WHATWG ends the host of an
    // https URL at the backslash, so this is 169.254.169.254 (metadata).
    let app = TestApp::spawn().await;
    let url = r"https://169.254.169.254\.a.sapdas.cloud.sap/cb";
    let task = app.send_text("why is it blocked by credit").await;
    let error = app
        .rpc_error(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": task["id"], "pushNotificationConfig": { "url": url } }),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("host `169.254.169.254` is not on the webhook allowlist"),
        "{error}"
    );
    let error = app
        .rpc_error(
            "message/send",
            json!({ "message": user_message("why is order 4711 blocked"), "configuration": { "pushNotificationConfig": { "url": url } } }),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("pushNotificationConfig.url")
            && message.contains("host `169.254.169.254` is not on the webhook allowlist"),
        "{error}"
    );
    let list = app
        .rpc(
            "tasks/pushNotificationConfig/list",
            json!({ "id": task["id"] }),
        )
        .await;
    assert_eq!(list["result"], json!([]), "nothing was stored");
}

#[tokio::test]
async fn a_url_read_two_ways_reaches_no_one_and_what_is_stored_is_the_parse() {
    // TESTING allowances on (no DNS rule), so only the allowlist stands
    // between a caller and loopback. The hand-split reading of this URL has
    // the host `127.0.0.1:<port>\.x.example.com` (under *.example.com) and
    // port 443; the client reads host 127.0.0.1, port <port>.
    let counter = ConnectionCounter::start().await;
    let receiver = Receiver::start().await;
    let app = TestApp::builder()
        .budget_ms(100)
        .loopback_webhooks(&["*.example.com", "localhost"])
        .settings(|settings| settings.push.heartbeat_ms = 0)
        .agent(ScriptedAgent::slow(0))
        .spawn()
        .await;
    let two_ways = format!(
        r"https://127.0.0.1:{}\.x.example.com:443/hook",
        counter.port
    );
    let error = app
        .rpc_error(
            "message/send",
            json!({ "message": user_message("job"), "configuration": { "pushNotificationConfig": { "url": two_ways } } }),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("host `127.0.0.1` is not on the webhook allowlist"),
        "{error}"
    );
    // A receiver the allowlist does allow, written loosely: it is stored as
    // parsed, and it gets the notification.
    let port = receiver.url.rsplit(':').next().unwrap();
    let loose = format!("http://LocalHost:{port}\\ok");
    let task = app
        .rpc(
            "message/send",
            json!({ "message": user_message("job"), "configuration": { "blocking": true } }),
        )
        .await["result"]
        .clone();
    let error = app
        .rpc_error(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": task["id"], "pushNotificationConfig": { "url": two_ways } }),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    let sent = app
        .rpc(
            "message/send",
            json!({ "message": user_message("job"), "configuration": { "pushNotificationConfig": { "id": "ok", "url": loose } } }),
        )
        .await["result"]
        .clone();
    assert_eq!(receiver.wait_for("/ok", 1).await.len(), 1, "delivered");
    let stored = app
        .rpc(
            "tasks/pushNotificationConfig/get",
            json!({ "id": sent["id"], "pushNotificationConfigId": "ok" }),
        )
        .await;
    assert_eq!(
        stored["result"]["pushNotificationConfig"]["url"],
        format!("http://localhost:{port}/ok")
    );
    assert_eq!(
        counter.accepted(),
        0,
        "nothing connected to 127.0.0.1:{}",
        counter.port
    );
}

#[tokio::test]
async fn the_delivery_client_connects_only_to_addresses_the_guard_allows() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let counter = ConnectionCounter::start().await;
    let testing_http_only = GuardSettings {
        allowed_hosts: vec!["localhost".into()],
        allow_loopback_http: true,
        allow_private_addresses: false,
    };
    let client = delivery_client(&testing_http_only).unwrap();
    let error = client
        .post(format!("http://localhost:{}/hook", counter.port))
        .body("{}")
        .send()
        .await
        .expect_err("refused before connecting");
    let refused = refused_resolution(&error).unwrap_or_else(|| panic!("not a refusal: {error:?}"));
    assert_eq!(refused.host, "localhost");
    assert!(refused.address.is_loopback(), "{refused}");
    assert_eq!(counter.accepted(), 0, "nothing connected");

    // With the TESTING allowance the same name reaches a real receiver.
    let receiver = Receiver::start().await;
    let client = delivery_client(&GuardSettings {
        allow_private_addresses: true,
        ..testing_http_only
    })
    .unwrap();
    let port = receiver.url.rsplit(':').next().unwrap();
    let response = client
        .post(format!("http://localhost:{port}/direct"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(receiver.at("/direct").len(), 1);
}

/// This machine's host name when every address it resolves to is loopback
/// (then only the resolver can tell a webhook there from a remote one).
async fn a_name_for_loopback() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() || name == "localhost" || name.ends_with(".localhost") {
        return None;
    }
    let addresses: Vec<_> = tokio::net::lookup_host((name.as_str(), 0))
        .await
        .ok()?
        .collect();
    (!addresses.is_empty() && addresses.iter().all(|a| a.ip().is_loopback())).then_some(name)
}

async fn refused_pushes(app: &TestApp) -> u64 {
    let text = app
        .client
        .get(format!("{}/metrics", app.address))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // Refused deliveries, whatever the reason and format.
    text.lines()
        .filter(|line| line.starts_with("a2a_push_deliveries_total{result=\"refused\","))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_is_never_connected_to_at_delivery() {
    let Some(name) = a_name_for_loopback().await else {
        eprintln!(
            "SKIPPED a_name_that_resolves_to_loopback_is_never_connected_to_at_delivery: \
             this machine's host name does not resolve to loopback only"
        );
        return;
    };
    let counter = ConnectionCounter::start().await;
    let app = TestApp::builder()
        .settings(|settings| {
            settings.push.allowed_hosts = vec![name.clone()];
            settings.push.allow_loopback_http = true;
            settings.push.allow_private_addresses = false;
            settings.push.heartbeat_ms = 0;
            settings.telemetry.metrics_endpoint = true;
        })
        .agent(ScriptedAgent::slow(0))
        .spawn()
        .await;
    let before = refused_pushes(&app).await;
    // A name is not judged by its letters: set time accepts it.
    let url = format!("https://{name}:{}/hook", counter.port);
    let sent = app
        .rpc(
            "message/send",
            json!({ "message": user_message("job"), "configuration": { "pushNotificationConfig": { "url": url } } }),
        )
        .await;
    assert!(sent.get("result").is_some(), "{sent}");
    wait_until(Duration::from_secs(10), async || {
        refused_pushes(&app).await != before
    })
    .await;
    assert!(
        refused_pushes(&app).await > before,
        "the delivery was refused"
    );
    assert_eq!(counter.accepted(), 0, "nothing connected to {name}");
}
