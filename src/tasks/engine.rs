//! The task lifecycle, as the request handler sees it: check a message,
//! create or continue its task (`submitted → working → input-required |
//! completed | failed | rejected | canceled`; terminal tasks never change),
//! read and cancel tasks. Running the turn (`turn`), waiting for it within
//! the budget (`budget`), mapping the agent's reply onto the task (`reply`),
//! streams (`events`) and upkeep (`maintenance`) live beside it.

use super::error::EngineError;
use super::events::{Answer, TaskEvent};
use super::language::{self, TurnCues};
use super::listing::TaskQuery;
use super::observer::{CallContext, TaskObserver};
use super::push_configs::push_config_error;
use super::reply::{agent_message, archive_status_message, pending_approval, set_status};
use super::settings::TaskSettings;
use super::store::{StoreError, StoredTask, TaskStore, Written};
use super::turn::{PendingTurn, RunningTurn, StoredVersion};
use crate::a2a::{
    Message, MessageSendParams, Part, PushConfigPlace, PushNotificationConfig, Role, Task,
    TaskKind, TaskState, TaskStatus,
};
use crate::agent::{Agent, Language, Progress, Turn, UserMessage};
use crate::clock::now_rfc3339;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Cheap to clone: turns run as their own tokio tasks and keep a handle.
#[derive(Clone)]
pub struct TaskEngine {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) agent: Arc<dyn Agent>,
    pub(super) settings: TaskSettings,
    pub(super) observer: Option<Arc<dyn TaskObserver>>,
    pub(super) turns: Mutex<HashMap<String, RunningTurn>>,
    /// Per task between its turns: the channel its 1.0 subscribers listen
    /// to, which the next turn sends on (`events.rs`). Locked after
    /// `turns` where both are held.
    pub(super) followers: Mutex<HashMap<String, broadcast::Sender<TaskEvent>>>,
}

/// `historyLength`: negative is an error; absent keeps everything.
fn history_limit(value: Option<i64>, field: &str) -> Result<Option<u64>, EngineError> {
    match value {
        None => Ok(None),
        Some(n) if n < 0 => Err(EngineError::InvalidParams(format!(
            "{field} must not be negative (got {n})"
        ))),
        Some(n) => Ok(Some(n.unsigned_abs())),
    }
}

/// Empty-string ids count as absent (Joule sends `""` on a first turn).
fn present(id: &Option<String>) -> Option<&str> {
    id.as_deref().filter(|id| !id.trim().is_empty())
}

/// `value`'s size as the compact JSON a store keeps (one encoding, linear
/// in its size; a value that does not encode counts as too large).
fn json_bytes<T: serde::Serialize>(value: &T) -> usize {
    super::store::task_json(value).map_or(usize::MAX, |json| json.len())
}

/// `v1_names`: the caller speaks 1.0, whose wire spells the role
/// `ROLE_USER`.
fn check_message(
    message: &Message,
    settings: &TaskSettings,
    v1_names: bool,
) -> Result<(), EngineError> {
    let bytes = json_bytes(message);
    if bytes > settings.max_message_bytes {
        return Err(EngineError::InvalidParams(format!(
            "params.message is {} bytes as JSON, more than the {} one message may have \
             (tasks.max_message_bytes): ask about fewer orders at a time, in a shorter text",
            if bytes == usize::MAX {
                "too many".to_string()
            } else {
                bytes.to_string()
            },
            settings.max_message_bytes
        )));
    }
    if message.role != Role::User {
        let user = if v1_names { "ROLE_USER" } else { "user" };
        return Err(EngineError::InvalidParams(format!(
            "params.message.role must be \"{user}\""
        )));
    }
    if message.parts.is_empty() {
        return Err(EngineError::InvalidParams(
            "params.message.parts must not be empty".into(),
        ));
    }
    if message.message_id.trim().is_empty() {
        return Err(EngineError::InvalidParams(
            "params.message.messageId must not be empty".into(),
        ));
    }
    // Text and data parts are read (the agent knows some data fields);
    // files are not.
    for (index, part) in message.parts.iter().enumerate() {
        if matches!(part, Part::File(_)) {
            return Err(EngineError::ContentTypeNotSupported(format!(
                "params.message.parts[{index}]: {} parts are not supported; this agent takes text/plain and application/json (data parts)",
                part.media_type()
            )));
        }
    }
    let has_data = message
        .parts
        .iter()
        .any(|part| matches!(part, Part::Data(_)));
    if message.text().trim().is_empty() && !has_data {
        return Err(EngineError::InvalidParams(
            "params.message.parts: the message has no text".into(),
        ));
    }
    Ok(())
}

