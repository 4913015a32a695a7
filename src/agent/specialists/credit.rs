//! Credit blocks: open items against the credit limit, and who decides.

use super::answers::{not_mine, proposing};
use super::{Skill, Specialist, say};
use crate::agent::language::{Language, locale};
use crate::agent::{Action, Outcome, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;
use serde_json::{Map, json};

static SKILL: Skill = Skill {
    id: "credit",
    name: "Credit block",
    description: "Explains why a sales order is blocked by the credit check: the customer's open \
                  items against the credit limit, how far over the limit they are, and who may \
                  release it. Proposes a credit review.",
    tags: &[
        "credit",
        "credit block",
        "credit limit",
        "credit check",
        "open items",
    ],
    examples: &[
        "why is order 4711 blocked by credit",
        "customer 10023 is over the credit limit on 4711",
        "Blocked by the credit check.",
    ],
};

/// Up to this many percent over the limit the credit manager decides.
const CREDIT_MANAGER_MAX_PERCENT: f64 = 5.0;

pub struct Credit;

#[async_trait]
impl Specialist for Credit {
    fn skill(&self) -> &'static Skill {
        &SKILL
    }

    fn proposes(&self) -> Action {
        Action::RequestCreditReview
    }

    fn handles(&self) -> crate::backend::BlockKind {
        crate::backend::BlockKind::Credit
    }

    /// A credit block shows in the order's credit check status, and the
    /// answer needs the customer's credit account, not the block note.
    fn answers_from_fields(&self, order: &SalesOrder) -> bool {
        order.credit_blocked()
    }

    async fn explain(
        &self,
        order: &SalesOrder,
        orders: &dyn OrderSource,
        language: Language,
    ) -> Result<Reply, BackendError> {
        if !order.credit_blocked() {
            return Ok(not_mine(order, SKILL.id, language));
        }
        let Some(account) = orders.credit_account(&order.sold_to_party).await? else {
            return Ok(Reply::new(
                Outcome::Failed,
                say(
                    language,
                    "credit-no-account",
                    &[
                        ("order", order.sales_order.as_str().into()),
                        ("customer", order.sold_to_party.as_str().into()),
                    ],
                ),
            ));
        };
        let percent_over = account
            .open_items_amount
            .percent_over(account.credit_limit_amount)
            .unwrap_or(0.0);
        let (decider, decider_id) = if percent_over <= CREDIT_MANAGER_MAX_PERCENT {
            ("credit manager", "credit-manager")
        } else {
            ("head of finance", "head-of-finance")
        };
        let standing = if percent_over > 0.0 { "over" } else { "within" };
        let text = say(
            language,
            "credit-explained",
            &[
                ("order", order.sales_order.as_str().into()),
                ("customer", order.sold_to_party.as_str().into()),
                (
                    "amount",
                    locale::amount(language, order.total_net_amount).into(),
                ),
                ("currency", order.transaction_currency.as_str().into()),
                (
                    "open",
                    locale::amount(language, account.open_items_amount).into(),
                ),
                (
                    "limit",
                    locale::amount(language, account.credit_limit_amount).into(),
                ),
                ("accountCurrency", account.currency.as_str().into()),
                ("standing", standing.into()),
                ("percent", locale::number(language, percent_over).into()),
                (
                    "max",
                    locale::number(language, CREDIT_MANAGER_MAX_PERCENT).into(),
                ),
                ("decider", decider_id.into()),
            ],
        );
        let mut details = Map::new();
        details.insert("customer".into(), json!(order.sold_to_party));
        details.insert(
            "creditLimit".into(),
            json!(account.credit_limit_amount.to_string()),
        );
        details.insert(
            "openItems".into(),
            json!(account.open_items_amount.to_string()),
        );
        details.insert("currency".into(), json!(account.currency));
        details.insert("percentOver".into(), json!(percent_over));
        details.insert("decider".into(), json!(decider));
        Ok(proposing(
            self,
            order,
            text,
            format!(
                "Request a credit review for sales order {}",
                order.sales_order
            ),
            details,
        ))
    }
}
