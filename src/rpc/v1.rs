//! The A2A 1.0 wire (`SendMessage`, `GetTask`, `ListTasks`, …): its
//! ProtoJSON params decoded into a [`Call`] on the engine's model
//! (`a2a::v1::convert`) with the 1.0 rules, and an [`Outcome`] written back
//! in ProtoJSON. Errors are in the 1.0 shape (`error.data` an array starting
//! with an `ErrorInfo`).
//!
//! Where 1.0 is stricter than the Joule-friendly 0.3 defaults, the call
//! carries its [`Rules`]: strict task ids (an unknown task is −32001, a
//! finished one −32004, another context's −32602), a blocking send that
//! waits until the task ends or pauses, past the budget, a subscription
//! that follows the task until it ends, and a repeated delete that succeeds.

use super::call::{Action, Call, ListTasks, Outcome, Rules};
use super::event_stream::EventStream;
use super::reply::Encoded;
use crate::a2a::jsonrpc::{self, parse_params, success_bytes};
use crate::a2a::types as v03;
use crate::a2a::v1::convert::{list_push_configs_response, push_config_from_v03};
use crate::a2a::v1::{
    self, A2aError, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, ListTasksResponse, Method,
    SendMessageRequest, SendMessageResponse, SubscribeToTaskRequest,
};
use crate::tasks::{Answer, CallRules, PageCursor};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// `ListTasks` page size when none is given, and the most a page holds
/// (a2a-python's figures; the spec names none).
pub const DEFAULT_PAGE_SIZE: i32 = 50;
pub const MAX_PAGE_SIZE: i32 = 100;

const RULES: Rules = Rules {
    engine: CallRules {
        strict_task_ids: true,
        wait_past_budget: true,
        v1_field_names: true,
    },
    follow_until_terminal: true,
    // PUSH-DEL-002: deleting twice is not an error.
    repeated_delete_succeeds: true,
};

/// The params of `method` (−32602 naming the field), then the id (a
/// request without one is checked but not run), then what the params
/// mean on the engine's model (a message's parts, a page's bounds).
pub(super) fn decode(
    method: Method,
    params: Option<Value>,
    has_id: bool,
) -> Result<Call, A2aError> {
    let read = Read { params, has_id };
    let action = match method {
        Method::SendMessage => read.then(|request| Ok(Action::Send(send_params(request)?)))?,
        Method::SendStreamingMessage => {
            read.then(|request| Ok(Action::Stream(send_params(request)?)))?
        }
        Method::GetTask => read.then(|request: GetTaskRequest| {
            Ok(Action::Get {
                task_id: request.id,
                history_length: request.history_length.map(i64::from),
            })
        })?,
        // No params at all is an empty request: list everything.
        Method::ListTasks => read
            .or_default()
            .then(|request| Ok(Action::List(Box::new(list_tasks(request)?))))?,
        Method::CancelTask => read.then(|request: CancelTaskRequest| {
            Ok(Action::Cancel {
                task_id: request.id,
            })
        })?,
        Method::SubscribeToTask => read.then(|request: SubscribeToTaskRequest| {
            Ok(Action::Subscribe {
                task_id: request.id,
            })
        })?,
        Method::CreateTaskPushNotificationConfig => {
            read.then(|config: v1::TaskPushNotificationConfig| {
                Ok(Action::SetPushConfig(Box::new(config.into())))
            })?
        }
        Method::GetTaskPushNotificationConfig => {
            read.then(|request: GetTaskPushNotificationConfigRequest| {
                Ok(Action::GetPushConfig {
                    task_id: request.task_id,
                    config_id: Some(request.id),
                })
            })?
        }
        Method::ListTaskPushNotificationConfigs => {
            read.then(|request: ListTaskPushNotificationConfigsRequest| {
                Ok(Action::ListPushConfigs {
                    task_id: request.task_id,
                })
            })?
        }
        Method::DeleteTaskPushNotificationConfig => {
            read.then(|request: DeleteTaskPushNotificationConfigRequest| {
                Ok(Action::DeletePushConfig {
                    task_id: request.task_id,
                    config_id: request.id,
                })
            })?
        }
        // Its params may be absent; present, they must be its request.
        Method::GetExtendedAgentCard => read
            .or_default()
            .then(|_: GetExtendedAgentCardRequest| Ok(Action::ExtendedCard))?,
    };
    Ok(Call {
        action,
        rules: RULES,
    })
}

