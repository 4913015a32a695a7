//! The A2A 1.0 methods (`SendMessage`, `GetTask`, `ListTasks`, …): their
//! ProtoJSON params converted onto the engine's model (`a2a::v1::convert`),
//! the same engine as 0.3, and its answers converted back, errors in the
//! 1.0 shape (`error.data` an array starting with an `ErrorInfo`).
//!
//! Where 1.0 is stricter than the Joule-friendly 0.3 defaults, the call
//! carries [`CallRules`]: strict task ids (an unknown task is −32001, a
//! finished one −32004, another context's −32602) and a blocking send that
//! waits until the task ends or pauses, past the budget.

use super::event_stream::EventStream;
use crate::a2a::jsonrpc::parse_params;
use crate::a2a::types as v03;
use crate::a2a::v1::convert::{list_push_configs_response, push_config_from_v03};
use crate::a2a::v1::{
    self, A2aError, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, ListTasksResponse, Method,
    SendMessageRequest, SendMessageResponse, SubscribeToTaskRequest,
};
use crate::tasks::{
    Answer, CallContext, CallRules, EngineError, PageCursor, TaskQuery, TaskStream,
};
use serde_json::Value;

use super::dispatch::RpcContext;

/// `ListTasks` page size when none is given, and the most a page holds
/// (a2a-python's figures; the spec names none).
pub const DEFAULT_PAGE_SIZE: i32 = 50;
pub const MAX_PAGE_SIZE: i32 = 100;

/// The 1.0 rules: strict task ids, blocking means until the task ends.
const V1_RULES: CallRules = CallRules {
    strict_task_ids: true,
    wait_past_budget: true,
    v1_field_names: true,
};

/// A 1.0 method with its decoded params.
pub(super) enum V1Call {
    Send(Box<SendMessageRequest>),
    Stream(Box<SendMessageRequest>),
    Get(GetTaskRequest),
    List(Box<ListTasksRequest>),
    Cancel(CancelTaskRequest),
    Subscribe(SubscribeToTaskRequest),
    CreatePush(Box<v1::TaskPushNotificationConfig>),
    GetPush(GetTaskPushNotificationConfigRequest),
    ListPush(ListTaskPushNotificationConfigsRequest),
    DeletePush(DeleteTaskPushNotificationConfigRequest),
    ExtendedCard,
}

