//! The task lifecycle: create or continue a task, run the agent's turn, store
//! the outcome. `submitted → working → input-required | completed | failed |
//! rejected | canceled`; terminal tasks never change.

use super::observer::{CallContext, TaskObserver};
use super::store::{StoreError, StoredTask, TaskStore, Written};
use crate::a2a::{
    Artifact, Message, MessageSendParams, Part, PushConfigPlace, PushNotificationConfig, Role,
    RpcError, Task, TaskKind, TaskState, TaskStatus,
};
use crate::agent::{Agent, ApprovalStatus, Outcome, Proposal, Reply, Turn, UserMessage};
use crate::clock::now_rfc3339;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, broadcast};

#[derive(Debug, Clone, Copy)]
pub struct EngineSettings {
    /// Strict A2A ids: a finished task id gets -32004 and an unknown one
    /// -32001, instead of a new task in the same context (Joule-compatible).
    pub strict_task_ids: bool,
    /// How long a blocking `message/send` waits before answering `working`.
    pub budget: Duration,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            strict_task_ids: false,
            budget: Duration::from_secs(55),
        }
    }
}

/// What happened to a task, in order, for whoever listens (blocking
/// waiters now; streams and push delivery consume the same events).
#[derive(Debug, Clone)]
pub enum TaskEvent {
    Status(Arc<Task>),
    Artifact {
        task_id: String,
        context_id: String,
        artifact: Artifact,
    },
    /// The turn's result could not be stored (the store is down).
    StoreFailed(String),
}

/// The version a turn's task is stored at; `None` while a deferred task is
/// not stored yet. Shared by the turn and its blocking waiter, whichever
/// writes first creates the row.
type StoredVersion = Arc<tokio::sync::Mutex<Option<u64>>>;

/// A turn in flight: its event channel and how to stop it.
struct RunningTurn {
    events: broadcast::Sender<TaskEvent>,
    cancel: Arc<Notify>,
}

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
            EngineError::Store(StoreError::NotFound(id)) => RpcError::task_not_found(id),
            EngineError::Store(error) => RpcError::internal(error.to_string()),
        }
    }
}

