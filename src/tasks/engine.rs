//! The task engine, as the request handler sees it: every method of the
//! engine is here. The task lifecycle: check a message, create or continue
//! its task (`submitted → working → input-required | completed | failed |
//! rejected | canceled`; terminal tasks never change), read, list, cancel
//! and follow tasks. The engine hands the rest to the files beside it,
//! which know nothing of it: what a message must pass (`checks.rs`), the
//! turn, run as a [`TurnRun`] (`turn.rs`), the wait of a blocking send
//! within the budget ([`Waiter`], `budget.rs`), the turns running here
//! ([`RunningTurns`], `running.rs`), the agent's reply mapped onto the
//! task (`reply.rs`), and upkeep ([`Upkeep`], `maintenance.rs`).

use super::ask_again;
use super::budget::{self, Waiter};
use super::call::CallContext;
use super::checks;
use super::error::EngineError;
use super::events::{Answer, StreamEnd, TaskEvent, TaskStream};
use super::follow_up;
use super::language::{self, TurnCues};
use super::listing::{TaskPage, TaskQuery};
use super::maintenance::{Maintenance, Upkeep};
use super::observer::{self, TaskObserver};
use super::open_bound::OpenBound;
use super::push_configs::push_config_error;
use super::repeat;
use super::reply::{agent_message, archive_status_message, pending_approval, set_status};
use super::running::{Opening, RunningTurns, TurnChannel, stored_version};
use super::settings::TaskSettings;
use super::store::{StoreError, StoredTask, TaskStore, Written};
use super::turn::{StartedTurn, TurnRun};
use crate::a2a::{
    Message, MessageSendParams, PushConfigPlace, PushNotificationConfig, Role, Task, TaskKind,
    TaskPushNotificationConfig, TaskState, TaskStatus,
};
use crate::agent::{Agent, Language, Progress, Turn, UserMessage};
use crate::clock::now_rfc3339;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Cheap to clone: turns run as their own tokio tasks and keep a handle.
#[derive(Clone)]
pub struct TaskEngine {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn TaskStore>,
    agent: Arc<dyn Agent>,
    settings: TaskSettings,
    /// Push notifications (`push/`), when push is on.
    observer: Option<Arc<dyn TaskObserver>>,
    running: Arc<RunningTurns>,
    /// The runtime the engine was made on (the process's own), where turns
    /// nobody waits for run: it outlives the server's workers.
    home: Option<tokio::runtime::Handle>,
}