/// What a 1.0 call answers.
pub(super) enum V1Result {
    /// The `result` member, already in ProtoJSON, and the task state for
    /// the log (the 0.3 name).
    Value(Value, Option<&'static str>),
    Stream(Box<TaskStream>),
}

fn params_error(error: crate::a2a::RpcError) -> A2aError {
    A2aError::from_rpc_error(&error)
}

fn engine_error(error: EngineError) -> A2aError {
    match error {
        // Named by its 1.0 field, not the 0.3 one the engine's message has.
        EngineError::PushConfigRefused { place, reason } => {
            A2aError::invalid_field(v1::push_config_url_field(place), &reason)
        }
        error => A2aError::from_rpc_error(&error.to_rpc_error()),
    }
}

/// The params of `method` (−32602 naming the field).
pub(super) fn decode(method: Method, params: Option<Value>) -> Result<V1Call, A2aError> {
    let call = match method {
        Method::SendMessage => V1Call::Send(parse_params(params).map_err(params_error)?),
        Method::SendStreamingMessage => V1Call::Stream(parse_params(params).map_err(params_error)?),
        Method::GetTask => V1Call::Get(parse_params(params).map_err(params_error)?),
        Method::ListTasks => V1Call::List(Box::new(
            // No params at all is an empty request: list everything.
            match params {
                None | Some(Value::Null) => ListTasksRequest::default(),
                params => parse_params(params).map_err(params_error)?,
            },
        )),
        Method::CancelTask => V1Call::Cancel(parse_params(params).map_err(params_error)?),
        Method::SubscribeToTask => V1Call::Subscribe(parse_params(params).map_err(params_error)?),
        Method::CreateTaskPushNotificationConfig => {
            V1Call::CreatePush(parse_params(params).map_err(params_error)?)
        }
        Method::GetTaskPushNotificationConfig => {
            V1Call::GetPush(parse_params(params).map_err(params_error)?)
        }
        Method::ListTaskPushNotificationConfigs => {
            V1Call::ListPush(parse_params(params).map_err(params_error)?)
        }
        Method::DeleteTaskPushNotificationConfig => {
            V1Call::DeletePush(parse_params(params).map_err(params_error)?)
        }
        Method::GetExtendedAgentCard => {
            if !matches!(params, None | Some(Value::Null)) {
                let _: GetExtendedAgentCardRequest = parse_params(params).map_err(params_error)?;
            }
            V1Call::ExtendedCard
        }
    };
    Ok(call)
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, A2aError> {
    serde_json::to_value(value)
        .map_err(|_| A2aError::internal("the answer could not be written as JSON"))
}

fn task_value(task: v03::Task) -> Result<V1Result, A2aError> {
    let state = task.status.state.as_str();
    Ok(V1Result::Value(
        to_value(&v1::Task::from(task))?,
        Some(state),
    ))
}

/// A send's params as the engine takes them, with the 1.0 rules.
fn send_params(
    request: SendMessageRequest,
) -> Result<(v03::MessageSendParams, Option<i32>), A2aError> {
    let history_length = request
        .configuration
        .as_ref()
        .and_then(|configuration| configuration.history_length);
    let params = v03::MessageSendParams::try_from(request)
        .map_err(|error| error.within("params").to_a2a_error())?;
    Ok((params, history_length))
}

pub(super) async fn run(context: &RpcContext<'_>, call: V1Call) -> Result<V1Result, A2aError> {
    let engine = context.engine;
    let rules = CallContext {
        rules: V1_RULES,
        ..context.call.clone()
    };
    match call {
        V1Call::Send(request) => {
            let (params, _) = send_params(*request)?;
            let answer = engine
                .send_message(params, &rules)
                .await
                .map_err(engine_error)?;
            let (response, state) = match answer {
                Answer::Task(task, _) => {
                    let state = task.status.state.as_str();
                    (
                        SendMessageResponse::from(std::sync::Arc::unwrap_or_clone(task)),
                        Some(state),
                    )
                }
                Answer::Message(message) => (SendMessageResponse::from(message), None),
            };
            Ok(V1Result::Value(to_value(&response)?, state))
        }
        V1Call::Stream(request) => {
            let (params, _) = send_params(*request)?;
            engine
                .stream_message(params, &rules)
                .await
                .map(|stream| V1Result::Stream(Box::new(stream)))
                .map_err(engine_error)
        }
        V1Call::Get(request) => {
            let params = v03::TaskQueryParams::from(request);
            task_value(
                engine
                    .get_task(&params.id, params.history_length, &rules)
                    .await
                    .map_err(engine_error)?,
            )
        }
        V1Call::List(request) => list(context, *request).await,
        V1Call::Cancel(request) => task_value(
            engine
                .cancel_task(&request.id, &rules)
                .await
                .map_err(engine_error)?,
        ),
        V1Call::Subscribe(request) => {
            // Followed until terminal, through `input-required` and the
            // turns that continue the task.
            let stream = engine
                .follow(&request.id, &rules)
                .await
                .map_err(engine_error)?;
            if let Some(task) = &stream.first
                && task.status.state.is_terminal()
            {
                return Err(A2aError::task_is_terminal(
                    &task.id,
                    v1::TaskState::from(task.status.state).proto_name(),
                ));
            }
            Ok(V1Result::Stream(Box::new(stream)))
        }
        V1Call::CreatePush(config) => {
            let config = v03::TaskPushNotificationConfig::from(*config);
            let set = engine
                .set_push_config(config, &rules)
                .await
                .map_err(engine_error)?;
            Ok(V1Result::Value(
                to_value(&v1::TaskPushNotificationConfig::from(set))?,
                None,
            ))
        }
        V1Call::GetPush(request) => {
            let config = engine
                .get_push_config(&request.task_id, Some(request.id.as_str()), &rules)
                .await
                .map_err(engine_error)?;
            Ok(V1Result::Value(
                to_value(&push_config_from_v03(
                    &config.task_id,
                    config.push_notification_config,
                ))?,
                None,
            ))
        }
        V1Call::ListPush(request) => {
            let configs = engine
                .list_push_configs(&request.task_id, &rules)
                .await
                .map_err(engine_error)?;
            Ok(V1Result::Value(
                to_value(&list_push_configs_response(configs))?,
                None,
            ))
        }
        V1Call::DeletePush(request) => {
            match engine
                .delete_push_config(&request.task_id, &request.id, &rules)
                .await
            {
                // Deleting twice is not an error in 1.0 (PUSH-DEL-002).
                Ok(()) | Err(EngineError::PushConfigNotFound { .. }) => {
                    Ok(V1Result::Value(Value::Null, None))
                }
                Err(error) => Err(engine_error(error)),
            }
        }
        V1Call::ExtendedCard => match (context.principal, context.extended_card) {
            (Some(_), Some(card)) => {
                let card = v1::AgentCard::try_from_merged(card).map_err(|_| {
                    A2aError::internal("the extended agent card could not be written")
                })?;
                Ok(V1Result::Value(to_value(&card)?, None))
            }
            _ => Err(A2aError::extended_agent_card_not_configured()),
        },
    }
}

/// `ListTasks`: the caller's tasks (all of them with authentication off),
/// filtered and paged.
async fn list(context: &RpcContext<'_>, request: ListTasksRequest) -> Result<V1Result, A2aError> {
    let page_size = request.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(A2aError::invalid_field(
            "pageSize",
            &format!("must be between 1 and {MAX_PAGE_SIZE} (got {page_size})"),
        ));
    }
    let history_length = match request.history_length {
        Some(length) if length < 0 => {
            return Err(A2aError::invalid_field(
                "historyLength",
                &format!("must not be negative (got {length})"),
            ));
        }
        length => length.map(i64::from),
    };
    let after = match request.page_token.as_str() {
        "" => None,
        token => Some(PageCursor::from_token(token).ok_or_else(|| {
            A2aError::invalid_field("pageToken", "is not a token this agent gave out")
        })?),
    };
    let query = TaskQuery {
        scope: context.call.scope.clone(),
        context_id: (!request.context_id.is_empty()).then(|| request.context_id.clone()),
        state: request.status_filter().map(v03::TaskState::from),
        changed_since_ms: request.status_timestamp_after.as_ref().map(|at| {
            i64::try_from(at.as_offset_date_time().unix_timestamp_nanos() / 1_000_000)
                .unwrap_or(i64::MIN)
        }),
        page_size: page_size.unsigned_abs() as usize,
        after,
    };
    let page = context
        .engine
        .list_tasks(&query)
        .await
        .map_err(engine_error)?;
    let include_artifacts = request.include_artifacts == Some(true);
    let limit = history_length.map(i64::unsigned_abs);
    let tasks = page
        .tasks
        .into_iter()
        .map(|task| {
            let mut task = v1::Task::from(task.with_history_limit(limit));
            if !include_artifacts {
                task.artifacts.clear();
            }
            task
        })
        .collect();
    let response = ListTasksResponse {
        tasks,
        next_page_token: page
            .next
            .map(|cursor| cursor.to_token())
            .unwrap_or_default(),
        page_size,
        total_size: i32::try_from(page.total).unwrap_or(i32::MAX),
    };
    Ok(V1Result::Value(to_value(&response)?, None))
}

/// The stream of a 1.0 streaming method.
pub(super) fn stream(id: Value, stream: TaskStream) -> EventStream {
    EventStream::v1(id, stream)
}
