//! The A2A 0.3.0 JSON schema (bundled in tests/schema) and the check every
//! JSON-RPC answer of a [`super::TestApp`] passes.

use serde_json::{Value, json};
use std::sync::LazyLock;

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    let text = include_str!("../../schema/a2a-v0.3.0.json");
    serde_json::from_str(text).expect("the bundled A2A schema is JSON")
});

/// Validate `instance` against one definition of the A2A 0.3.0 schema.
pub fn assert_schema(definition: &str, instance: &Value) {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": format!("#/definitions/{definition}"),
        "definitions": SCHEMA["definitions"].clone(),
    });
    let validator = jsonschema::draft7::new(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid {definition}: {errors:?}\n{}",
        serde_json::to_string_pretty(instance).unwrap_or_default()
    );
}

/// The response definition for a method's answer.
pub(super) fn response_definition(method: &str) -> &'static str {
    match method {
        "message/send" | "tasks/send" => "SendMessageResponse",
        "message/stream" | "tasks/resubscribe" => "SendStreamingMessageResponse",
        "tasks/get" => "GetTaskResponse",
        "tasks/cancel" => "CancelTaskResponse",
        "tasks/pushNotificationConfig/set" => "SetTaskPushNotificationConfigResponse",
        "tasks/pushNotificationConfig/get" => "GetTaskPushNotificationConfigResponse",
        "tasks/pushNotificationConfig/list" => "ListTaskPushNotificationConfigResponse",
        "tasks/pushNotificationConfig/delete" => "DeleteTaskPushNotificationConfigResponse",
        _ => "JSONRPCErrorResponse",
    }
}
