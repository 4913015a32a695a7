//! Why a call was not carried out, and the error each wire version answers
//! for it: every engine error is worded once ([`told`]), then written as a
//! 0.3 error object ([`v03`]) or a 1.0 `A2aError` ([`v1`]), with no
//! version reading the other's answer. A store fault reaches the caller as a
//! generic message; what the database said goes to the log only.

use crate::a2a::RpcError;
use crate::a2a::TaskState;
use crate::a2a::v1::{self, A2aError, ErrorCode, push_config_url_field};
use crate::tasks::{EngineError, STORE_CORRUPT, STORE_UNAVAILABLE, StoreError};

/// A call that `run` could not carry out.
#[derive(Debug, thiserror::Error)]
pub(super) enum CallError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The extended card is served to authenticated callers, when there is one.
    #[error("the extended agent card is not configured")]
    ExtendedCardNotConfigured,
    /// A subscription that follows a task until it ends, to a task that
    /// has ended.
    #[error("task {task_id} is in terminal state {}", state.as_str())]
    TaskIsTerminal { task_id: String, state: TaskState },
}

/// `error` as the 0.3 wire answers it.
pub(super) fn v03(error: &CallError) -> RpcError {
    match error {
        CallError::Engine(error) => {
            let (code, message) = told(error);
            RpcError::new(code.code(), message)
        }
        CallError::ExtendedCardNotConfigured => RpcError::extended_card_not_configured(),
        CallError::TaskIsTerminal { task_id, state } => RpcError::unsupported(format!(
            "Task {task_id} is in terminal state {}",
            state.as_str()
        )),
    }
}

/// `error` as the 1.0 wire answers it: the same code and words as 0.3,
/// in the 1.0 shape; a refused webhook URL named by its 1.0 field.
pub(super) fn v1(error: &CallError) -> A2aError {
    match error {
        CallError::Engine(EngineError::PushConfigRefused { place, reason }) => {
            A2aError::invalid_field(push_config_url_field(*place), reason)
        }
        CallError::Engine(error) => {
            let (code, message) = told(error);
            A2aError::new(code, message)
        }
        CallError::ExtendedCardNotConfigured => A2aError::extended_agent_card_not_configured(),
        CallError::TaskIsTerminal { task_id, state } => {
            A2aError::task_is_terminal(task_id, v1::TaskState::from(*state).proto_name())
        }
    }
}

