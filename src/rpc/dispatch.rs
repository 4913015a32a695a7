//! JSON-RPC method dispatch: envelope checks, params for each A2A method, the
//! task engine's answer as a response body (or an event stream). Knows no
//! HTTP: `http/` hands the body in and frames what comes back.

use super::event_stream::EventStream;
use super::legacy::legacy_send_params;
use super::v1::{self, V1Result};
use crate::a2a::agent_card::AgentCard;
use crate::a2a::jsonrpc::{
    self, RpcError, error_bytes, parse_params, success_bytes, success_bytes_raw,
};
use crate::a2a::v1::{A2aError, Method, Route, negotiate};
use crate::a2a::{
    DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams, RpcRequest,
    TaskPushNotificationConfig,
};
use crate::a2a::{Message, MessageSendParams, Task, TaskIdParams, TaskQueryParams};
use crate::auth::Principal;
use crate::tasks::{Answer, CallContext, TaskEngine, TaskJson, TaskStream};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The response body (or event stream) and what the request log line needs.
pub struct RpcReply {
    pub body: Vec<u8>,
    /// For `message/stream` and `tasks/resubscribe`: the events to send as SSE.
    pub stream: Option<EventStream>,
    pub id: Value,
    pub method: Option<String>,
    pub task_state: Option<&'static str>,
    pub error_code: Option<i64>,
    /// The error's message, for the request span's status.
    pub error_message: Option<String>,
    /// The task and context the call was about (from the answer, else
    /// from the request), so the request line and span name them.
    pub task: TaskIds,
}

/// The ids a call names or answers with: `a2a.task.id` and
/// `a2a.context.id` on the request line and the request span.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskIds {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
}

impl TaskIds {
    /// The ids a request's params name: a message's `taskId` and
    /// `contextId` (sends), else `taskId` (push configs; over 1.0 their
    /// `id` is the config's), else `id` (get, cancel, resubscribe).
    fn of_params(params: Option<&Value>) -> TaskIds {
        let text = |value: Option<&Value>| {
            value
                .and_then(Value::as_str)
                .filter(|id| !id.trim().is_empty())
                .map(str::to_string)
        };
        let Some(params) = params else {
            return TaskIds::default();
        };
        let message = params.get("message");
        TaskIds {
            task_id: text(message.and_then(|m| m.get("taskId")))
                .or_else(|| text(params.get("taskId")))
                .or_else(|| text(params.get("id"))),
            context_id: text(message.and_then(|m| m.get("contextId"))),
        }
    }

    fn of_task(task: &Task) -> TaskIds {
        TaskIds {
            task_id: Some(task.id.clone()),
            context_id: Some(task.context_id.clone()),
        }
    }

    fn of_message(message: &Message) -> TaskIds {
        TaskIds {
            task_id: message.task_id.clone(),
            context_id: message.context_id.clone(),
        }
    }

    /// The ids of a 1.0 answer (ProtoJSON): a task (`{"task": …}` or the
    /// task itself) or a message.
    fn of_v1_result(result: &Value) -> TaskIds {
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_string);
        if let Some(message) = result.get("message") {
            return TaskIds {
                task_id: text(message.get("taskId")),
                context_id: text(message.get("contextId")),
            };
        }
        let task = result.get("task").unwrap_or(result);
        match text(task.get("contextId")) {
            Some(context_id) => TaskIds {
                task_id: text(task.get("id")),
                context_id: Some(context_id),
            },
            None => TaskIds::default(),
        }
    }

    /// What the answer says, completed by what the request said.
    fn or(self, asked: TaskIds) -> TaskIds {
        TaskIds {
            task_id: self.task_id.or(asked.task_id),
            context_id: self.context_id.or(asked.context_id),
        }
    }
}

/// A known method with its decoded params: decoding comes first for every
/// request (with an id or without), running only for one with an id.
enum Call {
    /// `message/send`, and the v0.2 `tasks/send` mapped onto it.
    MessageSend(Box<MessageSendParams>),
    TasksGet(TaskQueryParams),
    TasksCancel(TaskIdParams),
    Stream(Box<MessageSendParams>),
    Resubscribe(TaskIdParams),
    Push(PushCall),
    ExtendedCard,
}

/// `tasks/pushNotificationConfig/*`.
enum PushCall {
    Set(Box<TaskPushNotificationConfig>),
    Get(GetTaskPushNotificationConfigParams),
    List(TaskIdParams),
    Delete(DeleteTaskPushNotificationConfigParams),
}

