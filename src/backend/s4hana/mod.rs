//! The S/4HANA order source: OData V2 reads of the released APIs
//! (`reference/s4hana.md` §1), as the calling user, mapped to the
//! normalised order the specialists read.
//!
//! Round trips per question: the order with its items, texts and partners
//! in one `$expand`/`$select` read; then what the answer needs of it, each
//! part with the reads it alone takes: the partners' addresses (in
//! parallel) only where the block note or the incompletion is asked for,
//! the credit limit and the open items in parallel, the price list in the
//! two-query pattern. What counts as which block is
//! [`BlockRules`](crate::backend::BlockRules). A turn gets its own reader
//! (`reader`, through
//! [`OrderSource::as_user`](crate::backend::OrderSource::as_user)): the
//! user's token, the resolved target and the orders once read (by number
//! or by the blocked-orders query) stay in it and are never shared with
//! another user or turn. The source itself is `source`, what its readers
//! and writers share `shared`, an order as read `loaded`; customers found
//! by name (`A_Customer`) are `customers`. The reads of a business
//! partner's personal data are data accesses for the audit log
//! (`audited`, the turn's reader holds its access log).

mod audited;
pub mod connectivity;
mod customers;
pub mod diagnose;
mod loaded;
mod odata;
mod reader;
mod reads;
pub mod setup;
mod shared;
mod source;
pub mod transport;
pub mod writes;

pub use audited::business_partner;
pub use setup::build;
pub use shared::S4Shared;
pub use source::S4HanaSource;
