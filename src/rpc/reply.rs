//! What `handle` gives `http/`: the response body or event stream, and what
//! the request line and span say about the call (method, id, task, error).

use super::event_stream::EventStream;
use super::stream_slots::LIMIT_REACHED;
use crate::a2a::jsonrpc::error_bytes;
use crate::a2a::{Message, RpcError, Task};
use serde_json::Value;

/// The response body (or event stream) and what the request log line needs.
pub struct RpcReply {
    pub body: Vec<u8>,
    /// For the streaming methods: the events to send as SSE.
    pub stream: Option<EventStream>,
    pub id: Value,
    pub method: Option<String>,
    pub task_state: Option<&'static str>,
    pub error_code: Option<i64>,
    /// The error's message, for the request span's status.
    pub error_message: Option<String>,
    /// A refusal past a limit (-32029): the seconds its error says to
    /// wait, for `Retry-After` (answered with 429).
    pub retry_after_secs: Option<u64>,
    /// The task and context the call was about (from the answer, else
    /// from the request), so the request line and span name them.
    pub task: TaskIds,
}

/// A success: a body or an event stream.
pub(super) enum Encoded {
    Body(Vec<u8>),
    Stream(Box<EventStream>),
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

    /// The answer to a call that was carried out.
    pub(super) fn answered(
        id: Value,
        method: String,
        encoded: Encoded,
        task_state: Option<&'static str>,
        task: TaskIds,
    ) -> RpcReply {
        let (body, stream) = match encoded {
            Encoded::Body(body) => (body, None),
            Encoded::Stream(stream) => (Vec::new(), Some(*stream)),
        };
        RpcReply {
            body,
            stream,
            id,
            method: Some(method),
            task_state,
            error_code: None,
            error_message: None,
            retry_after_secs: None,
            task,
        }
    }

    /// The answer to a request that was refused: `error` as the body, or
    /// as the one event of a stream.
    pub(super) fn refused(
        id: Value,
        method: Option<String>,
        error: &RpcError,
        as_stream: bool,
    ) -> RpcReply {
        let (body, stream) = if as_stream {
            (Vec::new(), Some(EventStream::failed(id.clone(), error)))
        } else {
            (error_bytes(&id, error), None)
        };
        RpcReply {
            body,
            stream,
            id,
            method,
            task_state: None,
            error_code: Some(error.code),
            error_message: Some(error.message.clone()),
            retry_after_secs: (error.code == LIMIT_REACHED)
                .then(|| error.data.as_ref()?.get("retryAfterSeconds")?.as_u64())
                .flatten(),
            task: TaskIds::default(),
        }
    }
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
    pub(super) fn of_params(params: Option<&Value>) -> TaskIds {
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

    pub(super) fn of_task(task: &Task) -> TaskIds {
        TaskIds {
            task_id: Some(task.id.clone()),
            context_id: Some(task.context_id.clone()),
        }
    }

    pub(super) fn of_message(message: &Message) -> TaskIds {
        TaskIds {
            task_id: message.task_id.clone(),
            context_id: message.context_id.clone(),
        }
    }

    /// What the answer says, completed by what the request said.
    pub(super) fn or(self, asked: TaskIds) -> TaskIds {
        TaskIds {
            task_id: self.task_id.or(asked.task_id),
            context_id: self.context_id.or(asked.context_id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
