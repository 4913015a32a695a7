//! The specialist an order's own block calls for: its block status first
//! (credit check, billing block, delivery block; each specialist declares
//! the kind it handles), else its block note in the router's words
//! (missing master data shows there only). One rule for every place that
//! asks: each order of a batch, a question about one order whose words name
//! no kind of block, and the hint of a specialist that declines an order
//! of another kind. Above the router and the specialists, which it reads.

use super::router::Router;
use super::specialists::Specialist;
use crate::backend::{BlockKind, SalesOrder};

/// The kinds of block the order's status fields show (missing master data
/// shows in the block note only).
fn block_kinds(order: &SalesOrder) -> Vec<BlockKind> {
    [
        (order.credit_blocked(), BlockKind::Credit),
        (order.price_disputed(), BlockKind::PriceDispute),
        (order.delivery_blocked(), BlockKind::Delivery),
    ]
    .into_iter()
    .filter_map(|(blocked, kind)| blocked.then_some(kind))
    .collect()
}

/// The specialist of the first kind of block the order's status fields
/// show (credit check, billing block, delivery block).
pub fn by_status<'a>(
    specialists: &'a [Box<dyn Specialist>],
    order: &SalesOrder,
) -> Option<&'a dyn Specialist> {
    block_kinds(order)
        .into_iter()
        .find_map(|kind| {
            specialists
                .iter()
                .find(|specialist| specialist.handles() == kind)
        })
        .map(Box::as_ref)
}

/// The specialist for this order's own block: its block status first, then
/// its block note in the router's words; `None` when neither names one.
pub fn specialist_for<'a>(
    specialists: &'a [Box<dyn Specialist>],
    router: &Router,
    order: &SalesOrder,
) -> Option<&'a dyn Specialist> {
    by_status(specialists, order).or_else(|| {
        let id = router.route(&order.block_note).specialist?;
        specialists
            .iter()
            .find(|specialist| specialist.skill().id == id)
            .map(Box::as_ref)
    })
}

/// Whether the order shows no block at all: no block status and no note.
pub fn none(order: &SalesOrder) -> bool {
    order.block_note.trim().is_empty() && block_kinds(order).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::routing::{EvalCase, RoutingBasis};
    use crate::agent::specialists::{self, Skill};
    use crate::agent::text::find_sales_order;
    use crate::backend::{EmbeddedOrders, OrderSource};

    /// The cases of `data/routing_eval.json` whose words name no kind of
    /// block (`basis` `order-block`; the router's test holds that): each
    /// names one order, and the demo order's own block calls for the
    /// specialist the case expects, in every language.
    #[tokio::test]
    async fn a_question_naming_no_kind_goes_to_its_orders_own_block() {
        let cases = EvalCase::shipped();
        let all = specialists::all();
        let skills: Vec<&Skill> = all.iter().map(|s| s.skill()).collect();
        let router = Router::new(&skills);
        let orders = EmbeddedOrders::demo().unwrap();
        let mut languages = std::collections::BTreeSet::new();
        for case in cases
            .iter()
            .filter(|case| case.basis == Some(RoutingBasis::OrderBlock))
        {
            let number = find_sales_order(&case.text).unwrap_or_default();
            let order = orders.sales_order(&number).await.unwrap();
            let order = order.unwrap_or_else(|| panic!("{:?}: no order {number}", case.text));
            let own = specialist_for(&all, &router, &order).map(|s| s.skill().id);
            assert_eq!(own, case.expected.as_deref(), "{:?}", case.text);
            languages.insert(case.language.as_str());
        }
        assert_eq!(languages.len(), 4, "{languages:?}");
    }

    /// The question a declining specialist suggests (`own-block-ask`)
    /// reaches the specialist of that block by its words alone, in every
    /// language the service answers in.
    #[test]
    fn the_suggested_question_reaches_the_orders_own_specialist() {
        use crate::agent::language::Language;
        use crate::agent::language::catalog::{answering, text as say};
        let all = specialists::all();
        let skills: Vec<&Skill> = all.iter().map(|s| s.skill()).collect();
        let router = Router::new(&skills);
        for language in Language::ALL {
            assert_eq!(answering(language), language, "{language:?} is answered");
            for specialist in &all {
                let id = specialist.skill().id;
                let hint = say(
                    language,
                    "own-block-ask",
                    &[("order", "4711".into()), ("kind", id.into())],
                );
                let question = hint
                    .split_once(['"', '«'])
                    .map(|(_, quoted)| quoted.trim_matches(['"', '»', '\u{202f}']))
                    .unwrap_or_default();
                assert!(question.contains("4711"), "{language:?}: {hint}");
                let routed = router.route(question);
                assert_eq!(
                    routed.specialist.as_deref(),
                    Some(id),
                    "{language:?}: {question:?} {:?}",
                    routed.scores
                );
            }
        }
    }
}
