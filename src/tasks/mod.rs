//! Tasks: the engine that runs agent turns (lifecycle, turn runner, budget
//! waiter, reply mapping, maintenance), and where tasks live (the
//! `TaskStore` trait, in memory or in SQL). `engine.rs` is the top: it
//! uses the files beside it, and none of them uses it or each other in a
//! circle (`src/architecture_check.rs` holds the room to that).

mod artifacts;
mod ask_again;
mod budget;
mod call;
mod checks;
#[cfg(test)]
mod contract;
mod engine;
mod error;
mod events;
mod finished;
mod follow_up;
mod health;
mod language;
mod listing;
mod maintenance;
mod measured_store;
mod memory;
mod observer;
mod open_bound;
mod owner_realm;
mod push_configs;
mod repeat;
mod reply;
mod running;
mod settings;
mod shutdown;
mod sql;
mod store;
mod turn;

pub use call::{CallContext, CallRules};
pub use engine::TaskEngine;
pub use error::{EngineError, STORE_CORRUPT, STORE_UNAVAILABLE};
pub use events::{Answer, StreamEnd, TaskEvent, TaskStream};
pub use health::StoreHealth;
pub use listing::{OwnerScope, PageCursor, TaskPage, TaskQuery};
pub use maintenance::Maintenance;
pub use memory::InMemoryTaskStore;
pub use observer::{ConfigField, PushConfigError, TaskObserver};
pub use owner_realm::IdentityRealm;
pub use reply::{
    ResultPath, STILL_WORKING, STILL_WORKING_ASK_AGAIN, STILL_WORKING_READ_LATER, working_note,
};
pub use settings::TaskSettings;
pub use sql::SqlTaskStore;
pub use store::{PushConfigSet, StoreError, TaskStore};
