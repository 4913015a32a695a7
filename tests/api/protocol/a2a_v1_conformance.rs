//! The conformance agent (`conformance.tck_scenarios`, TESTS ONLY) behind
//! the real endpoint: each `messageId` scenario of the 1.0 conformance
//! suite (`tck-sut/*.feature`), over 1.0 unary (`SendMessage`) and
//! streaming (`SendStreamingMessage`), every answer validated as 1.0;
//! `tck-message-response`'s bare message also over 0.3 `message/send`.

use crate::helpers::TestApp;
use crate::protocol::a2a_v1::{send, v1_ok};
use crate::protocol::a2a_v1_streaming::{shapes, stream_v1};
use serde_json::{Value, json};

async fn conformance_app() -> TestApp {
    TestApp::builder()
        .settings(|settings| {
            settings.conformance.tck_scenarios = true;
            settings.conformance.resubscribe_delay_ms = Some(300);
        })
        .spawn()
        .await
}

fn message(prefix: &str) -> Value {
    json!({
        "messageId": format!("{prefix}-{}", uuid::Uuid::new_v4()),
        "role": "ROLE_USER",
        "parts": [{"text": "TCK"}],
    })
}

/// Every part of every artifact of `task`.
fn parts(task: &Value) -> Vec<Value> {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|artifact| artifact["parts"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// What each unary scenario must leave: its state and a part it must carry.
fn expectations() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "tck-complete-task",
            "TASK_STATE_COMPLETED",
            json!({"text": "Hello from TCK"}),
        ),
        (
            "tck-artifact-text",
            "TASK_STATE_COMPLETED",
            json!({"text": "Generated text content"}),
        ),
        (
            "tck-artifact-file",
            "TASK_STATE_COMPLETED",
            json!({"raw": "R2VuZXJhdGVkIHRleHQgY29udGVudA==", "mediaType": "text/plain", "filename": "output.txt"}),
        ),
        (
            "tck-artifact-file-url",
            "TASK_STATE_COMPLETED",
            json!({"url": "https://example.com/output.txt", "mediaType": "text/plain", "filename": "output.txt"}),
        ),
        (
            "tck-artifact-data",
            "TASK_STATE_COMPLETED",
            json!({"data": {"key": "value", "count": 42}}),
        ),
        (
            "tck-message-response",
            "TASK_STATE_COMPLETED",
            json!({"text": "Direct message response"}),
        ),
        (
            "tck-input-required",
            "TASK_STATE_INPUT_REQUIRED",
            Value::Null,
        ),
        ("tck-reject-task", "TASK_STATE_REJECTED", Value::Null),
    ]
}

