//! Open event streams are bounded, over real HTTP: per caller, per task and
//! in all (within half the connection limit); past a bound a new stream is
//! refused at once with 429, `Retry-After` and -32029 naming the setting,
//! and starts no task; with the streams at their most `GET /health` and a
//! `message/send` still answer within a second; a stream its client closes
//! gives its place back at once, not at the next keep-alive write.

use crate::auth::ownership::user;
use crate::helpers::key_server::KeyServer;
use crate::helpers::{ScriptedAgent, Settings, TestApp, TestAppBuilder, wait_until};
use crate::protocol::a2a_v1::message;
use serde_json::{Value, json};
use std::time::Duration;

/// Longer than any test here: only a closed connection can end a stream.
const QUIET: u64 = 60_000;

/// A service whose first turns ask back, so a task waits and a 1.0
/// subscription to it stays open.
fn waiting_tasks(change: impl FnOnce(&mut Settings)) -> TestAppBuilder {
    let agent = ScriptedAgent::answering_after(Duration::ZERO)
        .asking_first()
        .shared();
    TestApp::builder().agent(agent).settings(|settings| {
        settings.server.sse_keep_alive_ms = QUIET;
        change(settings);
    })
}

/// A client of its own: no idle connection kept, so each stream is one
/// connection and a dropped answer closes its connection.
fn own_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client builds")
}

/// POST one JSON-RPC request (1.0 when `v1`), as `token` if any; the
/// answer once its head has arrived, within 2 s.
async fn post(
    app: &TestApp,
    client: &reqwest::Client,
    token: Option<&str>,
    v1: bool,
    method: &str,
    params: Value,
) -> reqwest::Response {
    let mut request = client.post(format!("{}/", app.address));
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    if v1 {
        request = request.header("A2A-Version", "1.0");
    }
    let sent = request
        .json(&json!({"jsonrpc": "2.0", "id": "b-1", "method": method, "params": params}))
        .send();
    tokio::time::timeout(Duration::from_secs(2), sent)
        .await
        .unwrap_or_else(|_| panic!("{method} answered no head within 2 s"))
        .expect("reaches the server")
}

/// A 1.0 `SubscribeToTask` on `task_id`.
async fn subscribe(
    app: &TestApp,
    client: &reqwest::Client,
    token: Option<&str>,
    task_id: &str,
) -> reqwest::Response {
    post(
        app,
        client,
        token,
        true,
        "SubscribeToTask",
        json!({"id": task_id}),
    )
    .await
}

/// A waiting task of `token`'s caller (everyone's with authentication off).
async fn waiting_task(app: &TestApp, token: Option<&str>) -> String {
    let answer = post(
        app,
        &app.client,
        token,
        false,
        "message/send",
        json!({"message": crate::helpers::user_message("which order?")}),
    )
    .await;
    let body: Value = answer.json().await.expect("JSON");
    assert_eq!(
        body["result"]["status"]["state"], "input-required",
        "{body}"
    );
    body["result"]["id"]
        .as_str()
        .expect("a task id")
        .to_string()
}

/// The answer is the refusal past `setting`: 429, `Retry-After`, a plain
/// JSON-RPC error -32029 that names the setting.
async fn assert_refused(answer: reqwest::Response, setting: &str) {
    assert_eq!(answer.status().as_u16(), 429);
    assert_eq!(answer.headers()["retry-after"], "5");
    let content_type = answer.headers()["content-type"].to_str().expect("text");
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let body: Value = answer.json().await.expect("JSON");
    assert_eq!(body["id"], "b-1", "{body}");
    assert_eq!(body["error"]["code"], -32029, "{body}");
    assert_eq!(body["error"]["data"]["limit"], setting, "{body}");
    assert_eq!(body["error"]["data"]["retryAfterSeconds"], 5, "{body}");
    let words = body["error"]["message"].as_str().expect("a message");
    assert!(words.contains(setting), "{words}");
}

#[tokio::test]
async fn a_caller_past_its_streams_is_refused_with_429_and_another_caller_is_not() {
    let keys = KeyServer::start().await;
    let app = waiting_tasks(|settings| {
        settings.server.streams_per_caller = 2;
        settings.server.streams_per_task = 100;
    })
    .auth(&keys)
    .spawn()
    .await;
    let (alice, bob) = (user("alice", &["ar_clerk"]), user("bob", &["ar_clerk"]));
    let client = own_client();
    let hers = waiting_task(&app, Some(&alice)).await;
    let mut open = Vec::new();
    for _ in 0..2 {
        let answer = subscribe(&app, &client, Some(&alice), &hers).await;
        assert_eq!(answer.status().as_u16(), 200);
        open.push(answer);
    }
    assert_refused(
        subscribe(&app, &client, Some(&alice), &hers).await,
        "server.streams_per_caller",
    )
    .await;
    // Over 0.3 too, and a refused `message/stream` starts no task.
    let before = task_count(&app, &alice).await;
    let refused = post(
        &app,
        &client,
        Some(&alice),
        false,
        "message/stream",
        json!({"message": crate::helpers::user_message("one more")}),
    )
    .await;
    assert_refused(refused, "server.streams_per_caller").await;
    assert_eq!(
        task_count(&app, &alice).await,
        before,
        "no task was started"
    );
    // Another caller is not held back by her streams.
    let his = waiting_task(&app, Some(&bob)).await;
    assert_eq!(
        subscribe(&app, &client, Some(&bob), &his)
            .await
            .status()
            .as_u16(),
        200
    );
}

