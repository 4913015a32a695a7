//! The twelve routing cases of the walkthrough (`data/routing_eval.json`),
//! end to end: the router's decision is read from the message metadata, not
//! from reply text.

use crate::helpers::{TestApp, routed_to};

#[derive(serde::Deserialize)]
struct Case {
    text: String,
    expected: Option<String>,
}

async fn the_twelve_walkthrough_requests_route_right(app: TestApp) {
    let cases: Vec<Case> = serde_json::from_str(include_str!("../../data/routing_eval.json"))
        .expect("the set is JSON");
    assert_eq!(cases.len(), 12);
    let mut misses = Vec::new();
    for case in &cases {
        let task = app.send_text(&case.text).await;
        let routed = routed_to(&task);
        if routed != case.expected {
            misses.push(format!(
                "{:?}: expected {:?}, got {routed:?}",
                case.text, case.expected
            ));
        }
        let scores = &task["status"]["message"]["metadata"]["routing"]["scores"];
        assert_eq!(scores.as_object().map(|s| s.len()), Some(4), "{task}");
    }
    assert!(misses.is_empty(), "{misses:#?}");
}

#[tokio::test]
async fn a_tie_asks_between_the_tied_specialists() {
    let app = TestApp::spawn().await;
    let task = app
        .send_text("the customer refuses to pay the invoice")
        .await;
    assert_eq!(task["status"]["state"], "input-required");
    let routing = &task["status"]["message"]["metadata"]["routing"];
    assert_eq!(routing["basis"], "tie", "{routing}");
    let text = crate::helpers::status_text(&task);
    assert!(text.contains("Credit block or Price dispute"), "{text}");
}

crate::on_each_source!(the_twelve_walkthrough_requests_route_right);
