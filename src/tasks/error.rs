//! What the engine answers when a method cannot be carried out, and the
//! JSON-RPC error each becomes.

use super::store::StoreError;
use crate::a2a::RpcError;
use crate::a2a::jsonrpc;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0}")]
    InvalidParams(String),
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
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl EngineError {
    pub fn to_rpc_error(&self) -> RpcError {
        match self {
            EngineError::InvalidParams(detail) => RpcError::invalid_params(detail.clone()),
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
            EngineError::Store(StoreError::NotFound(id)) => RpcError::task_not_found(id),
            EngineError::Store(error) => RpcError::internal(error.to_string()),
        }
    }
}
