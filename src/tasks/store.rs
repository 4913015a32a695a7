//! The `TaskStore` trait: what the engine needs from any place tasks live in
//! (memory, SQLite, PostgreSQL). A task's push configs live with it, so one
//! write of the task also tells who must hear about it.

use super::listing::{TaskPage, TaskQuery};
use super::settings::FinishedCaps;
use crate::a2a::{PushNotificationConfig, Task};
use async_trait::async_trait;

/// A task with the version it was read at. Updates name the version they
/// started from, so two writers cannot silently overwrite each other.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    pub task: Task,
    pub version: u64,
    /// Who created the task (an [`super::listing::OwnerScope`] key); `None`
    /// for a task created with authentication off, or before owners were
    /// kept. Only the owner may see or touch it (authentication on).
    pub owner: Option<String>,
}

/// A task as compact JSON, the form every store keeps it in; encoded once
/// per write and shared with whoever answers the task as it was written.
pub type TaskJson = std::sync::Arc<str>;

/// What a write wrote: the new version, the task's push configs as they are
/// now (set by any instance), for the notification that follows, and the
/// task's JSON as stored (an answer of the same task is that JSON: the task
/// is not encoded a second time).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub version: u64,
    pub push_configs: Vec<PushNotificationConfig>,
    pub json: TaskJson,
}

/// What [`TaskStore::set_push_config`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushConfigSet {
    /// The config is stored (added, or replacing the one with its id).
    Stored,
    /// Not stored: the task already has as many configs as it may.
    Full,
}

/// What [`TaskStore::erase_owner`] deleted: the owner's tasks, the
/// contexts they were in (a context is nothing but its tasks), and the push
/// configs they held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErasedTasks {
    pub tasks: u64,
    pub contexts: u64,
    pub push_configs: u64,
}

/// A store fault's cause, kept for the log (never for the caller); shared,
/// since one failed group commit fails every write in it.
pub type StoreFault = std::sync::Arc<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error("task {0} already exists")]
    AlreadyExists(String),
    #[error("task {0} not found")]
    NotFound(String),
    #[error("task {0} was changed by another request")]
    Conflict(String),
    #[error("task {0} is in a terminal state and cannot change")]
    Terminal(String),
    /// The store did not answer (the database is down, the pool timed out,
    /// the writer stopped): trying again later may work.
    #[error("task store unavailable: {0}")]
    Unavailable(#[source] StoreFault),
    /// What the store holds, or was given to hold, is not what it should
    /// be (a row that does not decode): trying again reads the same.
    #[error("task store: {what} is unreadable: {source}")]
    Corrupt {
        what: String,
        source: std::sync::Arc<serde_json::Error>,
    },
    /// A stored task whose body does not read back; its owner (a column of
    /// its own) is known, so only the owner is told it exists.
    #[error("task store: task {id} is unreadable: {source}")]
    UnreadableTask {
        id: String,
        owner: Option<String>,
        source: std::sync::Arc<serde_json::Error>,
    },
    /// A task larger than any store reads back: it is not written.
    #[error("task {id} would be {bytes} bytes as JSON, more than the {limit} a task may have")]
    TooLarge {
        id: String,
        bytes: usize,
        limit: usize,
    },
    /// The disk (or the database) is full: nothing is written until space
    /// returns. Not worth the turn's retries (seconds every caller would
    /// wait); the store takes writes again by itself once there is room.
    #[error("task store: no space left: {0}")]
    DiskFull(#[source] StoreFault),
    /// The store holds as many open tasks as it may (in-memory store): a
    /// new one is refused rather than another task dropped.
    #[error("the task store holds {0} open tasks, as many as it may")]
    Full(usize),
}

/// A database known down is a store that does not answer.
impl From<crate::db::DatabaseDown> for StoreError {
    fn from(down: crate::db::DatabaseDown) -> Self {
        StoreError::unavailable(down)
    }
}

impl StoreError {
    /// The class of the error, as `error.type` and the store's metrics
    /// name it.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::AlreadyExists(_) => "already_exists",
            StoreError::NotFound(_) => "not_found",
            StoreError::Conflict(_) => "conflict",
            StoreError::Terminal(_) => "terminal",
            StoreError::Unavailable(_) => "unavailable",
            StoreError::Corrupt { .. } => "corrupt",
            StoreError::UnreadableTask { .. } => "unreadable_task",
            StoreError::TooLarge { .. } => "too_large",
            StoreError::DiskFull(_) => "disk_full",
            StoreError::Full(_) => "full",
        }
    }

    /// A race another writer won (a stale version, a task already ended):
    /// how optimistic writes work, not a fault of the store.
    pub fn is_race(&self) -> bool {
        matches!(self, StoreError::Conflict(_) | StoreError::Terminal(_))
    }

    /// The store did not answer; `cause` says why, for the log.
    pub fn unavailable(cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        StoreError::Unavailable(std::sync::Arc::new(cause))
    }

    /// Whether the store refused the call because its database is known
    /// down: said once in the log when it went down, not again per call.
    pub fn while_known_down(&self) -> bool {
        match self {
            StoreError::Unavailable(fault) => crate::db::DatabaseDown::is_in(fault.as_ref()),
            _ => false,
        }
    }

    /// Whether trying again may help: only a store that did not answer,
    /// and not one whose database is known down (its probe says when it
    /// is back; tries within the next seconds would only make the caller
    /// wait). A value that does not decode decodes no better a second time.
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Unavailable(_)) && !self.while_known_down()
    }

    /// `what` (`task t`, `push configs`) does not encode or decode.
    pub fn corrupt(what: impl Into<String>, source: serde_json::Error) -> Self {
        StoreError::Corrupt {
            what: what.into(),
            source: std::sync::Arc::new(source),
        }
    }
}

