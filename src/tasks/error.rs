//! What the engine answers when a method cannot be carried out, and the
//! JSON-RPC error each becomes. A store fault reaches the caller as a
//! generic message; what the database said goes to the log only.

use super::store::StoreError;
use crate::a2a::jsonrpc;
use crate::a2a::{PushConfigPlace, RpcError};

/// The caller's words for a store that did not answer.
pub const STORE_UNAVAILABLE: &str = "task store unavailable: please try again shortly";
/// The caller's words for a stored value that does not decode.
pub const STORE_CORRUPT: &str = "task store error: a stored task could not be read";

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0}")]
    InvalidParams(String),
    /// The push room refused a webhook URL: −32602 naming the `url` field
    /// where the request carried the config (each wire version names it
    /// its own way).
    #[error("{}", place.refused_url(reason))]
    PushConfigRefused {
        place: PushConfigPlace,
        reason: String,
    },
    #[error("{0}")]
    ContentTypeNotSupported(String),
    #[error("task {0} not found")]
    TaskNotFound(String),
    #[error("task {id} cannot be canceled: it is already {state}")]
    NotCancelable { id: String, state: &'static str },
    #[error("{0}")]
    Unsupported(String),
    #[error("push notifications are not supported")]
    PushNotSupported,
    #[error("push notification config {config} not found for task {task}")]
    PushConfigNotFound { task: String, config: String },
    /// The caller's own task is stored but does not read back.
    #[error("task {0} is stored but does not read back")]
    Unreadable(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl EngineError {
    pub fn to_rpc_error(&self) -> RpcError {
        match self {
            EngineError::InvalidParams(detail) => RpcError::invalid_params(detail.clone()),
            EngineError::PushConfigRefused { .. } => RpcError::invalid_params(self.to_string()),
            EngineError::ContentTypeNotSupported(detail) => {
                RpcError::content_type_not_supported(detail.clone())
            }
            EngineError::TaskNotFound(id) => RpcError::task_not_found(id),
            EngineError::NotCancelable { id, state } => RpcError::task_not_cancelable(id, state),
            EngineError::Unsupported(detail) => RpcError::unsupported(detail.clone()),
            EngineError::PushNotSupported => RpcError::push_not_supported(),
            EngineError::PushConfigNotFound { .. } => {
                RpcError::new(jsonrpc::TASK_NOT_FOUND, self.to_string())
            }
            EngineError::Unreadable(id) => RpcError::internal(format!(
                "task {id} is stored but does not read back, so it cannot be shown or continued; \
                 start a new conversation (the service's log has the cause)"
            )),
            EngineError::Store(StoreError::NotFound(id)) => RpcError::task_not_found(id),
            EngineError::Store(StoreError::TooLarge { id, limit, .. }) => {
                RpcError::invalid_params(format!(
                    "task {id} would hold more than the {limit} bytes a task may have; \
                     start a new conversation (send the message without taskId)"
                ))
            }
            EngineError::Store(error @ StoreError::Full(_)) => {
                tracing::warn!(%error, "answered -32603: the in-memory store is full");
                RpcError::internal(format!(
                    "{error}: answer or cancel waiting tasks, or try again later \
                     (tasks.max_open sizes the in-memory store)"
                ))
            }
            EngineError::Store(error @ StoreError::DiskFull(_)) => {
                tracing::error!(%error, "answered -32603: the task store has no space left");
                RpcError::internal(STORE_UNAVAILABLE)
            }
            EngineError::Store(error @ StoreError::Unavailable(_)) => {
                tracing::error!(%error, "answered -32603: the task store is unavailable");
                RpcError::internal(STORE_UNAVAILABLE)
            }
            EngineError::Store(
                error @ (StoreError::Corrupt { .. } | StoreError::UnreadableTask { .. }),
            ) => {
                tracing::error!(%error, "answered -32603: the task store holds an unreadable value");
                RpcError::internal(STORE_CORRUPT)
            }
            // These name only the task.
            EngineError::Store(
                error @ (StoreError::AlreadyExists(_)
                | StoreError::Conflict(_)
                | StoreError::Terminal(_)),
            ) => RpcError::internal(error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{SqlTaskStore, TaskStore};

    /// What sqlx says when its pool is gone, from a real store.
    async fn a_store_that_is_down() -> StoreError {
        let db = crate::db::test_support::sqlite().await;
        let store = SqlTaskStore::new(
            db.clone(),
            "instance".into(),
            std::time::Duration::from_secs(1),
            false,
        )
        .expect("the writer starts");
        db.pool.close().await;
        store.get("t").await.expect_err("the pool is closed")
    }

    #[tokio::test]
    async fn the_caller_never_reads_what_the_database_said() {
        let error = a_store_that_is_down().await;
        let database_said = std::error::Error::source(&error)
            .expect("kept for the log")
            .to_string();
        let answer = EngineError::Store(error).to_rpc_error();
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
        let answer = EngineError::Store(corrupt).to_rpc_error();
        assert_eq!(answer.message, STORE_CORRUPT);
        assert!(!answer.message.contains("EOF"), "{}", answer.message);
    }
}
