//! A task's events as a stream of JSON-RPC responses (`message/stream`,
//! `tasks/resubscribe`): the task first, then status and artifact updates,
//! ending after a `final: true` status. In 1.0 (`SendStreamingMessage`,
//! `SubscribeToTask`) each `result` is a `StreamResponse` (`task`,
//! `statusUpdate`, `artifactUpdate`), there is no `final`, and the stream
//! ends after the status that ends or pauses the task; a `SubscribeToTask`
//! stream only at a terminal one ([`StreamEnd`]). Knows no HTTP; `http/`
//! frames it as SSE.

use super::errors::{self, CallError};
use crate::a2a::jsonrpc::success_bytes;
use crate::a2a::v1::{self, V03StreamEvent};
use crate::a2a::{
    ArtifactUpdateKind, StatusUpdateKind, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent,
};
use crate::tasks::{EngineError, StreamEnd, TaskEvent, TaskStream};
use serde_json::Value;
use std::collections::VecDeque;
use tokio::sync::broadcast::error::RecvError;

/// Which version's events a stream writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    V0_3,
    V1_0,
}

pub struct EventStream {
    encoding: Encoding,
    id: Value,
    first: Option<Task>,
    events: Option<tokio::sync::broadcast::Receiver<TaskEvent>>,
    ends: StreamEnd,
    task_sent: bool,
    ready: VecDeque<Vec<u8>>,
    done: bool,
    /// Its place among the open streams, given back when it is dropped.
    _slot: Option<super::stream_slots::StreamSlot>,
}

impl EventStream {
    pub fn new(id: Value, stream: TaskStream) -> Self {
        EventStream {
            encoding: Encoding::V0_3,
            id,
            first: stream.first,
            events: stream.events,
            ends: stream.ends,
            task_sent: false,
            ready: VecDeque::new(),
            done: false,
            _slot: None,
        }
    }

    /// A stream that could not start: one event carrying the error (SSE
    /// clients such as the A2A SDK only read errors from the stream).
    pub fn failed(id: Value, error: &crate::a2a::RpcError) -> Self {
        EventStream {
            encoding: Encoding::V0_3,
            ready: VecDeque::from([crate::a2a::jsonrpc::error_bytes(&id, error)]),
            id,
            first: None,
            events: None,
            ends: StreamEnd::Pause,
            task_sent: true,
            done: true,
            _slot: None,
        }
    }

    /// A 1.0 stream of `StreamResponse` results.
    pub fn v1(id: Value, stream: TaskStream) -> Self {
        EventStream {
            encoding: Encoding::V1_0,
            ..EventStream::new(id, stream)
        }
    }

    /// The stream, counted in `slot` until it is dropped.
    pub(super) fn holding(self, slot: super::stream_slots::StreamSlot) -> Self {
        EventStream {
            _slot: Some(slot),
            ..self
        }
    }

    /// Whether `task`'s status is the stream's last.
    fn ends_stream(&self, task: &Task) -> bool {
        let state = task.status.state;
        state.is_terminal() || (self.ends == StreamEnd::Pause && state.is_interrupted())
    }

    /// The body of one event: the 0.3 object, or a 1.0 `StreamResponse`.
    fn event_bytes(&self, v03: V03StreamEvent) -> Vec<u8> {
        match self.encoding {
            Encoding::V0_3 => success_bytes(&self.id, &v03),
            Encoding::V1_0 => success_bytes(&self.id, &v1::StreamResponse::from(v03)),
        }
    }

    /// An error event, in the stream's version.
    fn error_event(&self, error: &CallError) -> Vec<u8> {
        let error = match self.encoding {
            Encoding::V0_3 => errors::v03(error),
            Encoding::V1_0 => errors::v1(error).to_rpc_error(),
        };
        crate::a2a::jsonrpc::error_bytes(&self.id, &error)
    }

