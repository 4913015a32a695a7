//! Overload, over real HTTP: past `server.max_calls_in_flight` a new call
//! is shed at once with 503 and `Retry-After` while `/health` and the card
//! answer and the calls in flight finish and are stored; connections that
//! send nothing neither shut `/health` out (more of them than the old
//! limit of 512) nor hold their slot longer than `server.head_timeout_ms`.

use crate::helpers::{ScriptedAgent, TestApp, user_message, wait_until};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// Loose enough for a busy machine; the answers come within milliseconds.
const PROMPTLY: Duration = Duration::from_secs(3);

/// A client of its own: one connection per request, none kept idle.
fn own_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client builds")
}

/// GET `path` on a fresh connection: its status, within [`PROMPTLY`].
async fn get_status(app: &TestApp, path: &str) -> u16 {
    let sent = own_client().get(format!("{}{path}", app.address)).send();
    tokio::time::timeout(PROMPTLY, sent)
        .await
        .unwrap_or_else(|_| panic!("GET {path} answered within {PROMPTLY:?}"))
        .expect("reaches the server")
        .status()
        .as_u16()
}

fn send_request(text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": text, "method": "message/send",
           "params": {"message": user_message(text)}})
}

#[tokio::test]
async fn past_the_calls_in_flight_a_call_is_shed_with_503_and_health_still_answers() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(1_500))
        .settings(|settings| {
            settings.server.max_calls_in_flight = 2;
            settings.telemetry.metrics_endpoint = true;
        })
        .spawn()
        .await;
    // Two slow calls take every place.
    let slow: Vec<_> = (0..2)
        .map(|call| {
            let app = app.clone();
            tokio::spawn(async move { app.send_text(&format!("slow call {call}")).await })
        })
        .collect();
    let taken = wait_until(PROMPTLY, async || {
        app.get_json("/health").await["calls"] == json!({"inFlight": 2, "max": 2})
    })
    .await;
    assert!(taken, "/health shows both calls in flight");

    // A third is shed at once, before its body is read.
    let started = Instant::now();
    let shed = tokio::time::timeout(
        PROMPTLY,
        own_client()
            .post(format!("{}/", app.address))
            .json(&send_request("one too many"))
            .send(),
    )
    .await
    .expect("shed at once, not queued")
    .expect("reaches the server");
    assert!(
        started.elapsed() < Duration::from_millis(1_500),
        "not queued behind the slow calls"
    );
    assert_eq!(shed.status().as_u16(), 503);
    assert_eq!(shed.headers()["retry-after"], "1");
    assert_eq!(shed.headers()["connection"], "close");
    let body: Value = shed.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["id"], Value::Null, "{body}");
    let words = body["error"]["message"].as_str().expect("a message");
    assert!(words.contains("server.max_calls_in_flight"), "{words}");
    assert!(words.contains("retry in 1 s"), "{words}");
    // Health and the card are never shed.
    assert_eq!(get_status(&app, "/health").await, 200);
    assert_eq!(get_status(&app, "/.well-known/agent-card.json").await, 200);

    // The calls in flight finish and are stored; their places come back.
    for call in slow {
        let task = call.await.expect("the slow call ends");
        assert_eq!(task["status"]["state"], "completed", "{task}");
        let stored = app.rpc("tasks/get", json!({"id": task["id"]})).await;
        assert_eq!(stored["result"]["id"], task["id"], "{stored}");
    }
    assert_eq!(
        app.get_json("/health").await["calls"],
        json!({"inFlight": 0, "max": 2})
    );
    // Counted by the limit that shed it.
    assert!(app.limit_refusals("calls_in_flight").await >= 1);
}

/// Open `count` connections to `port` that send nothing.
async fn idle_connections(port: u16, count: usize) -> Vec<TcpStream> {
    let mut open = Vec::with_capacity(count);
    for _ in 0..count {
        open.push(
            TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("connects"),
        );
    }
    open
}

#[tokio::test]
async fn more_idle_connections_than_the_old_limit_leave_health_answering() {
    // The defaults (`server.max_connections`): 600 connections were more
    // than the 512 there used to be, and /health waited ~10 s behind them.
    let app = TestApp::spawn().await;
    let idle = idle_connections(app.port, 600).await;
    let started = Instant::now();
    assert_eq!(get_status(&app, "/health").await, 200);
    assert!(started.elapsed() < PROMPTLY);
    let (status, body) = app
        .post_raw(
            send_request("why is order 4711 blocked by credit").to_string(),
            Some("application/json"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");
    drop(idle);
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_head_timeout() {
    // The defaults: 2 s for a first request head (the body keeps its 10 s).
    let app = TestApp::spawn().await;
    let mut idle = idle_connections(app.port, 1).await.remove(0);
    let started = Instant::now();
    let mut received = Vec::new();
    let closed =
        tokio::time::timeout(Duration::from_secs(6), idle.read_to_end(&mut received)).await;
    assert!(
        closed.is_ok(),
        "closed within 6 s, not after the 10 s of a body"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(1_500),
        "not before the head timeout"
    );
    let answer = String::from_utf8_lossy(&received);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
}
