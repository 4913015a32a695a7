//! A2A 1.0 on the same `POST /` as 0.3: negotiation by `A2A-Version`, the
//! 1.0 methods into the same engine, ProtoJSON answers (each validated
//! against the 1.0 JSON Schema and the proto's REQUIRED fields), 1.0 errors
//! with their `ErrorInfo`, the stricter 1.0 task rules on the 1.0 path only,
//! and tasks shared between the versions.

use crate::helpers::{ScriptedAgent, TestApp, state, user_message};
use crate::protocol::a2a_v1_schema::assert_v1;
use serde_json::{Value, json};
use std::time::Duration;

/// The schema definition of a 1.0 method's `result`.
fn result_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "SendMessage" => "SendMessageResponse",
        "GetTask" | "CancelTask" => "Task",
        "ListTasks" => "ListTasksResponse",
        "CreateTaskPushNotificationConfig" | "GetTaskPushNotificationConfig" => {
            "TaskPushNotificationConfig"
        }
        "ListTaskPushNotificationConfigs" => "ListTaskPushNotificationConfigsResponse",
        "GetExtendedAgentCard" => "AgentCard",
        _ => return None,
    })
}

/// The 1.0 error shape: a code, a message, and `data` an array whose first
/// entry is a `google.rpc.ErrorInfo` of the A2A domain.
pub(crate) fn assert_v1_error(error: &Value) {
    assert!(error["code"].is_i64(), "{error}");
    assert!(error["message"].is_string(), "{error}");
    let info = &error["data"][0];
    assert_eq!(
        info["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
        "{error}"
    );
    assert_eq!(info["domain"], "a2a-protocol.org", "{error}");
    assert!(info["reason"].is_string(), "{error}");
}

/// POST a JSON-RPC request with an `A2A-Version` header (or none).
pub(crate) async fn post(
    app: &TestApp,
    version: Option<&str>,
    method: &str,
    params: Value,
) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    let mut request = app
        .client
        .post(format!("{}/", app.address))
        .json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    if let Some(version) = version {
        request = request.header("A2A-Version", version);
    }
    let response = request.send().await.expect("request reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["id"], json!(id), "{body}");
    body
}

/// A 1.0 call: its result or error validated as 1.0 answers.
pub(crate) async fn v1(app: &TestApp, method: &str, params: Value) -> Value {
    let body = post(app, Some("1.0"), method, params).await;
    if let Some(error) = body.get("error") {
        assert_v1_error(error);
    } else if let Some(definition) = result_definition(method) {
        assert_v1(definition, &body["result"]);
    }
    body
}

/// A 1.0 call that must succeed: its result.
pub(crate) async fn v1_ok(app: &TestApp, method: &str, params: Value) -> Value {
    let body = v1(app, method, params).await;
    assert!(body.get("error").is_none(), "unexpected error: {body}");
    body["result"].clone()
}

/// A 1.0 call that must fail: its error.
pub(crate) async fn v1_error(app: &TestApp, method: &str, params: Value) -> Value {
    let body = v1(app, method, params).await;
    assert!(body.get("result").is_none(), "expected an error: {body}");
    body["error"].clone()
}

/// A 1.0 user message.
pub(crate) fn message(text: &str) -> Value {
    json!({
        "messageId": uuid::Uuid::new_v4().to_string(),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    })
}

/// `SendMessage` that must answer a task: the task.
pub(crate) async fn send(app: &TestApp, message: Value) -> Value {
    let result = v1_ok(app, "SendMessage", json!({"message": message})).await;
    assert!(result.get("task").is_some(), "{result}");
    result["task"].clone()
}

async fn scripted(agent: ScriptedAgent) -> TestApp {
    TestApp::builder().agent(agent.shared()).spawn().await
}

#[tokio::test]
async fn send_message_answers_a_proto_json_task_without_kind() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO)).await;
    let task = send(&app, message("hello")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(task.get("kind").is_none(), "{task}");
    let answer = &task["status"]["message"];
    assert_eq!(answer["role"], "ROLE_AGENT");
    assert_eq!(answer["parts"][0]["text"], "done: hello");
    assert!(task["contextId"].as_str().is_some_and(|c| !c.is_empty()));
    // The history keeps the question, in 1.0 shape.
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert_eq!(task["history"][0]["parts"][0]["text"], "hello");
}