/// Two errors are equal when they are the same kind about the same task
/// (faults: when they say the same), so tests can compare results.
impl PartialEq for StoreError {
    fn eq(&self, other: &Self) -> bool {
        use StoreError::*;
        match (self, other) {
            (AlreadyExists(a), AlreadyExists(b))
            | (NotFound(a), NotFound(b))
            | (Conflict(a), Conflict(b))
            | (Terminal(a), Terminal(b)) => a == b,
            (Unavailable(_), Unavailable(_))
            | (DiskFull(_), DiskFull(_))
            | (Corrupt { .. }, Corrupt { .. })
            | (UnreadableTask { .. }, UnreadableTask { .. })
            | (TooLarge { .. }, TooLarge { .. })
            | (Full(_), Full(_)) => self.to_string() == other.to_string(),
            _ => false,
        }
    }
}

#[async_trait]
pub trait TaskStore: Send + Sync {
    /// The task, or `None` when unknown or evicted.
    async fn get(&self, task_id: &str) -> Result<Option<StoredTask>, StoreError>;

    /// Store a new task with its push configs (its version is 1) and its
    /// owner (the key of the caller who created it; `None` only with
    /// authentication off). A task created `submitted` or `working` is
    /// leased to this instance.
    async fn create(
        &self,
        task: &Task,
        push_configs: &[PushNotificationConfig],
        owner: Option<&str>,
    ) -> Result<Written, StoreError>;

    /// The task `owner`'s message `message_id` opened (see
    /// [`opening_message_id`]), if it is still held: a repeated message is
    /// answered with it instead of opening a second task. Kept with the
    /// task itself (written by the same `create`, gone when it goes), so
    /// the two never disagree.
    async fn opened_by(
        &self,
        owner: Option<&str>,
        message_id: &str,
    ) -> Result<Option<String>, StoreError>;

    /// Whether some task of `context_id` belongs to anyone but `owner`
    /// (a task without an owner counts as someone else's): such a context
    /// is not `owner`'s to join.
    async fn context_held_by_another(
        &self,
        context_id: &str,
        owner: &str,
    ) -> Result<bool, StoreError>;

    /// How many open (not terminal) tasks `owner` has (`None`: the tasks
    /// created with authentication off), counted up to `at_most`.
    async fn open_tasks_of(&self, owner: Option<&str>, at_most: u64) -> Result<u64, StoreError>;

    /// Open tasks that have waited in `input-required` since before
    /// `before_ms` (Unix ms), oldest first, at most `at_most` of them.
    async fn waiting_since(&self, before_ms: i64, at_most: u64) -> Result<Vec<String>, StoreError>;

    /// One page of tasks, newest status change first, as `query` filters
    /// and scopes them.
    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError>;

    /// Replace the task if it is still at `expected_version` and not
    /// terminal. A task left `submitted` or `working` is leased to this
    /// instance (see [`TaskStore::expired_leases`]).
    async fn update(&self, task: &Task, expected_version: u64) -> Result<Written, StoreError>;

    /// Add or replace (by id) one push config of an existing task, in one
    /// step with the bound: a config with a new id is not added when the
    /// task already has `most` configs ([`PushConfigSet::Full`]), so two
    /// sets racing for the last place cannot both take it. Replacing a
    /// config by its id is always allowed; nothing stored is removed.
    async fn set_push_config(
        &self,
        task_id: &str,
        config: &PushNotificationConfig,
        most: usize,
    ) -> Result<PushConfigSet, StoreError>;

    /// The task's push configs (empty for an unknown task).
    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, StoreError>;

    /// Remove one push config; `false` when there was none with that id.
    async fn delete_push_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError>;

    /// Delete every task of `owner` in one atomic step, whatever its state
    /// (finished, waiting, a turn running now): with them go their push
    /// configs, which live with the task, and their contexts, which are
    /// nothing but their tasks. A turn that runs while this deletes its
    /// task finds it gone when it writes its result (`NotFound`): nothing
    /// of it is stored. Tasks of other owners, and tasks without an owner,
    /// are untouched. Deleting twice deletes nothing the second time.
    async fn erase_owner(&self, owner: &str) -> Result<ErasedTasks, StoreError>;

    /// Whether the last write failed for want of space (and none has
    /// succeeded since): what `/health` shows, without failing the check.
    fn out_of_space(&self) -> bool {
        false
    }

