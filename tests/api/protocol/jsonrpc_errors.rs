//! Every JSON-RPC error case, over HTTP, schema-checked.

use crate::helpers::{TestApp, assert_schema, routed_to, state, status_text, user_message};
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
        (r#"{"jsonrpc":"1.0","method":"tasks/get"}"#, Value::Null),
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
async fn file_parts_are_32005_naming_the_part() {
    let app = TestApp::spawn().await;
    let mut file = user_message("x");
    file["parts"] = json!([
        { "kind": "text", "text": "order 4711" },
        { "kind": "file", "file": { "uri": "https://example.com/a.pdf", "mimeType": "application/pdf" } }
    ]);
    let error = app
        .rpc_error("message/send", json!({ "message": file }))
        .await;
    assert_eq!(error["code"], -32005);
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("application/pdf"), "{error}");
    assert!(message.contains("parts[1]"), "{error}");
    assert!(
        message.contains("application/json"),
        "names what it takes: {error}"
    );
}

/// Structured input from a calling agent.
#[tokio::test]
async fn a_data_part_alone_with_a_sales_order_gets_the_answer_for_that_order() {
    let app = TestApp::spawn().await;
    let by_text = app.send_text("why is order 4711 blocked").await;
    for data in [
        json!({ "salesOrder": "4711" }),
        json!({ "SalesOrder": 4711 }),
        json!({ "salesOrderId": " 4711 " }),
        json!({ "order": "4711", "unrelated": [1, 2] }),
    ] {
        let mut message = user_message("x");
        message["parts"] = json!([{ "kind": "data", "data": data }]);
        let task = app.send(message).await;
        assert_eq!(state(&task), "completed", "{data}: {task}");
        assert_eq!(
            routed_to(&task).as_deref(),
            Some("credit"),
            "{data}: {task}"
        );
        assert_eq!(
            status_text(&task),
            status_text(&by_text),
            "{data}: the same answer as for the text"
        );
    }
    // A data part next to text: the text routes, the data names the order.
    let mut message = user_message("why is it blocked by credit");
    message["parts"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "kind": "data", "data": { "salesOrder": "4711" } }));
    let task = app.send(message).await;
    assert_eq!(state(&task), "completed", "{task}");
    assert!(status_text(&task).contains("4711"), "{task}");
}

#[tokio::test]
async fn a_follow_up_may_name_the_order_in_a_data_part() {
    let app = TestApp::spawn().await;
    let question = app.send_text("why is it blocked by credit").await;
    assert_eq!(state(&question), "input-required", "{question}");
    let mut message = user_message("here it is");
    message["parts"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "kind": "data", "data": { "salesOrder": 4711 } }));
    message["taskId"] = question["id"].clone();
    message["contextId"] = question["contextId"].clone();
    let answer = app.send(message).await;
    assert_eq!(state(&answer), "completed", "{answer}");
    assert_eq!(routed_to(&answer).as_deref(), Some("credit"), "{answer}");
    assert!(status_text(&answer).contains("4711"), "{answer}");
}

/// A request without an `id` gets the usual checks and
/// an answer with `id: null`; a valid one is refused like the reference SDK
/// refuses it (every A2A request type requires an id).
#[tokio::test]
async fn requests_without_an_id_get_the_usual_checks_and_a_null_id() {
    let app = TestApp::spawn().await;
    let valid = json!({ "message": user_message("why is order 4711 blocked by credit") });
    for id in [None, Some(Value::Null)] {
        let request = |method: &str, params: Value| {
            let mut request = json!({ "jsonrpc": "2.0", "method": method, "params": params });
            if let Some(id) = &id {
                request["id"] = id.clone();
            }
            request.to_string()
        };
        let body = raw(&app, &request("tasks/explode", json!({}))).await;
        assert_eq!(body["error"]["code"], -32601, "{body}");
        assert_eq!(body["id"], Value::Null);
        let body = raw(&app, &request("message/send", json!({}))).await;
        assert_eq!(body["error"]["code"], -32602, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("`message`"),
            "{body}"
        );
        assert_eq!(body["id"], Value::Null);
        let body = raw(&app, &request("tasks/get", json!({ "id": 5 }))).await;
        assert_eq!(body["error"]["code"], -32602, "{body}");
        let body = raw(&app, &request("message/send", valid.clone())).await;
        assert_eq!(body["error"]["code"], -32602, "{body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains("`id`"),
            "{body}"
        );
        assert_eq!(body["id"], Value::Null);
    }
}