    /// The next response body, or `None` when the stream is over. Safe to
    /// drop mid-wait (the only await is a cancel-safe channel receive).
    pub async fn next(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(body) = self.ready.pop_front() {
                return Some(body);
            }
            if self.done {
                return None;
            }
            if let Some(task) = self.first.take() {
                self.send_task(&task);
                continue;
            }
            let Some(events) = self.events.as_mut() else {
                self.done = true;
                continue;
            };
            match events.recv().await {
                Ok(TaskEvent::Status(task, _)) if !self.task_sent => self.send_task(&task),
                Ok(TaskEvent::Status(task, _)) => self.send_status(&task),
                Ok(TaskEvent::Artifact(task, piece)) => {
                    let Some((artifact, append, last_chunk)) = piece.of(&task) else {
                        continue;
                    };
                    let event = TaskArtifactUpdateEvent {
                        kind: ArtifactUpdateKind::Value,
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone(),
                        artifact,
                        append: Some(append),
                        last_chunk: Some(last_chunk),
                        metadata: None,
                    };
                    let body = self.event_bytes(V03StreamEvent::ArtifactUpdate(event));
                    self.ready.push_back(body);
                }
                // Only a blocking send's unstored task answers a bare
                // message; a stream's task is stored, so none comes here.
                Ok(TaskEvent::Message(_)) => self.done = true,
                Ok(TaskEvent::StoreFailed(error)) => {
                    let body = self.error_event(&EngineError::Store(error).into());
                    self.ready.push_back(body);
                    self.done = true;
                }
                // Only a blocking send's task is first stored by its turn;
                // a stream's task is stored before, so none comes here.
                Ok(TaskEvent::Refused(full)) => {
                    let body =
                        self.error_event(&EngineError::InvalidParams(full.to_string()).into());
                    self.ready.push_back(body);
                    self.done = true;
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "a slow stream reader missed task events");
                }
                Err(RecvError::Closed) => self.done = true,
            }
        }
    }

    fn send_task(&mut self, task: &Task) {
        self.task_sent = true;
        let body = self.event_bytes(V03StreamEvent::Task(task.clone()));
        self.ready.push_back(body);
        if self.encoding == Encoding::V1_0 && (self.ends_stream(task) || self.events.is_none()) {
            // 1.0: the Task says where it stands; no status event repeats it.
            self.done = true;
        } else if self.ends_stream(task) {
            self.send_status(task);
        } else if self.events.is_none() {
            // Nothing runs that could change it: say where it stands and end.
            self.send_status(task);
            self.done = true;
        }
    }

    fn send_status(&mut self, task: &Task) {
        let is_final = self.ends_stream(task);
        let event = TaskStatusUpdateEvent {
            kind: StatusUpdateKind::Value,
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            is_final,
            metadata: None,
        };
        let body = self.event_bytes(V03StreamEvent::StatusUpdate(event));
        self.ready.push_back(body);
        if is_final {
            self.done = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{STORE_UNAVAILABLE, StoreError};

    #[tokio::test]
    async fn a_result_that_could_not_be_stored_ends_the_stream_without_database_text() {
        let (events, receiver) = tokio::sync::broadcast::channel(4);
        let mut stream = EventStream::new(
            Value::from(7),
            TaskStream {
                first: None,
                events: Some(receiver),
                ends: StreamEnd::Pause,
            },
        );
        let database_said = sqlx::Error::PoolClosed.to_string();
        events
            .send(TaskEvent::StoreFailed(StoreError::unavailable(
                sqlx::Error::PoolClosed,
            )))
            .expect("a listener");
        let body = stream.next().await.expect("the error event");
        let body: Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(body["id"], 7);
        assert_eq!(body["error"]["code"], -32603);
        assert_eq!(body["error"]["message"], STORE_UNAVAILABLE);
        assert!(!body.to_string().contains(&database_said), "{body}");
        assert!(stream.next().await.is_none(), "the stream ends");
    }
}
