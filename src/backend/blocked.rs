//! The query for blocked orders that a batch request asks ("all blocked
//! orders", "of customer 10023", "credit blocks"): its filter by customer
//! and by kind of block, its bound, and the one selection every source
//! applies to the orders it found, so the sources answer it alike.

use super::SalesOrder;
use serde::{Deserialize, Serialize};

/// A kind of block, as [`Blocks`](super::Blocks) records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    Credit,
    PriceDispute,
    Incomplete,
    Delivery,
}

impl BlockKind {
    pub const ALL: [BlockKind; 4] = [
        BlockKind::Credit,
        BlockKind::PriceDispute,
        BlockKind::Incomplete,
        BlockKind::Delivery,
    ];

    /// How the answer names it: "credit blocks", "price disputes".
    pub fn plural(self) -> &'static str {
        match self {
            BlockKind::Credit => "credit blocks",
            BlockKind::PriceDispute => "price disputes",
            BlockKind::Incomplete => "incomplete orders",
            BlockKind::Delivery => "delivery blocks",
        }
    }
}

impl SalesOrder {
    /// Whether the order has a block of this kind.
    pub fn has_block(&self, kind: BlockKind) -> bool {
        match kind {
            BlockKind::Credit => self.blocks.credit,
            BlockKind::PriceDispute => self.blocks.price_dispute,
            BlockKind::Incomplete => self.blocks.incomplete,
            BlockKind::Delivery => self.blocks.delivery,
        }
    }

    /// The kinds of block the order has, in [`BlockKind::ALL`] order.
    pub fn block_kinds(&self) -> Vec<BlockKind> {
        BlockKind::ALL
            .into_iter()
            .filter(|kind| self.has_block(*kind))
            .collect()
    }
}

/// Which blocked orders, and at most how many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedQuery {
    /// Only this customer's (sold-to party) orders.
    pub customer: Option<String>,
    /// Only orders with this kind of block.
    pub kind: Option<BlockKind>,
    /// At most this many orders are returned; `total` counts them all.
    pub limit: usize,
}

impl BlockedQuery {
    /// Every blocked order, at most `limit`.
    pub fn all(limit: usize) -> BlockedQuery {
        BlockedQuery {
            customer: None,
            kind: None,
            limit,
        }
    }

    /// Whether a blocked order matches the filters.
    pub fn matches(&self, order: &SalesOrder) -> bool {
        self.customer
            .as_deref()
            .is_none_or(|customer| order.sold_to_party == customer)
            && self.kind.is_none_or(|kind| order.has_block(kind))
    }

    /// The matching orders of `blocked` (in the order given), bounded.
    pub fn select(&self, blocked: Vec<SalesOrder>) -> BlockedOrders {
        let matching: Vec<SalesOrder> = blocked
            .into_iter()
            .filter(|order| self.matches(order))
            .collect();
        let total = matching.len();
        BlockedOrders {
            orders: matching.into_iter().take(self.limit).collect(),
            total,
        }
    }
}

/// The answer to a [`BlockedQuery`]: the first `limit` matching orders in
/// order-number order, and how many matched in all.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockedOrders {
    pub orders: Vec<SalesOrder>,
    pub total: usize,
}
