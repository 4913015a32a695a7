//! SSE: `message/stream` and `tasks/resubscribe` over real HTTP; every event
//! is a JSON-RPC response checked against the A2A schema.

use crate::helpers::{ScriptedAgent, TestApp, assert_schema, state, user_message, wait_until};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::time::Duration;

/// POST a streaming request and collect every SSE event until the server
/// closes the stream.
pub(crate) async fn stream(app: &TestApp, method: &str, params: Value) -> Vec<Value> {
    let response = open(app, method, params).await;
    let text = response.text().await.expect("the stream ends");
    events(&text)
}

async fn open(app: &TestApp, method: &str, params: Value) -> reqwest::Response {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .json(&json!({ "jsonrpc": "2.0", "id": "s-1", "method": method, "params": params }))
        .send()
        .await
        .expect("request reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    response
}

fn raw_events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter_map(|block| block.lines().find_map(|line| line.strip_prefix("data: ")))
        .map(|data| serde_json::from_str(data).expect("each event is JSON"))
        .collect()
}

fn events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter_map(|block| block.lines().find_map(|line| line.strip_prefix("data: ")))
        .map(|data| {
            let event: Value = serde_json::from_str(data).expect("each event is JSON");
            assert_eq!(event["id"], "s-1", "each event carries the request id");
            assert_schema("SendStreamingMessageResponse", &event);
            event["result"].clone()
        })
        .collect()
}

fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let kind = e["kind"].as_str().unwrap_or("?");
            match kind {
                "task" | "status-update" => {
                    format!("{kind}:{}", e["status"]["state"].as_str().unwrap_or("?"))
                }
                _ => kind.to_string(),
            }
        })
        .collect()
}

#[tokio::test]
async fn a_completed_task_streams_submitted_working_artifacts_and_a_final_status() {
    let app = TestApp::spawn().await;
    let events = stream(
        &app,
        "message/stream",
        json!({ "message": user_message("why is order 4711 blocked by credit") }),
    )
    .await;
    assert_eq!(
        kinds(&events),
        [
            "task:submitted",
            "status-update:working",
            "artifact-update",
            "artifact-update",
            "status-update:completed"
        ]
    );
    let last = events.last().unwrap();
    assert_eq!(last["final"], true);
    assert!(
        last["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("50700")
    );
    assert_eq!(
        events[3]["artifact"]["parts"][0]["data"]["action"],
        "request_credit_review"
    );
    let task_id = &events[0]["id"];
    for event in &events[1..] {
        assert_eq!(&event["taskId"], task_id);
    }
    let stored = app.rpc("tasks/get", json!({ "id": task_id })).await["result"].clone();
    assert_eq!(state(&stored), "completed");
}

#[tokio::test]
async fn input_required_ends_a_stream_and_a_follow_up_streams_the_rest() {
    let app = TestApp::spawn().await;
    let events = stream(
        &app,
        "message/stream",
        json!({ "message": user_message("why is it blocked by credit") }),
    )
    .await;
    let last = events.last().unwrap();
    assert_eq!(last["status"]["state"], "input-required");
    assert_eq!(last["final"], true);

    let mut follow_up = user_message("4711");
    follow_up["taskId"] = events[0]["id"].clone();
    follow_up["contextId"] = events[0]["contextId"].clone();
    let events = stream(&app, "message/stream", json!({ "message": follow_up })).await;
    assert_eq!(
        kinds(&events),
        [
            "task:working",
            "artifact-update",
            "artifact-update",
            "status-update:completed"
        ]
    );
}

/// A batch's approval turns keep one `approvals` artifact: each turn sends
/// it again with the same `artifactId` and `append: false` (replace it),
/// holding every order decided so far, and the task ends with one.
#[tokio::test]
async fn each_approval_turn_replaces_the_one_approvals_artifact() {
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk.send_text("show me all blocked orders").await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let approving = |text: &str| {
        let mut message = user_message(text);
        message["taskId"] = asked["id"].clone();
        message["contextId"] = asked["contextId"].clone();
        json!({ "message": message })
    };
    let approvals_update = |events: &[Value]| -> Value {
        let updates: Vec<&Value> = events
            .iter()
            .filter(|event| {
                event["kind"] == "artifact-update" && event["artifact"]["name"] == "approvals"
            })
            .collect();
        assert_eq!(updates.len(), 1, "one approvals update: {events:#?}");
        assert_eq!(updates[0]["append"], false, "{}", updates[0]);
        updates[0]["artifact"].clone()
    };
    let orders_of = |artifact: &Value| -> Vec<String> {
        artifact["parts"][0]["data"]["approvals"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|note| format!("{} {}", note["salesOrder"], note["status"]))
            .collect()
    };

    let first = stream(&clerk, "message/stream", approving("approve 4725")).await;
    let made = approvals_update(&first);
    assert_eq!(orders_of(&made), ["\"4725\" \"filed\""]);

    let second = stream(&clerk, "message/stream", approving("approve all")).await;
    let replaced = approvals_update(&second);
    assert_eq!(replaced["artifactId"], made["artifactId"], "{replaced}");
    assert_eq!(
        orders_of(&replaced),
        ["\"4725\" \"already_filed\"", "\"4740\" \"filed\""]
    );

    let done = app.rpc("tasks/get", json!({ "id": asked["id"] })).await["result"].clone();
    assert_eq!(state(&done), "completed", "{done}");
    let stored: Vec<&Value> = done["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|artifact| artifact["name"] == "approvals")
        .collect();
    assert_eq!(stored, [&replaced], "{done}");
}

#[tokio::test]
async fn resubscribe_mid_turn_gets_the_rest_and_a_finished_task_its_final_state() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(400))
        .spawn()
        .await;
    let task = app
        .rpc(
            "message/send",
            json!({ "message": user_message("slow"), "configuration": { "blocking": false } }),
        )
        .await["result"]
        .clone();
    let events = stream(&app, "tasks/resubscribe", json!({ "id": task["id"] })).await;
    assert_eq!(
        kinds(&events),
        ["task:working", "artifact-update", "status-update:completed"]
    );

    let events = stream(&app, "tasks/resubscribe", json!({ "id": task["id"] })).await;
    assert_eq!(
        kinds(&events),
        ["task:completed", "status-update:completed"]
    );
    assert_eq!(events[1]["final"], true);
}

