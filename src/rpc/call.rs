//! What a request asks of the engine, whichever wire version it came in:
//! the one call type both codecs decode into and `run` carries out, with
//! the rules where 0.3 and 1.0 differ, and what it comes back with.

use super::reply::TaskIds;
use crate::a2a::agent_card::AgentCard;
use crate::a2a::{MessageSendParams, Task, TaskPushNotificationConfig, TaskState};
use crate::tasks::{Answer, CallRules, OwnerScope, PageCursor, TaskPage, TaskQuery, TaskStream};

/// A decoded request: what to do, and by which version's rules.
pub(super) struct Call {
    pub action: Action,
    pub rules: Rules,
}

/// Everything the engine does for a caller.
pub(super) enum Action {
    /// `message/send` (and the v0.2 `tasks/send`), `SendMessage`.
    Send(Box<MessageSendParams>),
    /// `message/stream`, `SendStreamingMessage`.
    Stream(Box<MessageSendParams>),
    /// `tasks/get`, `GetTask`.
    Get {
        task_id: String,
        history_length: Option<i64>,
    },
    /// `ListTasks` (1.0 only).
    List(Box<ListTasks>),
    /// `tasks/cancel`, `CancelTask`.
    Cancel { task_id: String },
    /// `tasks/resubscribe`, `SubscribeToTask`.
    Subscribe { task_id: String },
    /// `tasks/pushNotificationConfig/set`, `CreateTaskPushNotificationConfig`.
    SetPushConfig(Box<TaskPushNotificationConfig>),
    /// `tasks/pushNotificationConfig/get`, `GetTaskPushNotificationConfig`.
    GetPushConfig {
        task_id: String,
        config_id: Option<String>,
    },
    /// `tasks/pushNotificationConfig/list`, `ListTaskPushNotificationConfigs`.
    ListPushConfigs { task_id: String },
    /// `tasks/pushNotificationConfig/delete`, `DeleteTaskPushNotificationConfig`.
    DeletePushConfig { task_id: String, config_id: String },
    /// `agent/getAuthenticatedExtendedCard`, `GetExtendedAgentCard`.
    ExtendedCard,
}

/// Where the versions carry a call out differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rules {
    /// What the engine does differently (strict task ids, blocking until
    /// the task ends or pauses, field names in errors).
    pub engine: CallRules,
    /// A subscription follows the task until it ends, through
    /// `input-required` and the turns that continue it, and a task that has
    /// ended is refused; else it sends the task and its running turn.
    pub follow_until_terminal: bool,
    /// Deleting a push config that is not there succeeds.
    pub repeated_delete_succeeds: bool,
}

/// A checked `ListTasks` request: which tasks, which page, and how much of
/// each task the answer shows.
pub(super) struct ListTasks {
    pub context_id: Option<String>,
    pub state: Option<TaskState>,
    /// Only tasks changed at or after this (Unix ms).
    pub changed_since_ms: Option<i64>,
    /// Between 1 and the most a page holds.
    pub page_size: i32,
    pub after: Option<PageCursor>,
    /// The last n messages of each task's history; `None` keeps all.
    pub history_limit: Option<u64>,
    pub include_artifacts: bool,
}

impl ListTasks {
    /// The store's query, over the tasks of `scope`.
    pub fn query(&self, scope: OwnerScope) -> TaskQuery {
        TaskQuery {
            scope,
            context_id: self.context_id.clone(),
            state: self.state,
            changed_since_ms: self.changed_since_ms,
            page_size: self.page_size.unsigned_abs() as usize,
            after: self.after.clone(),
        }
    }
}

/// What a call comes back with, for a codec to write.
pub(super) enum Outcome<'a> {
    /// A send's answer: its task (with the JSON its store wrote, when the
    /// task is answered as stored) or a message.
    Sent(Answer),
    Task(Box<Task>),
    /// A page of tasks, and the page size it was asked with.
    Tasks {
        page: TaskPage,
        page_size: i32,
    },
    Stream(Box<TaskStream>),
    PushConfig(Box<TaskPushNotificationConfig>),
    PushConfigs(Vec<TaskPushNotificationConfig>),
    Deleted,
    ExtendedCard(&'a AgentCard),
}

impl Outcome<'_> {
    /// The answered task's state, for the request line.
    pub fn task_state(&self) -> Option<&'static str> {
        match self {
            Outcome::Sent(Answer::Task(task, _)) => Some(task.status.state.as_str()),
            Outcome::Task(task) => Some(task.status.state.as_str()),
            _ => None,
        }
    }

    /// The task and context the answer is about.
    pub fn task_ids(&self) -> TaskIds {
        match self {
            Outcome::Sent(Answer::Task(task, _)) => TaskIds::of_task(task),
            Outcome::Sent(Answer::Message(message)) => TaskIds::of_message(message),
            Outcome::Task(task) => TaskIds::of_task(task),
            Outcome::Stream(stream) => stream
                .first
                .as_ref()
                .map(TaskIds::of_task)
                .unwrap_or_default(),
            _ => TaskIds::default(),
        }
    }
}