    /// Whether the database behind the store is known down (every call
    /// refused at once until a probe finds it back): what `/health`
    /// shows, without failing the check.
    fn database_down(&self) -> bool {
        false
    }

    /// Extend this instance's lease on tasks whose turns still run here.
    async fn renew_leases(&self, _task_ids: &[String]) -> Result<(), StoreError> {
        Ok(())
    }

    /// Open tasks whose lease ran out: the instance running the turn died.
    async fn expired_leases(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    /// Delete tasks that finished before `before_ms` (Unix ms); returns how
    /// many went.
    async fn purge_finished(&self, _before_ms: i64) -> Result<u64, StoreError> {
        Ok(0)
    }

    /// Delete each caller's oldest finished tasks past its cap (`caps`;
    /// waiting tasks are never touched), for the callers who finished a
    /// task since the last trim; returns how many went. The memory store
    /// trims as a task finishes, by its own limits: nothing is left to
    /// delete here.
    async fn trim_finished(&self, _caps: FinishedCaps) -> Result<u64, StoreError> {
        Ok(0)
    }

    /// How many tasks are open (not terminal: working, waiting for an
    /// answer), of every owner and instance: the `a2a.tasks.open` gauge,
    /// read at each maintenance sweep. `None` for a store that cannot say.
    async fn count_open(&self) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }
}

/// Add `config` to a task's `configs`, replacing the one with its id, unless
/// it is new and the task already has `most`: the one rule every store
/// applies inside its own atomic step.
pub(crate) fn add_push_config(
    configs: &mut Vec<PushNotificationConfig>,
    config: &PushNotificationConfig,
    most: usize,
) -> PushConfigSet {
    let replaces = configs.iter().any(|c| c.id == config.id);
    if !replaces && configs.len() >= most {
        return PushConfigSet::Full;
    }
    configs.retain(|c| c.id != config.id);
    configs.push(config.clone());
    PushConfigSet::Stored
}

/// The longest `messageId` a store remembers a task by: the longest a
/// client may send (-32602 past it, `a2a::decode`), so every message is
/// remembered; kept here too so an index key stays small whatever the
/// decoder allows.
pub const MAX_REMEMBERED_MESSAGE_ID: usize = crate::a2a::decode::MAX_ID_BYTES;

/// The `messageId` a new task is remembered by: its first message, when
/// that is the caller's (a follow-up task the agent opens has none) and
/// its id is at most [`MAX_REMEMBERED_MESSAGE_ID`] bytes.
pub(crate) fn opening_message_id(task: &Task) -> Option<&str> {
    task.history
        .as_ref()
        .and_then(|history| history.first())
        .filter(|message| message.role == crate::a2a::Role::User)
        .map(|message| message.message_id.as_str())
        .filter(|id| !id.is_empty() && id.len() <= MAX_REMEMBERED_MESSAGE_ID)
}

/// Room for a typical task's JSON (3–6 kB with its answer and proposal):
/// serialized into a buffer this size, it is not grown step by step
/// (about ten reallocations and copies otherwise; see bench/README.md).
const TASK_JSON_CAPACITY: usize = 8 * 1024;

/// The largest task any store writes, and reads back, as JSON (16 MiB):
/// a store never writes what it cannot read. Far above what the engine
/// lets a task grow to (`tasks.max_task_bytes`, 1 MiB by default), so a
/// task that got here is refused, not cut.
pub const MAX_TASK_JSON_BYTES: usize = 16 * 1024 * 1024;

/// `task` as [`TaskJson`]; a task that does not encode is corrupt, one
/// larger than [`MAX_TASK_JSON_BYTES`] is refused before it is written.
pub(crate) fn encode_task(task: &Task) -> Result<TaskJson, StoreError> {
    let json =
        task_json(task).map_err(|error| StoreError::corrupt(format!("task {}", task.id), error))?;
    if json.len() > MAX_TASK_JSON_BYTES {
        return Err(StoreError::TooLarge {
            id: task.id.clone(),
            bytes: json.len(),
            limit: MAX_TASK_JSON_BYTES,
        });
    }
    Ok(TaskJson::from(json))
}

/// A stored task's body did not decode: what `get` answers, with the owner
/// the row names.
pub(crate) fn unreadable_task(
    id: &str,
    owner: Option<String>,
    source: serde_json::Error,
) -> StoreError {
    StoreError::UnreadableTask {
        id: id.to_string(),
        owner,
        source: std::sync::Arc::new(source),
    }
}

/// A listing met a task that does not read back: it leaves it out of the
/// page (the rest of the page is still the caller's) and says so in the log.
pub(crate) fn skipped_unreadable(task_id: &str, error: &StoreError) {
    tracing::error!(
        a2a.task.id = %task_id,
        %error,
        "a listing skipped a task that does not read back"
    );
}

/// `value` as compact JSON, the form every store keeps a task in.
pub(crate) fn task_json<T: serde::Serialize>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(TASK_JSON_CAPACITY);
    serde_json::to_writer(&mut out, value)?;
    // serde_json writes UTF-8 only.
    String::from_utf8(out).map_err(serde::ser::Error::custom)
}
