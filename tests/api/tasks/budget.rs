//! The 55-second budget: a turn that outlasts it answers `working` and goes
//! on in the background; `blocking: false` answers at once; cancel stops a
//! running turn; slow backends are real (latency and timeout settings).

use crate::helpers::{
    STILL_WORKING, STILL_WORKING_ASK_AGAIN, STILL_WORKING_READ_LATER, ScriptedAgent, TestApp,
    state, status_text, user_message, wait_until,
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
/// says how the answer comes (Joule shows the answer's text).
fn assert_still_working_note(task: &Value, note: &str) {
    let message = &task["status"]["message"];
    assert_eq!(message["role"], "agent", "{task}");
    assert_eq!(message["taskId"], task["id"], "{task}");
    assert_eq!(message["contextId"], task["contextId"], "{task}");
    assert_eq!(status_text(task), note, "{task}");
}

#[tokio::test]
async fn the_working_answer_at_the_budget_says_so_and_the_real_answer_replaces_it() {
    // Without a webhook (the task is stored at the budget: nothing brings
    // the result, ask again) and with one and `blocking: true` (stored from
    // the start: it comes by push).
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(600))
        .budget_ms(150)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| settings.push.max_attempts = 1)
        .spawn()
        .await;
    // Nothing listens on port 9: deliveries fail, the answers do not care.
    let configurations = [
        (json!({ "blocking": true }), STILL_WORKING_ASK_AGAIN),
        (
            json!({ "blocking": true, "pushNotificationConfig": { "url": "http://127.0.0.1:9/hook" } }),
            STILL_WORKING,
        ),
    ];
    for (configuration, note) in configurations {
        let body = app
            .rpc(
                "message/send",
                json!({ "message": user_message("take your time"), "configuration": configuration }),
            )
            .await;
        let task = body["result"].clone();
        assert_eq!(state(&task), "working", "answered at the budget: {task}");
        assert_still_working_note(&task, note);
        assert!(agent_history(&task).is_empty(), "{task}");
        let done = settled(&app, &task).await;
        assert_eq!(state(&done), "completed", "{done}");
        assert_eq!(status_text(&done), "done: take your time");
        // The note was never stored: the history holds the question only.
        assert!(agent_history(&done).is_empty(), "no stale note: {done}");
        assert_eq!(done["history"].as_array().map(Vec::len), Some(1), "{done}");
    }
}

/// A follow-up into the task of a `working` answer, as Joule's dialog
/// function sends it (it keeps the task id while the task works).
fn again(task: &Value, text: &str) -> Value {
    let mut message = user_message(text);
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    message
}

/// Joule's synchronous mode: no push config, so the `working` answer tells
/// the user to ask again in this conversation. Asking while the turn runs
/// gets the same note; asking once it has ended gets its answer (in a new
/// task of the conversation, as a finished task never changes), without a
/// second turn; the message after that is a question of its own again.
#[tokio::test]
async fn asking_again_as_the_working_answer_says_gets_the_answer() {
    let agent = ScriptedAgent::slow(800);
    let app = TestApp::builder()
        .agent(agent.clone())
        .budget_ms(150)
        .spawn()
        .await;
    let task = app.send_text("why is 4711 blocked").await;
    assert_eq!(state(&task), "working", "{task}");
    assert_still_working_note(&task, STILL_WORKING_ASK_AGAIN);

    // Too soon: the same task, still working, says so again.
    let soon = app.send(again(&task, "is it done?")).await;
    assert_eq!(soon["id"], task["id"], "{soon}");
    assert_eq!(state(&soon), "working", "{soon}");
    assert_still_working_note(&soon, STILL_WORKING_ASK_AGAIN);

    let done = settled(&app, &task).await;
    assert_eq!(state(&done), "completed", "{done}");
    assert_eq!(done["metadata"]["toldToAskAgain"], true, "{done}");
    let answer = app.send(again(&task, "is it done?")).await;
    assert_eq!(state(&answer), "completed", "{answer}");
    assert_eq!(
        status_text(&answer),
        "done: why is 4711 blocked",
        "{answer}"
    );
    // Where Joule's function reads a finished answer.
    assert_eq!(
        answer["artifacts"][0]["parts"][0]["text"], "done: why is 4711 blocked",
        "{answer}"
    );
    assert_eq!(answer["artifacts"], done["artifacts"], "{answer}");
    assert_ne!(answer["id"], task["id"]);
    assert_eq!(answer["contextId"], task["contextId"]);
    assert_eq!(answer["history"][0]["parts"][0]["text"], "is it done?");
    assert_eq!(
        answer["history"][0]["referenceTaskIds"],
        json!([task["id"]]),
        "{answer}"
    );
    assert_eq!(
        answer["status"]["message"]["referenceTaskIds"],
        json!([task["id"]]),
        "{answer}"
    );
    assert!(answer["metadata"].is_null(), "{answer}");
    assert_eq!(agent.finished.load(Ordering::SeqCst), 1, "no second turn");
    let stored = app.rpc("tasks/get", json!({ "id": answer["id"] })).await["result"].clone();
    assert_eq!(state(&stored), "completed", "{stored}");

    // The answer given, the next message (naming the answer's task, as
    // functions that always keep the id do) is a question again.
    let next = app.send(again(&answer, "and 4712?")).await;
    assert_eq!(state(&next), "working", "{next}");
    assert_eq!(state(&settled(&app, &next).await), "completed");
    assert_eq!(agent.finished.load(Ordering::SeqCst), 2);
}

