//! Several orders in one request: "why are 4711, 4723 and 4725 stuck?",
//! "show me all blocked orders", "credit blocks of customer 10023",
//! "which orders of Nordwind are blocked?". The request is recognised
//! ([`request`]; a customer's name in it, [`customer_name`], is resolved to
//! its number first, [`customer`]), each order goes to the specialist
//! its own block calls for, all in parallel with a timeout each
//! ([`fan_out`]), and the answer has one line per order and a data
//! artifact of per-order results ([`answer`]). What the caller may approve
//! is offered together (`approval::batch`).

pub mod answer;
pub mod customer;
pub mod customer_name;
pub mod fan_out;
mod report;
pub mod request;

pub use report::{BatchItem, BatchReport, ItemState};
pub use request::{BatchRequest, CustomerRef, answers_which_customer, beyond_reach, recognise};
