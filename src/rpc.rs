//! JSON-RPC method dispatch: envelope checks, params for each A2A method, the
//! task engine's answer as a response body. Knows no HTTP.

use crate::a2a::jsonrpc::{self, RpcError, error_bytes, parse_params, success_bytes};
use crate::a2a::{MessageSendParams, Task, TaskIdParams, TaskQueryParams};
use crate::tasks::TaskEngine;
use serde_json::{Map, Value, json};
use std::time::Instant;

/// The response body and what the request log line needs.
#[derive(Debug)]
pub struct RpcReply {
    pub body: Vec<u8>,
    pub id: Value,
    pub method: Option<String>,
    pub task_state: Option<&'static str>,
    pub error_code: Option<i64>,
}

enum Method {
    MessageSend,
    /// v0.2 `tasks/send`, mapped onto `message/send`.
    LegacyTasksSend,
    TasksGet,
    TasksCancel,
    Streaming,
    PushConfig,
    ExtendedCard,
}

fn method(name: &str) -> Option<Method> {
    Some(match name {
        "message/send" => Method::MessageSend,
        "tasks/send" => Method::LegacyTasksSend,
        "tasks/get" => Method::TasksGet,
        "tasks/cancel" => Method::TasksCancel,
        "message/stream" | "tasks/resubscribe" => Method::Streaming,
        "tasks/pushNotificationConfig/set"
        | "tasks/pushNotificationConfig/get"
        | "tasks/pushNotificationConfig/list"
        | "tasks/pushNotificationConfig/delete" => Method::PushConfig,
        "agent/getAuthenticatedExtendedCard" => Method::ExtendedCard,
        _ => return None,
    })
}

/// Handle one request body and always produce a JSON-RPC response.
pub async fn handle(engine: &TaskEngine, body: &[u8]) -> RpcReply {
    let started = Instant::now();
    let reply = match jsonrpc::parse_request(body) {
        Err(envelope) => RpcReply {
            body: error_bytes(&envelope.id, &envelope.error),
            id: envelope.id,
            method: None,
            task_state: None,
            error_code: Some(envelope.error.code),
        },
        Ok(request) => match dispatch(engine, &request.method, request.params).await {
            Ok(task) => RpcReply {
                body: success_bytes(&request.id, &task),
                task_state: Some(task.status.state.as_str()),
                id: request.id,
                method: Some(request.method),
                error_code: None,
            },
            Err(error) => RpcReply {
                body: error_bytes(&request.id, &error),
                id: request.id,
                method: Some(request.method),
                task_state: None,
                error_code: Some(error.code),
            },
        },
    };
    tracing::info!(
        rpc.method = reply.method.as_deref().unwrap_or("-"),
        rpc.id = %reply.id,
        a2a.task.state = reply.task_state.unwrap_or("-"),
        rpc.error_code = reply.error_code.unwrap_or(0),
        latency_ms = started.elapsed().as_secs_f64() * 1000.0,
        "jsonrpc request"
    );
    reply
}

async fn dispatch(
    engine: &TaskEngine,
    name: &str,
    params: Option<Value>,
) -> Result<Task, RpcError> {
    // Unknown methods are refused before params are looked at.
    let Some(method) = method(name) else {
        return Err(RpcError::method_not_found(name));
    };
    let task = match method {
        Method::MessageSend => {
            let params: MessageSendParams = parse_params(params)?;
            engine.send_message(params).await
        }
        Method::LegacyTasksSend => {
            let params: MessageSendParams = parse_params(Some(legacy_send_params(params)?))?;
            engine.send_message(params).await
        }
        Method::TasksGet => {
            let params: TaskQueryParams = parse_params(params)?;
            engine.get_task(&params.id, params.history_length).await
        }
        Method::TasksCancel => {
            let params: TaskIdParams = parse_params(params)?;
            engine.cancel_task(&params.id).await
        }
        Method::Streaming => {
            return Err(RpcError::unsupported(format!(
                "{name} is not supported: this agent does not stream (capabilities.streaming is false)"
            )));
        }
        Method::PushConfig => return Err(RpcError::push_not_supported()),
        Method::ExtendedCard => return Err(RpcError::extended_card_not_configured()),
    };
    task.map_err(|error| error.to_rpc_error())
}

/// v0.2 `tasks/send` params (`id`, `sessionId`, parts with `type`) as 0.3
/// `MessageSendParams`.
fn legacy_send_params(params: Option<Value>) -> Result<Value, RpcError> {
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