#[tokio::test]
async fn snake_case_names_and_integer_enums_are_read() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO)).await;
    let result = v1_ok(
        &app,
        "SendMessage",
        json!({"message": {"message_id": "m-snake", "role": 1, "parts": [{"text": "snake"}]}}),
    )
    .await;
    assert_eq!(result["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn get_and_cancel_read_the_same_tasks() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO).asking_first()).await;
    let task = send(&app, message("which order?")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let id = task["id"].as_str().expect("id");

    let got = v1_ok(&app, "GetTask", json!({"id": id, "historyLength": 1})).await;
    assert_eq!(got["id"], id);
    assert_eq!(got["history"].as_array().map(Vec::len), Some(1));

    let canceled = v1_ok(&app, "CancelTask", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    let again = v1_error(&app, "CancelTask", json!({"id": id})).await;
    assert_eq!(again["code"], -32002);
    assert_eq!(again["data"][0]["reason"], "TASK_NOT_CANCELABLE");

    let unknown = v1_error(&app, "GetTask", json!({"id": "no-such-task"})).await;
    assert_eq!(unknown["code"], -32001);
    assert_eq!(unknown["data"][0]["reason"], "TASK_NOT_FOUND");
}

#[tokio::test]
async fn bad_params_are_32602_in_the_1_0_shape() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO)).await;
    let error = v1_error(
        &app,
        "SendMessage",
        json!({"message": {"role": "ROLE_USER"}}),
    )
    .await;
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"][0]["reason"], "INVALID_PARAMS");
    let error = v1_error(&app, "GetTask", json!([1, 2])).await;
    assert_eq!(error["code"], -32602);
    // A notification (no id) of a known method with good params: checked,
    // not run, and answered as on 0.3 (-32602 naming the missing id).
    let body = app
        .client
        .post(format!("{}/", app.address))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "x"}}))
        .send()
        .await
        .expect("reaches the server")
        .json::<Value>()
        .await
        .expect("JSON");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("missing `id`")),
        "{body}"
    );
    assert_v1_error(&body["error"]);
}

/// A body that is no JSON-RPC request, sent by a 1.0 caller: -32700 and
/// -32600 in the 1.0 shape, the ErrorInfo first; the same bodies without
/// the header stay 0.3 errors, with no `data`.
#[tokio::test]
async fn envelope_errors_are_in_the_1_0_shape_for_a_1_0_caller() {
    let app = TestApp::spawn().await;
    for (body, code, reason) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"#,
            -32700,
            "PARSE_ERROR",
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"params":{}}"#,
            -32600,
            "INVALID_REQUEST",
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]"#,
            -32600,
            "INVALID_REQUEST",
        ),
    ] {
        for version in [Some("1.0"), None] {
            let mut request = app
                .client
                .post(format!("{}/", app.address))
                .header("Content-Type", "application/json")
                .body(body);
            if let Some(version) = version {
                request = request.header("A2A-Version", version);
            }
            let answer: Value = request
                .send()
                .await
                .expect("reaches the server")
                .json()
                .await
                .expect("JSON");
            let error = &answer["error"];
            assert_eq!(error["code"], code, "{body} {version:?}: {answer}");
            match version {
                Some(_) => {
                    assert_v1_error(error);
                    assert_eq!(error["data"][0]["reason"], reason, "{body}: {answer}");
                }
                None => assert!(error.get("data").is_none(), "{body}: {answer}"),
            }
        }
    }
}