/// How `message/send` found the task.
enum Started {
    /// Answer it as it is (another turn runs, or someone else won the race).
    AsItIs(Box<Task>),
    /// A turn of ours runs; its events tell when it ends or pauses.
    Running(StartedTurn),
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
                running: Arc::new(RunningTurns::default()),
                home: tokio::runtime::Handle::try_current().ok(),
            }),
        }
    }

    /// `message/send`: start or continue a task and answer when its turn
    /// ends or pauses, when the budget runs out (`working`, the turn goes on), or at
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
                Answer::Task(Arc::new(self.waiter().as_it_is(*task, call).await?), None)
            }
            Started::Running(started) if !blocking => Answer::Task(started.task, None),
            Started::Running(started) => self.waiter().wait(started, call).await?,
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
    async fn begin(
        &self,
        params: MessageSendParams,
        call: &CallContext,
        defer_store: bool,
    ) -> Result<(Started, Option<u64>), EngineError> {
        let configuration = params.configuration.unwrap_or_default();
        let history_length = checks::history_limit(
            configuration.history_length,
            "params.configuration.historyLength",
        )?;
        let message = params.message;
        checks::check_message(&message, &self.inner.settings, call.rules.v1_field_names)?;
        // A repeat (the same caller, the same messageId) gets the task the
        // first sending opened; one that continued a task, below.
        if let Some(task) =
            repeat::task_opened_by(&*self.inner.store, &self.inner.running, &message, call).await?
        {
            return Ok((Started::AsItIs(Box::new(task)), history_length));
        }
        let request_hint = language::hint(params.metadata.as_ref()).map(str::to_string);
        // An inline push config is checked before anything is created.
        let push = match configuration.push_notification_config {
            Some(config) => Some(self.observer()?.check(&config).map_err(|error| {
                push_config_error(error, PushConfigPlace::send(call.rules.v1_field_names))
            })?),
            None => None,
        };
        let context_id = checks::present(&message.context_id).map(str::to_string);
        let started = match checks::present(&message.task_id) {
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
                    Some(stored) if repeat::continued_by(&stored.task, &message.message_id) => {
                        tracing::info!(a2a.task.id = %task_id, "a repeated message: its task as it stands");
                        Started::AsItIs(Box::new(stored.task))
                    }
                    Some(stored) if ask_again::question_unseen(&stored.task) => Started::AsItIs(
                        Box::new(ask_again::show_question(&*self.inner.store, stored).await?),
                    ),
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
                        if ask_again::told_to_ask_again(&stored.task) {
                            let (answer, written) = ask_again::answer_again(
                                &*self.inner.store,
                                stored.task,
                                message,
                                push,
                                call.owner(),
                            )
                            .await?;
                            self.notify(&answer, &written, call);
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
        // Stored now as `working`, the task is open: it must fit the
        // caller's bound. A deferred one is counted when the turn stores it
        // (`open_bound`), and only if it stays open.
        if !defer_store {
            self.open_bound(call)
                .room_for_one_more(&*self.inner.store, call.owner())
                .await?
                .map_err(|full| EngineError::InvalidParams(full.to_string()))?;
        }
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
        let channel = self.inner.running.register(&task.id);
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
                    self.inner.running.forget(&task.id);
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
            #[cfg(feature = "conformance")]
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
        Ok(self.announce_turn(task, written, turn, channel, call))
    }

    async fn continue_task(
        &self,
        stored: StoredTask,
        mut message: Message,
        request_hint: Option<&str>,
        push: Option<PushNotificationConfig>,
        call: &CallContext,
    ) -> Result<Started, EngineError> {
        // The configs count in the task's bytes; read only with push on.
        let configs = match &self.inner.observer {
            Some(_) => self.inner.store.push_configs(&stored.task.id).await?,
            None => Vec::new(),
        };
        let room = checks::check_room(&stored.task, &message, &configs, &self.inner.settings)?;
        self.register_push(&stored.task.id, push, room, call)
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
            #[cfg(feature = "conformance")]
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

    /// Claim the task for a turn (`working`, compare-and-set on `version`)
    /// and announce the turn.
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
                return Ok(Started::AsItIs(Box::new(
                    budget::current(&*self.inner.store, &id).await?,
                )));
            }
            Err(error) => return Err(error.into()),
        };
        // A continuation registers only once its claim won, so a loser never
        // touches the winner's registration.
        let channel = self.inner.running.register(&task.id);
        Ok(self.announce_turn(task, Some(written), turn, channel, call))
    }

    /// Publish the claimed (`working`) task and hand back its turn, not
    /// running yet, for the caller to drive or drop (see
    /// [`super::turn::PendingTurn`]).
    fn announce_turn(
        &self,
        task: Task,
        written: Option<Written>,
        input: Turn,
        channel: TurnChannel,
        call: &CallContext,
    ) -> Started {
        let TurnChannel {
            events,
            listener,
            cancel,
        } = channel;
        // One snapshot of the claimed task for the event and the answer.
        let working = Arc::new(task.clone());
        let _ = events.send(TaskEvent::Status(Arc::clone(&working), None));
        if let Some(written) = &written {
            self.notify(&task, written, call);
        }
        // Not stored yet: a repeat of its message finds it here.
        let opening = match (&written, super::store::opening_message_id(&task)) {
            (None, Some(message_id)) => Some(Opening {
                owner: call.owner().map(str::to_string),
                message_id: message_id.to_string(),
                task: Arc::clone(&working),
            }),
            _ => None,
        };
        let stored = stored_version(written.map(|w| w.version));
        self.inner.running.keep_stored(&task.id, &stored, opening);
        let progress = input.progress.clone();
        let turn = TurnRun {
            task,
            input,
            events,
            cancel,
            stored: Arc::clone(&stored),
            store: Arc::clone(&self.inner.store),
            agent: Arc::clone(&self.inner.agent),
            observer: self.inner.observer.clone(),
            running: Arc::clone(&self.inner.running),
            open_bound: self.open_bound(call),
            call: call.clone(),
            home: self.inner.home.clone(),
        };
        Started::Running(StartedTurn {
            task: working,
            events: listener,
            stored,
            progress,
            turn: turn.pending(),
        })
    }

    /// Whether the task store's last write failed for want of space.
    pub fn store_out_of_space(&self) -> bool {
        self.inner.store.out_of_space()
    }

    /// Whether the task store's database is known down.
    pub fn store_database_down(&self) -> bool {
        self.inner.store.database_down()
    }

    /// The one lookup of a task on a caller's behalf: the task if `call`
    /// may see it, else `None`, exactly as for an id that does not exist
    /// (the same read either way, so neither the answer nor its time tells
    /// another caller's task from no task).
    async fn owned(
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
    async fn owned_task(
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
        let limit = checks::history_limit(history_length, "params.historyLength")?;
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
                    self.notify(&task, &written, call);
                    match self.inner.running.stop(task_id) {
                        Some(events) => {
                            let _ = events.send(TaskEvent::Status(Arc::new(task.clone()), None));
                        }
                        None => self.inner.running.tell_followers(&task),
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

    /// `tasks/list` (1.0 `ListTasks`): the caller's scope is in `query`.
    pub async fn list_tasks(&self, query: &TaskQuery) -> Result<TaskPage, EngineError> {
        Ok(self.inner.store.list(query).await?)
    }

    /// Follow a task's events while a turn runs (`None` when none runs).
    pub fn subscribe(&self, task_id: &str) -> Option<broadcast::Receiver<TaskEvent>> {
        self.inner.running.subscribe(task_id)
    }

    /// `message/stream`: start or continue a task like `message/send`, but
    /// hand back its events instead of waiting.
    pub async fn stream_message(
        &self,
        params: MessageSendParams,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        match self.begin(params, call, false).await? {
            (Started::Running(started), _) => Ok(TaskStream {
                first: None,
                events: Some(started.events),
                ends: StreamEnd::Pause,
            }),
            (Started::AsItIs(task), _) => Ok(TaskStream {
                events: self.subscribe(&task.id),
                first: Some(*task),
                ends: StreamEnd::Pause,
            }),
        }
    }

    /// `tasks/resubscribe`: the task as it is now, then the rest of its events.
    pub async fn resubscribe(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        // Subscribe first so nothing between the read and the subscription
        // is lost; another caller's task is not found, and its events are
        // dropped unread.
        let events = self.subscribe(task_id);
        let task = self.owned_task(task_id, call).await?.task;
        Ok(TaskStream {
            first: Some(task),
            events,
            ends: StreamEnd::Pause,
        })
    }

    /// 1.0 `SubscribeToTask`: the task as it is now, then its events until
    /// it is terminal, across the turns that continue it.
    pub async fn follow(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<TaskStream, EngineError> {
        // Listen first so nothing between the read and the listening is
        // lost; another caller's task is not found (its events unread).
        let events = self.inner.running.follow(task_id);
        let task = self.owned_task(task_id, call).await?.task;
        Ok(TaskStream {
            first: Some(task),
            events: Some(events),
            ends: StreamEnd::Terminal,
        })
    }

    /// Tell the client of `origin_task_id` what happened later: `text`,
    /// written in the language the origin was answered in ([`follow_up`]).
    pub async fn follow_up(
        &self,
        origin_task_id: &str,
        text: &(dyn Fn(Language) -> String + Sync),
        call: &CallContext,
    ) -> Result<Task, EngineError> {
        let (task, written) =
            follow_up::store_later_result(&*self.inner.store, origin_task_id, text).await?;
        self.notify(&task, &written, call);
        Ok(task)
    }

    /// The observer, when push is on.
    fn observer(&self) -> Result<&dyn TaskObserver, EngineError> {
        self.inner
            .observer
            .as_deref()
            .ok_or(EngineError::PushNotSupported)
    }

    /// The observer for a task this caller may reach: push is on and the
    /// task exists and is the caller's (another caller's task is not found).
    async fn observer_for(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<&dyn TaskObserver, EngineError> {
        let observer = self.observer()?;
        self.owned_task(task_id, call).await?;
        Ok(observer)
    }

    /// `tasks/pushNotificationConfig/set`: the config is judged first (bad
    /// params are −32602 whatever the task's state), then refused (−32004)
    /// on a finished task, for which nothing more is delivered; the task's
    /// configs count in its bytes.
    pub async fn set_push_config(
        &self,
        params: TaskPushNotificationConfig,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, EngineError> {
        let observer = self.observer()?;
        let stored = self.owned_task(&params.task_id, call).await?;
        let place = PushConfigPlace::set(call.rules.v1_field_names);
        observer
            .check(&params.push_notification_config)
            .map_err(|error| push_config_error(error, place))?;
        let state = stored.task.status.state;
        if state.is_terminal() {
            return Err(EngineError::Unsupported(format!(
                "task {} is {}: nothing more is sent for a finished task, so it takes no \
                 push notification config",
                params.task_id,
                state.as_str()
            )));
        }
        let room = checks::config_room(&stored.task, &self.inner.settings);
        observer
            .set_config(&params.task_id, params.push_notification_config, room, call)
            .await
            .map_err(|error| push_config_error(error, place))
    }

    /// `tasks/pushNotificationConfig/get`.
    pub async fn get_push_config(
        &self,
        task_id: &str,
        config_id: Option<&str>,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, EngineError> {
        let observer = self.observer_for(task_id, call).await?;
        observer
            .config(task_id, config_id)
            .await
            .map_err(|error| push_config_error(error, PushConfigPlace::SetParams))
    }

    /// `tasks/pushNotificationConfig/list`.
    pub async fn list_push_configs(
        &self,
        task_id: &str,
        call: &CallContext,
    ) -> Result<Vec<TaskPushNotificationConfig>, EngineError> {
        let observer = self.observer_for(task_id, call).await?;
        observer
            .configs(task_id)
            .await
            .map_err(|error| push_config_error(error, PushConfigPlace::SetParams))
    }

    /// `tasks/pushNotificationConfig/delete`.
    pub async fn delete_push_config(
        &self,
        task_id: &str,
        config_id: &str,
        call: &CallContext,
    ) -> Result<(), EngineError> {
        let observer = self.observer_for(task_id, call).await?;
        observer
            .delete_config(task_id, config_id)
            .await
            .map_err(|error| push_config_error(error, PushConfigPlace::SetParams))
    }

    /// Keep this instance's leases alive, end tasks whose instance died,
    /// delete finished tasks past the retention and those past each
    /// caller's cap; runs until the runtime stops.
    pub fn spawn_maintenance(&self, every: Maintenance) -> tokio::task::JoinHandle<()> {
        self.upkeep().spawn(every)
    }

    /// At shutdown, the server stopped: the turns running here get until
    /// `deadline` to end, those still running then end `failed` (to be
    /// asked again), and the push notifications queued go out
    /// (`shutdown.rs`).
    pub async fn wind_down(&self, deadline: tokio::time::Instant) {
        self.upkeep().wind_down(deadline).await;
    }

    fn upkeep(&self) -> Upkeep {
        Upkeep {
            store: Arc::clone(&self.inner.store),
            observer: self.inner.observer.clone(),
            running: Arc::clone(&self.inner.running),
            waiting_expiry: self.inner.settings.waiting_expiry(),
            finished_caps: self.inner.settings.finished_caps(),
        }
    }

    /// The bound of open tasks `call`'s caller is held to.
    fn open_bound(&self, call: &CallContext) -> OpenBound {
        OpenBound::of(&self.inner.settings, call.owner())
    }

    fn waiter(&self) -> Waiter<'_> {
        Waiter {
            store: &*self.inner.store,
            running: &self.inner.running,
            settings: &self.inner.settings,
        }
    }

    /// Tell the observer of a stored change `call` made.
    fn notify(&self, task: &Task, written: &Written, call: &CallContext) {
        observer::tell(self.inner.observer.as_deref(), task, written, call);
    }

    /// Store a `message/send`'s inline push config with the task it
    /// continues, before the turn runs, so no notification is missed; as
    /// the observer sets any config (its bound per task included).
    async fn register_push(
        &self,
        task_id: &str,
        push: Option<PushNotificationConfig>,
        room: usize,
        call: &CallContext,
    ) -> Result<(), EngineError> {
        if let (Some(config), Some(observer)) = (push, &self.inner.observer) {
            observer
                .set_config(task_id, config, room, call)
                .await
                .map_err(|error| {
                    push_config_error(error, PushConfigPlace::send(call.rules.v1_field_names))
                })?;
        }
        Ok(())
    }
}
