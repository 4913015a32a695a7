//! Fault injection for timeout and retry tests: scripted statuses (429 and
//! 503 with `Retry-After`, 500 with the SAP error body) that give way to
//! normal answers, per-path matching, added latency, and a hang that holds
//! only its own request.

use super::support::{SALES, client, get, s4_token, send};
use crate::doubles::s4hana::users::known::CLERK;
use crate::doubles::s4hana::{S4Double, Step};
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_scripted_status_sequence_then_normal_answers() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    double.script(
        "A_SalesOrder('4711')",
        vec![Step::Status(429), Step::Status(503), Step::Status(500)],
    );
    let first = get(&double, SALES, "A_SalesOrder('4711')", &token).await;
    assert_eq!(
        (first.status, first.header("retry-after")),
        (429, Some("1"))
    );
    let second = get(&double, SALES, "A_SalesOrder('4711')", &token).await;
    assert_eq!(
        (second.status, second.header("retry-after")),
        (503, Some("1"))
    );
    let third = get(&double, SALES, "A_SalesOrder('4711')", &token).await;
    assert_eq!(third.status, 500);
    assert!(
        third.json()["error"]["message"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("Runtime error")
    );
    let fourth = get(&double, SALES, "A_SalesOrder('4711')", &token).await;
    assert_eq!(fourth.status, 200, "the script is used up");
    let statuses: Vec<Option<u16>> = double
        .requests()
        .iter()
        .map(|request| request.status)
        .collect();
    assert_eq!(statuses, [Some(429), Some(503), Some(500), Some(200)]);
}

#[tokio::test]
async fn faults_match_by_path_and_method() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    double.script(
        "CreditManagementAccount",
        vec![Step::StatusRetryAfter(429, 7)],
    );
    double.always("PATCH ", Step::Status(503));
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &token)
            .await
            .status,
        200,
        "other paths pass"
    );
    let limited = get(
        &double,
        "API_CRDTMBUSINESSPARTNER",
        "CreditManagementAccount?$filter=BusinessPartner eq '10023'",
        &token,
    )
    .await;
    assert_eq!(
        (limited.status, limited.header("retry-after")),
        (429, Some("7"))
    );
    for _ in 0..2 {
        let patch = send(
            client()
                .patch(format!(
                    "{}/A_SalesOrder('4740')",
                    double.service_url(SALES)
                ))
                .bearer_auth(&token),
        )
        .await;
        assert_eq!(patch.status, 503, "always");
    }
    double.clear_faults();
    let limited = get(
        &double,
        "API_CRDTMBUSINESSPARTNER",
        "CreditManagementAccount",
        &token,
    )
    .await;
    assert_eq!(limited.status, 200);
}

#[tokio::test]
async fn latency_is_added_to_every_request_or_to_one_path() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    double.set_latency(Duration::from_millis(150));
    let started = Instant::now();
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &token)
            .await
            .status,
        200
    );
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "{:?}",
        started.elapsed()
    );
    double.set_latency(Duration::ZERO);
    double.script("to_Text", vec![Step::Delay(Duration::from_millis(200))]);
    let started = Instant::now();
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4725')/to_Text", &token)
            .await
            .status,
        200
    );
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_request_holds_only_itself() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    double.always("A_SalesOrder('4725')", Step::Hang);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_millis(500))
        .build()
        .expect("a client");
    let hanging = client
        .get(format!(
            "{}/A_SalesOrder('4725')",
            double.service_url(SALES)
        ))
        .bearer_auth(&token)
        .send();
    let other = get(&double, SALES, "A_SalesOrder('4711')", &token);
    let (hanging, other) = tokio::join!(hanging, other);
    assert!(hanging.expect_err("never answered").is_timeout());
    assert_eq!(other.status, 200, "served while the other hangs");
    let recorded = double.requests();
    let hung = recorded
        .iter()
        .find(|request| request.target.ends_with("A_SalesOrder('4725')"))
        .expect("the hanging request is recorded");
    assert_eq!(hung.status, None, "no answer was given");
}

#[tokio::test]
async fn a_stopped_double_refuses_connections() {
    let double = S4Double::start().await;
    let token = s4_token(CLERK.1);
    assert_eq!(
        get(&double, SALES, "A_SalesOrder('4711')", &token)
            .await
            .status,
        200
    );
    double.stop().await;
    let refused = client()
        .get(format!(
            "{}/A_SalesOrder('4711')",
            double.service_url(SALES)
        ))
        .bearer_auth(&token)
        .send()
        .await;
    assert!(refused.expect_err("nobody listens").is_connect());
}
