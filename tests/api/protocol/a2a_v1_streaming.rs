//! A2A 1.0 streams over real HTTP (`SendStreamingMessage`,
//! `SubscribeToTask`): each SSE event a JSON-RPC response whose `result` is
//! a `StreamResponse` valid against the 1.0 schema; the task first, then
//! `statusUpdate` / `artifactUpdate` in order, no `final`, the stream closed
//! at the status that ends or pauses the task. A call that cannot start its
//! stream answers one plain JSON-RPC error (`application/json`), as
//! a2a-python does and the conformance suite expects.

use crate::helpers::{ScriptedAgent, TestApp, user_message};
use crate::protocol::a2a_v1::{assert_v1_error, message, send, v1_ok};
use crate::protocol::a2a_v1_schema::assert_v1;
use serde_json::{Value, json};

/// POST a 1.0 streaming request; every event until the server closes.
pub(crate) async fn stream_v1(app: &TestApp, method: &str, params: Value) -> Vec<Value> {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": "s-1", "method": method, "params": params}))
        .send()
        .await
        .expect("request reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .expect("text")
        .to_string();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let text = response.text().await.expect("the stream ends");
    text.split("\n\n")
        .filter_map(|block| block.lines().find_map(|line| line.strip_prefix("data: ")))
        .map(|data| {
            let event: Value = serde_json::from_str(data).expect("each event is JSON");
            assert_eq!(event["id"], "s-1", "{event}");
            assert_eq!(event["jsonrpc"], "2.0");
            if let Some(error) = event.get("error") {
                assert_v1_error(error);
            } else {
                assert_v1("StreamResponse", &event["result"]);
            }
            event
        })
        .collect()
}

/// POST a 1.0 streaming request that must be refused before its stream
/// starts: one plain JSON-RPC error, no event stream; the error.
pub(crate) async fn stream_v1_refused(app: &TestApp, method: &str, params: Value) -> Value {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": "s-1", "method": method, "params": params}))
        .send()
        .await
        .expect("request reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .expect("text")
        .to_string();
    assert!(
        content_type.starts_with("application/json"),
        "{method}: {content_type}"
    );
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["id"], "s-1", "{body}");
    assert!(body.get("result").is_none(), "{body}");
    assert_v1_error(&body["error"]);
    body["error"].clone()
}

/// `task:STATE`, `statusUpdate:STATE`, `artifactUpdate`, `error:CODE`.
pub(crate) fn shapes(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            if let Some(error) = event.get("error") {
                return format!("error:{}", error["code"]);
            }
            let result = &event["result"];
            assert!(result.get("kind").is_none(), "no kind in 1.0: {result}");
            assert!(
                result
                    .get("statusUpdate")
                    .is_none_or(|u| u.get("final").is_none()),
                "no final in 1.0: {result}"
            );
            let state = |value: &Value| {
                value["status"]["state"]
                    .as_str()
                    .unwrap_or("?")
                    .trim_start_matches("TASK_STATE_")
                    .to_string()
            };
            if let Some(task) = result.get("task") {
                format!("task:{}", state(task))
            } else if let Some(update) = result.get("statusUpdate") {
                format!("statusUpdate:{}", state(update))
            } else if result.get("artifactUpdate").is_some() {
                "artifactUpdate".to_string()
            } else if result.get("message").is_some() {
                "message".to_string()
            } else {
                format!("? {result}")
            }
        })
        .collect()
}

#[tokio::test]
async fn a_streamed_send_starts_with_the_task_and_ends_at_completed() {
    let app = TestApp::spawn().await;
    let events = stream_v1(
        &app,
        "SendStreamingMessage",
        json!({"message": message("why is order 4711 blocked by credit")}),
    )
    .await;
    assert_eq!(
        shapes(&events),
        [
            "task:SUBMITTED",
            "statusUpdate:WORKING",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate:COMPLETED"
        ]
    );
    let task_id = &events[0]["result"]["task"]["id"];
    let update = &events[2]["result"]["artifactUpdate"];
    assert_eq!(&update["taskId"], task_id);
    assert_eq!(update["lastChunk"], true);
    // A 0.3 data part is a 1.0 part with `data`, no `kind`.
    let proposal = &events[3]["result"]["artifactUpdate"]["artifact"]["parts"][0];
    assert_eq!(
        proposal["data"]["action"], "request_credit_review",
        "{proposal}"
    );
}