/// The words serde uses for Rust types; an answer names JSON types instead.
const RUST_WORDS: [&str; 9] = [
    "struct",
    "elements",
    "i64",
    "u64",
    "enum",
    "identifier",
    "sequence",
    "a map",
    "Option",
];

fn assert_json_terms(message: &str) {
    for word in RUST_WORDS {
        assert!(!message.contains(word), "`{message}` says `{word}`");
    }
}

/// Every object of the schema is an object on the wire.
#[tokio::test]
async fn arrays_where_a2a_says_object_are_32602_naming_the_field() {
    let app = TestApp::spawn().await;
    let text = "why is order 4711 blocked by credit";
    let mut positional_parts = user_message(text);
    positional_parts["parts"] = json!([["text", text]]);
    let mut positional_file = user_message(text);
    positional_file["parts"] = json!([{ "kind": "file", "file": ["a.pdf", "application/pdf"] }]);
    let webhook = "https://sapdas.eu10.sapdas.cloud.sap/cb";
    let cases = [
        (
            "message/send",
            json!({ "message": ["message", "user", [{ "kind": "text", "text": text }], "m-1"] }),
            "params.message: expected an object",
        ),
        (
            "message/send",
            json!({ "message": user_message(text), "configuration": [] }),
            "params.configuration: expected an object",
        ),
        (
            "message/send",
            json!({ "message": positional_parts }),
            "params.message.parts[0]: expected an object",
        ),
        (
            "message/send",
            json!({ "message": positional_file }),
            "params.message.parts[0].file: expected an object",
        ),
        (
            "message/send",
            json!({ "message": user_message(text), "configuration": { "pushNotificationConfig": [null, webhook, null, null] } }),
            "params.configuration.pushNotificationConfig: expected an object",
        ),
        (
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": "t", "pushNotificationConfig": ["c1", webhook, "token", null] }),
            "params.pushNotificationConfig: expected an object",
        ),
        (
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": "t", "pushNotificationConfig": { "url": webhook, "authentication": [["Bearer"]] } }),
            "params.pushNotificationConfig.authentication: expected an object",
        ),
        (
            "message/send",
            json!({ "message": user_message(text), "metadata": [1] }),
            "params.metadata: expected an object",
        ),
        (
            "tasks/get",
            json!({ "id": ["t"] }),
            "params.id: expected a string",
        ),
        (
            "tasks/get",
            json!({ "id": "t", "historyLength": 1.5 }),
            "params.historyLength: expected an integer",
        ),
        (
            "message/send",
            json!({ "message": { "kind": "message", "role": "robot", "messageId": "m", "parts": [] } }),
            "params.message.role:",
        ),
        (
            "message/send",
            json!({ "message": { "kind": "message", "role": "user", "messageId": "m", "parts": [{ "kind": "video" }] } }),
            "params.message.parts[0].kind:",
        ),
    ];
    for (method, params, expected) in cases {
        let error = app.rpc_error(method, params.clone()).await;
        assert_eq!(error["code"], -32602, "{method} {params}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with(expected),
            "{method} {params}: `{message}` starts with `{expected}`"
        );
        assert_json_terms(message);
    }
}

/// A refused webhook URL is named by its field path,
/// set by `tasks/pushNotificationConfig/set` or inline with the message.
#[tokio::test]
async fn a_refused_webhook_url_is_named_by_its_field_path_either_way() {
    let app = TestApp::spawn().await;
    let task = app.send_text("why is order 4711 blocked by credit").await;
    let url = "http://sapdas.eu10.sapdas.cloud.sap/cb";
    let set = app
        .rpc_error(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": task["id"], "pushNotificationConfig": { "url": url } }),
        )
        .await;
    let inline = app
        .rpc_error(
            "message/send",
            json!({ "message": user_message("x"), "configuration": { "pushNotificationConfig": { "url": url } } }),
        )
        .await;
    assert_eq!(set["code"], -32602);
    assert_eq!(inline["code"], -32602);
    let set = set["message"].as_str().unwrap();
    let inline = inline["message"].as_str().unwrap();
    let set_reason = set
        .strip_prefix("params.pushNotificationConfig.url: ")
        .unwrap_or_else(|| panic!("`{set}` names params.pushNotificationConfig.url"));
    let inline_reason = inline
        .strip_prefix("params.configuration.pushNotificationConfig.url: ")
        .unwrap_or_else(|| panic!("`{inline}` names the inline field"));
    assert_eq!(set_reason, inline_reason);
    assert!(set_reason.contains("https"), "{set_reason}");
}

