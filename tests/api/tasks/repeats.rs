//! A repeated message is not a second request: the same `messageId` from
//! the same caller (a client or a proxy retrying after a dropped
//! connection) answers with the task that message opened or continued, as
//! it stands now, on every store and wire; another caller's message with
//! the same id is its own (docs/api.md, "A repeated message").

use crate::auth::ownership::{ok, raw, user};
use crate::helpers::key_server::KeyServer;
use crate::helpers::{Store, TestApp, approval, postgres_url, state, user_message};
use crate::protocol::streaming::stream;
use serde_json::{Value, json};

const DISPUTE_4725: &str = "Order 4725: Pricing: customer disputes the price.";

/// `message/send` of exactly `message`; the whole JSON-RPC answer.
async fn send_again(app: &TestApp, message: &Value) -> Value {
    app.rpc("message/send", json!({ "message": message })).await
}

/// The caller's tasks, as 1.0 `ListTasks` counts them.
async fn task_count(app: &TestApp) -> u64 {
    let listed: Value = app
        .client
        .post(format!("{}/", app.address))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}))
        .send()
        .await
        .expect("reaches the server")
        .json()
        .await
        .expect("JSON");
    listed["result"]["totalSize"]
        .as_u64()
        .unwrap_or_else(|| panic!("ListTasks counts the tasks: {listed}"))
}

/// An approval asked and answered, each message sent twice: one task, one
/// turn each (the approval is filed once, the history holds each message
/// once), and the repeat answers the task as it stands.
async fn a_repeat_is_answered_with_its_task(store: Store) {
    let app = TestApp::builder().store(store).spawn().await;
    let clerk = app.as_role("ar_clerk");
    let ask = user_message(DISPUTE_4725);
    let asked = clerk.send(ask.clone()).await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let again = send_again(&clerk, &ask).await["result"].clone();
    assert_eq!(again["id"], asked["id"], "the same task: {again}");
    assert_eq!(state(&again), "input-required");
    assert_eq!(task_count(&clerk).await, 1, "no second task");

    let mut approve = user_message("approve");
    approve["taskId"] = asked["id"].clone();
    approve["contextId"] = asked["contextId"].clone();
    let filed = clerk.send(approve.clone()).await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");
    let repeated = send_again(&clerk, &approve).await["result"].clone();
    assert_eq!(repeated["id"], asked["id"], "{repeated}");
    assert_eq!(state(&repeated), "completed");
    assert_eq!(
        approval(&repeated)["status"],
        "filed",
        "the first turn's answer, not a second turn's `already_filed`: {repeated}"
    );
    assert_eq!(
        repeated["history"].as_array().map(Vec::len),
        filed["history"].as_array().map(Vec::len),
        "the repeat is not added to the history: {repeated}"
    );
    assert_eq!(app.actions().await.len(), 1, "one approval turn ran");
    assert_eq!(task_count(&clerk).await, 1, "still one task");

    // The same messageId naming another task is not a repeat: refused.
    let other = clerk.send_text("why is order 4711 blocked by credit").await;
    let mut confused = ask.clone();
    confused["taskId"] = other["id"].clone();
    let refused = send_again(&clerk, &confused).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let said = refused["error"]["message"].as_str().unwrap_or("");
    assert!(said.contains("messageId"), "{said}");
}

#[tokio::test]
async fn a_repeated_message_is_answered_with_its_task_in_memory() {
    a_repeat_is_answered_with_its_task(Store::Memory).await;
}

#[tokio::test]
async fn a_repeated_message_is_answered_with_its_task_with_sqlite() {
    a_repeat_is_answered_with_its_task(Store::Sqlite).await;
}

#[tokio::test]
async fn a_repeated_message_is_answered_with_its_task_with_postgres() {
    let Some(url) = postgres_url("a_repeated_message_with_postgres").await else {
        return;
    };
    a_repeat_is_answered_with_its_task(Store::Postgres(url)).await;
}

