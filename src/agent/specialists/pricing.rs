//! Price disputes: billed price against the customer's price list; the
//! customer's note is quoted as data.

use super::answers::{not_mine, proposing, quote};
use super::{Skill, Specialist, say};
use crate::agent::language::{Language, locale};
use crate::agent::{Action, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;
use serde_json::{Map, json};

static SKILL: Skill = Skill {
    id: "pricing",
    name: "Price dispute",
    description: "Explains a price dispute on a sales order: the billed price against the \
                  customer's price list, the difference, and what the customer says. Proposes \
                  a dispute case.",
    tags: &[
        "pricing",
        "price",
        "price dispute",
        "price list",
        "billed price",
    ],
    examples: &[
        "the customer disputes the price on 4725",
        "check the billed price of 4725 against the price list",
        "Pricing: customer disputes the price.",
    ],
};

pub struct Pricing;

#[async_trait]
impl Specialist for Pricing {
    fn skill(&self) -> &'static Skill {
        &SKILL
    }

    fn proposes(&self) -> Action {
        Action::OpenDisputeCase
    }

    fn handles(&self) -> crate::backend::BlockKind {
        crate::backend::BlockKind::PriceDispute
    }

    /// A price dispute shows in the billing block, and the answer needs
    /// the price list and the customer's note, not the block note.
    fn answers_from_fields(&self, order: &SalesOrder) -> bool {
        order.price_disputed()
    }

    async fn explain(
        &self,
        order: &SalesOrder,
        orders: &dyn OrderSource,
        language: Language,
    ) -> Result<Reply, BackendError> {
        if !order.price_disputed() {
            return Ok(not_mine(order, SKILL.id, language));
        }
        let mut lines = Vec::new();
        let mut items = Vec::new();
        for item in &order.items {
            let listed = orders
                .list_price(&order.sold_to_party, &item.material)
                .await?;
            match listed {
                Some(price) => {
                    let difference = item.billed_price() - price.condition_rate_value;
                    lines.push(say(
                        language,
                        "pricing-item-listed",
                        &[
                            ("item", item.sales_order_item.as_str().into()),
                            ("material", item.material.as_str().into()),
                            (
                                "billed",
                                locale::amount(language, item.billed_price()).into(),
                            ),
                            ("currency", order.transaction_currency.as_str().into()),
                            (
                                "listed",
                                locale::amount(language, price.condition_rate_value).into(),
                            ),
                            ("listCurrency", price.condition_currency.as_str().into()),
                            ("difference", locale::amount(language, difference).into()),
                        ],
                    ));
                    items.push(json!({
                        "item": item.sales_order_item,
                        "material": item.material,
                        "billed": item.billed_price().to_string(),
                        "listPrice": price.condition_rate_value.to_string(),
                        "difference": difference.to_string(),
                    }));
                }
                None => {
                    lines.push(say(
                        language,
                        "pricing-item-unlisted",
                        &[
                            ("item", item.sales_order_item.as_str().into()),
                            ("material", item.material.as_str().into()),
                            (
                                "billed",
                                locale::amount(language, item.billed_price()).into(),
                            ),
                            ("currency", order.transaction_currency.as_str().into()),
                        ],
                    ));
                    items.push(json!({
                        "item": item.sales_order_item,
                        "material": item.material,
                        "billed": item.billed_price().to_string(),
                    }));
                }
            }
        }
        let mut text = say(
            language,
            "pricing-explained",
            &[
                ("order", order.sales_order.as_str().into()),
                ("customer", order.sold_to_party.as_str().into()),
                ("items", lines.join("; ").into()),
            ],
        );
        if !order.customer_note.is_empty() {
            // The note as received, in whatever language the customer wrote it.
            text.push(' ');
            text.push_str(&say(
                language,
                "pricing-customer-note",
                &[("note", quote(&order.customer_note).into())],
            ));
        }
        text.push(' ');
        text.push_str(&say(
            language,
            "pricing-proposed",
            &[("order", order.sales_order.as_str().into())],
        ));
        let mut details = Map::new();
        details.insert("customer".into(), json!(order.sold_to_party));
        details.insert("currency".into(), json!(order.transaction_currency));
        details.insert("items".into(), json!(items));
        if !order.customer_note.is_empty() {
            details.insert("customerNote".into(), json!(order.customer_note));
        }
        Ok(proposing(
            self,
            order,
            text,
            format!("Open a dispute case for sales order {}", order.sales_order),
            details,
        ))
    }
}