/// Cheap to clone: turns run as their own tokio tasks and keep a handle.
#[derive(Clone)]
pub struct TaskEngine {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn TaskStore>,
    agent: Arc<dyn Agent>,
    settings: EngineSettings,
    observer: Option<Arc<dyn TaskObserver>>,
    turns: Mutex<HashMap<String, RunningTurn>>,
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

fn check_message(message: &Message) -> Result<(), EngineError> {
    if message.role != Role::User {
        return Err(EngineError::InvalidParams(
            "params.message.role must be \"user\"".into(),
        ));
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

fn outcome_state(outcome: Outcome) -> TaskState {
    match outcome {
        Outcome::InputRequired => TaskState::InputRequired,
        Outcome::Completed => TaskState::Completed,
        Outcome::Failed => TaskState::Failed,
        Outcome::Rejected => TaskState::Rejected,
    }
}

fn agent_message(task: &Task, text: &str, metadata: Option<Map<String, Value>>) -> Message {
    let mut message = Message::agent_text(text);
    message.task_id = Some(task.id.clone());
    message.context_id = Some(task.context_id.clone());
    message.metadata = metadata;
    message
}

/// The status message of a `working` answer: a blocking `message/send`
/// whose budget ran out, a push heartbeat while the turn works. Joule
/// shows the text of whatever answer it gets, so a `working` answer is
/// never silent.
pub const STILL_WORKING: &str =
    "Still working on your request; the answer follows as soon as it is ready.";

/// The agent message saying the turn goes on ([`STILL_WORKING`]).
pub fn working_note(task: &Task) -> Message {
    agent_message(task, STILL_WORKING, None)
}

/// `task` as a `working` answer says it: with [`working_note`] as its
/// status message when it is still under way and says nothing yet. Only
/// the answer carries the note, never the stored task: the real answer
/// replaces it when the turn ends, and since the status message moves into
/// the history when the status changes, a stored note would stay there as
/// a stale agent message between the question and its answer.
fn with_working_note(mut task: Task) -> Task {
    let under_way = matches!(task.status.state, TaskState::Submitted | TaskState::Working);
    if under_way && task.status.message.is_none() {
        task.status.message = Some(working_note(&task));
    }
    task
}

/// The current status message moves into the history when the status
/// changes (as the reference SDK does), so each message is stored once.
fn archive_status_message(task: &mut Task) {
    if let Some(previous) = task.status.message.take() {
        task.history.get_or_insert_with(Vec::new).push(previous);
    }
}

fn set_status(task: &mut Task, state: TaskState, message: Option<Message>) {
    archive_status_message(task);
    task.status = TaskStatus {
        state,
        message,
        timestamp: Some(now_rfc3339()),
    };
}

/// Where a task keeps the proposal it asked the user to approve. Task
/// metadata: clients can read it but never write it.
const PENDING_APPROVAL: &str = "pendingApproval";

/// The proposal this task waits on, if it asked for an approval.
fn pending_approval(task: &Task) -> Option<Proposal> {
    let value = task.metadata.as_ref()?.get(PENDING_APPROVAL)?;
    match serde_json::from_value(value.clone()) {
        Ok(proposal) => Some(proposal),
        Err(error) => {
            tracing::error!(task.id = %task.id, %error, "stored pending approval is unreadable");
            None
        }
    }
}

/// Apply the agent's reply: status message, answer and proposal artifacts,
/// and the proposal the task now waits on (or not).
fn apply_reply(task: &mut Task, reply: Reply) {
    let state = outcome_state(reply.outcome);
    let mut metadata = Map::new();
    if let Some(routing) = &reply.routing {
        metadata.insert("routing".into(), json!(routing));
    }
    if let Some(approval) = &reply.approval {
        metadata.insert("approval".into(), json!(approval));
    }
    let metadata = (!metadata.is_empty()).then_some(metadata);
    let message = agent_message(task, &reply.text, metadata);
    let waiting = reply
        .approval
        .as_ref()
        .is_some_and(|note| note.status == ApprovalStatus::Pending);
    // A re-asked approval keeps the proposal it already stored.
    let pending = reply
        .proposal
        .clone()
        .or_else(|| waiting.then(|| pending_approval(task)).flatten());
    let task_metadata = task.metadata.get_or_insert_with(Map::new);
    match (&pending, waiting) {
        (Some(proposal), true) => {
            task_metadata.insert(PENDING_APPROVAL.into(), json!(proposal));
        }
        _ => {
            task_metadata.remove(PENDING_APPROVAL);
        }
    }
    if task_metadata.is_empty() {
        task.metadata = None;
    }
    let artifacts = task.artifacts.get_or_insert_with(Vec::new);
    if state.is_terminal() {
        // First, always: Joule's functions read the answer at
        // `artifacts[0].parts[0].text`, also when an approval question put
        // the proposal artifact there one turn earlier.
        artifacts.insert(
            0,
            Artifact {
                artifact_id: uuid::Uuid::new_v4().to_string(),
                name: Some("answer".into()),
                description: None,
                parts: vec![Part::text(reply.text.clone())],
                metadata: None,
                extensions: None,
            },
        );
    }
    // The proposal is shown once, when the specialist makes it (answer or
    // approval question alike).
    if let Some(proposal) = &reply.proposal
        && let Value::Object(data) = json!(proposal)
        && (state.is_terminal() || waiting)
    {
        artifacts.push(Artifact {
            artifact_id: uuid::Uuid::new_v4().to_string(),
            name: Some("proposal".into()),
            description: Some(proposal.summary.clone()),
            parts: vec![Part::data(data)],
            metadata: None,
            extensions: None,
        });
    }
    if artifacts.is_empty() {
        task.artifacts = None;
    }
    set_status(task, state, Some(message));
}

impl TaskEngine {
    pub fn new(
        store: Arc<dyn TaskStore>,
        agent: Arc<dyn Agent>,
        settings: EngineSettings,
        observer: Option<Arc<dyn TaskObserver>>,
    ) -> Self {
        TaskEngine {
            inner: Arc::new(Inner {
                store,
                agent,
                settings,
                observer,
                turns: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Follow a task's events while a turn runs (`None` when none runs).
    pub fn subscribe(&self, task_id: &str) -> Option<broadcast::Receiver<TaskEvent>> {
        self.inner
            .turns()
            .get(task_id)
            .map(|turn| turn.events.subscribe())
    }

    /// `message/send`: start or continue a task; answer when the turn ends or
    /// pauses, when the budget runs out (`working`, the turn goes on), or at
    /// once for `blocking: false`.
    pub async fn send_message(
        &self,
        params: MessageSendParams,
        call: &CallContext,
    ) -> Result<Task, EngineError> {
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
        let task = match started {
            Started::AsItIs(task) => task,
            Started::Running { task, events, .. } if !blocking => {
                drop(events);
                task
            }
            Started::Running {
                task,
                events,
                stored,
            } => self.wait(task, events, stored).await?,
        };
        Ok(task.with_history_limit(history_length))
    }

    /// Check the message and start or continue its task.
    async fn begin(
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
        check_message(&message)?;
        // An inline push config is checked before anything is created.
        let push = match configuration.push_notification_config {
            Some(config) => {
                let observer = self
                    .inner
                    .observer
                    .as_ref()
                    .ok_or(EngineError::PushNotSupported)?;
                let judged = observer.check(&config).map_err(|reason| {
                    EngineError::InvalidParams(
                        PushConfigPlace::SendConfiguration.refused_url(&reason),
                    )
                })?;
                Some(judged)
            }
            None => None,
        };
        let store = &self.inner.store;

        let context_id = present(&message.context_id).map(str::to_string);
        let started = match present(&message.task_id) {
            None => {
                self.start_task(message, context_id, None, push, call, defer_store)
                    .await?
            }
            Some(task_id) => {
                let task_id = task_id.to_string();
                let existing = store.get(&task_id).await?.filter(|stored| {
                    context_id
                        .as_ref()
                        .is_none_or(|c| *c == stored.task.context_id)
                });
                match existing {
                    Some(stored) if stored.task.status.state.is_interrupted() => {
                        self.continue_task(stored, message, push, call).await?
                    }
                    Some(stored) if stored.task.status.state.is_terminal() => {
                        if self.inner.settings.strict_task_ids {
                            return Err(EngineError::Unsupported(format!(
                                "task {task_id} is {} and cannot be continued; send the message without taskId",
                                stored.task.status.state.as_str()
                            )));
                        }
                        tracing::info!(task.id = %task_id, "message for a finished task: new task in the same context");
                        let context = stored.task.context_id.clone();
                        self.start_task(
                            message,
                            Some(context),
                            Some(task_id),
                            push,
                            call,
                            defer_store,
                        )
                        .await?
                    }
                    // Submitted or working: the turn in progress answers; do not start a second one.
                    Some(stored) => Started::AsItIs(stored.task),
                    None => {
                        if self.inner.settings.strict_task_ids {
                            return Err(EngineError::TaskNotFound(task_id));
                        }
                        tracing::info!(task.id = %task_id, "message for an unknown task: new task");
                        self.start_task(message, context_id, Some(task_id), push, call, defer_store)
                            .await?
                    }
                }
            }
        };
        Ok((started, history_length))
    }

    /// Wait for the turn to end or pause, at most the budget.
    async fn wait(
        &self,
        task: Task,
        mut events: broadcast::Receiver<TaskEvent>,
        stored: StoredVersion,
    ) -> Result<Task, EngineError> {
        let deadline = tokio::time::Instant::now() + self.inner.settings.budget;
        loop {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                // The event carries the task exactly as stored: no store read.
                Ok(Ok(TaskEvent::Status(snapshot)))
                    if snapshot.status.state.is_terminal()
                        || snapshot.status.state.is_interrupted() =>
                {
                    return Ok(Arc::unwrap_or_clone(snapshot));
                }
                Ok(Ok(TaskEvent::StoreFailed(reason))) => {
                    return Err(EngineError::Store(StoreError::Unavailable(reason)));
                }
                Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                Ok(Err(broadcast::error::RecvError::Closed)) => break,
                Err(_) => {
                    crate::telemetry::metrics::budget_expired();
                    tracing::info!(
                        task.id = %task.id,
                        budget_ms = i64::try_from(self.inner.settings.budget.as_millis())
                            .unwrap_or(i64::MAX),
                        "budget expired: answering `working`, the turn goes on"
                    );
                    // A deferred task is stored now: the client learns its id.
                    let mut version = stored.lock().await;
                    if version.is_none() {
                        *version = Some(self.inner.store.create(&task, &[]).await?);
                        return Ok(with_working_note(task));
                    }
                    drop(version);
                    return Ok(with_working_note(self.current(&task.id).await?));
                }
            }
        }
        self.current(&task.id).await
    }

    async fn start_task(
        &self,
        mut message: Message,
        context_id: Option<String>,
        stale_task_id: Option<String>,
        push: Option<PushNotificationConfig>,
        call: &CallContext,
        defer_store: bool,
    ) -> Result<Started, EngineError> {
        let task_id = uuid::Uuid::new_v4().to_string();
        let context_id = context_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        message.task_id = Some(task_id.clone());
        message.context_id = Some(context_id.clone());
        if let Some(stale) = stale_task_id {
            let references = message.reference_task_ids.get_or_insert_with(Vec::new);
            if !references.contains(&stale) {
                references.push(stale);
            }
        }
        let (text, data) = (message.text(), message.data());
        let task = Task {
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
        // Listen before the task exists, so a stream sees `submitted` too.
        let channel = self.open_turn(&task.id);
        let _ = channel
            .events
            .send(TaskEvent::Status(Arc::new(task.clone())));
        // Stored once, already claimed (`working`) and with its inline push
        // config: one write per new task instead of three.
        let mut task = task;
        set_status(&mut task, TaskState::Working, None);
        let push_configs: Vec<PushNotificationConfig> = push
            .map(|config| config.named_after(&task.id))
            .into_iter()
            .collect();
        let written = if defer_store {
            None
        } else {
            match self.inner.store.create(&task, &push_configs).await {
                Ok(version) => Some(Written {
                    version,
                    push_configs,
                }),
                Err(error) => {
                    self.inner.turns().remove(&task.id);
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
        };
        Ok(self.spawn_turn(task, written, turn, channel, call))
    }

    async fn continue_task(
        &self,
        stored: StoredTask,
        mut message: Message,
        push: Option<PushNotificationConfig>,
        call: &CallContext,
    ) -> Result<Started, EngineError> {
        self.inner.register_push(&stored.task.id, push).await?;
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
        let turn = Turn {
            earlier,
            text: message.text(),
            data: message.data(),
            caller: call.caller.clone(),
            task_id: stored.task.id.clone(),
            context_id: stored.task.context_id.clone(),
            pending: pending_approval(&stored.task),
        };
        let mut task = stored.task;
        // The question goes into the history before the answer to it.
        archive_status_message(&mut task);
        task.history.get_or_insert_with(Vec::new).push(message);
        self.claim_turn(task, stored.version, turn, call).await
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
                return Ok(Started::AsItIs(self.current(&id).await?));
            }
            Err(error) => return Err(error.into()),
        };
        // A continuation registers only once its claim won, so a loser never
        // touches the winner's registration.
        let channel = self.open_turn(&task.id);
        Ok(self.spawn_turn(task, Some(written), turn, channel, call))
    }

    /// Publish the claimed (`working`) task and run the agent in its own
    /// tokio task.
    fn spawn_turn(
        &self,
        task: Task,
        written: Option<Written>,
        turn: Turn,
        channel: TurnChannel,
        call: &CallContext,
    ) -> Started {
        let TurnChannel {
            events,
            listener,
            cancel,
        } = channel;
        let _ = events.send(TaskEvent::Status(Arc::new(task.clone())));
        if let Some(written) = &written {
            self.inner.notify(&task, written, call);
        }
        let stored: StoredVersion = Arc::new(tokio::sync::Mutex::new(written.map(|w| w.version)));
        let inner = Arc::clone(&self.inner);
        let working = task.clone();
        let call = call.clone();
        let version = Arc::clone(&stored);
        // The turn outlives the request that started it; its span stays the
        // request's child in the trace.
        let span = tracing::info_span!(
            "a2a.turn",
            otel.name = "a2a.turn",
            a2a.task.id = task.id.as_str(),
            a2a.context.id = task.context_id.as_str(),
            a2a.task.state = tracing::field::Empty,
            a2a.specialist = tracing::field::Empty,
            a2a.router.scores = tracing::field::Empty,
            a2a.router.basis = tracing::field::Empty,
            latency_ms = tracing::field::Empty,
        );
        tokio::spawn(tracing::Instrument::instrument(
            async move {
                let task_id = task.id.clone();
                inner
                    .finish_turn(task, version, turn, events, cancel, call)
                    .await;
                inner.turns().remove(&task_id);
            },
            span,
        ));
        Started::Running {
            task: working,
            events: listener,
            stored,
        }
    }

    async fn current(&self, task_id: &str) -> Result<Task, EngineError> {
        self.inner.current(task_id).await
    }

    /// Register a turn's event channel and cancel switch under the task id.
    fn open_turn(&self, task_id: &str) -> TurnChannel {
        let (events, listener) = broadcast::channel(64);
        let cancel = Arc::new(Notify::new());
        self.inner.turns().insert(
            task_id.to_string(),
            RunningTurn {
                events: events.clone(),
                cancel: Arc::clone(&cancel),
            },
        );
        TurnChannel {
            events,
            listener,
            cancel,
        }
    }

    /// `message/stream`: start or continue a task like `message/send`, but
    /// hand back its events instead of waiting.
    pub async fn stream_message(
        &self,
        params: MessageSendParams,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        match self.begin(params, call, false).await? {
            (Started::Running { events, .. }, _) => Ok(TaskStream {
                first: None,
                events: Some(events),
            }),
            (Started::AsItIs(task), _) => Ok(TaskStream {
                events: self.subscribe(&task.id),
                first: Some(task),
            }),
        }
    }

    /// `tasks/resubscribe`: the task as it is now, then the rest of its events.
    pub async fn resubscribe(&self, task_id: &str) -> Result<TaskStream, EngineError> {
        // Subscribe first so nothing between the read and the subscription is lost.
        let events = self.subscribe(task_id);
        let task = self.current(task_id).await?;
        Ok(TaskStream {
            first: Some(task),
            events,
        })
    }

    /// `tasks/get`.
    pub async fn get_task(
        &self,
        task_id: &str,
        history_length: Option<i64>,
    ) -> Result<Task, EngineError> {
        let limit = history_limit(history_length, "params.historyLength")?;
        Ok(self.current(task_id).await?.with_history_limit(limit))
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
            let stored = store
                .get(task_id)
                .await?
                .ok_or_else(|| EngineError::TaskNotFound(task_id.to_string()))?;
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
                    if let Some(turn) = self.inner.turns().remove(task_id) {
                        turn.cancel.notify_one();
                        let _ = turn.events.send(TaskEvent::Status(Arc::new(task.clone())));
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

/// How often the maintenance job runs and what it keeps.
#[derive(Debug, Clone, Copy)]
pub struct Maintenance {
    /// The lease a running turn holds on its task (renewed at a third).
    pub lease: Duration,
    /// How often expired leases and old finished tasks are looked for.
    pub sweep: Duration,
    /// Finished tasks older than this are deleted.
    pub retention: Duration,
}

const LEASE_LOST: &str = "The instance working on this request stopped before it finished \
                          (its lease ran out). Nothing was filed; please send the request again.";

impl TaskEngine {
    /// Keep this instance's leases alive, end tasks whose instance died,
    /// and delete finished tasks past the retention; runs until the
    /// runtime stops.
    pub fn spawn_maintenance(&self, every: Maintenance) -> tokio::task::JoinHandle<()> {
        let engine = self.clone();
        tokio::spawn(async move {
            let renew_every = (every.lease / 3).max(Duration::from_millis(100));
            let mut renew = tokio::time::interval(renew_every);
            let mut sweep = tokio::time::interval(every.sweep.max(Duration::from_millis(100)));
            renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = renew.tick() => {
                        if let Err(error) = engine.renew_leases().await {
                            tracing::warn!(%error, "renewing task leases failed");
                        }
                    }
                    _ = sweep.tick() => {
                        if let Err(error) = engine.end_abandoned_turns().await {
                            tracing::warn!(%error, "looking for abandoned turns failed");
                        }
                        let before = crate::db::now_ms()
                            - i64::try_from(every.retention.as_millis()).unwrap_or(i64::MAX);
                        match engine.inner.store.purge_finished(before).await {
                            Ok(0) => {}
                            Ok(deleted) => tracing::info!(deleted, "finished tasks past the retention deleted"),
                            Err(error) => tracing::warn!(%error, "deleting old finished tasks failed"),
                        }
                    }
                }
            }
        })
    }

    async fn renew_leases(&self) -> Result<(), StoreError> {
        let running: Vec<String> = self.inner.turns().keys().cloned().collect();
        if running.is_empty() {
            return Ok(());
        }
        self.inner.store.renew_leases(&running).await
    }

    /// Tasks left `submitted` or `working` by an instance that stopped end
    /// `failed` with the reason; returns how many.
    pub async fn end_abandoned_turns(&self) -> Result<usize, StoreError> {
        let store = &self.inner.store;
        let mut ended = 0;
        for task_id in store.expired_leases().await? {
            if self.inner.turns().contains_key(&task_id) {
                continue; // Ours and still running: the next renewal saves it.
            }
            let Some(stored) = store.get(&task_id).await? else {
                continue;
            };
            let mut task = stored.task;
            if task.status.state.is_terminal() || task.status.state.is_interrupted() {
                continue;
            }
            let message = agent_message(&task, LEASE_LOST, None);
            set_status(&mut task, TaskState::Failed, Some(message));
            match store.update(&task, stored.version).await {
                Ok(written) => {
                    tracing::warn!(task.id = %task.id, "turn abandoned by a stopped instance: task failed");
                    self.inner.notify(&task, &written, &CallContext::default());
                    ended += 1;
                }
                // Another instance ended it first, or its owner came back.
                Err(StoreError::Conflict(_) | StoreError::Terminal(_)) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(ended)
    }
}

/// A task's events for a stream: an optional snapshot to start with, then
/// the running turn's events (none when no turn runs).
pub struct TaskStream {
    pub first: Option<Task>,
    pub events: Option<broadcast::Receiver<TaskEvent>>,
}

struct TurnChannel {
    events: broadcast::Sender<TaskEvent>,
    listener: broadcast::Receiver<TaskEvent>,
    cancel: Arc<Notify>,
}

/// How `message/send` found the task.
enum Started {
    /// Answer it as it is (another turn runs, or someone else won the race).
    AsItIs(Task),
    /// A turn of ours runs; its events tell when it ends or pauses.
    Running {
        task: Task,
        events: broadcast::Receiver<TaskEvent>,
        stored: StoredVersion,
    },
}

impl Inner {
    fn notify(&self, task: &Task, written: &Written, call: &CallContext) {
        if let Some(observer) = &self.observer {
            observer.changed(task, &written.push_configs, call);
        }
    }

    /// Store a `message/send`'s inline push config with its task, before
    /// the turn runs, so no notification is missed.
    async fn register_push(
        &self,
        task_id: &str,
        push: Option<PushNotificationConfig>,
    ) -> Result<(), EngineError> {
        if let Some(config) = push {
            let config = config.named_after(task_id);
            self.store.set_push_config(task_id, &config).await?;
        }
        Ok(())
    }

    fn turns(&self) -> std::sync::MutexGuard<'_, HashMap<String, RunningTurn>> {
        self.turns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn current(&self, task_id: &str) -> Result<Task, EngineError> {
        self.store
            .get(task_id)
            .await?
            .map(|stored| stored.task)
            .ok_or_else(|| EngineError::TaskNotFound(task_id.to_string()))
    }

    /// Run the agent, store its reply, publish the artifacts and the final
    /// status. A cancel stops the agent and leaves the task as canceled.
    async fn finish_turn(
        &self,
        mut task: Task,
        stored_version: StoredVersion,
        turn: Turn,
        events: broadcast::Sender<TaskEvent>,
        cancel: Arc<Notify>,
        call: CallContext,
    ) {
        let started = std::time::Instant::now();
        let agent = Arc::clone(&self.agent);
        // Its own tokio task: a panicking turn fails this task, not the server.
        let mut running = tokio::spawn(tracing::Instrument::in_current_span(async move {
            agent.respond(turn).await
        }));
        let reply = tokio::select! {
            joined = &mut running => match joined {
                Ok(reply) => reply,
                Err(error) => {
                    tracing::error!(task.id = %task.id, %error, "agent turn panicked");
                    Reply::new(
                        Outcome::Failed,
                        "The agent failed on this request (internal error). Please try again.",
                    )
                }
            },
            _ = cancel.notified() => {
                running.abort();
                tracing::info!(task.id = %task.id, "turn stopped by tasks/cancel");
                return;
            }
        };
        let artifacts_before: std::collections::HashSet<String> = task
            .artifacts
            .iter()
            .flatten()
            .map(|artifact| artifact.artifact_id.clone())
            .collect();
        let span = tracing::Span::current();
        let specialist = reply
            .routing
            .as_ref()
            .and_then(|routing| routing.specialist.clone())
            .unwrap_or_else(|| "-".into());
        if let Some(routing) = &reply.routing {
            span.record(
                "a2a.specialist",
                routing.specialist.as_deref().unwrap_or("-"),
            );
            span.record("a2a.router.basis", routing.basis.as_str());
            if let Ok(scores) = serde_json::to_string(&routing.scores) {
                span.record("a2a.router.scores", scores.as_str());
            }
        }
        apply_reply(&mut task, reply);
        span.record("a2a.task.state", task.status.state.as_str());
        crate::telemetry::metrics::task_outcome(task.status.state.as_str(), &specialist);
        span.record("latency_ms", started.elapsed().as_secs_f64() * 1000.0);
        // Held while writing, so a blocking waiter whose budget runs out
        // right now cannot create the row a second time.
        let mut version = stored_version.lock().await;
        let mut stored = self.store_result(&task, *version).await;
        // A store that is briefly down gets a few more tries; after that the
        // lease runs out and the task ends `failed`, never stuck `working`.
        for pause_ms in [200, 1_000, 3_000] {
            if !matches!(stored, Err(StoreError::Unavailable(_))) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(pause_ms)).await;
            stored = self.store_result(&task, *version).await;
        }
        if let Ok(written) = &stored {
            *version = Some(written.version);
        }
        drop(version);
        match stored {
            Ok(written) => {
                let added = task
                    .artifacts
                    .iter()
                    .flatten()
                    .filter(|artifact| !artifacts_before.contains(&artifact.artifact_id));
                for artifact in added {
                    let _ = events.send(TaskEvent::Artifact {
                        task_id: task.id.clone(),
                        context_id: task.context_id.clone(),
                        artifact: artifact.clone(),
                    });
                }
                self.notify(&task, &written, &call);
                let _ = events.send(TaskEvent::Status(Arc::new(task)));
            }
            // Canceled while the turn ran: the cancel stands.
            Err(StoreError::Conflict(_) | StoreError::Terminal(_)) => {}
            Err(error) => {
                tracing::error!(task.id = %task.id, %error, "the turn's result could not be stored");
                let reason = match error {
                    StoreError::Unavailable(reason) => reason,
                    other => other.to_string(),
                };
                let _ = events.send(TaskEvent::StoreFailed(reason));
            }
        }
    }

    /// Write a turn's result: an update, or the first write of a deferred
    /// task.
    async fn store_result(&self, task: &Task, version: Option<u64>) -> Result<Written, StoreError> {
        match version {
            Some(version) => self.store.update(task, version).await,
            None => self.store.create(task, &[]).await.map(|version| Written {
                version,
                push_configs: Vec::new(),
            }),
        }
    }
}
