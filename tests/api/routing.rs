//! The twelve routing cases of the walkthrough, end to end: the router's
//! decision is read from the message metadata, not from reply text.

use crate::helpers::{routed_to, spawn_app};

pub const CASES: [(&str, Option<&str>); 12] = [
    ("why is order 4711 blocked by credit", Some("credit")),
    (
        "customer 10023 is over the credit limit on 4711",
        Some("credit"),
    ),
    ("the customer disputes the price on 4725", Some("pricing")),
    (
        "check the billed price of 4725 against the price list",
        Some("pricing"),
    ),
    ("order 4723 is incomplete", Some("masterdata")),
    ("what address data is missing on 4723", Some("masterdata")),
    ("Blocked by the credit check.", Some("credit")),
    ("Pricing: customer disputes the price.", Some("pricing")),
    (
        "Incomplete: delivery address data missing.",
        Some("masterdata"),
    ),
    (
        "customer wants a later delivery date on 4740",
        Some("delivery"),
    ),
    (
        "Delivery block: customer asked for a later date.",
        Some("delivery"),
    ),
    ("book a meeting room for tomorrow", None),
];

#[tokio::test]
async fn the_twelve_walkthrough_requests_route_right() {
    let app = spawn_app().await;
    let mut misses = Vec::new();
    for (text, expected) in CASES {
        let task = app.send_text(text).await;
        let routed = routed_to(&task);
        if routed.as_deref() != expected {
            misses.push(format!("{text:?}: expected {expected:?}, got {routed:?}"));
        }
        let scores = &task["status"]["message"]["metadata"]["routing"]["scores"];
        assert_eq!(scores.as_object().map(|s| s.len()), Some(4), "{task}");
    }
    assert!(misses.is_empty(), "{misses:#?}");
}