/// A blocking send's task is stored once it is finished; a repeat while
/// its turn still runs gets it at once, `working`, and the first call
/// still gets the result of the one turn.
#[tokio::test]
async fn a_repeat_while_the_first_turn_runs_gets_the_same_task_working() {
    let app = TestApp::builder()
        .settings(|settings| settings.backend.latency_ms = 1_500)
        .spawn()
        .await;
    let manager = app.as_role("credit_manager");
    let message = user_message("why is order 4711 blocked by credit");
    let first = tokio::spawn({
        let (manager, message) = (manager.clone(), message.clone());
        async move { manager.send(message).await }
    });
    // The first call's turn is under way (its order read takes 1.5 s).
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let repeated = send_again(&manager, &message).await["result"].clone();
    assert_eq!(state(&repeated), "working", "{repeated}");
    let first = first.await.expect("the first call answers");
    assert_eq!(first["id"], repeated["id"], "{first}");
    assert_eq!(state(&first), "input-required", "{first}");
    assert_eq!(task_count(&manager).await, 1, "one task");
}

/// Streams and the 1.0 wire: a repeated `message/stream` is the task as it
/// stands (and its final status, as for any paused task), with no turn of
/// its own; a repeated 1.0 `SendMessage` answers the same task.
#[tokio::test]
async fn a_repeated_stream_or_v1_message_gets_the_same_task() {
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");
    let message = user_message(DISPUTE_4725);
    let params = json!({ "message": message });
    let first = stream(&clerk, "message/stream", params.clone()).await;
    let task_id = first[0]["id"].clone();
    assert!(task_id.is_string(), "{first:?}");
    let again = stream(&clerk, "message/stream", params).await;
    assert_eq!(again[0]["kind"], "task");
    assert_eq!(again[0]["id"], task_id);
    assert_eq!(state(&again[0]), "input-required");
    assert!(
        again
            .iter()
            .all(|event| event["kind"] == "task" || event["taskId"] == task_id),
        "{again:?}"
    );
    assert!(
        again
            .iter()
            .all(|event| !matches!(state(event), "submitted" | "working")),
        "no second turn: {again:?}"
    );

    let v1 = json!({"message": {"messageId": "v1-repeat", "role": "ROLE_USER",
        "parts": [{"text": DISPUTE_4725}]}});
    let send_v1 = async || -> Value {
        let answer: Value = clerk
            .client
            .post(format!("{}/", clerk.address))
            .header("A2A-Version", "1.0")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": v1}))
            .send()
            .await
            .expect("reaches the server")
            .json()
            .await
            .expect("JSON");
        answer["result"]["task"].clone()
    };
    let (one, two) = (send_v1().await, send_v1().await);
    assert!(one["id"].is_string(), "{one}");
    assert_eq!(one["id"], two["id"], "{two}");
    assert_eq!(task_count(&clerk).await, 2);
}

/// Another caller's message with the same id is a message of its own.
#[tokio::test]
async fn another_callers_message_with_the_same_id_opens_its_own_task() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    let (alice, bob) = (user("alice", &["ar_clerk"]), user("bob", &["ar_clerk"]));
    let message = json!({"message": user_message(DISPUTE_4725)});
    let alices = ok(&app, &alice, false, "message/send", message.clone()).await;
    let bobs = ok(&app, &bob, false, "message/send", message.clone()).await;
    assert_ne!(alices["id"], bobs["id"], "two callers, two tasks");
    assert_eq!(state(&bobs), "input-required", "{bobs}");
    let alices_again = ok(&app, &alice, false, "message/send", message.clone()).await;
    assert_eq!(alices_again["id"], alices["id"]);
    let (status, bobs_again) = raw(&app, &bob, false, "message/send", message).await;
    assert_eq!(status, 200);
    let bobs_again: Value = serde_json::from_str(&bobs_again).expect("JSON");
    assert_eq!(bobs_again["result"]["id"], bobs["id"], "{bobs_again}");
}
