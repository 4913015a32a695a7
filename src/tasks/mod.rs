//! Tasks: the engine that runs agent turns (lifecycle, turn runner, budget
//! waiter, reply mapping, maintenance), and where tasks live (the
//! `TaskStore` trait, in memory or in SQL).

mod artifacts;
mod ask_again;
mod budget;
#[cfg(test)]
mod contract;
mod engine;
mod error;
mod events;
mod follow_up;
mod health;
mod language;
mod listing;
mod maintenance;
mod measured_store;
mod memory;
mod observer;
mod push_configs;
mod reply;
mod settings;
mod sql;
mod store;
mod turn;

pub use engine::TaskEngine;
pub use error::{EngineError, STORE_CORRUPT, STORE_UNAVAILABLE};
pub use events::{Answer, StreamEnd, TaskEvent, TaskStream};
pub use health::StoreHealth;
pub use listing::{OwnerScope, PageCursor, TaskPage, TaskQuery};
pub use maintenance::Maintenance;
pub use memory::InMemoryTaskStore;
pub use observer::{CallContext, CallRules, HeaderField, PushConfigError, TaskObserver};
pub use reply::{
    ResultPath, STILL_WORKING, STILL_WORKING_ASK_AGAIN, STILL_WORKING_READ_LATER, working_note,
};
pub use settings::{MemoryStoreLimits, TaskSettings};
pub use sql::SqlTaskStore;
pub use store::{PushConfigSet, StoreError, StoredTask, TaskJson, TaskStore, Written};
