//! Every JSON-RPC error case of the core issue, over HTTP, schema-checked.

use crate::helpers::{TestApp, assert_schema, user_message};
use serde_json::{Value, json};

async fn raw(app: &crate::helpers::TestApp, body: &str) -> Value {
    let (status, body) = app
        .post_raw(body.to_string(), Some("application/json"))
        .await;
    assert_eq!(status, 200, "JSON-RPC errors travel with HTTP 200: {body}");
    assert_schema("JSONRPCErrorResponse", &body);
    body
}

#[tokio::test]
async fn unparsable_json_is_32700_with_null_id() {
    let app = TestApp::spawn().await;
    let body = raw(&app, r#"{"jsonrpc":"2.0","id":1,"method":"#).await;
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
}

#[tokio::test]
async fn envelope_errors_are_32600_and_echo_a_readable_id() {
    let app = TestApp::spawn().await;
    let cases = [
        (
            r#"{"jsonrpc":"1.0","id":"a","method":"tasks/get","params":{}}"#,
            json!("a"),
        ),
        (r#"{"jsonrpc":"2.0","id":7,"params":{}}"#, json!(7)),
        (r#"{"jsonrpc":"2.0","id":8,"method":42}"#, json!(8)),
        (r#"{"id":9,"method":"tasks/get"}"#, json!(9)),
        (
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"tasks/get"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"tasks/get"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"tasks/get"}"#,
            Value::Null,
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]"#,
            Value::Null,
        ),
        (r#""just a string""#, Value::Null),
        (
            r#"{"jsonrpc":"2.0","method":"message/send","params":{}}"#,
            Value::Null,
        ),
    ];
    for (request, id) in cases {
        let body = raw(&app, request).await;
        assert_eq!(body["error"]["code"], -32600, "{request}: {body}");
        assert_eq!(body["id"], id, "{request}: {body}");
    }
}

#[tokio::test]
async fn unknown_methods_are_32601_before_params_are_checked() {
    let app = TestApp::spawn().await;
    let body = raw(
        &app,
        r#"{"jsonrpc":"2.0","id":"u1","method":"tasks/explode","params":{}}"#,
    )
    .await;
    assert_eq!(body["error"]["code"], -32601);
    assert_eq!(body["id"], "u1");
    let body = raw(
        &app,
        r#"{"jsonrpc":"2.0","id":"u2","method":"tasks/list","params":"nonsense"}"#,
    )
    .await;
    assert_eq!(body["error"]["code"], -32601);
}

#[tokio::test]
async fn bad_params_are_32602_naming_the_field() {
    let app = TestApp::spawn().await;
    let mut no_message_id = user_message("why is order 4711 blocked by credit");
    no_message_id.as_object_mut().unwrap().remove("messageId");
    let mut parts_a_string = user_message("x");
    parts_a_string["parts"] = json!("why is 4711 blocked");
    let mut agent_role = user_message("x");
    agent_role["role"] = json!("agent");
    let mut no_kind = user_message("x");
    no_kind["parts"] = json!([{ "text": "x" }]);
    let mut empty_parts = user_message("x");
    empty_parts["parts"] = json!([]);
    let cases = [
        ("message/send", json!({}), "message"),
        (
            "message/send",
            json!({ "message": no_message_id }),
            "messageId",
        ),
        (
            "message/send",
            json!({ "message": parts_a_string }),
            "params.message.parts",
        ),
        ("message/send", json!({ "message": agent_role }), "role"),
        ("message/send", json!({ "message": no_kind }), "kind"),
        ("message/send", json!({ "message": empty_parts }), "parts"),
        (
            "message/send",
            json!({ "message": user_message("x"), "configuration": { "historyLength": -1 } }),
            "historyLength",
        ),
        ("tasks/get", json!({ "historyLength": 2 }), "id"),
        (
            "tasks/get",
            json!({ "id": "x", "historyLength": -3 }),
            "historyLength",
        ),
        ("tasks/cancel", json!({ "id": 5 }), "params.id"),
    ];
    for (method, params, field) in cases {
        let error = app.rpc_error(method, params.clone()).await;
        assert_eq!(error["code"], -32602, "{method} {params}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(field),
            "{method}: `{message}` names `{field}`"
        );
    }
    // params missing entirely or not an object
    let body = raw(&app, r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get"}"#).await;
    assert_eq!(body["error"]["code"], -32602);
    let body = raw(
        &app,
        r#"{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":[1]}"#,
    )
    .await;
    assert_eq!(body["error"]["code"], -32602);
    assert_eq!(body["id"], 4);
}

#[tokio::test]
async fn unknown_tasks_are_32001_and_finished_ones_not_cancelable_32002() {
    let app = TestApp::spawn().await;
    let error = app
        .rpc_error("tasks/get", json!({ "id": "no-such-task" }))
        .await;
    assert_eq!(error["code"], -32001);
    let error = app
        .rpc_error("tasks/cancel", json!({ "id": "no-such-task" }))
        .await;
    assert_eq!(error["code"], -32001);

    let task = app.send_text("why is order 4711 blocked by credit").await;
    assert_eq!(task["status"]["state"], "completed");
    let error = app
        .rpc_error("tasks/cancel", json!({ "id": task["id"] }))
        .await;
    assert_eq!(error["code"], -32002);
    assert!(
        error["message"].as_str().unwrap().contains("completed"),
        "{error}"
    );
}

#[tokio::test]
async fn push_config_methods_and_the_extended_card_answer_precise_errors() {
    let app = TestApp::spawn().await;
    // Push config methods on an unknown task, or with params missing.
    for (method, params, code) in [
        (
            "tasks/pushNotificationConfig/get",
            json!({ "id": "t" }),
            -32001,
        ),
        (
            "tasks/pushNotificationConfig/list",
            json!({ "id": "t" }),
            -32001,
        ),
        (
            "tasks/pushNotificationConfig/delete",
            json!({ "id": "t", "pushNotificationConfigId": "c" }),
            -32001,
        ),
        (
            "tasks/pushNotificationConfig/set",
            json!({ "id": "t" }),
            -32602,
        ),
        (
            "tasks/pushNotificationConfig/delete",
            json!({ "id": "t" }),
            -32602,
        ),
    ] {
        let error = app.rpc_error(method, params).await;
        assert_eq!(error["code"], code, "{method}");
    }
    let error = app
        .rpc_error("agent/getAuthenticatedExtendedCard", json!({}))
        .await;
    assert_eq!(error["code"], -32007);
}

#[tokio::test]
async fn file_and_data_parts_are_32005() {
    let app = TestApp::spawn().await;
    let mut file = user_message("x");
    file["parts"] = json!([{ "kind": "file", "file": { "uri": "https://example.com/a.pdf", "mimeType": "application/pdf" } }]);
    let error = app
        .rpc_error("message/send", json!({ "message": file }))
        .await;
    assert_eq!(error["code"], -32005);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("application/pdf"),
        "{error}"
    );

    let mut data = user_message("x");
    data["parts"] =
        json!([{ "kind": "text", "text": "order 4711" }, { "kind": "data", "data": { "a": 1 } }]);
    let error = app
        .rpc_error("message/send", json!({ "message": data }))
        .await;
    assert_eq!(error["code"], -32005);
    assert!(
        error["message"].as_str().unwrap().contains("parts[1]"),
        "{error}"
    );
}

#[tokio::test]
async fn a_repeated_request_id_still_gets_a_normal_answer() {
    let app = TestApp::spawn().await;
    let request = json!({
        "jsonrpc": "2.0", "id": 42, "method": "message/send",
        "params": { "message": user_message("why is order 4711 blocked by credit") }
    });
    for _ in 0..2 {
        let (status, body) = app
            .post_raw(request.to_string(), Some("application/json"))
            .await;
        assert_eq!(status, 200);
        assert_eq!(body["id"], 42);
        assert_schema("SendMessageResponse", &body);
        assert_eq!(body["result"]["status"]["state"], "completed");
    }
}
