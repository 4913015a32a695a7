//! The action ledger: one row per request, written exactly once. A request
//! is an [`ActionKey`]: the order, the action, the order's version as it was
//! read when the action was proposed, and what it asks for (a delivery
//! date). Filing relies on the store's unique key, never on read-then-write,
//! so a retry or fifty concurrent approvals of one request file one row and
//! the rest learn it was already filed; a request made after the order
//! changed files a row of its own.
//!
//! At most one row per order and action is open (`recorded` or `retrying`)
//! at a time, also a unique key of the store: a new request replaces an
//! open row of an earlier one that nobody is carrying out right now (it
//! becomes `superseded`: it was approved for a state of the order that is
//! gone, and two open rows could write over each other in S/4HANA), and
//! waits while an executor holds one ([`Filing::EarlierOpen`]).
//!
//! The row written first is the only thing that decides whether an action
//! happens; carrying it out then moves it `recorded` → `done` | `failed` |
//! `retrying` under a claim (a lease on the row), so one executor at a time
//! works on it, on any instance ([`ActionLedger::claim`]).

#[cfg(test)]
pub(crate) mod contract;
mod entry;
mod key;
mod memory;
mod query;
mod sql;
mod state;

pub use entry::{ActionLedger, Filing, LedgerEntry, LedgerError, RowsByState};
pub use key::ActionKey;
pub use memory::MemoryLedger;
pub use query::{DEFAULT_PAGE_ROWS, LedgerCursor, LedgerQuery, MAX_PAGE_ROWS};
pub use sql::SqlLedger;
pub use state::{Claim, ExecutionState, Finish};