/// A message that is not the user's is refused in the caller's own
/// spelling of the role: `ROLE_USER` on the 1.0 wire, `user` on 0.3.
#[tokio::test]
async fn a_message_not_from_the_user_is_told_the_role_in_its_versions_spelling() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO)).await;
    let mut from_agent = message("hello");
    from_agent["role"] = json!("ROLE_AGENT");
    let error = v1_error(&app, "SendMessage", json!({"message": from_agent})).await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(
        error["message"], "params.message.role must be \"ROLE_USER\"",
        "{error}"
    );

    let mut from_agent = user_message("hello");
    from_agent["role"] = json!("agent");
    let body = post(&app, None, "message/send", json!({"message": from_agent})).await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(
        body["error"]["message"], "params.message.role must be \"user\"",
        "{body}"
    );
}

#[tokio::test]
async fn negotiation_follows_the_reference() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO)).await;
    let params = json!({"message": user_message("hi")});
    // Absent, empty and 0.3: today's 0.3 answer.
    for version in [None, Some(""), Some("0.3"), Some("0.3.0")] {
        let body = post(&app, version, "message/send", params.clone()).await;
        assert_eq!(body["result"]["kind"], "task", "{version:?}: {body}");
        crate::helpers::assert_schema("SendMessageResponse", &body);
    }
    // 1.0 (with or without a patch number): the 1.0 method is served.
    for version in ["1.0", "1.0.0", "1.0.7"] {
        let body = post(
            &app,
            Some(version),
            "SendMessage",
            json!({"message": message("hi")}),
        )
        .await;
        assert_eq!(
            body["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{version}: {body}"
        );
    }
    // Unsupported versions: -32009, whatever the method.
    for version in ["1.1", "2.0", "0.2", "garbage", "1.0-rc1"] {
        for method in ["SendMessage", "message/send"] {
            let body = post(&app, Some(version), method, json!({})).await;
            assert_eq!(body["error"]["code"], -32009, "{version} {method}: {body}");
            assert_eq!(body["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
        }
    }
    // A 1.0 method without a version: -32009 saying what to send.
    let body = post(&app, None, "SendMessage", json!({"message": message("hi")})).await;
    assert_eq!(body["error"]["code"], -32009, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("A2A-Version: 1.0")),
        "{body}"
    );
    // A 0.3 method under 1.0 and a 1.0 method under an explicit 0.3: -32601.
    let body = post(&app, Some("1.0"), "message/send", params.clone()).await;
    assert_eq!(body["error"]["code"], -32601, "{body}");
    assert_v1_error(&body["error"]);
    let body = post(&app, Some("0.3"), "GetTask", json!({"id": "x"})).await;
    assert_eq!(body["error"]["code"], -32601, "{body}");
    assert!(body["error"].get("data").is_none(), "0.3 shape: {body}");
    // The query parameter counts when the header is absent.
    let response = app
        .client
        .post(format!("{}/?A2A-Version=1.0", app.address))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": message("query")}}))
        .send()
        .await
        .expect("reaches the server");
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn a_0_3_task_is_read_and_continued_over_1_0_and_back() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO).asking_first()).await;
    let task = app.send_text("block note for 4711").await;
    assert_eq!(state(&task), "input-required");
    let id = task["id"].as_str().expect("id").to_string();

    let got = v1_ok(&app, "GetTask", json!({"id": id})).await;
    assert_eq!(got["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(got["contextId"], task["contextId"]);

    let mut follow_up = message("the first one");
    follow_up["taskId"] = json!(id);
    let continued = send(&app, follow_up).await;
    assert_eq!(continued["id"], id);
    assert_eq!(continued["status"]["state"], "TASK_STATE_COMPLETED");

    // And the 0.3 side reads what 1.0 finished.
    let back = app.rpc("tasks/get", json!({"id": id})).await;
    assert_eq!(state(&back["result"]), "completed");
    assert_eq!(back["result"]["kind"], "task");
}

#[tokio::test]
async fn the_1_0_path_is_strict_about_task_ids_the_0_3_path_is_not() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO)).await;
    let finished = send(&app, message("one")).await;
    let id = finished["id"].as_str().expect("id");

    let mut again = message("two");
    again["taskId"] = json!(id);
    let error = v1_error(&app, "SendMessage", json!({"message": again})).await;
    assert_eq!(error["code"], -32004, "a finished task: {error}");

    let mut unknown = message("three");
    unknown["taskId"] = json!("no-such-task");
    let error = v1_error(&app, "SendMessage", json!({"message": unknown})).await;
    assert_eq!(error["code"], -32001, "an unknown task: {error}");

    let mut elsewhere = message("four");
    elsewhere["taskId"] = json!(id);
    elsewhere["contextId"] = json!("another-context");
    let error = v1_error(&app, "SendMessage", json!({"message": elsewhere})).await;
    assert_eq!(error["code"], -32602, "another context: {error}");

    // 0.3 keeps Joule's rule: a new task in the same context.
    let mut joule = user_message("five");
    joule["taskId"] = json!(id);
    let task = app.send(joule).await;
    assert_ne!(task["id"], id);
    assert_eq!(task["contextId"], finished["contextId"]);
}

