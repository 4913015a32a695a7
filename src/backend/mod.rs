//! Where the specialists read orders, credit, prices and missing fields.
//! `OrderSource` is the seam: the embedded demo data, or S/4HANA's OData V2
//! APIs read as the calling user ([`s4hana`]). The specialists read the
//! normalised types of `source`, never OData; what counts as which block is
//! [`BlockRules`] (settings), not code.

mod amount;
mod embedded;
mod rules;
pub mod s4hana;
pub mod settings;
mod source;
mod subject;

pub use amount::Amount;
pub use embedded::EmbeddedOrders;
pub use rules::BlockRules;
pub use settings::{BackendSettings, S4HanaSettings, SourceKind};
pub use source::{
    BackendError, BlockField, BlockKind, BlockedQuery, Blocks, CreditAccount, Customer,
    Incompletion, MAX_NAME_PART, OrderSource, PriceCondition, ReadIdentity, ReadingUser, Refusal,
    SalesOrder, SalesOrderItem, SourceInfo, UnconfiguredBlock,
};
pub use subject::Subject;
