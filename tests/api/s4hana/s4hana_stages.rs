//! How long a question waits for S/4HANA: the reads it makes and in how
//! many stages (rounds one after another), from the S/4 double's recording
//! of when each request arrived and was answered, with latency added per
//! call so that reads sent together surely overlap. Through a destination,
//! as the calling user.

use crate::doubles::destination::Destination;
use crate::doubles::s4hana::users::known::CLERK;
use crate::doubles::s4hana::{Recorded, Step, stages};
use crate::helpers::{state, status_text};
use crate::s4hana::s4hana_source::{CREDIT_4711, ask, assert_credit_answer, clerk_token, world};
use std::collections::HashMap;
use std::time::Duration;

const LATENCY: Duration = Duration::from_millis(200);

fn targets(requests: &[Recorded]) -> Vec<String> {
    requests.iter().map(|r| r.target.clone()).collect()
}

/// How many requests name `part` in their target.
fn count(requests: &[Recorded], part: &str) -> usize {
    requests.iter().filter(|r| r.target.contains(part)).count()
}

fn all_as_the_clerk(requests: &[Recorded]) {
    assert!(!requests.is_empty());
    for request in requests {
        assert_eq!(
            request.user.as_deref(),
            Some(CLERK.0),
            "read as the caller: {}",
            request.target
        );
    }
}

/// The credit question needs the order, then the customer's credit limit
/// and open items, read together: two stages, three calls. The partner
/// addresses are not read: the answer to a credit block does not use them.
#[tokio::test]
async fn the_credit_question_reads_the_order_then_limit_and_open_items_together() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world.s4.set_latency(LATENCY);
    assert_credit_answer(&ask(&world.app, &clerk_token(), CREDIT_4711).await);
    let requests = world.s4.requests();
    all_as_the_clerk(&requests);
    let stages = stages(&requests);
    assert_eq!(stages.len(), 2, "{stages:#?}");
    assert_eq!(stages[0].len(), 1, "{stages:#?}");
    assert!(stages[0][0].contains("A_SalesOrder('4711')"), "{stages:#?}");
    assert_eq!(stages[1].len(), 2, "{stages:#?}");
    assert_eq!(count(&requests, "CreditManagementAccount?"), 1);
    assert_eq!(count(&requests, "A_OperationalAcctgDocItemCube?"), 1);
    assert_eq!(requests.len(), 3, "{:#?}", targets(&requests));
}

/// "show me all blocked orders": each order and address the blocked-orders
/// query (and its address check) answered is not read again for the
/// order's specialist; what the specialists add (4711's credit limit and
/// open items, 4725's price list) is read once.
#[tokio::test]
async fn a_triage_reads_nothing_again_that_the_list_query_answered() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world.s4.set_latency(LATENCY);
    let task = ask(&world.app, &clerk_token(), "show me all blocked orders").await;
    assert_eq!(state(&task), "input-required", "{task}");
    let text = status_text(&task);
    assert!(text.starts_with("4 of 4 orders explained."), "{text}");
    assert!(
        text.contains("StreetName") && text.contains("PostalCode"),
        "4723's gaps from the list's address check: {text}"
    );
    let requests = world.s4.requests();
    all_as_the_clerk(&requests);
    let mut times: HashMap<&str, usize> = HashMap::new();
    for request in &requests {
        *times.entry(request.target.as_str()).or_default() += 1;
    }
    let repeated: Vec<_> = times.iter().filter(|(_, n)| **n > 1).collect();
    assert!(repeated.is_empty(), "read more than once: {repeated:#?}");
    assert_eq!(count(&requests, "A_SalesOrder?"), 1, "the list query");
    assert_eq!(
        count(&requests, "A_SalesOrder('"),
        0,
        "no order read on its own: {:#?}",
        targets(&requests)
    );
    assert_eq!(
        count(&requests, "A_BusinessPartnerAddress"),
        4,
        "21001, 22001, 22002, 23001"
    );
    assert_eq!(count(&requests, "CreditManagementAccount?"), 1);
    assert_eq!(count(&requests, "A_OperationalAcctgDocItemCube?"), 1);
    assert_eq!(count(&requests, "A_SlsPrcgCndnRecdValidity?"), 1);
    assert_eq!(count(&requests, "A_SlsPrcgConditionRecord?"), 1);
    assert_eq!(requests.len(), 9, "{:#?}", targets(&requests));
}

/// Each kind of question, its stages and calls: what docs/s4hana.md says.
/// A question that names no problem waits for the addresses to route by
/// the whole block note; the price list is two queries one after another.
#[tokio::test]
async fn each_question_takes_the_stages_its_reads_depend_on() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world.s4.set_latency(LATENCY);
    let token = clerk_token();
    for (question, stage_count, calls) in [
        (CREDIT_4711, 2, 3),
        (
            "Order 4723: Incomplete: delivery address data missing.",
            2,
            3,
        ),
        ("Order 4725: Pricing: customer disputes the price.", 3, 3),
        ("customer wants a later delivery date on 4740", 2, 2),
        ("what about sales order 4711?", 3, 4),
        ("why are 4711, 4723 and 4725 stuck?", 3, 9),
    ] {
        world.s4.clear_requests();
        let task = ask(&world.app, &token, question).await;
        assert_ne!(state(&task), "failed", "{question}: {task}");
        let requests = world.s4.requests();
        all_as_the_clerk(&requests);
        let stages = stages(&requests);
        assert_eq!(stages.len(), stage_count, "{question}: {stages:#?}");
        assert_eq!(requests.len(), calls, "{question}: {stages:#?}");
    }
}

/// Addresses S/4HANA cannot read fail only the answers that need them: the
/// credit question does not read them, an order's block note goes without
/// the incomplete master data (4711 is still routed by its credit block),
/// and the master data question says S/4HANA did not answer.
#[tokio::test]
async fn unreadable_addresses_fail_only_the_answers_that_need_them() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world
        .s4
        .always("A_BusinessPartnerAddress", Step::Status(500));
    let token = clerk_token();
    assert_credit_answer(&ask(&world.app, &token, CREDIT_4711).await);
    assert_eq!(count(&world.s4.requests(), "A_BusinessPartnerAddress"), 0);
    assert_credit_answer(&ask(&world.app, &token, "what about sales order 4711?").await);
    let task = ask(
        &world.app,
        &token,
        "Order 4723: Incomplete: delivery address data missing.",
    )
    .await;
    assert_eq!(state(&task), "failed", "{task}");
    assert!(
        status_text(&task).contains("S/4HANA did not answer in time"),
        "{}",
        status_text(&task)
    );
}
