//! What a caller without a valid token can make the instance fetch and
//! remember: forged tokens with made-up key-picking claims against the
//! service (authentication on) and a real key server on loopback. Oversized
//! or odd claims never reach the key server; new key requests spend a
//! bounded budget; a refusal is remembered; a real caller's keys stay.

use crate::helpers::key_server::*;
use crate::helpers::{Clock, TestApp, user_message};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// New key requests allowed at once (`src/auth/fetch_budget.rs`, in
/// docs/authentication.md).
const BUDGET_BURST: usize = 30;

struct Answer {
    status: u16,
    retry_after: Option<String>,
    description: String,
}

async fn send(app: &TestApp, authorization: &str) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": { "message": user_message("why is order 4711 blocked by credit") }
    });
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Content-Type", "application/json")
        .header("Authorization", authorization)
        .body(body.to_string())
        .send()
        .await
        .expect("the service answers");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let body: Value = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        retry_after,
        description: body["error_description"].as_str().unwrap_or("").to_string(),
    }
}

/// Unsigned: RS256 under key-1's kid (the key server has it) and a
/// signature that never verifies.
fn forged(claims: &Map<String, Value>) -> String {
    let header = json!({ "alg": "RS256", "typ": "JWT", "kid": "key-1" });
    format!(
        "Bearer {}.{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(Value::Object(claims.clone()).to_string()),
        URL_SAFE_NO_PAD.encode("not a signature")
    )
}

fn calls(keys: &KeyServer) -> (usize, usize) {
    (keys.discovery_calls(), keys.jwks_calls())
}

#[tokio::test]
async fn oversized_or_odd_key_claims_are_refused_without_asking_the_key_server() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    let cases = [
        (
            "10 kB azp",
            with(user_claims(), "azp", json!("a".repeat(10 * 1024))),
        ),
        (
            "azp of 129 characters",
            with(user_claims(), "azp", json!("a".repeat(129))),
        ),
        (
            "azp with a space",
            with(user_claims(), "azp", json!("joule proxy")),
        ),
        (
            "azp not text",
            with(user_claims(), "azp", json!({ "a": 1 })),
        ),
        (
            "azp_app_tid of 65 characters",
            with(user_claims(), "azp_app_tid", json!("b".repeat(65))),
        ),
        (
            "azp_app_tid with a slash",
            with(user_claims(), "azp_app_tid", json!("tenant/../other")),
        ),
    ];
    for (case, claims) in cases {
        let answer = send(&app, &format!("Bearer {}", token(&claims))).await;
        assert_eq!(answer.status, 401, "{case}");
        assert!(
            answer.description.contains("short identifier"),
            "{case}: {}",
            answer.description
        );
    }
    let long_kid = format!(
        "Bearer {}",
        sign(&user_claims(), Some(&"k".repeat(200)), "key-1")
    );
    assert_eq!(
        send(&app, &long_kid).await.status,
        401,
        "kid of 200 characters"
    );
    // A token past the header bound, whatever it holds: the 40 kB
    // azp, or any other claim.
    for (case, claims) in [
        (
            "40 kB azp",
            with(user_claims(), "azp", json!("a".repeat(40 * 1024))),
        ),
        (
            "17 kB of padding",
            with(user_claims(), "padding", json!("p".repeat(16 * 1024))),
        ),
    ] {
        let answer = send(&app, &format!("Bearer {}", token(&claims))).await;
        assert_eq!(answer.status, 401, "{case}");
        assert!(
            answer.description.contains("longer than 16 KiB"),
            "{case}: {}",
            answer.description
        );
    }
    assert_eq!(calls(&keys), (0, 0), "nothing reached the key server");
    // The same service still fetches keys for a token of the usual shape.
    assert_eq!(
        send(&app, &format!("Bearer {}", token(&user_claims())))
            .await
            .status,
        200
    );
    assert_eq!(calls(&keys), (1, 1));
}

#[tokio::test]
async fn a_flood_of_forged_tokens_spends_a_bounded_budget_and_leaves_a_real_callers_keys() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    assert_eq!(
        send(&app, &format!("Bearer {}", token(&user_claims())))
            .await
            .status,
        200
    );
    let warm = calls(&keys);
    // 300 forged tokens, each with an azp of its own, 50 at a time.
    let mut answers = Vec::new();
    for wave in 0..6 {
        let tokens: Vec<String> = (0..50)
            .map(|n| {
                let azp = format!("0f1e2d3c-4b5a-6978-8796-{:012}", wave * 50 + n);
                forged(&with(user_claims(), "azp", json!(azp)))
            })
            .collect();
        let wave = tokens.iter().map(|token| send(&app, token));
        answers.extend(futures_util::future::join_all(wave).await);
    }
    let refused = answers.iter().filter(|a| a.status == 401).count();
    let shed: Vec<_> = answers.iter().filter(|a| a.status == 503).collect();
    assert_eq!(refused + shed.len(), 300, "only 401 and 503");
    assert!(!shed.is_empty(), "the budget ran out");
    assert!(
        shed.iter().all(|a| a.retry_after.is_some()),
        "503 says when to retry"
    );
    let (discoveries, key_sets) = calls(&keys);
    assert_eq!(
        discoveries, warm.0,
        "discovery is cached per issuer, not per azp"
    );
    // The budget, and what refilled during the flood (one every 2 s).
    assert!(
        key_sets - warm.1 <= BUDGET_BURST + 5,
        "{} key fetches for 300 forged tokens",
        key_sets - warm.1
    );
    // The real caller's next (new) token needs no key fetch at all.
    let next = with(user_claims(), "jti", json!("after-the-flood"));
    assert_eq!(
        send(&app, &format!("Bearer {}", token(&next))).await.status,
        200
    );
    assert_eq!(calls(&keys), (discoveries, key_sets));
}

#[tokio::test]
async fn a_refused_key_request_is_remembered_for_a_minute() {
    let keys = KeyServer::start().await;
    keys.set(|b| b.jwks_status = 400);
    let clock = Clock::default();
    let app = TestApp::builder()
        .auth(&keys)
        .settings(|settings| settings.clock = clock.clone())
        .spawn()
        .await;
    let user = format!("Bearer {}", token(&user_claims()));
    assert_eq!(send(&app, &user).await.status, 401, "JWKS 400");
    assert_eq!(keys.jwks_calls(), 1);
    keys.set(|b| b.jwks_status = 200);
    assert_eq!(send(&app, &user).await.status, 401, "remembered");
    assert_eq!(keys.jwks_calls(), 1, "not asked again within the minute");
    clock.advance(Duration::from_secs(60));
    assert_eq!(send(&app, &user).await.status, 200, "asked again after it");
    assert_eq!(keys.jwks_calls(), 2);
}
