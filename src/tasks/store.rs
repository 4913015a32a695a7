//! The `TaskStore` trait: what the engine needs from any place tasks live in
//! (memory now; SQLite and PostgreSQL later).

use crate::a2a::Task;
use async_trait::async_trait;

/// A task with the version it was read at. Updates name the version they
/// started from, so two writers cannot silently overwrite each other.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    pub task: Task,
    pub version: u64,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum StoreError {
    #[error("task {0} already exists")]
    AlreadyExists(String),
    #[error("task {0} not found")]
    NotFound(String),
    #[error("task {0} was changed by another request")]
    Conflict(String),
    #[error("task {0} is in a terminal state and cannot change")]
    Terminal(String),
    #[error("task store unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait TaskStore: Send + Sync {
    /// The task, or `None` when unknown or evicted.
    async fn get(&self, task_id: &str) -> Result<Option<StoredTask>, StoreError>;

    /// Store a new task; returns its version (1).
    async fn create(&self, task: &Task) -> Result<u64, StoreError>;

    /// Replace the task if it is still at `expected_version` and not
    /// terminal; returns the new version.
    async fn update(&self, task: &Task, expected_version: u64) -> Result<u64, StoreError>;
}
