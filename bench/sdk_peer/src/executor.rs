//! The peer's `AgentExecutor`: completes each task in one event with the
//! captured answer for its order (status message, artifacts, metadata), the
//! cheapest path the SDK offers (one store write after the task's creation),
//! so that what the benchmark measures is the SDK's own request path.

use a2a::{
    A2AError, Artifact, Message, Role, StreamResponse, Task, TaskState, TaskStatus,
    TaskStatusUpdateEvent, new_artifact_id, new_message_id,
};
use a2a_server::{AgentExecutor, ExecutorContext};
use futures::stream::{self, BoxStream};

use crate::answers::Answers;

/// Answers a walkthrough request with the service's answer for its order.
pub struct WalkthroughExecutor {
    answers: Answers,
}

impl WalkthroughExecutor {
    pub fn new(answers: Answers) -> Self {
        WalkthroughExecutor { answers }
    }

    /// The completed task for `ctx`, or invalid params when its text names
    /// no order the captured answers know.
    fn completed_task(&self, ctx: ExecutorContext) -> Result<StreamResponse, A2AError> {
        let text = ctx.message.as_ref().and_then(Message::text).unwrap_or("");
        let answer = self.answers.for_text(text).ok_or_else(|| {
            A2AError::invalid_params("the text names none of the orders 4711, 4723, 4725, 4740")
        })?;
        // SendMessage hands the executor the task as stored (the user's
        // message in its history); without it, start one from the message.
        let mut task = ctx.stored_task.unwrap_or_else(|| Task {
            id: ctx.task_id.clone(),
            context_id: ctx.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: ctx.message.map(|message| vec![message]),
            metadata: None,
        });
        task.status = TaskStatus {
            state: TaskState::Completed,
            message: Some(Message {
                message_id: new_message_id(),
                context_id: Some(ctx.context_id),
                task_id: Some(ctx.task_id),
                role: Role::Agent,
                parts: answer.message.parts.clone(),
                metadata: answer.message.metadata.clone(),
                extensions: None,
                reference_task_ids: None,
            }),
            // The SDK stamps the time on events that carry none.
            timestamp: None,
        };
        task.artifacts = Some(
            answer
                .artifacts
                .iter()
                .map(|artifact| Artifact {
                    artifact_id: new_artifact_id(),
                    ..artifact.clone()
                })
                .collect(),
        );
        task.metadata = answer.metadata.clone();
        Ok(StreamResponse::Task(task))
    }
}

impl AgentExecutor for WalkthroughExecutor {
    fn execute(
        &self,
        ctx: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::iter([self.completed_task(ctx)]))
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::iter([Ok(StreamResponse::StatusUpdate(
            TaskStatusUpdateEvent {
                task_id: ctx.task_id,
                context_id: ctx.context_id,
                status: TaskStatus {
                    state: TaskState::Canceled,
                    message: None,
                    timestamp: None,
                },
                metadata: None,
            },
        ))]))
    }
}
