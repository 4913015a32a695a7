//! Several orders in one request: "why are 4711, 4723 and 4725 stuck?",
//! "show me all blocked orders", "credit blocks of customer 10023". The
//! request is recognised ([`request`]), each order goes to the specialist
//! its own block calls for, all in parallel with a timeout each
//! ([`fan_out`]), and the answer has one line per order and a data
//! artifact of per-order results ([`answer`]). What the caller may approve
//! is offered together (`approval::batch`).

pub mod answer;
pub mod fan_out;
mod report;
pub mod request;

pub use report::{BatchItem, BatchReport, ItemState};
pub use request::{BatchRequest, beyond_reach, recognise};