/// How `message/send` found the task.
pub(super) enum Started {
    /// Answer it as it is (another turn runs, or someone else won the race).
    AsItIs(Box<Task>),
    /// A turn of ours runs; its events tell when it ends or pauses.
    Running {
        /// The claimed task, as its `working` event published it.
        task: Arc<Task>,
        events: broadcast::Receiver<TaskEvent>,
        stored: StoredVersion,
        /// How far the turn got, for a `working` answer.
        progress: Progress,
        /// The turn itself, for a waiter to drive (dropped, it runs alone).
        turn: PendingTurn,
    },
}

impl TaskEngine {
    pub fn new(
        store: Arc<dyn TaskStore>,
        agent: Arc<dyn Agent>,
        settings: TaskSettings,
        observer: Option<Arc<dyn TaskObserver>>,
    ) -> Self {
        // Every store call is timed and its failures counted.
        let store: Arc<dyn TaskStore> = Arc::new(super::measured_store::MeasuredStore(store));
        TaskEngine {
            inner: Arc::new(Inner {
                store,
                agent,
                settings,
                observer,
                turns: Mutex::new(HashMap::new()),
                followers: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// pauses, when the budget runs out (`working`, the turn goes on), or at
    /// once for `blocking: false`.
    pub async fn send_message(
        &self,
        params: MessageSendParams,
        call: &CallContext,
    ) -> Result<Answer, EngineError> {
        // With a webhook and no explicit `blocking`, answer at once: Joule's
        // async mode expects an immediate `working` and waits for the callback.
        let configuration = params.configuration.as_ref();
        let has_webhook = configuration.is_some_and(|c| c.push_notification_config.is_some());
        let blocking = configuration
            .and_then(|c| c.blocking)
            .unwrap_or(!has_webhook);
        // A blocking call without a webhook is the only one who can learn
        // the new task's id before the answer: store it once, finished,
        // unless the budget runs out first.
        let defer_store = blocking && !has_webhook;
        let (started, history_length) = self.begin(params, call, defer_store).await?;
        let answer = match started {
            Started::AsItIs(task) => {
                Answer::Task(Arc::new(self.as_it_is(*task, call).await?), None)
            }
            Started::Running { task, events, .. } if !blocking => {
                drop(events);
                Answer::Task(task, None)
            }
            Started::Running {
                task,
                events,
                stored,
                progress,
                turn,
            } => {
                self.wait(task, events, stored, progress, turn, call)
                    .await?
            }
        };
        Ok(match answer {
            // The stored JSON is the answer only with the whole history.
            Answer::Task(task, json) if history_length.is_none() => Answer::Task(task, json),
            Answer::Task(task, _) => Answer::Task(
                Arc::new(Arc::unwrap_or_clone(task).with_history_limit(history_length)),
                None,
            ),
            message => message,
        })
    }

    /// Check the message and start or continue its task.
    pub(super) async fn begin(
        &self,
        params: MessageSendParams,
        call: &CallContext,
        defer_store: bool,
    ) -> Result<(Started, Option<u64>), EngineError> {
        let configuration = params.configuration.unwrap_or_default();
        let history_length = history_limit(
            configuration.history_length,
            "params.configuration.historyLength",
        )?;
        let message = params.message;
        check_message(&message, &self.inner.settings, call.rules.v1_field_names)?;
        let request_hint = language::hint(params.metadata.as_ref()).map(str::to_string);
        // An inline push config is checked before anything is created.
        let push = match configuration.push_notification_config {
            Some(config) => Some(self.push_room()?.check(&config).map_err(|error| {
                push_config_error(error, PushConfigPlace::send(call.rules.v1_field_names))
            })?),
            None => None,
        };
        let context_id = present(&message.context_id).map(str::to_string);
        let started = match present(&message.task_id) {
            None => {
                let context_id = self.own_context(context_id, call).await?;
                let cues = TurnCues {
                    request_hint,
                    ..TurnCues::default()
                };
                self.start_task(message, context_id, cues, push, call, defer_store)
                    .await?
            }
            Some(task_id) => {
                let task_id = task_id.to_string();
                let strict = self.inner.settings.strict_task_ids || call.rules.strict_task_ids;
                let found = self.owned(&task_id, call).await?;
                if call.rules.strict_task_ids
                    && let (Some(stored), Some(context_id)) = (&found, &context_id)
                    && stored.task.context_id != *context_id
                {
                    return Err(EngineError::InvalidParams(format!(
                        "params.message.contextId: task {task_id} belongs to another context"
                    )));
                }
                let existing = found.filter(|stored| {
                    context_id
                        .as_ref()
                        .is_none_or(|c| *c == stored.task.context_id)
                });
                match existing {
                    Some(stored) if super::ask_again::question_unseen(&stored.task) => {
                        Started::AsItIs(Box::new(self.show_question(stored).await?))
                    }
                    Some(stored) if stored.task.status.state.is_interrupted() => {
                        self.continue_task(stored, message, request_hint.as_deref(), push, call)
                            .await?
                    }
                    Some(stored) if stored.task.status.state.is_terminal() => {
                        if strict {
                            return Err(EngineError::Unsupported(format!(
                                "task {task_id} is {} and cannot be continued; send the message without taskId",
                                stored.task.status.state.as_str()
                            )));
                        }
                        if super::ask_again::told_to_ask_again(&stored.task) {
                            let answer =
                                self.answer_again(stored.task, message, push, call).await?;
                            return Ok((Started::AsItIs(Box::new(answer)), history_length));
                        }
                        tracing::info!(a2a.task.id = %task_id, "message for a finished task: new task in the same context");
                        let context = stored.task.context_id.clone();
                        // The conversation goes on in the finished task's language.
                        let cues = TurnCues {
                            stale_task_id: Some(task_id),
                            conversation: language::of_task(&stored.task),
                            request_hint,
                        };
                        self.start_task(message, Some(context), cues, push, call, defer_store)
                            .await?
                    }
                    // Submitted or working: the turn in progress answers; do not start a second one.
                    Some(stored) => Started::AsItIs(Box::new(stored.task)),
                    None => {
                        if strict {
                            return Err(EngineError::TaskNotFound(task_id));
                        }
                        // Another caller's task is an unknown task here, and
                        // another caller's context is not joined.
                        tracing::info!(a2a.task.id = %task_id, "message for an unknown task: new task");
                        let context_id = self.own_context(context_id, call).await?;
                        let cues = TurnCues {
                            stale_task_id: Some(task_id),
                            request_hint,
                            ..TurnCues::default()
                        };
                        self.start_task(message, context_id, cues, push, call, defer_store)
                            .await?
                    }
                }
            }
        };
        Ok((started, history_length))
    }

    async fn start_task(
        &self,
        mut message: Message,
        context_id: Option<String>,
        cues: TurnCues,
        push: Option<PushNotificationConfig>,
        call: &CallContext,
        defer_store: bool,
    ) -> Result<Started, EngineError> {
        self.check_open_tasks(call).await?;
        let task_id = uuid::Uuid::now_v7().to_string();
        let (text, data) = (message.text(), message.data());
        // A text too short to tell its language in a conversation that goes
        // on: the language of the context's latest task.
        let conversation = match (cues.conversation, context_id.as_deref()) {
            (None, Some(context)) if !crate::agent::language::tells_its_language(&text) => {
                self.context_language(context, call).await
            }
            (conversation, _) => conversation,
        };
        let context_id = context_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        message.task_id = Some(task_id.clone());
        message.context_id = Some(context_id.clone());
        if let Some(stale) = cues.stale_task_id {
            let references = message.reference_task_ids.get_or_insert_with(Vec::new);
            if !references.contains(&stale) {
                references.push(stale);
            }
        }
        let language = language::decide(
            &message,
            &text,
            cues.request_hint.as_deref(),
            call,
            conversation,
        );
        let mut task = Task {
            kind: TaskKind::Value,
            id: task_id,
            context_id,
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(now_rfc3339()),
            },
            history: Some(vec![message]),
            artifacts: None,
            metadata: None,
        };
        language::keep(&mut task, language.language);
        // Listen before the task exists, so a stream sees `submitted` too.
        let channel = self.open_turn(&task.id);
        let _ = channel
            .events
            .send(TaskEvent::Status(Arc::new(task.clone()), None));
        // Stored once, already claimed (`working`) and with its inline push
        // config: one write per new task instead of three.
        set_status(&mut task, TaskState::Working, None);
        let push_configs: Vec<PushNotificationConfig> = push
            .map(|config| config.named_after(&task.id))
            .into_iter()
            .collect();
        let written = if defer_store {
            None
        } else {
            match self
                .inner
                .store
                .create(&task, &push_configs, call.owner())
                .await
            {
                Ok(written) => Some(written),
                Err(error) => {
                    if self.inner.turns().remove(&task.id).is_some() {
                        crate::telemetry::metrics::turns_running(-1);
                    }
                    return Err(error.into());
                }
            }
        };
        let turn = Turn {
            earlier: Vec::new(),
            text,
            data,
            caller: call.caller.clone(),
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            pending: None,
            message_id: task
                .history
                .iter()
                .flatten()
                .last()
                .map(|message| message.message_id.clone())
                .unwrap_or_default(),
            progress: Progress::default(),
            language,
        };
        Ok(self.spawn_turn(task, written, turn, channel, call))
    }

    async fn continue_task(
        &self,
        stored: StoredTask,
        mut message: Message,
        request_hint: Option<&str>,
        push: Option<PushNotificationConfig>,
        call: &CallContext,
    ) -> Result<Started, EngineError> {
        self.check_room(&stored.task, &message)?;
        self.inner
            .register_push(&stored.task.id, push, call)
            .await?;
        let earlier = stored
            .task
            .history
            .iter()
            .flatten()
            .filter(|m| m.role == Role::User)
            .map(|m| UserMessage {
                text: m.text(),
                data: m.data(),
            })
            .collect();
        message.task_id = Some(stored.task.id.clone());
        message.context_id = Some(stored.task.context_id.clone());
        let text = message.text();
        let language = language::decide(
            &message,
            &text,
            request_hint,
            call,
            language::of_task(&stored.task),
        );
        let turn = Turn {
            earlier,
            text,
            data: message.data(),
            caller: call.caller.clone(),
            task_id: stored.task.id.clone(),
            context_id: stored.task.context_id.clone(),
            pending: pending_approval(&stored.task),
            message_id: message.message_id.clone(),
            progress: Progress::default(),
            language,
        };
        let mut task = stored.task;
        language::keep(&mut task, language.language);
        // The question goes into the history before the answer to it.
        archive_status_message(&mut task);
        task.history.get_or_insert_with(Vec::new).push(message);
        self.claim_turn(task, stored.version, turn, call).await
    }

    /// The language the latest task of `context` the caller may see was
    /// answered in; `None` when there is none, or the store cannot say (a
    /// turn is never refused for its language).
    async fn context_language(&self, context: &str, call: &CallContext) -> Option<Language> {
        let query = TaskQuery {
            scope: call.scope.clone(),
            context_id: Some(context.to_string()),
            state: None,
            changed_since_ms: None,
            page_size: 1,
            after: None,
        };
        match self.inner.store.list(&query).await {
            Ok(page) => page.tasks.first().and_then(language::of_task),
            Err(error) => {
                tracing::warn!(%error, "the conversation's language could not be read");
                None
            }
        }
    }

    /// Whether `task` has room for `message` and the answer to it: at most
    /// `tasks.max_task_messages` messages and `tasks.max_task_bytes` bytes.
    /// A full task is not continued (nothing in it is lost); the caller
    /// starts a new conversation.
    fn check_room(&self, task: &Task, message: &Message) -> Result<(), EngineError> {
        let settings = &self.inner.settings;
        let id = &task.id;
        // The history as it will be: the status message archived, the
        // follow-up added.
        let messages = task.history.as_ref().map_or(0, Vec::len)
            + usize::from(task.status.message.is_some())
            + 1;
        if messages > settings.max_task_messages {
            return Err(EngineError::InvalidParams(format!(
                "task {id} holds {} messages, as many as one task may (tasks.max_task_messages): \
                 start a new conversation (send the message without taskId)",
                messages - 1
            )));
        }
        let bytes = json_bytes(task).saturating_add(json_bytes(message));
        if bytes > settings.max_task_bytes {
            return Err(EngineError::InvalidParams(format!(
                "task {id} would hold more than the {} bytes one task may have \
                 (tasks.max_task_bytes): start a new conversation (send the message without taskId)",
                settings.max_task_bytes
            )));
        }
        Ok(())
    }

    /// Whether the caller may open one more task: fewer than its bound of
    /// open tasks (`tasks.max_open_per_caller`; with authentication off the
    /// instance's, `tasks.max_open_without_authentication`).
    async fn check_open_tasks(&self, call: &CallContext) -> Result<(), EngineError> {
        let owner = call.owner();
        let bound = self.inner.settings.max_open_of(owner);
        let open = self.inner.store.open_tasks_of(owner, bound).await?;
        if open >= bound {
            tracing::warn!(open, bound, "a caller reached its bound of open tasks");
            let (whose, setting) = match owner {
                Some(_) => ("you have", "tasks.max_open_per_caller"),
                None => ("this instance has", "tasks.max_open_without_authentication"),
            };
            return Err(EngineError::InvalidParams(format!(
                "{whose} {open} open tasks (running or waiting for an answer), as many as may be \
                 open at once ({setting}): answer or cancel (tasks/cancel) a waiting task first; \
                 a waiting task ends by itself after {}",
                crate::clock::duration_in_words(self.inner.settings.waiting_expiry())
            )));
        }
        Ok(())
    }

    /// Claim the task for a turn (`working`, compare-and-set on `version`)
    /// here, then run the agent in its own tokio task.
    async fn claim_turn(
        &self,
        mut task: Task,
        version: u64,
        turn: Turn,
        call: &CallContext,
    ) -> Result<Started, EngineError> {
        set_status(&mut task, TaskState::Working, None);
        let written = match self.inner.store.update(&task, version).await {
            Ok(written) => written,
            // Another request continued or canceled the task first: answer it as it is.
            Err(StoreError::Conflict(id) | StoreError::Terminal(id)) => {
                return Ok(Started::AsItIs(Box::new(self.current(&id).await?)));
            }
            Err(error) => return Err(error.into()),
        };
        // A continuation registers only once its claim won, so a loser never
        // touches the winner's registration.
        let channel = self.open_turn(&task.id);
        Ok(self.spawn_turn(task, Some(written), turn, channel, call))
    }

    pub(super) async fn current(&self, task_id: &str) -> Result<Task, EngineError> {
        self.inner.current(task_id).await
    }

    /// Whether the task store's last write failed for want of space.
    pub fn store_out_of_space(&self) -> bool {
        self.inner.store.out_of_space()
    }

    /// The one lookup of a task on a caller's behalf: the task if `call`
    /// may see it, else `None`, exactly as for an id that does not exist
    /// (the same read either way, so neither the answer nor its time tells
    /// another caller's task from no task).
    pub(super) async fn owned(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<Option<StoredTask>, EngineError> {
        let found = match self.inner.store.get(task_id).await {
            Ok(found) => found,
            // Its owner hears that it does not read back; anyone else, as
            // for an id that does not exist.
            Err(StoreError::UnreadableTask { id, owner, source }) => {
                if !call.scope.admits(owner.as_deref()) {
                    return Ok(None);
                }
                tracing::error!(a2a.task.id = %id, error = %source, "the caller's task does not read back");
                return Err(EngineError::Unreadable(id));
            }
            Err(error) => return Err(error.into()),
        };
        Ok(found.filter(|stored| call.scope.admits(stored.owner.as_deref())))
    }

    /// [`TaskEngine::owned`], or `TaskNotFound` as for an unknown id.
    pub(super) async fn owned_task(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<StoredTask, EngineError> {
        self.owned(task_id, call)
            .await?
            .ok_or_else(|| EngineError::TaskNotFound(task_id.to_string()))
    }

    /// The context a new task of `call` joins: the one it named, unless
    /// another caller's task is in it (then a new one: a context's history
    /// is its owner's).
    async fn own_context(
        &self,
        context_id: Option<String>,
        call: &CallContext,
    ) -> Result<Option<String>, EngineError> {
        let (Some(context), Some(owner)) = (context_id.as_deref(), call.owner()) else {
            return Ok(context_id);
        };
        if self
            .inner
            .store
            .context_held_by_another(context, owner)
            .await?
        {
            tracing::info!(a2a.context.id = %context, "contextId of another caller: new context");
            return Ok(None);
        }
        Ok(context_id)
    }

    /// `tasks/get`.
    pub async fn get_task(
        &self,
        task_id: &str,
        history_length: Option<i64>,
        call: &CallContext,
    ) -> Result<Task, EngineError> {
        let limit = history_limit(history_length, "params.historyLength")?;
        Ok(self
            .owned_task(task_id, call)
            .await?
            .task
            .with_history_limit(limit))
    }

    /// `tasks/cancel`: a task not yet finished ends `canceled`; a running
    /// turn is stopped.
    pub async fn cancel_task(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<Task, EngineError> {
        let store = &self.inner.store;
        // Retry when a turn writes between our read and our write.
        for _ in 0..5 {
            let stored = self.owned_task(task_id, call).await?;
            let state = stored.task.status.state;
            if state.is_terminal() {
                return Err(EngineError::NotCancelable {
                    id: task_id.to_string(),
                    state: state.as_str(),
                });
            }
            let mut task = stored.task;
            let message = agent_message(
                &task,
                "The task was canceled at the client's request.",
                None,
            );
            set_status(&mut task, TaskState::Canceled, Some(message));
            match store.update(&task, stored.version).await {
                Ok(written) => {
                    self.inner.notify(&task, &written, call);
                    let turn = self.inner.turns().remove(task_id);
                    if turn.is_some() {
                        crate::telemetry::metrics::turns_running(-1);
                    }
                    match turn {
                        Some(turn) => {
                            turn.cancel.notify_one();
                            let _ = turn
                                .events
                                .send(TaskEvent::Status(Arc::new(task.clone()), None));
                        }
                        None => self.inner.tell_followers(&task),
                    }
                    return Ok(task);
                }
                Err(StoreError::Conflict(_) | StoreError::Terminal(_)) => continue,
                Err(error) => return Err(error.into()),
            }
        }
        Err(EngineError::Store(StoreError::Conflict(
            task_id.to_string(),
        )))
    }
}

impl Inner {
    pub(super) fn notify(&self, task: &Task, written: &Written, call: &CallContext) {
        if let Some(observer) = &self.observer {
            observer.changed(task, &written.push_configs, call);
        }
    }

    /// Store a `message/send`'s inline push config with the task it
    /// continues, before the turn runs, so no notification is missed; as
    /// the push room sets any config (its bound per task included).
    pub(super) async fn register_push(
        &self,
        task_id: &str,
        push: Option<PushNotificationConfig>,
        call: &CallContext,
    ) -> Result<(), EngineError> {
        if let (Some(config), Some(observer)) = (push, &self.observer) {
            observer
                .set_config(task_id, config, call)
                .await
                .map_err(|error| {
                    push_config_error(error, PushConfigPlace::send(call.rules.v1_field_names))
                })?;
        }
        Ok(())
    }

    pub(super) fn turns(&self) -> std::sync::MutexGuard<'_, HashMap<String, RunningTurn>> {
        self.turns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) async fn current(&self, task_id: &str) -> Result<Task, EngineError> {
        self.store
            .get(task_id)
            .await?
            .map(|stored| stored.task)
            .ok_or_else(|| EngineError::TaskNotFound(task_id.to_string()))
    }
}
