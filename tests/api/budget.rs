//! The 55-second budget: a turn that outlasts it answers `working` and goes
//! on in the background; `blocking: false` answers at once; cancel stops a
//! running turn; slow backends are real (latency and timeout settings).

use crate::helpers::{
    STILL_WORKING, ScriptedAgent, TestApp, state, status_text, user_message, wait_until,
};
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Poll `tasks/get` until the task leaves `working` (at most 10 s).
async fn settled(app: &TestApp, task: &Value) -> Value {
    let mut current = Value::Null;
    wait_until(Duration::from_secs(10), async || {
        current = app.rpc("tasks/get", json!({ "id": task["id"] })).await["result"].clone();
        state(&current) != "working"
    })
    .await;
    current
}

#[tokio::test]
async fn a_turn_longer_than_the_budget_answers_working_and_completes_later() {
    let agent = ScriptedAgent::slow(800);
    let app = TestApp::builder()
        .agent(agent.clone())
        .budget_ms(150)
        .spawn()
        .await;
    let task = app.send_text("take your time").await;
    assert_eq!(state(&task), "working", "answered at the budget: {task}");
    assert_eq!(
        agent.finished.load(Ordering::SeqCst),
        0,
        "before the turn ended"
    );
    let done = settled(&app, &task).await;
    assert_eq!(state(&done), "completed");
    assert_eq!(status_text(&done), "done: take your time");
    assert_eq!(agent.finished.load(Ordering::SeqCst), 1);
}

/// The agent messages of a task's history.
fn agent_history(task: &Value) -> Vec<Value> {
    task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "agent")
        .cloned()
        .collect()
}

/// What a `working` answer at the budget must carry: an agent message that
/// says the answer follows (Joule shows the answer's text).
fn assert_still_working_note(task: &Value) {
    let message = &task["status"]["message"];
    assert_eq!(message["role"], "agent", "{task}");
    assert_eq!(message["taskId"], task["id"], "{task}");
    assert_eq!(message["contextId"], task["contextId"], "{task}");
    assert_eq!(status_text(task), STILL_WORKING, "{task}");
}

#[tokio::test]
async fn the_working_answer_at_the_budget_says_so_and_the_real_answer_replaces_it() {
    // Without a webhook (the task is stored at the budget) and with one
    // and `blocking: true` (stored from the start).
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(600))
        .budget_ms(150)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| settings.push.max_attempts = 1)
        .spawn()
        .await;
    // Nothing listens on port 9: deliveries fail, the answers do not care.
    let configurations = [
        json!({ "blocking": true }),
        json!({ "blocking": true, "pushNotificationConfig": { "url": "http://127.0.0.1:9/hook" } }),
    ];
    for configuration in configurations {
        let body = app
            .rpc(
                "message/send",
                json!({ "message": user_message("take your time"), "configuration": configuration }),
            )
            .await;
        let task = body["result"].clone();
        assert_eq!(state(&task), "working", "answered at the budget: {task}");
        assert_still_working_note(&task);
        assert!(agent_history(&task).is_empty(), "{task}");
        let done = settled(&app, &task).await;
        assert_eq!(state(&done), "completed", "{done}");
        assert_eq!(status_text(&done), "done: take your time");
        // The note was never stored: the history holds the question only.
        assert!(agent_history(&done).is_empty(), "no stale note: {done}");
        assert_eq!(done["history"].as_array().map(Vec::len), Some(1), "{done}");
    }
}

#[tokio::test]
async fn a_turn_within_the_budget_answers_the_final_state() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(100))
        .budget_ms(5_000)
        .spawn()
        .await;
    let task = app.send_text("quick").await;
    assert_eq!(state(&task), "completed");
}

#[tokio::test]
async fn blocking_false_answers_at_once() {
    let agent = ScriptedAgent::slow(500);
    let app = TestApp::builder()
        .agent(agent.clone())
        .budget_ms(55_000)
        .spawn()
        .await;
    let body = app
        .rpc(
            "message/send",
            json!({ "message": user_message("later"), "configuration": { "blocking": false } }),
        )
        .await;
    let task = body["result"].clone();
    assert!(
        ["submitted", "working"].contains(&state(&task)),
        "not waited for: {task}"
    );
    assert_eq!(agent.finished.load(Ordering::SeqCst), 0);
    assert_eq!(state(&settled(&app, &task).await), "completed");
}

#[tokio::test]
async fn cancel_stops_a_running_turn() {
    let agent = ScriptedAgent::slow(700);
    let app = TestApp::builder()
        .agent(agent.clone())
        .budget_ms(55_000)
        .spawn()
        .await;
    let body = app
        .rpc(
            "message/send",
            json!({ "message": user_message("long job"), "configuration": { "blocking": false } }),
        )
        .await;
    let task = body["result"].clone();
    let canceled = app.rpc("tasks/cancel", json!({ "id": task["id"] })).await["result"].clone();
    assert_eq!(state(&canceled), "canceled");
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        agent.finished.load(Ordering::SeqCst),
        0,
        "the turn was stopped"
    );
    let fetched = app.rpc("tasks/get", json!({ "id": task["id"] })).await["result"].clone();
    assert_eq!(state(&fetched), "canceled");
}

#[tokio::test]
async fn a_follow_up_on_a_working_task_starts_no_second_turn() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(2_000))
        .budget_ms(55_000)
        .spawn()
        .await;
    let task = app
        .rpc(
            "message/send",
            json!({ "message": user_message("long job"), "configuration": { "blocking": false } }),
        )
        .await["result"]
        .clone();
    // A follow-up on a working task answers it as it is, without a second turn.
    let mut again = user_message("are you done?");
    again["taskId"] = task["id"].clone();
    let snapshot = app.send(again).await;
    assert_eq!(snapshot["id"], task["id"]);
    assert_eq!(state(&snapshot), "working");
    app.rpc("tasks/cancel", json!({ "id": task["id"] })).await;
    assert_eq!(state(&settled(&app, &task).await), "canceled");
}

#[tokio::test]
async fn a_slow_backend_goes_async_and_still_answers() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.backend.latency_ms = 150;
            settings.tasks.budget_ms = 100;
        })
        .spawn()
        .await;
    let task = app.send_text("why is order 4711 blocked by credit").await;
    assert_eq!(state(&task), "working");
    let done = settled(&app, &task).await;
    assert_eq!(state(&done), "completed");
    assert!(status_text(&done).contains("50700"));
}

#[tokio::test]
async fn a_backend_slower_than_its_timeout_fails_the_task_clearly() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.backend.latency_ms = 400;
            settings.backend.timeout_ms = 100;
        })
        .spawn()
        .await;
    let task = app.send_text("why is order 4711 blocked by credit").await;
    assert_eq!(state(&task), "failed");
    assert!(
        status_text(&task).contains("no answer within"),
        "{}",
        status_text(&task)
    );
}