/// What the caller is told about an engine error in either version: the
/// code (the engine's codes are the same numbers in 0.3 and 1.0) and the
/// words. Store faults are logged here, once per answer.
fn told(error: &EngineError) -> (ErrorCode, String) {
    match error {
        EngineError::InvalidParams(detail) => (ErrorCode::InvalidParams, detail.clone()),
        EngineError::PushConfigRefused { .. } => (ErrorCode::InvalidParams, error.to_string()),
        EngineError::ContentTypeNotSupported(detail) => {
            (ErrorCode::ContentTypeNotSupported, detail.clone())
        }
        EngineError::TaskNotFound(id) | EngineError::Store(StoreError::NotFound(id)) => {
            (ErrorCode::TaskNotFound, format!("Task not found: {id}"))
        }
        EngineError::NotCancelable { id, state } => (
            ErrorCode::TaskNotCancelable,
            format!("Task cannot be canceled: {id} is already {state}"),
        ),
        EngineError::Unsupported(detail) => (ErrorCode::UnsupportedOperation, detail.clone()),
        EngineError::PushNotSupported => (
            ErrorCode::PushNotificationNotSupported,
            "Push Notification is not supported".to_string(),
        ),
        EngineError::PushConfigNotFound { .. } => (ErrorCode::TaskNotFound, error.to_string()),
        EngineError::Unreadable(id) => (
            ErrorCode::InternalError,
            format!(
                "task {id} is stored but does not read back, so it cannot be shown or continued; \
                 start a new conversation (the service's log has the cause)"
            ),
        ),
        EngineError::Store(StoreError::TooLarge { id, limit, .. }) => (
            ErrorCode::InvalidParams,
            format!(
                "task {id} would hold more than the {limit} bytes a task may have; \
                 start a new conversation (send the message without taskId)"
            ),
        ),
        EngineError::Store(error @ StoreError::Full(_)) => {
            tracing::warn!(%error, "answered -32603: the in-memory store is full");
            (
                ErrorCode::InternalError,
                format!(
                    "{error}: answer or cancel waiting tasks, or try again later \
                     (tasks.max_open sizes the in-memory store)"
                ),
            )
        }
        EngineError::Store(error @ StoreError::DiskFull(_)) => {
            tracing::error!(%error, "answered -32603: the task store has no space left");
            (ErrorCode::InternalError, STORE_UNAVAILABLE.to_string())
        }
        EngineError::Store(error @ StoreError::Unavailable(_)) => {
            // Known down: said once when it went down, not per call.
            if error.while_known_down() {
                tracing::debug!(%error, "answered -32603: the task store's database is down");
            } else {
                tracing::error!(%error, "answered -32603: the task store is unavailable");
            }
            (ErrorCode::InternalError, STORE_UNAVAILABLE.to_string())
        }
        EngineError::Store(
            error @ (StoreError::Corrupt { .. } | StoreError::UnreadableTask { .. }),
        ) => {
            tracing::error!(%error, "answered -32603: the task store holds an unreadable value");
            (ErrorCode::InternalError, STORE_CORRUPT.to_string())
        }
        // These name only the task.
        EngineError::Store(
            error @ (StoreError::AlreadyExists(_)
            | StoreError::Conflict(_)
            | StoreError::Terminal(_)),
        ) => (ErrorCode::InternalError, error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::PushConfigPlace;

    /// What the database said stays in the log (the SQL store's tests show
    /// a closed pool is `Unavailable` with sqlx's error as its cause).
    #[test]
    fn the_caller_never_reads_what_the_database_said() {
        let error = StoreError::unavailable(sqlx::Error::PoolClosed);
        let database_said = std::error::Error::source(&error)
            .expect("kept for the log")
            .to_string();
        let answer = v03(&EngineError::Store(error).into());
        assert_eq!(answer.code, crate::a2a::jsonrpc::INTERNAL_ERROR);
        assert_eq!(answer.message, STORE_UNAVAILABLE);
        assert!(
            !answer.message.contains(&database_said),
            "{} / {database_said}",
            answer.message
        );

        let corrupt = StoreError::corrupt(
            "task t",
            serde_json::from_str::<serde_json::Value>("{").expect_err("not JSON"),
        );
        let answer = v03(&EngineError::Store(corrupt).into());
        assert_eq!(answer.message, STORE_CORRUPT);
        assert!(!answer.message.contains("EOF"), "{}", answer.message);
    }

    #[test]
    fn the_engine_errors_have_their_0_3_codes_and_words() {
        let cases = [
            (
                EngineError::TaskNotFound("t-1".into()),
                -32001,
                "Task not found: t-1",
            ),
            (
                EngineError::NotCancelable {
                    id: "t-1".into(),
                    state: "completed",
                },
                -32002,
                "Task cannot be canceled: t-1 is already completed",
            ),
            (
                EngineError::PushNotSupported,
                -32003,
                "Push Notification is not supported",
            ),
            (EngineError::Unsupported("no".into()), -32004, "no"),
            (
                EngineError::ContentTypeNotSupported("image/png".into()),
                -32005,
                "image/png",
            ),
            (EngineError::InvalidParams("bad".into()), -32602, "bad"),
            (
                EngineError::PushConfigNotFound {
                    task: "t-1".into(),
                    config: "c-1".into(),
                },
                -32001,
                "push notification config c-1 not found for task t-1",
            ),
        ];
        for (error, code, message) in cases {
            let answer = v03(&error.into());
            assert_eq!((answer.code, answer.message.as_str()), (code, message));
            assert_eq!(answer.data, None);
        }
    }

    /// 1.0 says what 0.3 says, with the ErrorInfo and nothing else in
    /// `data`; only a refused webhook URL names its field the 1.0 way.
    #[test]
    fn the_1_0_answer_has_the_0_3_code_and_words() {
        let errors = || {
            [
                EngineError::TaskNotFound("t-1".into()),
                EngineError::NotCancelable {
                    id: "t-1".into(),
                    state: "completed",
                },
                EngineError::PushNotSupported,
                EngineError::Unsupported("no".into()),
                EngineError::ContentTypeNotSupported("image/png".into()),
                EngineError::InvalidParams("bad".into()),
                EngineError::Unreadable("t-1".into()),
                EngineError::Store(StoreError::NotFound("t-1".into())),
            ]
        };
        for error in errors() {
            let error = CallError::from(error);
            let zero_three = v03(&error);
            let one = v1(&error).to_rpc_error();
            assert_eq!(
                (one.code, &one.message),
                (zero_three.code, &zero_three.message)
            );
            let data = one.data.expect("the ErrorInfo");
            assert_eq!(data.as_array().map(Vec::len), Some(1), "{data}");
            assert!(data[0].get("metadata").is_none(), "{data}");
        }

        let refused = CallError::from(EngineError::PushConfigRefused {
            place: PushConfigPlace::V1CreateParams,
            reason: "is not https".into(),
        });
        let one = v1(&refused).to_rpc_error();
        assert_eq!(one.code, -32602);
        assert_eq!(one.message, "params.url: is not https");
    }

    #[test]
    fn the_refusals_of_the_call_itself_are_worded_per_version() {
        let terminal = CallError::TaskIsTerminal {
            task_id: "t-1".into(),
            state: TaskState::Completed,
        };
        let one = v1(&terminal).to_rpc_error();
        assert_eq!(one.code, -32004);
        assert_eq!(
            one.message,
            "Task t-1 is in terminal state TASK_STATE_COMPLETED"
        );
        assert_eq!(v03(&terminal).code, -32004);

        let card = CallError::ExtendedCardNotConfigured;
        assert_eq!(
            v03(&card).message,
            "Authenticated Extended Card is not configured"
        );
        assert_eq!(v1(&card).to_rpc_error().code, -32007);
    }
}
