//! Task lifecycle over HTTP: clarification turns, continuing, cancel, stale
//! and empty ids, strict mode, history length, eviction, failing agents.

use crate::helpers::{ScriptedAgent, Store, TestApp, routed_to, state, status_text, user_message};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

#[tokio::test]
async fn a_question_is_answered_in_the_same_task() {
    let app = TestApp::spawn().await;
    let first = app.send_text("why is it blocked by credit").await;
    assert_eq!(state(&first), "input-required");

    let second = app.reply(&first, "4711").await;
    assert_eq!(second["id"], first["id"], "the same task goes on");
    assert_eq!(second["contextId"], first["contextId"]);
    assert_eq!(state(&second), "completed");
    assert!(
        status_text(&second).contains("50700"),
        "{}",
        status_text(&second)
    );
    let history = second["history"].as_array().unwrap();
    let roles: Vec<&str> = history
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "agent", "user"],
        "the answer is the status message"
    );
    assert_eq!(
        history[1]["parts"][0]["text"],
        first["status"]["message"]["parts"][0]["text"]
    );
    for message in history {
        assert_eq!(message["taskId"], first["id"]);
        assert_eq!(message["contextId"], first["contextId"]);
    }
}

#[tokio::test]
async fn no_specialist_is_not_a_dead_end_the_next_message_is_routed_with_what_was_said() {
    let app = TestApp::spawn().await;
    let first = app.send_text("book a meeting room for tomorrow").await;
    assert_eq!(state(&first), "input-required");
    assert_eq!(routed_to(&first), None);

    let second = app
        .reply(&first, "sorry, it is about the price on 4725")
        .await;
    assert_eq!(second["id"], first["id"]);
    assert_eq!(routed_to(&second).as_deref(), Some("pricing"));
    assert_eq!(state(&second), "completed");

    // A two-step clarification: first the problem, then the order.
    let first = app.send_text("hello, I need help").await;
    assert_eq!(state(&first), "input-required");
    let second = app.reply(&first, "missing address data").await;
    assert_eq!(state(&second), "input-required");
    assert!(status_text(&second).contains("Which sales order"));
    let third = app.reply(&second, "order 4723").await;
    assert_eq!(state(&third), "completed");
    assert_eq!(routed_to(&third).as_deref(), Some("masterdata"));
}

#[tokio::test]
async fn cancel_ends_an_open_task_and_it_never_changes_again() {
    let app = TestApp::spawn().await;
    let task = app.send_text("why is it blocked by credit").await;
    let canceled = app.rpc("tasks/cancel", json!({ "id": task["id"] })).await["result"].clone();
    assert_eq!(state(&canceled), "canceled");
    assert_eq!(canceled["id"], task["id"]);

    let fetched = app.rpc("tasks/get", json!({ "id": task["id"] })).await["result"].clone();
    assert_eq!(state(&fetched), "canceled");
    let error = app
        .rpc_error("tasks/cancel", json!({ "id": task["id"] }))
        .await;
    assert_eq!(error["code"], -32002);

    // A follow-up to the canceled task opens a new one in the same context.
    let next = app.reply(&task, "4711").await;
    assert_ne!(next["id"], task["id"]);
    assert_eq!(next["contextId"], task["contextId"]);
    let fetched = app.rpc("tasks/get", json!({ "id": task["id"] })).await["result"].clone();
    assert_eq!(
        state(&fetched),
        "canceled",
        "the canceled task stays canceled"
    );
}

