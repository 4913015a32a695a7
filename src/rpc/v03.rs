//! The A2A 0.3 wire (`message/send`, `tasks/get`, …, and the v0.2
//! `tasks/send`): its params decoded into a [`Call`] with the 0.3 rules
//! (the Joule-friendly defaults), and an [`Outcome`] written back as the
//! 0.3 result. Errors are 0.3 error objects (free-form `data`).

use super::call::{Action, Call, Outcome, Rules};
use super::event_stream::EventStream;
use super::legacy::legacy_send_params;
use super::reply::Encoded;
use crate::a2a::jsonrpc::{self, RpcError, parse_params, success_bytes, success_bytes_raw};
use crate::a2a::{
    DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams, TaskIdParams,
    TaskQueryParams,
};
use crate::tasks::{Answer, CallRules};
use serde_json::Value;

/// The engine's defaults: an unknown task id starts a new task, a
/// blocking send waits at most the budget; a subscription sends the task
/// and its running turn; deleting a config that is not there is an error.
const RULES: Rules = Rules {
    engine: CallRules {
        strict_task_ids: false,
        wait_past_budget: false,
        v1_field_names: false,
    },
    follow_until_terminal: false,
    repeated_delete_succeeds: false,
};

/// The method by name (−32601 when unknown, before params are looked at),
/// then its params (−32602 naming the field), then the id: a request
/// without one is checked but not run.
pub(super) fn decode(method: &str, params: Option<Value>, has_id: bool) -> Result<Call, RpcError> {
    let action = match method {
        "message/send" => Action::Send(parse_params(params)?),
        "tasks/send" => Action::Send(parse_params(Some(legacy_send_params(params)?))?),
        "message/stream" => Action::Stream(parse_params(params)?),
        "tasks/get" => {
            let params: TaskQueryParams = parse_params(params)?;
            Action::Get {
                task_id: params.id,
                history_length: params.history_length,
            }
        }
        "tasks/cancel" => Action::Cancel {
            task_id: parse_params::<TaskIdParams>(params)?.id,
        },
        "tasks/resubscribe" => Action::Subscribe {
            task_id: parse_params::<TaskIdParams>(params)?.id,
        },
        "tasks/pushNotificationConfig/set" => Action::SetPushConfig(parse_params(params)?),
        "tasks/pushNotificationConfig/get" => {
            let params: GetTaskPushNotificationConfigParams = parse_params(params)?;
            Action::GetPushConfig {
                task_id: params.id,
                config_id: params.push_notification_config_id,
            }
        }
        "tasks/pushNotificationConfig/list" => Action::ListPushConfigs {
            task_id: parse_params::<TaskIdParams>(params)?.id,
        },
        "tasks/pushNotificationConfig/delete" => {
            let params: DeleteTaskPushNotificationConfigParams = parse_params(params)?;
            Action::DeletePushConfig {
                task_id: params.id,
                config_id: params.push_notification_config_id,
            }
        }
        "agent/getAuthenticatedExtendedCard" => Action::ExtendedCard,
        _ => return Err(RpcError::method_not_found(method)),
    };
    if !has_id {
        return Err(jsonrpc::missing_id());
    }
    Ok(Call {
        action,
        rules: RULES,
    })
}

/// The streaming methods answer even their errors as an event stream
/// (SSE clients such as the A2A SDK read errors only from the stream).
pub(super) fn streams_errors(method: &str) -> bool {
    matches!(method, "message/stream" | "tasks/resubscribe")
}

/// The 0.3 result of request `id`.
pub(super) fn encode(id: &Value, outcome: Outcome<'_>) -> Result<Encoded, RpcError> {
    let body = match outcome {
        // As the store wrote it, not encoded a second time.
        Outcome::Sent(Answer::Task(_, Some(json))) => success_bytes_raw(id, &json),
        Outcome::Sent(Answer::Task(task, None)) => success_bytes(id, &*task),
        Outcome::Sent(Answer::Message(message)) => success_bytes(id, &message),
        Outcome::Task(task) => success_bytes(id, &task),
        Outcome::Stream(stream) => {
            return Ok(Encoded::Stream(Box::new(EventStream::new(
                id.clone(),
                *stream,
            ))));
        }
        Outcome::PushConfig(config) => success_bytes(id, &config),
        Outcome::PushConfigs(configs) => success_bytes(id, &configs),
        Outcome::Deleted => success_bytes(id, &()),
        Outcome::ExtendedCard(card) => success_bytes(id, card),
        Outcome::Tasks { .. } => {
            return Err(RpcError::internal("0.3 has no answer for a task list"));
        }
    };
    Ok(Encoded::Body(body))
}