#[tokio::test]
async fn a_blocking_1_0_send_waits_past_the_budget_0_3_answers_working() {
    let app = TestApp::builder()
        .agent(ScriptedAgent::slow(600))
        .budget_ms(100)
        .spawn()
        .await;
    let task = send(&app, message("slow")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let task = app.send_text("slow").await;
    assert_eq!(state(&task), "working");
    // returnImmediately answers at once, the task under way.
    let result = v1_ok(
        &app,
        "SendMessage",
        json!({"message": message("later"), "configuration": {"returnImmediately": true}}),
    )
    .await;
    let state = result["task"]["status"]["state"].as_str().unwrap_or("");
    assert!(
        ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].contains(&state),
        "{result}"
    );
}

#[tokio::test]
async fn list_tasks_filters_pages_and_leaves_artifacts_out() {
    let app = scripted(ScriptedAgent::answering_after(Duration::ZERO).asking_first()).await;
    let mut ids = Vec::new();
    let mut first_context = Value::Null;
    for text in ["a", "b", "c"] {
        let task = send(&app, message(text)).await;
        if first_context.is_null() {
            first_context = task["contextId"].clone();
        }
        ids.push(task["id"].as_str().expect("id").to_string());
    }
    // Finish the first one, so one task has another state.
    let mut follow_up = message("done");
    follow_up["taskId"] = json!(ids[0]);
    send(&app, follow_up).await;

    let page = v1_ok(&app, "ListTasks", json!({"pageSize": 2})).await;
    assert_eq!(page["totalSize"], 3, "{page}");
    assert_eq!(page["pageSize"], 2);
    assert_eq!(page["tasks"].as_array().map(Vec::len), Some(2));
    // Newest change first: the task finished last comes first.
    assert_eq!(page["tasks"][0]["id"], ids[0]);
    let token = page["nextPageToken"].as_str().expect("a next page");
    assert!(!token.is_empty());
    let rest = v1_ok(
        &app,
        "ListTasks",
        json!({"pageSize": 2, "pageToken": token}),
    )
    .await;
    assert_eq!(rest["tasks"].as_array().map(Vec::len), Some(1));
    assert_eq!(rest["nextPageToken"], "", "always present: {rest}");
    let mut seen: Vec<Value> = page["tasks"]
        .as_array()
        .into_iter()
        .chain(rest["tasks"].as_array())
        .flatten()
        .map(|task| task["id"].clone())
        .collect();
    seen.sort_by_key(|id| id.to_string());
    let mut expected: Vec<Value> = ids.iter().map(|id| json!(id)).collect();
    expected.sort_by_key(|id| id.to_string());
    assert_eq!(seen, expected);

    let waiting = v1_ok(
        &app,
        "ListTasks",
        json!({"status": "TASK_STATE_INPUT_REQUIRED"}),
    )
    .await;
    assert_eq!(waiting["totalSize"], 2, "{waiting}");
    let in_context = v1_ok(&app, "ListTasks", json!({"contextId": first_context})).await;
    assert_eq!(in_context["totalSize"], 1, "{in_context}");
    assert_eq!(in_context["tasks"][0]["id"], ids[0]);
    let none_yet = v1_ok(
        &app,
        "ListTasks",
        json!({"statusTimestampAfter": "2999-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(none_yet["totalSize"], 0);
    assert_eq!(none_yet["tasks"], json!([]));
    let no_history = v1_ok(&app, "ListTasks", json!({"historyLength": 0})).await;
    assert!(
        no_history["tasks"][0].get("history").is_none(),
        "{no_history}"
    );

    for bad in [
        json!({"pageSize": 0}),
        json!({"pageSize": 101}),
        json!({"pageToken": "x"}),
    ] {
        let error = v1_error(&app, "ListTasks", bad.clone()).await;
        assert_eq!(error["code"], -32602, "{bad}: {error}");
    }
}

#[tokio::test]
async fn list_tasks_shows_artifacts_only_when_asked() {
    let app = TestApp::spawn().await;
    // The order agent answers with an artifact for a known order.
    let task = send(&app, message("Why is sales order 4711 blocked?")).await;
    let has_artifacts = task.get("artifacts").is_some();
    let listed = v1_ok(&app, "ListTasks", json!({})).await;
    assert!(listed["tasks"][0].get("artifacts").is_none(), "{listed}");
    let with = v1_ok(&app, "ListTasks", json!({"includeArtifacts": true})).await;
    assert_eq!(with["tasks"][0].get("artifacts").is_some(), has_artifacts);
}

#[tokio::test]
async fn push_configs_over_1_0_are_flat_and_deleting_twice_is_fine() {
    let app = TestApp::builder()
        .agent(
            ScriptedAgent::answering_after(Duration::ZERO)
                .asking_first()
                .shared(),
        )
        .loopback_webhooks(&["127.0.0.1"])
        .spawn()
        .await;
    let task = send(&app, message("wait")).await;
    let id = task["id"].as_str().expect("id");
    let config = v1_ok(
        &app,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": id, "id": "hook-1", "url": "http://127.0.0.1:9/hook", "token": "t0k",
            "authentication": {"scheme": "Bearer", "credentials": "secret"}}),
    )
    .await;
    assert_eq!(config["taskId"], id);
    assert_eq!(config["id"], "hook-1");
    let got = v1_ok(
        &app,
        "GetTaskPushNotificationConfig",
        json!({"taskId": id, "id": "hook-1"}),
    )
    .await;
    assert_eq!(got["url"], "http://127.0.0.1:9/hook");
    let listed = v1_ok(
        &app,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(listed["configs"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed["nextPageToken"], "");
    for _ in 0..2 {
        let deleted = v1(
            &app,
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": "hook-1"}),
        )
        .await;
        assert_eq!(deleted["result"], Value::Null, "{deleted}");
        assert!(deleted.get("error").is_none(), "{deleted}");
    }
    let missing = v1_error(
        &app,
        "GetTaskPushNotificationConfig",
        json!({"taskId": id, "id": "hook-1"}),
    )
    .await;
    assert_eq!(missing["code"], -32001);
}

#[tokio::test]
async fn the_extended_card_without_authentication_is_32007() {
    let app = TestApp::spawn().await;
    let error = v1_error(&app, "GetExtendedAgentCard", json!({})).await;
    assert_eq!(error["code"], -32007);
    assert_eq!(
        error["data"][0]["reason"],
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
    );
}

/// A push config remembers the version it was set with: one set over 1.0
/// gets `StreamResponse` bodies (`{"task": …}` in ProtoJSON), one set over
/// 0.3 on another task the 0.3 Task with `kind`, at the same time.
#[tokio::test]
async fn push_configs_deliver_the_payload_of_the_version_they_were_set_with() {
    use crate::helpers::webhook::WebhookReceiver;
    let receiver = WebhookReceiver::start().await;
    let app = TestApp::builder()
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| settings.push.retry_base_ms = 50)
        .agent(ScriptedAgent::slow(200))
        .spawn()
        .await;
    let v1_task = v1_ok(
        &app,
        "SendMessage",
        json!({"message": message("over 1.0"), "configuration": {
            "returnImmediately": true,
            "taskPushNotificationConfig": {
                "url": format!("{}/v1", receiver.url), "token": "t1",
                "authentication": {"scheme": "Bearer", "credentials": "one"}}}}),
    )
    .await["task"]
        .clone();
    let v03_task = app
        .rpc(
            "message/send",
            json!({"message": user_message("over 0.3"), "configuration": {
                "blocking": false,
                "pushNotificationConfig": {"url": format!("{}/v03", receiver.url)}}}),
        )
        .await["result"]
        .clone();

    let v1_calls = receiver.wait_for("/v1", 1).await;
    let body = &v1_calls.last().expect("a 1.0 push").body;
    assert_v1("StreamResponse", body);
    assert_eq!(body["task"]["id"], v1_task["id"], "{body}");
    assert!(body["task"].get("kind").is_none(), "{body}");
    assert!(
        v1_calls
            .iter()
            .any(|call| call.body["task"]["status"]["state"] == "TASK_STATE_COMPLETED"),
        "the completion is pushed"
    );
    let call = &v1_calls[0];
    assert_eq!(
        call.headers.get("authorization").map(String::as_str),
        Some("Bearer one")
    );
    assert_eq!(
        call.headers
            .get("x-a2a-notification-token")
            .map(String::as_str),
        Some("t1")
    );

    let v03_calls = receiver.wait_for("/v03", 1).await;
    let body = &v03_calls.last().expect("a 0.3 push").body;
    crate::helpers::assert_schema("Task", body);
    assert_eq!(body["kind"], "task");
    assert_eq!(body["id"], v03_task["id"]);

    // Read back over 0.3, the 0.3 config is as it was set; over 1.0 flat.
    let listed = app
        .rpc(
            "tasks/pushNotificationConfig/list",
            json!({"id": v03_task["id"]}),
        )
        .await;
    assert!(
        listed["result"][0]["pushNotificationConfig"]
            .get("payloadVersion")
            .is_none(),
        "{listed}"
    );
    let listed = v1_ok(
        &app,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": v1_task["id"]}),
    )
    .await;
    assert_eq!(listed["configs"][0]["url"], format!("{}/v1", receiver.url));
}

/// A refused webhook URL is named by its 1.0 path (found by the 1.0
/// conformance suite: the 0.3 `pushNotificationConfig` is not a 1.0 field).
#[tokio::test]
async fn a_refused_webhook_url_is_named_by_its_1_0_field() {
    let app = TestApp::builder()
        .agent(
            ScriptedAgent::answering_after(Duration::ZERO)
                .asking_first()
                .shared(),
        )
        .spawn()
        .await;
    let refused = "https://hooks.attacker.example/x";
    let task = send(&app, message("wait")).await;
    let error = v1_error(
        &app,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task["id"], "id": "hook-1", "url": refused}),
    )
    .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(
        error["message"],
        "params.url: host `hooks.attacker.example` is not on the webhook allowlist (push.allowed_hosts)",
        "{error}"
    );
    assert_eq!(error["data"][0]["reason"], "INVALID_PARAMS", "{error}");
    assert_eq!(
        error["data"][1]["fieldViolations"][0]["field"], "url",
        "{error}"
    );

    let error = v1_error(
        &app,
        "SendMessage",
        json!({"message": message("hook"), "configuration": {
            "taskPushNotificationConfig": {"url": refused}}}),
    )
    .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(
        error["message"],
        "params.configuration.taskPushNotificationConfig.url: host `hooks.attacker.example` is not on the webhook allowlist (push.allowed_hosts)",
        "{error}"
    );
    assert_eq!(
        error["data"][1]["fieldViolations"][0]["field"],
        "configuration.taskPushNotificationConfig.url",
        "{error}"
    );

    // 0.3 keeps its own field names.
    let error = app
        .rpc_error(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task["id"], "pushNotificationConfig": {"url": refused}}),
        )
        .await;
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("params.pushNotificationConfig.url: host")),
        "{error}"
    );
}

