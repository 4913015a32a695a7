//! Joule's callback format: the task in a JSON-RPC envelope whose id is the
//! original call's correlation id, sent with the correlation headers and a
//! Joule-API token that the Destination service mints from the caller's
//! user token (`joule.md` §6.3).

use super::service::PushService;
use crate::a2a::Task;
use crate::btp::DestinationError;
use crate::tasks::CallContext;

/// Why a Joule callback got no token.
#[derive(Debug, thiserror::Error)]
pub(super) enum JouleTokenError {
    #[error("no Destination service is configured (push.destination or a `destination` binding)")]
    NoDestinationService,
    #[error("the original call carried no user token to exchange")]
    NoUserToken,
    #[error(transparent)]
    Destination(#[from] DestinationError),
}

/// The body of a Joule callback.
pub(super) fn envelope(task: &Task, call: &CallContext) -> Result<Vec<u8>, serde_json::Error> {
    let id = call
        .correlation_id
        .clone()
        .unwrap_or_else(|| task.id.clone());
    serde_json::to_vec(&serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": task }))
}

impl PushService {
    /// `Authorization` for a Joule callback: a Joule-API token minted by the
    /// Destination service from the caller's user token.
    pub(super) async fn joule_authorization(
        &self,
        call: &CallContext,
    ) -> Result<String, JouleTokenError> {
        let destination = self
            .destination
            .as_ref()
            .ok_or(JouleTokenError::NoDestinationService)?;
        let user_token = call
            .bearer_token
            .as_ref()
            .ok_or(JouleTokenError::NoUserToken)?;
        Ok(destination.authorization(user_token).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{TaskKind, TaskState, TaskStatus};

    #[test]
    fn the_envelope_id_is_the_correlation_id_else_the_task_id() {
        let task = Task {
            kind: TaskKind::Value,
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: None,
            },
            history: None,
            artifacts: None,
            metadata: None,
        };
        let call = CallContext {
            correlation_id: Some("corr-1".into()),
            ..CallContext::default()
        };
        let body: serde_json::Value =
            serde_json::from_slice(&envelope(&task, &call).unwrap()).unwrap();
        assert_eq!(body["jsonrpc"], "2.0");
        assert_eq!(body["id"], "corr-1");
        assert_eq!(body["result"]["id"], "t");
        let body: serde_json::Value =
            serde_json::from_slice(&envelope(&task, &CallContext::default()).unwrap()).unwrap();
        assert_eq!(body["id"], "t");
    }
}