fn reference_ids(task: &Value) -> Vec<String> {
    task["history"][0]["referenceTaskIds"]
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_finished_task_id_opens_a_new_task_in_the_same_context_with_a_reference() {
    let app = TestApp::spawn().await;
    let finished = app.send_text("why is order 4711 blocked by credit").await;
    assert_eq!(state(&finished), "completed");

    let next = app.reply(&finished, "and the price on 4725?").await;
    assert_ne!(next["id"], finished["id"]);
    assert_eq!(next["contextId"], finished["contextId"]);
    assert_eq!(reference_ids(&next), [finished["id"].as_str().unwrap()]);
    assert_eq!(routed_to(&next).as_deref(), Some("pricing"));

    // Joule resends the stale id without the context too.
    let mut message = user_message("order 4723 is incomplete");
    message["taskId"] = finished["id"].clone();
    let again = app.send(message).await;
    assert_eq!(again["contextId"], finished["contextId"]);
    assert_eq!(state(&again), "completed");
    let original = app.rpc("tasks/get", json!({ "id": finished["id"] })).await["result"].clone();
    assert_eq!(
        original["status"], finished["status"],
        "terminal tasks never change"
    );
}

#[tokio::test]
async fn unknown_and_empty_ids_start_new_tasks() {
    let app = TestApp::spawn().await;
    let mut message = user_message("why is order 4711 blocked by credit");
    message["taskId"] = json!("forgotten-after-a-restart");
    message["contextId"] = json!("ctx-from-joule");
    let task = app.send(message).await;
    assert_eq!(state(&task), "completed");
    assert_eq!(task["contextId"], "ctx-from-joule");
    assert_eq!(reference_ids(&task), ["forgotten-after-a-restart"]);

    let mut message = user_message("why is order 4711 blocked by credit");
    message["taskId"] = json!("");
    message["contextId"] = json!("");
    let task = app.send(message).await;
    assert_eq!(state(&task), "completed");
    assert!(!task["id"].as_str().unwrap().is_empty());
    assert!(!task["contextId"].as_str().unwrap().is_empty());
    assert!(reference_ids(&task).is_empty());

    // An open task's id with another context is treated as unknown.
    let open = app.send_text("why is it blocked by credit").await;
    let mut message = user_message("4711");
    message["taskId"] = open["id"].clone();
    message["contextId"] = json!("some-other-context");
    let task = app.send(message).await;
    assert_ne!(task["id"], open["id"]);
    assert_eq!(task["contextId"], "some-other-context");
    let still_open = app.rpc("tasks/get", json!({ "id": open["id"] })).await["result"].clone();
    assert_eq!(state(&still_open), "input-required");
}

#[tokio::test]
async fn strict_mode_answers_32004_for_finished_and_32001_for_unknown_tasks() {
    let app = TestApp::builder()
        .settings(|settings| settings.tasks.strict_task_ids = true)
        .spawn()
        .await;
    let finished = app.send_text("why is order 4711 blocked by credit").await;
    let mut message = user_message("again");
    message["taskId"] = finished["id"].clone();
    let error = app
        .rpc_error("message/send", json!({ "message": message }))
        .await;
    assert_eq!(error["code"], -32004);

    let mut message = user_message("again");
    message["taskId"] = json!("unknown-task");
    let error = app
        .rpc_error("message/send", json!({ "message": message }))
        .await;
    assert_eq!(error["code"], -32001);
}

#[tokio::test]
async fn history_length_zero_some_all_and_negative() {
    let app = TestApp::spawn().await;
    let first = app.send_text("why is it blocked by credit").await;
    app.reply(&first, "4711").await;
    let get = |length: Value| {
        let app = &app;
        let id = first["id"].clone();
        async move {
            let mut params = json!({ "id": id });
            if !length.is_null() {
                params["historyLength"] = length;
            }
            app.rpc("tasks/get", params).await
        }
    };
    let all = get(Value::Null).await["result"].clone();
    assert_eq!(all["history"].as_array().unwrap().len(), 3);
    let none = get(json!(0)).await["result"].clone();
    assert!(none.get("history").is_none(), "{none}");
    let two = get(json!(2)).await["result"].clone();
    let two_history = two["history"].as_array().unwrap();
    assert_eq!(two_history.len(), 2);
    assert_eq!(two_history[1], all["history"][2], "the most recent ones");
    let huge = get(json!(2147483647)).await["result"].clone();
    assert_eq!(huge["history"].as_array().unwrap().len(), 3);
    let error = get(json!(-1)).await["error"].clone();
    assert_eq!(error["code"], -32602);

    let body = app
        .rpc(
            "message/send",
            json!({ "message": user_message("order 4711 credit"), "configuration": { "historyLength": 0 } }),
        )
        .await;
    assert!(body["result"].get("history").is_none());
}

#[tokio::test]
async fn finished_tasks_beyond_the_cap_are_evicted_open_ones_kept() {
    // The caps are the memory store's; SQL stores keep tasks for days.
    let app = TestApp::builder()
        .store(Store::Memory)
        .settings(|settings| settings.tasks.max_finished = 2)
        .spawn()
        .await;
    let open = app.send_text("why is it blocked by credit").await;
    let mut finished = Vec::new();
    for _ in 0..3 {
        finished.push(app.send_text("why is order 4711 blocked by credit").await);
    }
    let error = app
        .rpc_error("tasks/get", json!({ "id": finished[0]["id"] }))
        .await;
    assert_eq!(error["code"], -32001, "the oldest finished task is gone");
    for task in [&finished[1], &finished[2], &open] {
        app.rpc("tasks/get", json!({ "id": task["id"] })).await["result"]["id"]
            .as_str()
            .expect("still there");
    }
}

#[tokio::test]
async fn legacy_tasks_send_is_mapped_onto_message_send() {
    let app = TestApp::spawn().await;
    let body = app
        .rpc(
            "tasks/send",
            json!({
                "id": "legacy-task-1",
                "sessionId": "legacy-session",
                "message": { "role": "user", "parts": [{ "type": "text", "text": "why is order 4711 blocked by credit" }] }
            }),
        )
        .await;
    let task = &body["result"];
    crate::helpers::assert_schema("Task", task);
    assert_eq!(state(task), "completed");
    assert_eq!(task["contextId"], "legacy-session");
    assert!(status_text(task).contains("50700"));
}

/// Asks back on a task's first turn, answers the follow-ups, and panics on
/// the word "panic"; each turn takes `delay`.
fn scripted(delay: Duration) -> Arc<ScriptedAgent> {
    ScriptedAgent::answering_after(delay)
        .asking_first()
        .panicking_on("panic")
        .shared()
}

#[tokio::test]
async fn a_panicking_turn_fails_its_task_and_the_server_keeps_serving() {
    let app = TestApp::builder()
        .agent(scripted(Duration::ZERO))
        .spawn()
        .await;
    let task = app.send_text("please panic").await;
    assert_eq!(state(&task), "failed");
    assert!(
        status_text(&task).contains("internal error"),
        "{}",
        status_text(&task)
    );
    let task = app.send_text("hello").await;
    assert_eq!(state(&task), "input-required");
}

/// A blocking caller drives its turn while it waits; one that goes away
/// mid-turn does not take the turn with it: the task still finishes. (A
/// turn nobody drives runs on its own; streams and non-blocking sends
/// depend on that too.)
#[tokio::test]
async fn a_blocking_caller_that_goes_away_leaves_its_turn_running() {
    let agent = ScriptedAgent::answering_after(Duration::from_millis(400))
        .asking_first()
        .shared();
    let app = TestApp::builder().agent(agent.clone()).spawn().await;
    let first = app.send_text("start").await;
    assert_eq!(state(&first), "input-required");
    let mut follow_up = user_message("go on");
    follow_up["taskId"] = first["id"].clone();
    follow_up["contextId"] = first["contextId"].clone();
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": { "message": follow_up }
    });
    let gave_up = app
        .client
        .post(&app.address)
        .json(&request)
        .timeout(Duration::from_millis(100))
        .send()
        .await;
    assert!(gave_up.is_err(), "the caller gave up before the answer");
    let finished = crate::helpers::wait_until(Duration::from_secs(5), async || {
        let task = app.rpc("tasks/get", json!({ "id": first["id"] })).await;
        state(&task["result"]) == "completed"
    })
    .await;
    assert!(finished, "the turn went on without its caller");
    assert_eq!(agent.finished.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[tokio::test]
async fn two_follow_ups_at_once_run_one_turn() {
    let app = TestApp::builder()
        .agent(scripted(Duration::from_millis(300)))
        .spawn()
        .await;
    let first = app.send_text("start").await;
    assert_eq!(state(&first), "input-required");
    let (a, b) = tokio::join!(app.reply(&first, "answer A"), app.reply(&first, "answer B"));
    let states = [state(&a).to_string(), state(&b).to_string()];
    assert!(
        states.contains(&"completed".to_string()) && states.contains(&"working".to_string()),
        "one turn runs, the other request sees it working: {states:?}"
    );
    let done = app.rpc("tasks/get", json!({ "id": first["id"] })).await["result"].clone();
    assert_eq!(state(&done), "completed");
    let user_messages = done["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert_eq!(
        user_messages, 2,
        "only the winning follow-up is in the history"
    );
}

#[tokio::test]
async fn cancel_while_a_turn_runs_wins_over_the_turn() {
    let app = TestApp::builder()
        .agent(scripted(Duration::from_millis(300)))
        .spawn()
        .await;
    let first = app.send_text("start").await;
    let (answer, canceled) = tokio::join!(app.reply(&first, "go on"), async {
        // Cancel once the follow-up's turn runs (a fixed pause lost the
        // race on a busy machine: the cancel came first and the follow-up
        // then started a new task).
        let running = crate::helpers::wait_until(Duration::from_secs(5), async || {
            let now = app.rpc("tasks/get", json!({ "id": first["id"] })).await;
            state(&now["result"]) == "working"
        })
        .await;
        assert!(running, "the follow-up's turn never ran");
        app.rpc("tasks/cancel", json!({ "id": first["id"] })).await
    });
    assert_eq!(state(&canceled["result"]), "canceled", "{canceled}");
    assert_eq!(
        state(&answer),
        "canceled",
        "the turn's late result is dropped"
    );
    let fetched = app.rpc("tasks/get", json!({ "id": first["id"] })).await["result"].clone();
    assert_eq!(state(&fetched), "canceled");
}
