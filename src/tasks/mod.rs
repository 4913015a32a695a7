//! Tasks: the lifecycle engine that runs agent turns, and where tasks live.

#[cfg(test)]
mod contract;
mod engine;
mod memory;
mod observer;
mod sql;
mod store;

pub use engine::{
    EngineError, EngineSettings, Maintenance, STILL_WORKING, TaskEngine, TaskEvent, TaskStream,
    working_note,
};
pub use memory::{InMemoryTaskStore, MemoryStoreLimits};
pub use observer::{CallContext, TaskObserver};
pub use sql::SqlTaskStore;
pub use store::{StoreError, StoredTask, TaskStore, Written};