/// A caller that did not wait (`blocking: false`, no push config) and
/// names the running task is told to ask again too, and asking again once
/// it has ended gets its answer.
#[tokio::test]
async fn a_caller_that_did_not_wait_and_is_told_to_ask_again_gets_the_answer_too() {
    let agent = ScriptedAgent::slow(600);
    let app = TestApp::builder()
        .agent(agent.clone())
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
    let soon = app.send(again(&task, "is it done?")).await;
    assert_eq!(soon["id"], task["id"], "{soon}");
    assert_still_working_note(&soon, STILL_WORKING_ASK_AGAIN);
    settled(&app, &task).await;
    let answer = app.send(again(&task, "is it done?")).await;
    assert_eq!(state(&answer), "completed", "{answer}");
    assert_eq!(status_text(&answer), "done: long job", "{answer}");
    assert_eq!(agent.finished.load(Ordering::SeqCst), 1, "no second turn");
}

/// With a push config the result comes by push: the `working` answer says
/// it follows, and a later message naming the finished task is a question
/// of its own.
#[tokio::test]
async fn with_a_push_config_the_answer_follows_and_a_later_message_is_a_new_question() {
    let agent = ScriptedAgent::slow(500);
    let app = TestApp::builder()
        .agent(agent.clone())
        .budget_ms(150)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| settings.push.max_attempts = 1)
        .spawn()
        .await;
    let body = app
        .rpc(
            "message/send",
            json!({
                "message": user_message("take your time"),
                "configuration": {
                    "blocking": true,
                    "pushNotificationConfig": { "url": "http://127.0.0.1:9/hook" }
                }
            }),
        )
        .await;
    let task = body["result"].clone();
    assert_still_working_note(&task, STILL_WORKING);
    let soon = app.send(again(&task, "is it done?")).await;
    assert_still_working_note(&soon, STILL_WORKING);
    let done = settled(&app, &task).await;
    assert!(done["metadata"]["toldToAskAgain"].is_null(), "{done}");
    let next = app
        .rpc(
            "message/send",
            json!({ "message": again(&task, "a new question"), "configuration": { "blocking": true } }),
        )
        .await["result"]
        .clone();
    assert_ne!(next["id"], task["id"]);
    assert_eq!(state(&settled(&app, &next).await), "completed");
    assert_eq!(
        agent.finished.load(Ordering::SeqCst),
        2,
        "a turn of its own"
    );
}

/// With strict task ids a message naming a finished task is an error, so
/// the `working` answer says to read the result with `tasks/get`, which
/// gives it.
#[tokio::test]
async fn with_strict_task_ids_the_working_answer_says_to_read_the_result() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(400))
        .budget_ms(150)
        .settings(|settings| settings.tasks.strict_task_ids = true)
        .spawn()
        .await;
    let task = app.send_text("take your time").await;
    assert_still_working_note(&task, STILL_WORKING_READ_LATER);
    let done = settled(&app, &task).await;
    assert_eq!(status_text(&done), "done: take your time");
    assert!(done["metadata"]["toldToAskAgain"].is_null(), "{done}");
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
    assert_still_working_note(&task, STILL_WORKING_ASK_AGAIN);
    settled(&app, &task).await;
    // The user asks again, as told, and gets the order agent's answer.
    let answer = app.send(again(&task, "is it done?")).await;
    assert_eq!(state(&answer), "completed", "{answer}");
    assert!(status_text(&answer).contains("50700"), "{answer}");
    assert!(
        answer["artifacts"][0]["parts"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("50700")),
        "{answer}"
    );
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

/// A turn past the budget that ends with an approval question: the caller
/// was told to ask again and has not seen the question, so their next
/// message (here a stray "ok") is not its answer. It shows the question;
/// only the message after that approves, and only then is anything filed.
#[tokio::test]
async fn asking_again_shows_an_unseen_approval_question_and_files_nothing() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.backend.latency_ms = 150;
            settings.tasks.budget_ms = 100;
        })
        .spawn()
        .await;
    let manager = app.as_role("credit_manager");
    let task = manager
        .send_text("why is order 4711 blocked by credit")
        .await;
    assert_eq!(state(&task), "working", "{task}");
    assert_still_working_note(&task, STILL_WORKING_ASK_AGAIN);
    let waiting = settled(&app, &task).await;
    assert_eq!(state(&waiting), "input-required", "{waiting}");

    let shown = manager.send(again(&task, "ok")).await;
    assert_eq!(shown["id"], task["id"], "{shown}");
    assert_eq!(state(&shown), "input-required", "{shown}");
    assert!(
        status_text(&shown).contains("Request a credit review for order 4711?"),
        "{shown}"
    );
    assert!(shown["metadata"]["toldToAskAgain"].is_null(), "{shown}");
    assert!(manager.actions().await.is_empty(), "nothing filed yet");

    // Filing reads the order again, past the budget too.
    manager.send(again(&task, "approve")).await;
    let approved = settled(&app, &task).await;
    assert_eq!(state(&approved), "completed", "{approved}");
    let filed = manager.actions().await;
    assert_eq!(filed.len(), 1, "{filed:?}");
    assert_eq!(filed[0]["salesOrder"], "4711", "{filed:?}");
}
