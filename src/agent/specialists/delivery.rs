//! Delivery blocks: the customer asked for another date.

use super::{Skill, Specialist, not_mine, proposing};
use crate::agent::{Action, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;
use serde_json::{Map, json};

static SKILL: Skill = Skill {
    id: "delivery",
    name: "Delivery block",
    description: "Explains a delivery block on a sales order, for example when the customer \
                  asked for a later delivery date, and proposes a delivery date change.",
    tags: &[
        "delivery block",
        "delivery date",
        "later date",
        "reschedule",
    ],
    examples: &[
        "customer wants a later delivery date on 4740",
        "Delivery block: customer asked for a later date.",
    ],
};

pub struct Delivery;

#[async_trait]
impl Specialist for Delivery {
    fn skill(&self) -> &'static Skill {
        &SKILL
    }

    fn proposes(&self) -> Action {
        Action::RequestDeliveryDateChange
    }

    fn handles(&self) -> crate::backend::BlockKind {
        crate::backend::BlockKind::Delivery
    }

    async fn explain(
        &self,
        order: &SalesOrder,
        _orders: &dyn OrderSource,
    ) -> Result<Reply, BackendError> {
        if !order.delivery_blocked() {
            return Ok(not_mine(order, "blocked for delivery"));
        }
        let text = format!(
            "Sales order {} (customer {}) has a delivery block (reason {}): \"{}\" The new delivery \
             date is to be confirmed with the customer before the block is lifted. Proposed action: \
             request a delivery date change for order {}.",
            order.sales_order,
            order.sold_to_party,
            order.delivery_block_reason,
            order.block_note,
            order.sales_order
        );
        let mut details = Map::new();
        details.insert("customer".into(), json!(order.sold_to_party));
        details.insert(
            "deliveryBlockReason".into(),
            json!(order.delivery_block_reason),
        );
        details.insert("newDate".into(), json!("to be confirmed with the customer"));
        if !order.etag.is_empty() {
            details.insert("etag".into(), json!(order.etag));
        }
        Ok(proposing(
            self,
            order,
            text,
            format!(
                "Request a delivery date change for sales order {}",
                order.sales_order
            ),
            details,
        ))
    }
}
