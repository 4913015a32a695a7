//! Delivery blocks: the customer asked for another date.

use super::answers::{not_mine, proposing};
use super::{Skill, Specialist, say};
use crate::agent::language::Language;
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
        language: Language,
    ) -> Result<Reply, BackendError> {
        if !order.delivery_blocked() {
            return Ok(not_mine(order, SKILL.id, language));
        }
        let text = say(
            language,
            "delivery-explained",
            &[
                ("order", order.sales_order.as_str().into()),
                ("customer", order.sold_to_party.as_str().into()),
                ("reason", order.delivery_block_reason.as_str().into()),
                ("note", order.block_note.as_str().into()),
            ],
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
