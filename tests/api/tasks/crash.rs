//! Nothing acknowledged is lost (issue 54): tasks answered right before a
//! crash of the database (PostgreSQL stopped `immediate`, its WAL replayed
//! at the next start) or of the service (SIGKILL, SQLite) are all there
//! after it; and a PostgreSQL that is down is refused at once, then served
//! again when it is back, without a restart of the service.

use crate::helpers::binary::start_binary;
use crate::helpers::own_postgres::OwnPostgres;
use crate::helpers::{Store, TestApp, state, user_message, wait_until};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Tasks answered before the crash begins.
const BEFORE_CRASH: usize = 300;
/// Callers sending at once, each one `message/send` after another.
const SENDERS: usize = 16;

/// One `message/send`; the task's id if it was answered (not when it was
/// refused, or the connection broke before the whole answer came).
async fn send_one(app: &TestApp, text: &str) -> Option<String> {
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": { "message": user_message(text) }
    });
    let response = app
        .client
        .post(format!("{}/", app.address))
        .json(&request)
        .send()
        .await
        .ok()?;
    let body: Value = response.json().await.ok()?;
    body["result"]["id"].as_str().map(str::to_string)
}

/// [`SENDERS`] callers send tasks until one is not answered; once
/// [`BEFORE_CRASH`] were answered, `crash` runs while they keep sending.
/// The id of every task answered, before the crash or while it happened.
async fn answer_through_a_crash(app: &TestApp, crash: impl AsyncFnOnce()) -> Vec<String> {
    let answered = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut senders = tokio::task::JoinSet::new();
    for sender in 0..SENDERS {
        let (app, answered, stop) = (app.clone(), Arc::clone(&answered), Arc::clone(&stop));
        senders.spawn(async move {
            let text = format!("why is order {} blocked by credit", 4700 + sender);
            while !stop.load(Ordering::Relaxed) {
                let Some(id) = send_one(&app, &text).await else {
                    return;
                };
                answered.lock().expect("not poisoned").push(id);
            }
        });
    }
    let count = || answered.lock().expect("not poisoned").len();
    let reached = wait_until(Duration::from_secs(120), async || count() >= BEFORE_CRASH).await;
    assert!(reached, "only {} tasks answered before the crash", count());
    crash().await;
    stop.store(true, Ordering::Relaxed);
    while let Some(sender) = senders.join_next().await {
        sender.expect("the sender ran");
    }
    std::mem::take(&mut *answered.lock().expect("not poisoned"))
}

/// The answered tasks `app` does not find.
async fn missing(app: &TestApp, answered: &[String]) -> Vec<String> {
    let mut missing = Vec::new();
    for id in answered {
        let body = app.rpc("tasks/get", json!({ "id": id })).await;
        if body["result"]["id"].as_str() != Some(id) {
            missing.push(format!("{id}: {body}"));
        }
    }
    missing
}

#[tokio::test]
async fn every_answered_task_survives_a_crash_of_postgres() {
    let Some(cluster) =
        OwnPostgres::start("every_answered_task_survives_a_crash_of_postgres").await
    else {
        return;
    };
    let app = TestApp::builder()
        .store(Store::Postgres(cluster.url()))
        .spawn()
        .await;
    let answered = answer_through_a_crash(&app, async || cluster.crash().await).await;
    cluster.start_again().await;

    let restarted = TestApp::builder()
        .store(Store::Postgres(cluster.url()))
        .spawn()
        .await;
    let lost = missing(&restarted, &answered).await;
    assert!(
        lost.is_empty(),
        "{} of {} answered tasks lost in the crash: {lost:?}",
        lost.len(),
        answered.len()
    );
}

#[tokio::test]
async fn every_answered_task_survives_a_kill_of_the_service_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("oea-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let dir_text = dir.to_string_lossy().to_string();
    let envs = [
        ("AGENT__STORE__BACKEND", "sqlite"),
        ("AGENT__STORE__DATA_DIR", dir_text.as_str()),
        ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3"),
    ];
    let mut first = start_binary(&envs).await;
    let app = first.app();
    let answered = answer_through_a_crash(&app, async || {
        first.child.kill().expect("SIGKILL");
        let _ = first.child.wait();
    })
    .await;

    let second = start_binary(&envs).await;
    let lost = missing(&second.app(), &answered).await;
    assert!(
        lost.is_empty(),
        "{} of {} answered tasks lost with the process: {lost:?}",
        lost.len(),
        answered.len()
    );
    second.terminate().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The store's state as `/health` shows it, if any.
async fn store_state(app: &TestApp) -> Option<String> {
    let health = app.get_json("/health").await;
    assert_eq!(health["status"], "UP", "never failing the check: {health}");
    health["store"]["state"].as_str().map(str::to_string)
}

#[tokio::test]
async fn a_postgres_that_is_down_is_refused_at_once_and_served_again_when_back() {
    let Some(cluster) = OwnPostgres::start("a_postgres_that_is_down_is_refused_at_once").await
    else {
        return;
    };
    let app = TestApp::builder()
        .store(Store::Postgres(cluster.url()))
        .spawn()
        .await;
    let before = app.send_text("why is order 4711 blocked by credit").await;
    assert_eq!(store_state(&app).await, None);
    cluster.crash().await;

    // The first calls find it gone (each may wait out the pool's 5 s).
    let mut seen = None;
    let found_down = wait_until(Duration::from_secs(30), async || {
        let _ = app.rpc("tasks/get", json!({ "id": before["id"] })).await;
        seen = store_state(&app).await;
        seen.is_some()
    })
    .await;
    assert!(found_down, "/health never said the database is down");
    let said = seen.unwrap_or_default();
    assert!(said.starts_with("database unreachable"), "{said}");

    // Known down: answered at once. A client that gives up after 2 s (the
    // pool alone waits 5 s, and a turn's retries 4.2 s more) gets the
    // answer, the same -32603 as any store that does not answer.
    let impatient = app.giving_up_after(Duration::from_secs(2));
    for (method, params) in [
        (
            "message/send",
            json!({ "message": user_message("why is order 4712 blocked by credit") }),
        ),
        ("tasks/get", json!({ "id": before["id"] })),
    ] {
        let error = impatient.rpc_error(method, params).await;
        assert_eq!(error["code"], -32603, "{method}: {error}");
        assert_eq!(
            error["message"], "task store unavailable: please try again shortly",
            "{method}: no internals: {error}"
        );
    }
    // The ledger too: 503 at once.
    let actions = impatient
        .client
        .get(format!("{}/actions", app.address))
        .send()
        .await
        .expect("answered before the client gives up");
    assert_eq!(actions.status(), 503);

    cluster.start_again().await;
    let mut answer = Value::Null;
    let served = wait_until(Duration::from_secs(20), async || {
        answer = app
            .rpc(
                "message/send",
                json!({ "message": user_message("why is order 4713 blocked by credit") }),
            )
            .await;
        answer.get("result").is_some()
    })
    .await;
    assert!(served, "served again without a restart: {answer}");
    assert_eq!(store_state(&app).await, None, "/health no longer says down");
    let kept = app.rpc("tasks/get", json!({ "id": before["id"] })).await;
    assert_eq!(state(&kept["result"]), state(&before), "{kept}");
}