/// How many tasks `token`'s caller has (1.0 `ListTasks`).
async fn task_count(app: &TestApp, token: &str) -> u64 {
    let answer = post(app, &app.client, Some(token), true, "ListTasks", json!({})).await;
    let body: Value = answer.json().await.expect("JSON");
    body["result"]["totalSize"].as_u64().expect("a count")
}

#[tokio::test]
async fn a_task_past_its_streams_is_refused_with_429() {
    let app = waiting_tasks(|settings| settings.server.streams_per_task = 2)
        .spawn()
        .await;
    let client = own_client();
    let task = waiting_task(&app, None).await;
    let mut open = Vec::new();
    for _ in 0..2 {
        let answer = subscribe(&app, &client, None, &task).await;
        assert_eq!(answer.status().as_u16(), 200);
        open.push(answer);
    }
    assert_refused(
        subscribe(&app, &client, None, &task).await,
        "server.streams_per_task",
    )
    .await;
    // A stream on another task is not held back.
    let other = waiting_task(&app, None).await;
    assert_eq!(
        subscribe(&app, &client, None, &other)
            .await
            .status()
            .as_u16(),
        200
    );
}

#[tokio::test]
async fn with_the_streams_at_their_most_health_and_a_send_answer_within_a_second() {
    // 8 connections (4 per worker): at most 4 streams.
    let app = waiting_tasks(|settings| {
        settings.server.max_connections = 8;
        settings.server.streams_per_task = 100;
    })
    .spawn()
    .await;
    let client = own_client();
    let task = waiting_task(&app, None).await;
    let mut open = Vec::new();
    let mut refused = 0;
    // As many as there are connections: the streams past the bound are
    // refused at once and leave their connections free.
    for _ in 0..8 {
        let answer = subscribe(&app, &client, None, &task).await;
        if answer.status().as_u16() == 200 {
            open.push(answer);
        } else {
            assert_refused(answer, "server.max_streams").await;
            refused += 1;
        }
    }
    assert_eq!((open.len(), refused), (4, 4));
    let within_a_second = Duration::from_secs(1);
    let health = tokio::time::timeout(
        within_a_second,
        own_client().get(format!("{}/health", app.address)).send(),
    )
    .await
    .expect("/health answers within 1 s")
    .expect("reaches the server");
    assert_eq!(health.status().as_u16(), 200);
    let sent = tokio::time::timeout(
        within_a_second,
        post(
            &app,
            &own_client(),
            None,
            true,
            "SendMessage",
            json!({"message": message("another order")}),
        ),
    )
    .await
    .expect("SendMessage answers within 1 s");
    assert_eq!(sent.status().as_u16(), 200);
    let body: Value = sent.json().await.expect("JSON");
    assert!(body["result"]["task"]["id"].is_string(), "{body}");
}

#[tokio::test]
async fn a_stream_its_client_closes_frees_its_place_within_seconds() {
    let app = waiting_tasks(|settings| {
        settings.server.max_streams = 2;
        settings.server.streams_per_task = 100;
    })
    .spawn()
    .await;
    let client = own_client();
    let task = waiting_task(&app, None).await;
    let first = subscribe(&app, &client, None, &task).await;
    let _second = subscribe(&app, &client, None, &task).await;
    assert_eq!(first.status().as_u16(), 200);
    assert_refused(
        subscribe(&app, &client, None, &task).await,
        "server.max_streams",
    )
    .await;
    // The client goes; no keep-alive write comes for a minute.
    drop(first);
    let mut reopened = None;
    let freed = wait_until(Duration::from_secs(3), async || {
        let answer = subscribe(&app, &client, None, &task).await;
        let ok = answer.status().as_u16() == 200;
        if ok {
            reopened = Some(answer);
        }
        ok
    })
    .await;
    assert!(freed, "the closed stream's place is free within 3 s");
    let _reopened = reopened.expect("the stream that took the place");
    // The place taken again: the bound holds.
    assert_refused(
        subscribe(&app, &client, None, &task).await,
        "server.max_streams",
    )
    .await;
}