/// `payloadVersion` is no 0.3 field, so the 0.3 wire neither shows it nor
/// reads it: a config set over 1.0 reads back over 0.3 without it, and a
/// 0.3 client's `payloadVersion` (inline or set) is an unknown member like
/// any other — ignored, its config a 0.3 one whose webhook gets 0.3 Tasks.
#[tokio::test]
async fn payload_version_stays_off_the_0_3_wire() {
    use crate::helpers::webhook::WebhookReceiver;
    let receiver = WebhookReceiver::start().await;
    let app = TestApp::builder()
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| settings.push.retry_base_ms = 50)
        .agent(
            ScriptedAgent::answering_after(Duration::ZERO)
                .asking_first()
                .shared(),
        )
        .spawn()
        .await;

    // Set over 1.0, read over 0.3.
    let v1_task = v1_ok(
        &app,
        "SendMessage",
        json!({"message": message("over 1.0"), "configuration": {
            "taskPushNotificationConfig": {"id": "v1-hook", "url": format!("{}/v1", receiver.url)}}}),
    )
    .await["task"]
        .clone();
    let listed = app
        .rpc(
            "tasks/pushNotificationConfig/list",
            json!({"id": v1_task["id"]}),
        )
        .await;
    let config = &listed["result"][0]["pushNotificationConfig"];
    assert_eq!(config["url"], format!("{}/v1", receiver.url), "{listed}");
    assert!(config.get("payloadVersion").is_none(), "{listed}");
    let got = app
        .rpc(
            "tasks/pushNotificationConfig/get",
            json!({"id": v1_task["id"], "pushNotificationConfigId": "v1-hook"}),
        )
        .await;
    assert!(
        got["result"]["pushNotificationConfig"]
            .get("payloadVersion")
            .is_none(),
        "{got}"
    );

    // Sent over 0.3: ignored, inline and set alike.
    let v03_task = app
        .rpc(
            "message/send",
            json!({"message": user_message("over 0.3"), "configuration": {
                "blocking": true,
                "pushNotificationConfig": {"id": "inline", "url": format!("{}/inline", receiver.url),
                    "payloadVersion": "1.0"}}}),
        )
        .await["result"]
        .clone();
    assert_eq!(state(&v03_task), "input-required", "{v03_task}");
    let set = app
        .rpc(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": v03_task["id"], "pushNotificationConfig": {
                "id": "set", "url": format!("{}/set", receiver.url), "payloadVersion": 42}}),
        )
        .await;
    assert!(set.get("error").is_none(), "{set}");
    assert!(
        set["result"]["pushNotificationConfig"]
            .get("payloadVersion")
            .is_none(),
        "{set}"
    );
    let mut follow_up = user_message("go on");
    follow_up["taskId"] = v03_task["id"].clone();
    follow_up["contextId"] = v03_task["contextId"].clone();
    let done = app.rpc("message/send", json!({"message": follow_up})).await["result"].clone();
    assert_eq!(state(&done), "completed", "{done}");
    for path in ["/inline", "/set"] {
        let calls = receiver.wait_for(path, 1).await;
        for call in &calls {
            crate::helpers::assert_schema("Task", &call.body);
            assert_eq!(call.body["kind"], "task", "{path}: {}", call.body);
            assert_eq!(call.body["id"], v03_task["id"], "{path}");
        }
    }
}
