//! Credit blocks: open items against the credit limit, and who decides.

use super::{Skill, Specialist, not_mine, proposing};
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
    ) -> Result<Reply, BackendError> {
        if !order.credit_blocked() {
            return Ok(not_mine(order, "blocked by the credit check"));
        }
        let Some(account) = orders.credit_account(&order.sold_to_party).await? else {
            return Ok(Reply::new(
                Outcome::Failed,
                format!(
                    "Sales order {} is blocked by the credit check, but customer {} has no credit account.",
                    order.sales_order, order.sold_to_party
                ),
            ));
        };
        let percent_over = account
            .open_items_amount
            .percent_over(account.credit_limit_amount)
            .unwrap_or(0.0);
        let decider = if percent_over <= CREDIT_MANAGER_MAX_PERCENT {
            "credit manager"
        } else {
            "head of finance"
        };
        let standing = if percent_over > 0.0 {
            format!("{percent_over} percent over the limit")
        } else {
            "within the limit".to_string()
        };
        let text = format!(
            "Sales order {order_no} (customer {customer}, {amount} {currency}) is blocked by the credit check: \
             the customer's open items are {open} {acc_currency} against a credit limit of {limit} {acc_currency}, \
             {standing}. Up to {max} percent over, the credit manager decides; above, the head of finance. \
             So the {decider} decides. Proposed action: request a credit review for order {order_no}.",
            order_no = order.sales_order,
            customer = order.sold_to_party,
            amount = order.total_net_amount,
            currency = order.transaction_currency,
            open = account.open_items_amount,
            limit = account.credit_limit_amount,
            acc_currency = account.currency,
            max = CREDIT_MANAGER_MAX_PERCENT,
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