#[tokio::test]
async fn a_client_that_disconnects_mid_stream_leaves_the_task_running() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(400))
        .spawn()
        .await;
    let response = open(
        &app,
        "message/stream",
        json!({ "message": user_message("slow") }),
    )
    .await;
    let mut body = response.bytes_stream();
    let first = body.next().await.expect("a first event").expect("readable");
    let first = events(std::str::from_utf8(&first).unwrap());
    let task_id = first[0]["id"].clone();
    drop(body);
    let completed = wait_until(Duration::from_secs(10), async || {
        let task = app.rpc("tasks/get", json!({ "id": task_id })).await["result"].clone();
        state(&task) == "completed"
    })
    .await;
    assert!(completed, "the turn ran on after the client left");
}

#[tokio::test]
async fn a_stream_that_cannot_start_sends_one_error_event() {
    let app = TestApp::spawn().await;
    for (method, params, code) in [
        ("message/stream", json!({ "message": 5 }), -32602),
        ("tasks/resubscribe", json!({ "id": "no-such-task" }), -32001),
    ] {
        let response = open(&app, method, params).await;
        let events = raw_events(&response.text().await.unwrap());
        assert_eq!(events.len(), 1, "{method}");
        assert_schema("JSONRPCErrorResponse", &events[0]);
        assert_eq!(events[0]["id"], "s-1");
        assert_eq!(events[0]["error"]["code"], code, "{method}");
    }
}

#[tokio::test]
async fn quiet_streams_get_keep_alive_comments() {
    let app = TestApp::builder()
        .settings(|settings| settings.server.sse_keep_alive_ms = 100)
        .agent(ScriptedAgent::slow(450))
        .spawn()
        .await;
    let response = open(
        &app,
        "message/stream",
        json!({ "message": user_message("slow") }),
    )
    .await;
    let text = response.text().await.unwrap();
    assert!(text.contains(": keep-alive\n\n"), "{text}");
    assert_eq!(
        events(&text).last().unwrap()["status"]["state"],
        "completed"
    );
}