/// The method by name (-32601 when unknown, before params are looked at),
/// then its params (-32602 naming the field).
fn decode(name: &str, params: Option<Value>) -> Result<Call, RpcError> {
    Ok(match name {
        "message/send" => Call::MessageSend(parse_params(params)?),
        "tasks/send" => Call::MessageSend(parse_params(Some(legacy_send_params(params)?))?),
        "tasks/get" => Call::TasksGet(parse_params(params)?),
        "tasks/cancel" => Call::TasksCancel(parse_params(params)?),
        "message/stream" => Call::Stream(parse_params(params)?),
        "tasks/resubscribe" => Call::Resubscribe(parse_params(params)?),
        "tasks/pushNotificationConfig/set" => Call::Push(PushCall::Set(parse_params(params)?)),
        "tasks/pushNotificationConfig/get" => Call::Push(PushCall::Get(parse_params(params)?)),
        "tasks/pushNotificationConfig/list" => Call::Push(PushCall::List(parse_params(params)?)),
        "tasks/pushNotificationConfig/delete" => {
            Call::Push(PushCall::Delete(parse_params(params)?))
        }
        "agent/getAuthenticatedExtendedCard" => Call::ExtendedCard,
        _ => return Err(RpcError::method_not_found(name)),
    })
}

/// What a request runs with besides its body.
pub struct RpcContext<'a> {
    pub engine: &'a TaskEngine,
    /// The authenticated caller; `None` when authentication is off.
    pub principal: Option<&'a Principal>,
    /// Served to authenticated callers only.
    pub extended_card: Option<&'a AgentCard>,
    /// What a later callback needs from this call.
    pub call: CallContext,
    /// The `A2A-Version` header and query parameter, as sent (negotiation
    /// in `a2a::v1::version`).
    pub a2a_version: VersionParameter<'a>,
}

/// The `A2A-Version` service parameter as a request carried it.
#[derive(Debug, Clone, Copy, Default)]
pub struct VersionParameter<'a> {
    pub header: Option<&'a str>,
    pub query: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum RpcResult {
    Task(Box<Task>),
    /// A task exactly as stored, answered with the JSON the store wrote
    /// (not encoded a second time).
    #[serde(skip)]
    StoredTask(Arc<Task>, TaskJson),
    Message(Box<Message>),
    Card(Box<AgentCard>),
    PushConfig(Box<TaskPushNotificationConfig>),
    PushConfigs(Vec<TaskPushNotificationConfig>),
    Null(()),
    #[serde(skip)]
    Stream(Box<TaskStream>),
}

/// Streaming methods answer even their errors as an event stream.
fn is_streaming(method: &str) -> bool {
    matches!(method, "message/stream" | "tasks/resubscribe")
}

impl RpcReply {
    /// The request id as telemetry records it (OpenTelemetry's
    /// `rpc.jsonrpc.request_id`, the request record's `rpc.id`): a string
    /// id as it is (no JSON quotes), a number as its decimal text; `None`
    /// for a null id.
    pub fn request_id(&self) -> Option<String> {
        match &self.id {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        }
    }
}

/// Handle one request body and always produce a JSON-RPC response.
pub async fn handle(context: &RpcContext<'_>, body: &[u8]) -> RpcReply {
    let reply = match jsonrpc::parse_request(body) {
        Err(envelope) => RpcReply {
            body: error_bytes(&envelope.id, &envelope.error),
            stream: None,
            id: envelope.id,
            method: None,
            task_state: None,
            error_code: Some(envelope.error.code),
            error_message: Some(envelope.error.message.clone()),
            task: TaskIds::default(),
        },
        Ok(request) => {
            let asked = TaskIds::of_params(request.params.as_ref());
            let mut reply = match negotiate(
                context.a2a_version.header,
                context.a2a_version.query,
                &request.method,
            ) {
                Ok(Route::V0_3) => handle_v03(context, request).await,
                Ok(Route::V1_0(method)) => handle_v1(context, request, method).await,
                Err(refused) => refused_version(request, &refused),
            };
            reply.task = std::mem::take(&mut reply.task).or(asked);
            reply
        }
    };
    let span = tracing::Span::current();
    span.record("rpc.method", reply.method.as_deref().unwrap_or("-"));
    if let Some(id) = reply.request_id() {
        span.record("rpc.jsonrpc.request_id", id.as_str());
    }
    if let Some(code) = reply.error_code {
        span.record("rpc.jsonrpc.error_code", code);
    }
    if let Some(state) = reply.task_state {
        span.record("a2a.task.state", state);
    }
    if let Some(task_id) = &reply.task.task_id {
        span.record("a2a.task.id", task_id.as_str());
    }
    if let Some(context_id) = &reply.task.context_id {
        span.record("a2a.context.id", context_id.as_str());
    }
    reply
}