#[tokio::test]
async fn input_required_ends_the_stream_and_a_streamed_follow_up_finishes_it() {
    let app = TestApp::builder()
        .agent(
            ScriptedAgent::answering_after(std::time::Duration::ZERO)
                .asking_first()
                .shared(),
        )
        .spawn()
        .await;
    let events = stream_v1(
        &app,
        "SendStreamingMessage",
        json!({"message": message("which?")}),
    )
    .await;
    assert_eq!(
        shapes(&events),
        [
            "task:SUBMITTED",
            "statusUpdate:WORKING",
            "statusUpdate:INPUT_REQUIRED"
        ]
    );
    let mut follow_up = message("that one");
    follow_up["taskId"] = events[0]["result"]["task"]["id"].clone();
    let events = stream_v1(&app, "SendStreamingMessage", json!({"message": follow_up})).await;
    assert_eq!(
        shapes(&events),
        ["task:WORKING", "artifactUpdate", "statusUpdate:COMPLETED"]
    );
}

#[tokio::test]
async fn subscribing_mid_turn_gets_the_task_then_the_rest_and_a_finished_task_is_32004() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(400))
        .spawn()
        .await;
    // Started over 0.3, followed over 1.0.
    let task = app
        .rpc(
            "message/send",
            json!({"message": user_message("slow"), "configuration": {"blocking": false}}),
        )
        .await["result"]
        .clone();
    let events = stream_v1(&app, "SubscribeToTask", json!({"id": task["id"]})).await;
    assert_eq!(
        shapes(&events),
        ["task:WORKING", "artifactUpdate", "statusUpdate:COMPLETED"]
    );
    let error = stream_v1_refused(&app, "SubscribeToTask", json!({"id": task["id"]})).await;
    assert_eq!(error["code"], -32004, "{error}");
    assert_eq!(error["data"][0]["reason"], "UNSUPPORTED_OPERATION");
}

#[tokio::test]
async fn subscribing_to_a_finished_task_is_32004_and_resubscribing_over_0_3_its_final_state() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(400))
        .spawn()
        .await;
    for outcome in ["completed", "canceled"] {
        let task = if outcome == "completed" {
            send(&app, message("slow")).await
        } else {
            let task = app
                .rpc(
                    "message/send",
                    json!({"message": user_message("slow"), "configuration": {"blocking": false}}),
                )
                .await["result"]
                .clone();
            v1_ok(&app, "CancelTask", json!({"id": task["id"]})).await
        };
        let state = format!("TASK_STATE_{}", outcome.to_uppercase());
        assert_eq!(task["status"]["state"], state.as_str(), "{task}");
        let error = stream_v1_refused(&app, "SubscribeToTask", json!({"id": task["id"]})).await;
        assert_eq!(error["code"], -32004, "{outcome}: {error}");
        assert_eq!(error["data"][0]["reason"], "UNSUPPORTED_OPERATION");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|text| text.contains(&state)),
            "{error}"
        );
        // 0.3 keeps its behaviour: the final status, then the stream closes.
        let events = crate::protocol::streaming::stream(
            &app,
            "tasks/resubscribe",
            json!({"id": task["id"]}),
        )
        .await;
        let last = events.last().expect("an event");
        assert_eq!(last["final"], true, "{events:?}");
        assert_eq!(last["status"]["state"], outcome, "{events:?}");
    }
}

