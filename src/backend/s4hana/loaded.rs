//! One order as a turn read it from S/4HANA, with the partners whose
//! addresses are checked and how far that check got: what the reads
//! (`reads`) produce and the turn's reader (`reader`) keeps, in a leaf
//! both use.

use crate::backend::{Incompletion, SalesOrder};

/// A partner whose address is checked: function, business partner, address id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PartnerAddress {
    pub(super) function: String,
    pub(super) partner: String,
    pub(super) address_id: String,
}

/// One order as read: the order (its block note of its own fields), the
/// partners whose addresses are checked, and how far that check got.
#[derive(Clone)]
pub(crate) struct Loaded {
    pub(super) order: SalesOrder,
    pub(super) partners: Vec<PartnerAddress>,
    pub(super) addresses: AddressCheck,
}

/// The check of an order's partner addresses for missing fields.
#[derive(Clone)]
pub(crate) enum AddressCheck {
    /// Not made yet: nothing asked for it.
    NotRead,
    /// Made: the gaps found (none: complete).
    Read(Vec<Incompletion>),
    /// The addresses could not be read; the block note goes without.
    Failed,
}