/// A request's params and whether it has an id, read in the order 1.0
/// answers them.
struct Read {
    params: Option<Value>,
    has_id: bool,
}

impl Read {
    /// Absent or `null` params read as the method's empty request.
    fn or_default(self) -> Read {
        match self.params {
            None | Some(Value::Null) => Read {
                params: Some(Value::Object(Default::default())),
                ..self
            },
            _ => self,
        }
    }

    /// The params as `T`, then the id, then `meaning` of the params.
    fn then<T: DeserializeOwned>(
        self,
        meaning: impl FnOnce(T) -> Result<Action, A2aError>,
    ) -> Result<Action, A2aError> {
        let request =
            parse_params(self.params).map_err(|error| A2aError::from_rpc_error(&error))?;
        if !self.has_id {
            return Err(A2aError::from_rpc_error(&jsonrpc::missing_id()));
        }
        meaning(request)
    }
}

/// A send's params as the engine takes them.
fn send_params(request: SendMessageRequest) -> Result<Box<v03::MessageSendParams>, A2aError> {
    v03::MessageSendParams::try_from(request)
        .map(Box::new)
        .map_err(|error| error.within("params").to_a2a_error())
}

/// A `ListTasks` request checked: the page size within bounds, no negative
/// `historyLength`, a page token this agent gave out.
fn list_tasks(request: ListTasksRequest) -> Result<ListTasks, A2aError> {
    let page_size = request.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(A2aError::invalid_field(
            "pageSize",
            &format!("must be between 1 and {MAX_PAGE_SIZE} (got {page_size})"),
        ));
    }
    let history_limit = match request.history_length {
        None => None,
        Some(length) => Some(u64::try_from(length).map_err(|_| {
            A2aError::invalid_field(
                "historyLength",
                &format!("must not be negative (got {length})"),
            )
        })?),
    };
    let after = match request.page_token.as_str() {
        "" => None,
        token => Some(PageCursor::from_token(token).ok_or_else(|| {
            A2aError::invalid_field("pageToken", "is not a token this agent gave out")
        })?),
    };
    Ok(ListTasks {
        state: request.status_filter().map(v03::TaskState::from),
        context_id: (!request.context_id.is_empty()).then_some(request.context_id),
        changed_since_ms: request.status_timestamp_after.as_ref().map(|at| {
            i64::try_from(at.as_offset_date_time().unix_timestamp_nanos() / 1_000_000)
                .unwrap_or(i64::MIN)
        }),
        page_size,
        after,
        history_limit,
        include_artifacts: request.include_artifacts == Some(true),
    })
}

/// The 1.0 result of request `id`, in ProtoJSON.
pub(super) fn encode(id: &Value, outcome: Outcome<'_>) -> Result<Encoded, A2aError> {
    let result = match outcome {
        Outcome::Sent(Answer::Task(task, _)) => to_value(&SendMessageResponse::from(
            std::sync::Arc::unwrap_or_clone(task),
        ))?,
        Outcome::Sent(Answer::Message(message)) => to_value(&SendMessageResponse::from(message))?,
        Outcome::Task(task) => to_value(&v1::Task::from(*task))?,
        Outcome::Tasks { page, page_size } => to_value(&ListTasksResponse {
            tasks: page.tasks.into_iter().map(v1::Task::from).collect(),
            next_page_token: page
                .next
                .map(|cursor| cursor.to_token())
                .unwrap_or_default(),
            page_size,
            total_size: i32::try_from(page.total).unwrap_or(i32::MAX),
        })?,
        Outcome::Stream(stream) => {
            return Ok(Encoded::Stream(Box::new(EventStream::v1(
                id.clone(),
                *stream,
            ))));
        }
        Outcome::PushConfig(config) => to_value(&push_config_from_v03(
            &config.task_id,
            config.push_notification_config,
        ))?,
        Outcome::PushConfigs(configs) => to_value(&list_push_configs_response(configs))?,
        Outcome::Deleted => Value::Null,
        Outcome::ExtendedCard(card) => to_value(
            &v1::AgentCard::try_from_merged(card)
                .map_err(|_| A2aError::internal("the extended agent card could not be written"))?,
        )?,
    };
    Ok(Encoded::Body(success_bytes(id, &result)))
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, A2aError> {
    serde_json::to_value(value)
        .map_err(|_| A2aError::internal("the answer could not be written as JSON"))
}