/// The request's own `id` is bounded like every id a client chooses: one
/// over 256 bytes is a bad id (-32600 with `id: null`, HTTP 200 as for any
/// other bad id), in 0.3 and in 1.0's shape; at 256 bytes it is echoed.
#[tokio::test]
async fn a_request_id_longer_than_256_bytes_is_a_bad_id() {
    let app = TestApp::spawn().await;
    let v1 = app.with_headers(&[("a2a-version", "1.0")]);
    let message = user_message("why is order 4711 blocked by credit");
    for id in ["i".repeat(257), "i".repeat(1_000_000)] {
        for (caller, method) in [(&app, "message/send"), (&v1, "SendMessage")] {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method,
                                 "params": {"message": message}});
            let response = caller
                .client
                .post(format!("{}/", caller.address))
                .header("Content-Type", "application/json")
                .body(request.to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200, "{method}");
            let bytes = response.bytes().await.unwrap();
            assert!(bytes.len() < 1024, "{method}: {} bytes", bytes.len());
            let body: Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(body["error"]["code"], -32600, "{method}: {body}");
            assert_eq!(body["id"], Value::Null, "{method}: {body}");
            if method == "SendMessage" {
                assert_eq!(
                    body["error"]["data"][0]["reason"], "INVALID_REQUEST",
                    "{body}"
                );
            } else {
                assert_schema("JSONRPCErrorResponse", &body);
            }
        }
    }
    let id = "i".repeat(256);
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "message/send",
                         "params": {"message": message}});
    let (status, body) = app
        .post_raw(request.to_string(), Some("application/json"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], id.as_str());
    assert_eq!(body["result"]["kind"], "task", "{body}");
}

/// Ids: an id longer than the limit is refused by its
/// field, and the answer does not repeat it.
#[tokio::test]
async fn ids_longer_than_256_bytes_are_32602_naming_the_field() {
    let app = TestApp::spawn().await;
    let long = "x".repeat(257);
    let huge = "c".repeat(1_000_000);
    let with = |field: &str, value: Value| {
        let mut message = user_message("why is order 4711 blocked by credit");
        message[field] = value;
        json!({ "message": message })
    };
    let cases = [
        (
            "message/send",
            with("messageId", json!(long)),
            "params.message.messageId",
        ),
        (
            "message/send",
            with("taskId", json!(long)),
            "params.message.taskId",
        ),
        (
            "message/send",
            with("contextId", json!(huge)),
            "params.message.contextId",
        ),
        (
            "message/send",
            with("referenceTaskIds", json!(["t-1", long])),
            "params.message.referenceTaskIds[1]",
        ),
        ("tasks/get", json!({ "id": long }), "params.id"),
        ("tasks/cancel", json!({ "id": long }), "params.id"),
        (
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": "t", "pushNotificationConfig": { "id": long, "url": "https://sapdas.eu10.sapdas.cloud.sap/cb" } }),
            "params.pushNotificationConfig.id",
        ),
        (
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": long, "pushNotificationConfig": { "url": "https://sapdas.eu10.sapdas.cloud.sap/cb" } }),
            "params.taskId",
        ),
        (
            "tasks/pushNotificationConfig/get",
            json!({ "id": "t", "pushNotificationConfigId": long }),
            "params.pushNotificationConfigId",
        ),
        (
            "tasks/pushNotificationConfig/delete",
            json!({ "id": "t", "pushNotificationConfigId": long }),
            "params.pushNotificationConfigId",
        ),
    ];
    for (method, params, field) in cases {
        let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = app
            .client
            .post(format!("{}/", app.address))
            .header("Content-Type", "application/json")
            .body(request.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{method} {field}");
        let bytes = response.bytes().await.unwrap();
        assert!(
            bytes.len() < 1024,
            "{method} {field}: the answer has {} bytes",
            bytes.len()
        );
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_schema("JSONRPCErrorResponse", &body);
        assert_eq!(body["error"]["code"], -32602, "{method} {field}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{field}: ")) && message.contains("256 bytes"),
            "{method}: `{message}` names {field} and the limit"
        );
    }
    // At the limit: accepted.
    let task = app
        .send({
            let mut message = user_message("why is order 4711 blocked by credit");
            message["contextId"] = json!("c".repeat(256));
            message
        })
        .await;
    assert_eq!(task["contextId"], "c".repeat(256));
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