/// A request in a protocol version the service does not speak.
fn refused_version(request: RpcRequest, refused: &crate::a2a::v1::NegotiationError) -> RpcReply {
    let error = refused.to_rpc_error();
    RpcReply {
        body: error_bytes(&request.id, &error),
        stream: None,
        error_code: Some(error.code),
        error_message: Some(error.message.clone()),
        id: request.id,
        method: Some(request.method),
        task_state: None,
        task: TaskIds::default(),
    }
}

/// A 0.3 request, exactly as before 1.0 was spoken.
async fn handle_v03(context: &RpcContext<'_>, mut request: RpcRequest) -> RpcReply {
    match checked_run(context, &mut request).await {
        Ok(RpcResult::Stream(stream)) => RpcReply {
            task: stream
                .first
                .as_ref()
                .map(TaskIds::of_task)
                .unwrap_or_default(),
            body: Vec::new(),
            stream: Some(EventStream::new(request.id.clone(), *stream)),
            task_state: None,
            id: request.id,
            method: Some(request.method),
            error_code: None,
            error_message: None,
        },
        Ok(RpcResult::StoredTask(task, json)) => RpcReply {
            body: success_bytes_raw(&request.id, &json),
            stream: None,
            task_state: Some(task.status.state.as_str()),
            id: request.id,
            method: Some(request.method),
            error_code: None,
            error_message: None,
            task: TaskIds::of_task(&task),
        },
        Ok(result) => RpcReply {
            body: success_bytes(&request.id, &result),
            stream: None,
            task_state: match &result {
                RpcResult::Task(task) => Some(task.status.state.as_str()),
                _ => None,
            },
            task: match &result {
                RpcResult::Task(task) => TaskIds::of_task(task),
                RpcResult::Message(message) => TaskIds::of_message(message),
                _ => TaskIds::default(),
            },
            id: request.id,
            method: Some(request.method),
            error_code: None,
            error_message: None,
        },
        Err(error) if is_streaming(&request.method) => RpcReply {
            body: Vec::new(),
            stream: Some(EventStream::failed(request.id.clone(), &error)),
            task_state: None,
            error_code: Some(error.code),
            error_message: Some(error.message.clone()),
            id: request.id,
            method: Some(request.method),
            task: TaskIds::default(),
        },
        Err(error) => RpcReply {
            body: error_bytes(&request.id, &error),
            stream: None,
            id: request.id,
            method: Some(request.method),
            task_state: None,
            error_code: Some(error.code),
            error_message: Some(error.message.clone()),
            task: TaskIds::default(),
        },
    }
}

/// A 1.0 request: params first, then the id (both −32602, as on 0.3), then the call.
async fn handle_v1(context: &RpcContext<'_>, mut request: RpcRequest, method: Method) -> RpcReply {
    let ran = match v1::decode(method, request.params.take()) {
        Err(error) => Err(error),
        Ok(_) if !request.has_id() => Err(A2aError::from_rpc_error(&jsonrpc::missing_id())),
        Ok(call) => v1::run(context, call).await,
    };
    match ran {
        Ok(V1Result::Stream(stream)) => RpcReply {
            task: stream
                .first
                .as_ref()
                .map(TaskIds::of_task)
                .unwrap_or_default(),
            body: Vec::new(),
            stream: Some(v1::stream(request.id.clone(), *stream)),
            task_state: None,
            id: request.id,
            method: Some(request.method),
            error_code: None,
            error_message: None,
        },
        Ok(V1Result::Value(result, task_state)) => RpcReply {
            body: success_bytes(&request.id, &result),
            stream: None,
            task_state,
            task: TaskIds::of_v1_result(&result),
            id: request.id,
            method: Some(request.method),
            error_code: None,
            error_message: None,
        },
        // Also for a streaming method: a call that cannot start its stream
        // (bad params, unknown or finished task) answers one plain JSON-RPC
        // error, as a2a-python does; the 1.0 clients read either, and the
        // conformance suite counts an event stream as success. 0.3 streams
        // keep sending it as one event.
        Err(error) => {
            let error = error.to_rpc_error();
            RpcReply {
                body: error_bytes(&request.id, &error),
                stream: None,
                task_state: None,
                error_code: Some(error.code),
                error_message: Some(error.message.clone()),
                id: request.id,
                method: Some(request.method),
                task: TaskIds::default(),
            }
        }
    }
}

/// Decode the request (taking its params); run it only if it has an id.
async fn checked_run(
    context: &RpcContext<'_>,
    request: &mut RpcRequest,
) -> Result<RpcResult, RpcError> {
    let call = decode(&request.method, request.params.take())?;
    if !request.has_id() {
        return Err(jsonrpc::missing_id());
    }
    run(context, call).await
}

