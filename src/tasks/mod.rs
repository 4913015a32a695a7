//! Tasks: the lifecycle engine that runs agent turns, and where tasks live.

mod engine;
mod memory;
mod observer;
mod sql;
mod store;

pub use engine::{EngineError, EngineSettings, Maintenance, TaskEngine, TaskEvent, TaskStream};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use observer::{CallContext, TaskObserver};
pub use sql::SqlTaskStore;
pub use store::{StoreError, StoredTask, TaskStore, Written};
