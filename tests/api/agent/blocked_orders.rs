//! The blocked-orders query (the several-orders batch reads it) on each order
//! source: by customer, by kind of block, bounded; the embedded demo data
//! and the S/4HANA double give the same answer, and S/4HANA answers a
//! kind of block with one OData query filtered on its block fields.

use crate::doubles::s4hana::S4Double;
use order_exception_agent::{BlockKind, BlockedQuery, OrderSource};
use std::sync::Arc;

async fn numbers(orders: &dyn OrderSource, query: BlockedQuery) -> Vec<String> {
    orders
        .blocked_orders(&query)
        .await
        .expect("the query is answered")
        .into_iter()
        .map(|order| order.sales_order)
        .collect()
}

async fn blocked_orders_by_customer_kind_and_bound(
    orders: Arc<dyn OrderSource>,
    _s4: Option<&S4Double>,
) {
    let orders = orders.as_user(Default::default());
    let all = BlockedQuery::any(50);
    assert_eq!(
        numbers(&*orders, all.clone()).await,
        ["4711", "4723", "4725", "4740"]
    );
    let notes: Vec<String> = orders
        .blocked_orders(&all)
        .await
        .unwrap()
        .into_iter()
        .map(|order| order.block_note)
        .collect();
    assert_eq!(
        notes,
        [
            "Blocked by the credit check.",
            "Incomplete: delivery address data missing.",
            "Pricing: customer disputes the price.",
            "Delivery block: customer asked for a later date.",
        ]
    );
    assert_eq!(
        numbers(&*orders, all.clone().of_customer("10023")).await,
        ["4711"]
    );
    assert_eq!(
        numbers(&*orders, all.clone().of_customer("10051")).await,
        ["4723", "4740"]
    );
    assert!(
        numbers(&*orders, all.clone().of_customer("99999"))
            .await
            .is_empty()
    );
    for (kind, expected) in [
        (BlockKind::Credit, "4711"),
        (BlockKind::MasterData, "4723"),
        (BlockKind::PriceDispute, "4725"),
        (BlockKind::Delivery, "4740"),
    ] {
        assert_eq!(
            numbers(&*orders, all.clone().of_kind(kind)).await,
            [expected],
            "{kind:?}"
        );
    }
    assert_eq!(
        numbers(
            &*orders,
            all.clone()
                .of_customer("10051")
                .of_kind(BlockKind::Delivery)
        )
        .await,
        ["4740"]
    );
    assert!(
        numbers(
            &*orders,
            all.clone()
                .of_customer("10023")
                .of_kind(BlockKind::Delivery)
        )
        .await
        .is_empty()
    );
    assert_eq!(
        numbers(&*orders, BlockedQuery::any(2)).await,
        ["4711", "4723"]
    );
    assert!(numbers(&*orders, BlockedQuery::any(0)).await.is_empty());
}

crate::on_each_order_source!(blocked_orders_by_customer_kind_and_bound);

#[tokio::test]
async fn a_kind_of_block_is_one_odata_query_on_the_configured_codes() {
    let (orders, s4) =
        crate::agent::sources::order_source(crate::agent::sources::Source::S4hana).await;
    let s4 = s4.expect("the double");
    let credit = BlockedQuery::any(5)
        .of_customer("10023")
        .of_kind(BlockKind::Credit);
    assert_eq!(numbers(&*orders, credit).await, ["4711"]);
    let requests = s4.requests();
    assert_eq!(requests.len(), 1, "one query, no address reads");
    let target = &requests[0].target;
    for part in [
        "A_SalesOrder?",
        "SoldToParty eq '10023'",
        "(TotalCreditCheckStatus eq 'B' or TotalCreditCheckStatus eq 'C')",
        "$top=5",
        "$expand=to_Item,to_Item/to_PricingElement,to_PricingElement,to_Text,to_Partner",
        "$orderby=SalesOrder",
    ] {
        assert!(target.contains(part), "{part} in {target}");
    }
    s4.clear_requests();
    assert_eq!(
        numbers(&*orders, BlockedQuery::any(5).of_kind(BlockKind::Delivery)).await,
        ["4740"]
    );
    assert!(
        s4.requests()[0]
            .target
            .contains("DeliveryBlockReason ne ''")
    );
    // Every order and one read per distinct partner address, not per order.
    s4.clear_requests();
    numbers(&*orders, BlockedQuery::any(50)).await;
    let requests = s4.requests();
    let order_queries = requests
        .iter()
        .filter(|r| r.target.contains("A_SalesOrder?"))
        .count();
    let address_reads = requests
        .iter()
        .filter(|r| r.target.contains("A_BusinessPartnerAddress"))
        .count();
    assert_eq!(order_queries, 1);
    assert_eq!(address_reads, 4, "21001, 22001, 22002, 23001");
}

/// In one turn, an order the blocked-orders query returned is not read
/// again, nor are the addresses its check read; what the query did not read
/// (the addresses, for a kind of block that does not need them) is read
/// alone when asked for. The next turn reads afresh.
#[tokio::test]
async fn a_turn_reads_again_only_what_its_query_did_not_read() {
    let (orders, s4) =
        crate::agent::sources::order_source(crate::agent::sources::Source::S4hana).await;
    let s4 = s4.expect("the double");
    let turn = orders.clone().as_user(Default::default());
    turn.blocked_orders(&BlockedQuery::any(50))
        .await
        .expect("listed");
    s4.clear_requests();
    let order = turn
        .sales_order("4723")
        .await
        .expect("read")
        .expect("there");
    assert_eq!(
        order.block_note,
        "Incomplete: delivery address data missing."
    );
    let gaps = turn.incompletion("4723").await.expect("read");
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert_eq!(gaps[0].missing_fields, ["StreetName", "PostalCode"]);
    let targets: Vec<String> = s4.requests().into_iter().map(|r| r.target).collect();
    assert!(targets.is_empty(), "read again: {targets:#?}");

    let turn = orders.clone().as_user(Default::default());
    let credit = BlockedQuery::any(5).of_kind(BlockKind::Credit);
    assert_eq!(numbers(&*turn, credit).await, ["4711"]);
    s4.clear_requests();
    assert!(turn.incompletion("4711").await.expect("read").is_empty());
    let targets: Vec<String> = s4.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(
        targets.len(),
        1,
        "the one address 4711's partners use: {targets:#?}"
    );
    assert!(
        targets[0].contains("A_BusinessPartnerAddress"),
        "{targets:#?}"
    );

    let turn = orders.as_user(Default::default());
    s4.clear_requests();
    turn.sales_order("4723")
        .await
        .expect("read")
        .expect("there");
    assert!(
        s4.requests()
            .iter()
            .any(|r| r.target.contains("A_SalesOrder('4723')")),
        "a new turn reads the order again"
    );
}
