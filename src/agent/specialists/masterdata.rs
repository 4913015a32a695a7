//! Incomplete orders: which master data fields are missing.

use super::answers::{not_mine, proposing};
use super::{Skill, Specialist, say};
use crate::agent::language::Language;
use crate::agent::{Action, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;
use serde_json::{Map, json};

static SKILL: Skill = Skill {
    id: "masterdata",
    name: "Incomplete order / master data",
    description: "Finds which master data an incomplete sales order is missing, such as the \
                  street or postal code of the delivery address, and proposes a master data \
                  change.",
    tags: &[
        "master data",
        "incomplete",
        "missing data",
        "address",
        "incompletion log",
    ],
    examples: &[
        "order 4723 is incomplete",
        "what address data is missing on 4723",
        "Incomplete: delivery address data missing.",
    ],
};

pub struct MasterData;

#[async_trait]
impl Specialist for MasterData {
    fn skill(&self) -> &'static Skill {
        &SKILL
    }

    fn proposes(&self) -> Action {
        Action::RequestMasterDataChange
    }

    fn handles(&self) -> crate::backend::BlockKind {
        crate::backend::BlockKind::MasterData
    }

    async fn explain(
        &self,
        order: &SalesOrder,
        orders: &dyn OrderSource,
        language: Language,
    ) -> Result<Reply, BackendError> {
        let gaps = orders.incompletion(&order.sales_order).await?;
        if gaps.is_empty() {
            return Ok(not_mine(order, SKILL.id, language));
        }
        let fields: Vec<String> = gaps
            .iter()
            .flat_map(|gap| gap.missing_fields.iter().cloned())
            .collect();
        let described: Vec<String> = gaps
            .iter()
            .map(|gap| {
                say(
                    language,
                    "masterdata-gap",
                    &[
                        ("object", gap.object.as_str().into()),
                        ("partner", gap.business_partner.as_str().into()),
                        ("fields", gap.missing_fields.join(", ").into()),
                    ],
                )
            })
            .collect();
        let partner = gaps
            .first()
            .map(|gap| gap.business_partner.clone())
            .unwrap_or_else(|| order.sold_to_party.clone());
        let text = say(
            language,
            "masterdata-explained",
            &[
                ("order", order.sales_order.as_str().into()),
                ("gaps", described.join("; ").into()),
                ("partner", partner.as_str().into()),
                ("fields", fields.join(", ").into()),
            ],
        );
        let mut details = Map::new();
        details.insert("businessPartner".into(), json!(partner));
        details.insert("fields".into(), json!(fields));
        details.insert(
            "objects".into(),
            json!(
                gaps.iter()
                    .map(|gap| gap.object.clone())
                    .collect::<Vec<_>>()
            ),
        );
        Ok(proposing(
            self,
            order,
            text,
            format!(
                "Request a master data change for business partner {partner} ({})",
                fields.join(", ")
            ),
            details,
        ))
    }
}