#[tokio::test]
async fn each_unary_scenario_is_acted_out_over_1_0() {
    let app = conformance_app().await;
    for (prefix, state, part) in expectations() {
        // Answers a bare message over a blocking send: its own test below.
        if prefix == "tck-message-response" {
            continue;
        }
        let task = send(&app, message(prefix)).await;
        assert_eq!(task["status"]["state"], state, "{prefix}: {task}");
        if !part.is_null() {
            let mut found = parts(&task);
            found.extend(
                task["status"]["message"]["parts"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            );
            assert!(found.contains(&part), "{prefix}: {part} not in {task}");
        }
        // And read back as stored.
        let got = v1_ok(&app, "GetTask", json!({"id": task["id"]})).await;
        assert_eq!(got["status"]["state"], state, "{prefix}");
    }
}

#[tokio::test]
async fn the_message_response_scenario_answers_a_bare_message_over_1_0() {
    let app = conformance_app().await;
    // v1_ok validates the result as a 1.0 SendMessageResponse.
    let result = v1_ok(
        &app,
        "SendMessage",
        json!({"message": message("tck-message-response")}),
    )
    .await;
    assert!(result.get("task").is_none(), "{result}");
    let answer = &result["message"];
    assert_eq!(answer["role"], "ROLE_AGENT", "{result}");
    assert_eq!(
        answer["parts"],
        json!([{"text": "Direct message response"}]),
        "{result}"
    );
    assert!(
        answer.get("taskId").is_none(),
        "no task stands behind it: {result}"
    );
    // No task was stored for it.
    let listed = v1_ok(&app, "ListTasks", json!({})).await;
    assert_eq!(listed["tasks"], json!([]), "{listed}");
}

#[tokio::test]
async fn the_message_response_scenario_answers_a_bare_message_over_0_3() {
    let app = conformance_app().await;
    // rpc validates the answer against the 0.3 schema.
    let body = app
        .rpc(
            "message/send",
            json!({"message": {
                "kind": "message",
                "messageId": format!("tck-message-response-{}", uuid::Uuid::new_v4()),
                "role": "user",
                "parts": [{"kind": "text", "text": "TCK"}],
            }}),
        )
        .await;
    let result = &body["result"];
    assert_eq!(result["kind"], "message", "{body}");
    assert_eq!(result["role"], "agent", "{body}");
    assert_eq!(
        result["parts"][0]["text"], "Direct message response",
        "{body}"
    );
}

#[tokio::test]
async fn each_scenario_streams_over_1_0_and_ends_where_the_unary_call_does() {
    let app = conformance_app().await;
    for (prefix, state, part) in expectations() {
        let events = stream_v1(
            &app,
            "SendStreamingMessage",
            json!({"message": message(prefix)}),
        )
        .await;
        let shapes = shapes(&events);
        assert_eq!(
            shapes.first().map(String::as_str),
            Some("task:SUBMITTED"),
            "{prefix}: {shapes:?}"
        );
        let last = state.trim_start_matches("TASK_STATE_");
        assert_eq!(
            shapes.last(),
            Some(&format!("statusUpdate:{last}")),
            "{prefix}: {shapes:?}"
        );
        if !part.is_null() && prefix != "tck-complete-task" && prefix != "tck-message-response" {
            let streamed: Vec<Value> = events
                .iter()
                .filter_map(|event| event["result"].get("artifactUpdate"))
                .flat_map(|update| {
                    update["artifact"]["parts"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                })
                .collect();
            assert!(
                streamed.contains(&part),
                "{prefix}: {part} not streamed: {events:?}"
            );
        }
    }
}

#[tokio::test]
async fn each_streaming_scenario_streams_working_its_artifacts_and_completed() {
    let app = conformance_app().await;
    for (prefix, texts) in [
        ("tck-stream-001", vec!["Stream hello from TCK"]),
        ("tck-stream-002", vec![]),
        ("tck-stream-003", vec!["Stream task lifecycle"]),
        ("tck-stream-ordering-001", vec!["Ordered output"]),
        ("tck-stream-artifact-text", vec!["Streamed text content"]),
        ("tck-stream-artifact-file", vec![]),
        ("tck-stream-artifact-chunked", vec!["chunk-1 ", "chunk-2"]),
        ("test-resubscribe-message-id", vec![]),
    ] {
        let events = stream_v1(
            &app,
            "SendStreamingMessage",
            json!({"message": message(prefix)}),
        )
        .await;
        let shapes = shapes(&events);
        assert_eq!(
            &shapes[..2],
            ["task:SUBMITTED", "statusUpdate:WORKING"],
            "{prefix}: {shapes:?}"
        );
        assert_eq!(
            shapes.last().map(String::as_str),
            Some("statusUpdate:COMPLETED"),
            "{prefix}"
        );
        let streamed: Vec<Value> = events
            .iter()
            .filter_map(|event| event["result"].get("artifactUpdate"))
            .flat_map(|update| {
                update["artifact"]["parts"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        for text in texts {
            assert!(
                streamed.contains(&json!({"text": text})),
                "{prefix}: {text} not in {streamed:?}"
            );
        }
        // Unary, the same scenario completes with the same output.
        let task = send(&app, message(prefix)).await;
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{prefix}");
    }
}

#[tokio::test]
async fn the_long_running_scenario_can_be_subscribed_to_while_it_works() {
    let app = conformance_app().await;
    let started = v1_ok(
        &app,
        "SendMessage",
        json!({"message": message("test-resubscribe-message-id"),
            "configuration": {"returnImmediately": true}}),
    )
    .await;
    let id = started["task"]["id"].clone();
    let events = stream_v1(&app, "SubscribeToTask", json!({"id": id})).await;
    let shapes = shapes(&events);
    assert_eq!(
        shapes.first().map(String::as_str),
        Some("task:WORKING"),
        "{shapes:?}"
    );
    assert_eq!(
        shapes.last().map(String::as_str),
        Some("statusUpdate:COMPLETED"),
        "{shapes:?}"
    );
}

/// The artifact parts under `name`, per artifact with that name.
fn named_artifacts<'a>(task: &'a Value, name: &str) -> Vec<&'a Value> {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|artifact| artifact["name"] == name)
        .collect()
}

#[tokio::test]
async fn the_chunked_artifact_streams_two_pieces_and_is_stored_joined() {
    let app = conformance_app().await;
    let events = stream_v1(
        &app,
        "SendStreamingMessage",
        json!({"message": message("tck-stream-artifact-chunked")}),
    )
    .await;
    let updates: Vec<&Value> = events
        .iter()
        .filter_map(|event| event["result"].get("artifactUpdate"))
        .filter(|update| update["artifact"]["name"] == "chunked")
        .collect();
    assert_eq!(updates.len(), 2, "{events:?}");
    let flag = |update: &Value, key: &str| update[key].as_bool().unwrap_or(false);
    assert_eq!(
        updates[0]["artifact"]["parts"],
        json!([{"text": "chunk-1 "}])
    );
    assert!(!flag(updates[0], "append") && !flag(updates[0], "lastChunk"));
    assert_eq!(
        updates[1]["artifact"]["parts"],
        json!([{"text": "chunk-2"}])
    );
    assert!(flag(updates[1], "append") && flag(updates[1], "lastChunk"));
    assert_eq!(
        updates[0]["artifact"]["artifactId"],
        updates[1]["artifact"]["artifactId"]
    );
    // The stored task holds the artifact once, its pieces joined.
    let task_id = updates[0]["taskId"].clone();
    let stored = v1_ok(&app, "GetTask", json!({"id": task_id})).await;
    let chunked = named_artifacts(&stored, "chunked");
    assert_eq!(chunked.len(), 1, "{stored}");
    assert_eq!(
        chunked[0]["parts"],
        json!([{"text": "chunk-1 "}, {"text": "chunk-2"}])
    );
    assert_eq!(
        chunked[0]["artifactId"],
        updates[0]["artifact"]["artifactId"]
    );
    // Unary: the same artifact, joined.
    let task = send(&app, message("tck-stream-artifact-chunked")).await;
    let chunked = named_artifacts(&task, "chunked");
    assert_eq!(chunked.len(), 1, "{task}");
    assert_eq!(
        chunked[0]["parts"],
        json!([{"text": "chunk-1 "}, {"text": "chunk-2"}])
    );
}

#[tokio::test]
async fn each_artifact_scenario_leaves_exactly_its_artifact_first() {
    // Clients and the suite read `artifacts[0]`: the scenario's artifact,
    // and no `answer` artifact before it (the answer is the status message).
    let app = conformance_app().await;
    for (prefix, _, part) in expectations()
        .into_iter()
        .filter(|(prefix, _, _)| prefix.starts_with("tck-artifact-"))
    {
        let task = send(&app, message(prefix)).await;
        let stored = v1_ok(&app, "GetTask", json!({"id": task["id"]})).await;
        let events = stream_v1(
            &app,
            "SendStreamingMessage",
            json!({"message": message(prefix)}),
        )
        .await;
        let streamed = events
            .iter()
            .find_map(|event| event["result"].get("statusUpdate"))
            .map(|update| update["taskId"].clone())
            .expect("a status update");
        let streamed = v1_ok(&app, "GetTask", json!({"id": streamed})).await;
        for task in [&task, &stored, &streamed] {
            let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
            assert_eq!(artifacts.len(), 1, "{prefix}: {task}");
            assert_eq!(artifacts[0]["parts"], json!([part]), "{prefix}: {task}");
        }
    }
    // Neither does a scenario without artifacts get one.
    let task = send(&app, message("tck-complete-task")).await;
    assert!(task.get("artifacts").is_none(), "{task}");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{"text": "Hello from TCK"}])
    );
}