#[tokio::test]
async fn a_1_0_stream_that_cannot_start_answers_one_plain_1_0_error() {
    let app = TestApp::spawn().await;
    for (method, params, code) in [
        ("SendStreamingMessage", json!({"message": 5}), -32602),
        ("SubscribeToTask", json!({"id": "no-such-task"}), -32001),
    ] {
        let error = stream_v1_refused(&app, method, params).await;
        assert_eq!(error["code"], code, "{method}: {error}");
    }
}

/// Open a 1.0 `SubscribeToTask` stream: once the answer's headers are in,
/// the subscription is registered; the response, to read to its end.
async fn open_subscription(app: &TestApp, task_id: &Value) -> reqwest::Response {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("A2A-Version", "1.0")
        .json(
            &json!({"jsonrpc": "2.0", "id": "s-1", "method": "SubscribeToTask",
            "params": {"id": task_id}}),
        )
        .send()
        .await
        .expect("request reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    response
}

/// Every event of a stream read to its end (10 s at most).
async fn events_of(response: reqwest::Response) -> Vec<Value> {
    let text = tokio::time::timeout(std::time::Duration::from_secs(10), response.text())
        .await
        .expect("the stream ends within 10 s")
        .expect("the stream ends");
    text.split("\n\n")
        .filter_map(|block| block.lines().find_map(|line| line.strip_prefix("data: ")))
        .map(|data| serde_json::from_str::<Value>(data).expect("each event is JSON"))
        .inspect(|event| assert_v1("StreamResponse", &event["result"]))
        .collect()
}

#[tokio::test]
async fn a_subscription_to_a_waiting_task_stays_open_through_its_next_turn_to_the_end() {
    let app = TestApp::builder()
        .agent(
            ScriptedAgent::answering_after(std::time::Duration::from_millis(100))
                .asking_first()
                .shared(),
        )
        .spawn()
        .await;
    let task = send(&app, message("which?")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    // Two subscribers at once, as the conformance suite holds them.
    let first = open_subscription(&app, &task["id"]).await;
    let second = open_subscription(&app, &task["id"]).await;
    // Another call continues the task and finishes it.
    let mut follow_up = message("that one");
    follow_up["taskId"] = task["id"].clone();
    let done = send(&app, follow_up).await;
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED");
    for subscription in [first, second] {
        let events = events_of(subscription).await;
        assert_eq!(
            shapes(&events),
            [
                "task:INPUT_REQUIRED",
                "statusUpdate:WORKING",
                "artifactUpdate",
                "statusUpdate:COMPLETED"
            ]
        );
        let last = &events[3]["result"]["statusUpdate"];
        assert_eq!(last["taskId"], task["id"]);
        assert_eq!(
            last["status"]["message"]["parts"][0]["text"],
            "done: that one"
        );
    }
    // 0.3 `tasks/resubscribe` keeps closing at once for a waiting task.
    let mut question = message("which again?");
    question["messageId"] = json!(uuid::Uuid::new_v4().to_string());
    let waiting = send(&app, question).await;
    let events =
        crate::protocol::streaming::stream(&app, "tasks/resubscribe", json!({"id": waiting["id"]}))
            .await;
    let last = events.last().expect("an event");
    assert_eq!(last["final"], true, "{events:?}");
    assert_eq!(last["status"]["state"], "input-required", "{events:?}");
}

#[tokio::test]
async fn a_subscription_to_a_waiting_task_ends_when_the_task_is_canceled() {
    let app = TestApp::builder()
        .agent(
            ScriptedAgent::answering_after(std::time::Duration::ZERO)
                .asking_first()
                .shared(),
        )
        .spawn()
        .await;
    let task = send(&app, message("which?")).await;
    let subscription = open_subscription(&app, &task["id"]).await;
    let canceled = v1_ok(&app, "CancelTask", json!({"id": task["id"]})).await;
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    let events = events_of(subscription).await;
    assert_eq!(
        shapes(&events),
        ["task:INPUT_REQUIRED", "statusUpdate:CANCELED"]
    );
}
