//! The v0.2 `tasks/send` method, which some clients still call: its params
//! (`id`, `sessionId`, parts with `type`) rewritten as 0.3 `message/send`
//! params, so one parser and one engine path serve both.

use crate::a2a::RpcError;
use serde_json::{Map, Value, json};

/// v0.2 `tasks/send` params (`id`, `sessionId`, parts with `type`) as 0.3
/// `MessageSendParams`.
pub(super) fn legacy_send_params(params: Option<Value>) -> Result<Value, RpcError> {
    let Some(Value::Object(mut params)) = params else {
        return Err(RpcError::invalid_params("`params` must be an object"));
    };
    let Some(Value::Object(mut message)) = params.remove("message") else {
        return Err(RpcError::invalid_params(
            "params.message: missing or not an object",
        ));
    };
    if let Some(Value::Array(parts)) = message.get_mut("parts") {
        for part in parts.iter_mut().filter_map(Value::as_object_mut) {
            if !part.contains_key("kind")
                && let Some(kind) = part.remove("type")
            {
                part.insert("kind".into(), kind);
            }
        }
    }
    message.entry("kind").or_insert_with(|| json!("message"));
    message
        .entry("messageId")
        .or_insert_with(|| json!(uuid::Uuid::new_v4().to_string()));
    if let Some(task_id) = params.remove("id") {
        message.insert("taskId".into(), task_id);
    }
    if let Some(session_id) = params.remove("sessionId") {
        message.insert("contextId".into(), session_id);
    }
    let mut configuration = Map::new();
    if let Some(history_length) = params.remove("historyLength") {
        configuration.insert("historyLength".into(), history_length);
    }
    if let Some(modes) = params.remove("acceptedOutputModes") {
        configuration.insert("acceptedOutputModes".into(), modes);
    }
    let mut converted = Map::new();
    converted.insert("message".into(), Value::Object(message));
    converted.insert("configuration".into(), Value::Object(configuration));
    if let Some(metadata) = params.remove("metadata") {
        converted.insert("metadata".into(), metadata);
    }
    Ok(Value::Object(converted))
}