async fn run(context: &RpcContext<'_>, call: Call) -> Result<RpcResult, RpcError> {
    let engine = context.engine;
    let task = match call {
        Call::MessageSend(params) => {
            return match engine.send_message(*params, &context.call).await {
                Ok(Answer::Task(task, Some(json))) => Ok(RpcResult::StoredTask(task, json)),
                Ok(Answer::Task(task, None)) => {
                    Ok(RpcResult::Task(Box::new(Arc::unwrap_or_clone(task))))
                }
                Ok(Answer::Message(message)) => Ok(RpcResult::Message(Box::new(message))),
                Err(error) => Err(error.to_rpc_error()),
            };
        }
        Call::TasksGet(params) => {
            engine
                .get_task(&params.id, params.history_length, &context.call)
                .await
        }
        Call::TasksCancel(params) => engine.cancel_task(&params.id, &context.call).await,
        Call::Stream(params) => {
            return engine
                .stream_message(*params, &context.call)
                .await
                .map(|stream| RpcResult::Stream(Box::new(stream)))
                .map_err(|error| error.to_rpc_error());
        }
        Call::Resubscribe(params) => {
            return engine
                .resubscribe(&params.id, &context.call)
                .await
                .map(|stream| RpcResult::Stream(Box::new(stream)))
                .map_err(|error| error.to_rpc_error());
        }
        Call::Push(call) => return push_method(context, call).await,
        Call::ExtendedCard => {
            return match (context.principal, context.extended_card) {
                (Some(_), Some(card)) => Ok(RpcResult::Card(Box::new(card.clone()))),
                _ => Err(RpcError::extended_card_not_configured()),
            };
        }
    };
    task.map(|task| RpcResult::Task(Box::new(task)))
        .map_err(|error| error.to_rpc_error())
}

/// `tasks/pushNotificationConfig/*`: through the engine, which checks the
/// task before it reaches the push room.
async fn push_method(context: &RpcContext<'_>, call: PushCall) -> Result<RpcResult, RpcError> {
    let engine = context.engine;
    let result = match call {
        PushCall::Set(params) => engine
            .set_push_config(*params, &context.call)
            .await
            .map(|config| RpcResult::PushConfig(Box::new(config))),
        PushCall::Get(params) => engine
            .get_push_config(
                &params.id,
                params.push_notification_config_id.as_deref(),
                &context.call,
            )
            .await
            .map(|config| RpcResult::PushConfig(Box::new(config))),
        PushCall::List(params) => engine
            .list_push_configs(&params.id, &context.call)
            .await
            .map(RpcResult::PushConfigs),
        PushCall::Delete(params) => engine
            .delete_push_config(
                &params.id,
                &params.push_notification_config_id,
                &context.call,
            )
            .await
            .map(|()| RpcResult::Null(())),
    };
    result.map_err(|error| error.to_rpc_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method the service dispatches is a name telemetry knows (a
    /// span name and a label of its own), none counted as `other`.
    #[test]
    fn every_dispatched_method_is_a_served_method_of_telemetry() {
        let v1 = Method::ALL.map(Method::name);
        for method in crate::a2a::v1::version::V0_3_METHODS
            .iter()
            .chain(v1.iter())
        {
            assert_eq!(
                crate::telemetry::metrics::served_method(method),
                Some(*method),
                "{method}"
            );
        }
        assert_eq!(crate::telemetry::metrics::served_method("no/such"), None);
        assert_eq!(crate::telemetry::metrics::served_method("-"), None);
    }

    #[test]
    fn the_task_ids_of_a_request_are_read_from_its_params() {
        let send = serde_json::json!({"message": {"taskId": "t-1", "contextId": "c-1"}});
        assert_eq!(
            TaskIds::of_params(Some(&send)),
            TaskIds {
                task_id: Some("t-1".into()),
                context_id: Some("c-1".into())
            }
        );
        // Over 1.0 a push config's `id` is the config's; `taskId` wins.
        let push = serde_json::json!({"taskId": "t-2", "id": "config-1"});
        assert_eq!(
            TaskIds::of_params(Some(&push)).task_id.as_deref(),
            Some("t-2")
        );
        let get = serde_json::json!({"id": "t-3"});
        assert_eq!(
            TaskIds::of_params(Some(&get)).task_id.as_deref(),
            Some("t-3")
        );
        let first_turn = serde_json::json!({"message": {"taskId": "", "contextId": " "}});
        assert_eq!(TaskIds::of_params(Some(&first_turn)), TaskIds::default());
    }
}
