//! IAS token validation end to end: the service with authentication on, a
//! real key server on loopback, tokens signed with throwaway RSA keys; every
//! case of the negative table in `ias-tokens.md` §11.

use crate::helpers::key_server::*;
use crate::helpers::{Clock, TestApp, TestAppBuilder, TrailingSlash, user_message, wait_until};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use std::time::Duration;

/// Authentication on against `keys`, with a key-server timeout of 500 ms.
fn authenticated(keys: &KeyServer) -> TestAppBuilder {
    TestApp::builder()
        .auth(keys)
        .settings(|settings| settings.auth.http_timeout_ms = 500)
}

struct Answer {
    status: u16,
    challenge: Option<String>,
    retry_after: Option<String>,
    body: Value,
}

async fn call(app: &TestApp, authorization: Option<String>) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": { "message": user_message("why is order 4711 blocked by credit") }
    });
    let mut request = app
        .client
        .post(format!("{}/", app.address))
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(authorization) = authorization {
        request = request.header("Authorization", authorization);
    }
    let response = request.send().await.unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let challenge = header("www-authenticate");
    let retry_after = header("retry-after");
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    Answer {
        status,
        challenge,
        retry_after,
        body,
    }
}

async fn bearer(app: &TestApp, token: &str) -> Answer {
    call(app, Some(format!("Bearer {token}"))).await
}

fn assert_valid(answer: &Answer, case: &str) {
    assert_eq!(answer.status, 200, "{case}: {:?}", answer.body);
    // The turn ran: answered (completed), or asking the credit manager to
    // approve the proposed review (input-required), depending on the role.
    let state = answer.body["result"]["status"]["state"].as_str();
    assert!(
        matches!(state, Some("completed" | "input-required")),
        "{case}: {:?}",
        answer.body
    );
    assert!(
        answer.body["result"]["status"]["message"]["parts"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("4711")),
        "{case}: {:?}",
        answer.body
    );
}

fn assert_invalid(answer: &Answer, case: &str) {
    assert_eq!(answer.status, 401, "{case}: {:?}", answer.body);
    let challenge = answer.challenge.as_deref().unwrap_or("");
    assert!(
        challenge.starts_with("Bearer error=\"invalid_token\""),
        "{case}: {challenge}"
    );
    assert_eq!(answer.body["error"], "invalid_token", "{case}");
}

fn assert_forbidden(answer: &Answer, case: &str) {
    assert_eq!(answer.status, 403, "{case}: {:?}", answer.body);
    let challenge = answer.challenge.as_deref().unwrap_or("");
    assert!(
        challenge.contains("insufficient_scope"),
        "{case}: {challenge}"
    );
}

#[tokio::test]
async fn a_valid_user_token_passes_and_the_key_request_carries_the_headers() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    assert_valid(&bearer(&app, &token(&user_claims())).await, "valid");
    let headers = keys.last_jwks_headers();
    assert_eq!(
        headers.get("x-client_id").map(String::as_str),
        Some(CLIENT_ID)
    );
    assert_eq!(headers.get("x-app_tid").map(String::as_str), Some(APP_TID));
    assert_eq!(
        headers.get("x-azp").map(String::as_str),
        Some("joule-proxy-client")
    );
    // A second token with the same key: cached, no new fetch (42).
    let before = keys.jwks_calls();
    let second = with(user_claims(), "jti", json!("jti-2"));
    assert_valid(&bearer(&app, &token(&second)).await, "cached");
    assert_eq!(keys.jwks_calls(), before);
    // Another azp: its own cache entry (43).
    let other = with(user_claims(), "azp", json!("another-consumer"));
    assert_valid(&bearer(&app, &token(&other)).await, "other azp");
    assert_eq!(keys.jwks_calls(), before + 1);
}

#[tokio::test]
async fn missing_or_foreign_schemes_get_a_plain_challenge_and_public_paths_stay_open() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    for authorization in [None, Some("Basic dXNlcjpwYXNz".to_string())] {
        let answer = call(&app, authorization.clone()).await;
        assert_eq!(answer.status, 401, "{authorization:?}");
        assert_eq!(answer.challenge.as_deref(), Some("Bearer"));
        assert_eq!(answer.body["error"], "unauthorized");
    }
    for path in [
        "/.well-known/agent-card.json",
        "/.well-known/agent.json",
        "/health",
    ] {
        let response = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path} stays public");
    }
    let health = app.get_json("/health").await;
    assert_eq!(health["authentication"], "required");
    assert_eq!(keys.jwks_calls(), 0, "no network call without a token");
}

#[tokio::test]
async fn malformed_tokens_are_invalid() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","kid":"key-1"}"#);
    let payload = URL_SAFE_NO_PAD.encode(json!(user_claims()).to_string());
    for token in [
        "abc".to_string(),
        "a.b".to_string(),
        "!!!.???.###".to_string(),
        format!("{}.{payload}.sig", URL_SAFE_NO_PAD.encode(b"not json")),
        format!("{header}.{}.sig", URL_SAFE_NO_PAD.encode(b"[1,2]")),
    ] {
        assert_invalid(&bearer(&app, &token).await, &token);
    }
    assert_invalid(
        &call(&app, Some("Bearer".into())).await,
        "Bearer without a token",
    );
    assert_invalid(&call(&app, Some("Bearer a b".into())).await, "two tokens");
}

#[tokio::test]
async fn time_claims_with_sixty_seconds_leeway() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    let now = now();
    let cases = [
        (
            "expired 2 min ago",
            with(user_claims(), "exp", json!(now - 120)),
            false,
        ),
        (
            "expired 30 s ago (leeway)",
            with(user_claims(), "exp", json!(now - 30)),
            true,
        ),
        (
            "exp missing",
            with(user_claims(), "exp", Value::Null),
            false,
        ),
        (
            "exp not a number",
            with(user_claims(), "exp", json!("soon")),
            false,
        ),
        (
            "nbf 2 min ahead",
            with(user_claims(), "nbf", json!(now + 120)),
            false,
        ),
        (
            "nbf 30 s ahead (leeway)",
            with(user_claims(), "nbf", json!(now + 30)),
            true,
        ),
        (
            "iat 2 min ahead, no nbf",
            with(user_claims(), "iat", json!(now + 120)),
            false,
        ),
    ];
    for (case, claims, valid) in cases {
        let answer = bearer(&app, &token(&claims)).await;
        if valid {
            assert_valid(&answer, case);
        } else {
            assert_invalid(&answer, case);
        }
    }
}

#[tokio::test]
async fn the_issuer_must_be_a_trusted_ias_domain() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    for issuer in [
        json!(null),
        json!(""),
        json!(42),
        json!("https://attackerdomain.com"),
        json!("https://tenant.attackerdomain.com"),
        json!("https://myaccounts.test"),
        json!("https://accounts.test.attackerDomain.com"),
        json!("https://tenant.accounts.test/path"),
        json!("https://tenant.accounts.test?x=1"),
        json!("https://tenant.accounts.test#frag"),
        json!("https://user@tenant.accounts.test"),
        json!("https://tenant.accounts.test&"),
        json!("https://tenant.accounts.testa"),
        json!("https://tenant.accounts.test%2f"),
        json!("https://tenant%2eaccounts.test"),
        json!("https://tenant.accounts.test:443"),
        json!("http://tenant.accounts.test"),
        json!("https://"),
        json!("https://tenant.accounts.test\t"),
        json!("https://tenant.accounts.test\n"),
        json!("https://two.labels.accounts.test"),
        json!(format!("https://{}.accounts.test", "a".repeat(64))),
        json!("https://tenant.accounts.test//"),
        json!("https://tenant.accounts.test/path/"),
    ] {
        let claims = with(user_claims(), "iss", issuer.clone());
        assert_invalid(&bearer(&app, &token(&claims)).await, &issuer.to_string());
    }
    assert_eq!(
        keys.discovery_calls(),
        0,
        "untrusted issuers never reach the network"
    );

    // Scheme-less and one trailing slash (tolerated by default) are fine.
    for issuer in ["tenant.accounts.test", "https://tenant.accounts.test/"] {
        let claims = with(user_claims(), "iss", json!(issuer));
        assert_valid(&bearer(&app, &token(&claims)).await, issuer);
    }
    // ias_iss decides: a custom iss with a trusted ias_iss passes, not the reverse.
    let custom = with(
        with(
            user_claims(),
            "iss",
            json!("https://login.customer.example"),
        ),
        "ias_iss",
        json!(ISSUER),
    );
    assert_valid(
        &bearer(&app, &token(&custom)).await,
        "custom domain + ias_iss",
    );
    let reverse = with(
        user_claims(),
        "ias_iss",
        json!("https://tenant.attacker.example"),
    );
    assert_invalid(&bearer(&app, &token(&reverse)).await, "untrusted ias_iss");
}

#[tokio::test]
async fn a_trailing_slash_is_refused_when_the_switch_says_reject() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.issuer_trailing_slash = TrailingSlash::Reject;
        })
        .spawn()
        .await;
    let claims = with(user_claims(), "iss", json!("https://tenant.accounts.test/"));
    assert_invalid(
        &bearer(&app, &token(&claims)).await,
        "trailing slash, reject",
    );
    assert_valid(&bearer(&app, &token(&user_claims())).await, "no slash");
}

#[tokio::test]
async fn the_audience_must_contain_our_client_id_and_the_tenant_must_match() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    for (case, claims) in [
        (
            "other audience",
            with(user_claims(), "aud", json!("someone-else")),
        ),
        (
            "other audiences",
            with(user_claims(), "aud", json!(["a", "b"])),
        ),
        ("empty audience", with(user_claims(), "aud", json!([]))),
        ("no audience", with(user_claims(), "aud", Value::Null)),
        (
            "azp is us but aud is not",
            with(
                with(user_claims(), "aud", json!("x")),
                "azp",
                json!(CLIENT_ID),
            ),
        ),
        (
            "app_tid differs",
            with(user_claims(), "app_tid", json!("another-tenant")),
        ),
    ] {
        assert_invalid(&bearer(&app, &token(&claims)).await, case);
    }
    let several = with(user_claims(), "aud", json!(["other", CLIENT_ID]));
    assert_valid(&bearer(&app, &token(&several)).await, "aud array with ours");
}

#[tokio::test]
async fn without_a_configured_tenant_a_foreign_issuer_needs_app_tid() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.app_tid = None;
        })
        .spawn()
        .await;
    let own_issuer = with(user_claims(), "app_tid", Value::Null);
    assert_valid(
        &bearer(&app, &token(&own_issuer)).await,
        "issuer = binding url",
    );
    // Another issuer's token naming a tenant: the key endpoint judges it.
    let other = "https://other.accounts.test";
    keys.set(|behaviour| behaviour.discovery_issuer = other.into());
    let foreign = with(user_claims(), "iss", json!(other));
    assert_valid(
        &bearer(&app, &token(&foreign)).await,
        "foreign issuer, app_tid",
    );
    let headers = keys.last_jwks_headers();
    assert_eq!(headers.get("x-app_tid").map(String::as_str), Some(APP_TID));
    let before = keys.discovery_calls();
    assert_refused_by_the_tenant_rule(
        &bearer(&app, &token(&with(foreign, "app_tid", Value::Null))).await,
        &keys,
        before,
        "foreign issuer, no app_tid",
    );
}

/// Which branch of the tenant rule accepted a token is said at INFO on the
/// request's existing line and its `authenticate` span (also for a token
/// remembered from an earlier call), not on a line of its own.
#[tokio::test]
async fn the_request_line_and_span_say_which_tenant_rule_accepted_the_token() {
    use crate::doubles::otlp::{Collector, text};
    use crate::helpers::binary::start_binary;
    let keys = KeyServer::start().await;
    let collector = Collector::start().await;
    let mut envs = collector.variables().to_vec();
    envs.extend([
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__CLIENT_ID", CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", DOMAIN),
        ("AGENT__AUTH__APP_TID", APP_TID),
        ("AGENT__AUTH__URL", ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", keys.url.as_str()),
    ]);
    let running = start_binary(&envs).await;
    let app = running.app();
    let with_tenant = token(&user_claims());
    let without_tenant = token(&with(user_claims(), "app_tid", Value::Null));
    for bearer_token in [&with_tenant, &without_tenant, &without_tenant] {
        assert_valid(&bearer(&app, bearer_token).await, "accepted");
    }
    wait_until(Duration::from_secs(10), async || {
        collector.named("authenticate").len() >= 3
    })
    .await;
    let log: Vec<Value> = running
        .terminate()
        .await
        .iter()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    keys.stop().await;
    let expected = [
        "app_tid_matches_binding",
        "own_issuer_without_app_tid",
        "own_issuer_without_app_tid",
    ];
    let requests: Vec<&Value> = log
        .iter()
        .filter(|line| line["type"] == "request")
        .collect();
    let logged: Vec<&str> = requests
        .iter()
        .filter_map(|line| line["auth.tenant_rule"].as_str())
        .collect();
    assert_eq!(logged, expected, "{requests:?}");
    assert!(requests.iter().all(|line| line["level"] == "INFO"));
    let lines_naming_it = log
        .iter()
        .filter(|line| line.to_string().contains("tenant_rule"))
        .count();
    assert_eq!(lines_naming_it, 3, "no line of its own: {log:?}");
    let mut traced: Vec<String> = collector
        .named("authenticate")
        .iter()
        .filter_map(|span| text(&span.attributes, "auth.tenant_rule"))
        .collect();
    traced.sort();
    assert_eq!(traced, [expected[0], expected[1], expected[2]]);
}

/// The refusal names the tenant rule (not a later check, such as the
/// discovery document of an issuer the key server does not serve), and no
/// key was asked for.
fn assert_refused_by_the_tenant_rule(answer: &Answer, keys: &KeyServer, before: usize, case: &str) {
    assert_invalid(answer, case);
    let detail = answer.body["error_description"].as_str().unwrap_or("");
    assert!(detail.contains("app_tid"), "{case}: {:?}", answer.body);
    assert_eq!(
        keys.discovery_calls(),
        before,
        "{case}: refused before any key request"
    );
}

/// SAP's Java rule (`ias-tokens.md` §4.5, `SapIdJwtSignatureValidator`): a
/// token of the binding's own issuer (`url`) needs no `app_tid`; a token of
/// another trusted issuer does; a tenant named (`app_tid`, `zone_uuid`)
/// other than the binding's is refused whoever issued it.
#[tokio::test]
async fn app_tid_is_required_only_of_another_issuer_and_must_be_the_bindings() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    let no_tenant = with(user_claims(), "app_tid", Value::Null);
    assert_valid(
        &bearer(&app, &token(&no_tenant)).await,
        "binding issuer, no app_tid",
    );
    let headers = keys.last_jwks_headers();
    assert_eq!(
        headers.get("x-app_tid"),
        None,
        "no tenant to send: {headers:?}"
    );
    // The one decoded Joule token published (a public demo) has neither
    // app_tid nor an issuer without its trailing slash.
    let as_published = with(no_tenant.clone(), "iss", json!(format!("{ISSUER}/")));
    assert_valid(
        &bearer(&app, &token(&as_published)).await,
        "binding issuer with a trailing slash, no app_tid",
    );
    let ours = with(no_tenant.clone(), "zone_uuid", json!(APP_TID));
    assert_valid(&bearer(&app, &token(&ours)).await, "legacy zone_uuid, ours");

    // Another trusted issuer whose discovery the key server does answer:
    // with our app_tid it passes, so its refusal without one is the rule's.
    let other = "https://other.accounts.test";
    keys.set(|behaviour| behaviour.discovery_issuer = other.into());
    let other_issuer = with(user_claims(), "iss", json!(other));
    assert_valid(
        &bearer(&app, &token(&other_issuer)).await,
        "other trusted issuer, our app_tid",
    );
    let before = keys.discovery_calls();
    for (case, claims) in [
        (
            "other trusted issuer, no app_tid",
            with(other_issuer.clone(), "app_tid", Value::Null),
        ),
        (
            "our tenant's name on another trusted domain, no app_tid",
            with(
                no_tenant.clone(),
                "iss",
                json!("https://tenant.accounts.cloud.test"),
            ),
        ),
        (
            "binding issuer, different app_tid",
            with(user_claims(), "app_tid", json!("another-tenant")),
        ),
        (
            "other trusted issuer, different app_tid",
            with(other_issuer.clone(), "app_tid", json!("another-tenant")),
        ),
        (
            "binding issuer, different zone_uuid",
            with(no_tenant.clone(), "zone_uuid", json!("another-tenant")),
        ),
    ] {
        let answer = bearer(&app, &token(&claims)).await;
        assert_refused_by_the_tenant_rule(&answer, &keys, before, case);
    }
}

fn forged(header: Value, claims: &serde_json::Map<String, Value>, signature: &str) -> String {
    format!(
        "{}.{}.{signature}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(json!(claims).to_string())
    )
}

#[tokio::test]
async fn algorithms_kids_and_signatures() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    let claims = user_claims();
    let public_pem = KEYS["key-1"]["public_pem"].as_str().unwrap();
    let hs256_with_public_key = jsonwebtoken::encode(
        &jsonwebtoken::Header {
            kid: Some("key-1".into()),
            ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256)
        },
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(public_pem.as_bytes()).unwrap(),
    )
    .unwrap();
    let valid = token(&claims);
    let (head, rest) = valid.split_once('.').unwrap();
    let (_, signature) = rest.split_once('.').unwrap();
    let tampered = format!(
        "{head}.{}.{signature}",
        URL_SAFE_NO_PAD
            .encode(json!(with(claims.clone(), "groups", json!(["credit_manager"]))).to_string())
    );
    for (case, token) in [
        (
            "alg none",
            forged(json!({"alg": "none", "kid": "key-1"}), &claims, ""),
        ),
        (
            "alg NONE",
            forged(json!({"alg": "NONE", "kid": "key-1"}), &claims, ""),
        ),
        (
            "alg empty",
            forged(json!({"alg": "", "kid": "key-1"}), &claims, ""),
        ),
        (
            "alg ES256",
            forged(json!({"alg": "ES256", "kid": "key-1"}), &claims, "c2ln"),
        ),
        (
            "alg unknown",
            forged(json!({"alg": "XX99", "kid": "key-1"}), &claims, "c2ln"),
        ),
        ("HS256 with the RSA public key", hs256_with_public_key),
        ("no kid", sign(&claims, None, "key-1")),
        (
            "signed by another key",
            sign(&claims, Some("key-1"), "attacker"),
        ),
        ("payload tampered", tampered),
        (
            "signature empty",
            format!("{head}.{}.", rest.split_once('.').unwrap().0),
        ),
    ] {
        assert_invalid(&bearer(&app, &token).await, case);
    }
}

#[tokio::test]
async fn an_unknown_kid_forces_one_refetch_per_minute() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    assert_valid(
        &bearer(&app, &token(&user_claims())).await,
        "warm the cache",
    );
    let warm = keys.jwks_calls();
    assert_invalid(
        &bearer(&app, &sign(&user_claims(), Some("key-2"), "key-2")).await,
        "unknown kid",
    );
    assert_eq!(keys.jwks_calls(), warm + 1, "exactly one forced refetch");
    assert_invalid(
        &bearer(&app, &sign(&user_claims(), Some("key-3"), "key-2")).await,
        "second unknown kid",
    );
    assert_eq!(keys.jwks_calls(), warm + 1, "no further fetch within 60 s");
}

#[tokio::test]
async fn a_rotated_key_is_accepted_after_one_refetch() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    assert_valid(
        &bearer(&app, &token(&user_claims())).await,
        "warm the cache",
    );
    keys.set(|b| b.jwks = vec![jwk("key-1"), jwk("key-2")]);
    let warm = keys.jwks_calls();
    assert_valid(
        &bearer(&app, &sign(&user_claims(), Some("key-2"), "key-2")).await,
        "rotated key",
    );
    assert_eq!(keys.jwks_calls(), warm + 1);
}

#[tokio::test]
async fn a_kid_whose_key_is_not_rsa_is_never_used() {
    let keys = KeyServer::start().await;
    keys.set(|b| b.jwks = vec![ec_jwk("key-1")]);
    let app = authenticated(&keys).spawn().await;
    assert_invalid(
        &bearer(&app, &token(&user_claims())).await,
        "EC key under the kid",
    );
}

#[tokio::test]
async fn a_400_from_the_key_endpoint_rejects() {
    // Remembered for a minute, not as a success: forged_tokens.rs.
    let keys = KeyServer::start().await;
    keys.set(|b| b.jwks_status = 400);
    let app = authenticated(&keys).spawn().await;
    assert_invalid(&bearer(&app, &token(&user_claims())).await, "JWKS 400");
}

#[tokio::test]
async fn a_failing_slow_or_dead_key_service_gives_503_and_is_retried() {
    type Change = fn(&mut Behaviour);
    let cases: [(&str, Change); 4] = [
        ("JWKS 500", |b| b.jwks_status = 500),
        ("JWKS 429", |b| b.jwks_status = 429),
        ("discovery 503", |b| b.discovery_status = 503),
        ("JWKS slower than the timeout", |b| {
            b.jwks_delay = Duration::from_secs(2)
        }),
    ];
    for (case, change) in cases {
        let keys = KeyServer::start().await;
        let app = authenticated(&keys).spawn().await;
        keys.set(change);
        let answer = bearer(&app, &token(&user_claims())).await;
        assert_eq!(answer.status, 503, "{case}: {:?}", answer.body);
        assert_eq!(answer.challenge, None, "{case}: no challenge on 503");
        assert_eq!(answer.retry_after.as_deref(), Some("5"), "{case}");
        assert!(
            !answer.body.to_string().contains("127.0.0.1"),
            "{case}: no internals"
        );
        keys.set(|b| {
            b.jwks_status = 200;
            b.discovery_status = 200;
            b.jwks_delay = Duration::ZERO;
        });
        assert_valid(&bearer(&app, &token(&user_claims())).await, case);
    }
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    keys.stop().await;
    let answer = bearer(&app, &token(&user_claims())).await;
    assert_eq!(answer.status, 503, "key server down: {:?}", answer.body);
}

#[tokio::test]
async fn untrustworthy_discovery_documents_are_rejected() {
    let keys = KeyServer::start().await;
    keys.set(|b| b.omit_jwks_uri = true);
    let app = authenticated(&keys).spawn().await;
    assert_invalid(&bearer(&app, &token(&user_claims())).await, "no jwks_uri");
    keys.set(|b| {
        b.omit_jwks_uri = false;
        b.discovery_issuer = "https://evil.accounts.test".into();
    });
    assert_invalid(
        &bearer(&app, &token(&user_claims())).await,
        "discovery issuer differs",
    );
}

#[tokio::test]
async fn two_hundred_parallel_requests_with_a_cold_cache_fetch_the_keys_once() {
    let keys = KeyServer::start().await;
    keys.set(|b| b.jwks_delay = Duration::from_millis(100));
    let app = authenticated(&keys).spawn().await;
    let token = token(&user_claims());
    let calls = (0..200).map(|_| bearer(&app, &token));
    let answers = futures_util::future::join_all(calls).await;
    assert!(answers.iter().all(|a| a.status == 200), "all pass");
    assert_eq!(keys.jwks_calls(), 1, "exactly one key fetch");
    assert_eq!(keys.discovery_calls(), 1, "exactly one discovery");
}

#[tokio::test]
async fn api_groups_and_roles_decide_access() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    assert_forbidden(
        &bearer(
            &app,
            &token(&with(user_claims(), "ias_apis", json!(["some-other-api"]))),
        )
        .await,
        "group missing",
    );
    assert_forbidden(
        &bearer(
            &app,
            &token(&with(
                technical_claims(),
                "ias_apis",
                json!(["principal-propagation"]),
            )),
        )
        .await,
        "technical token with principal-propagation only",
    );
    assert_valid(
        &bearer(
            &app,
            &token(&with(
                user_claims(),
                "ias_apis",
                json!(["principal-propagation"]),
            )),
        )
        .await,
        "user token with principal-propagation and a role",
    );
    assert_forbidden(
        &bearer(
            &app,
            &token(&with(user_claims(), "groups", json!(["Unmapped_Group"]))),
        )
        .await,
        "user without a role",
    );
    assert_forbidden(
        &bearer(&app, &token(&with(user_claims(), "ias_apis", Value::Null))).await,
        "no ias_apis, azp is not us",
    );
    let first_party = with(
        with(technical_claims(), "ias_apis", Value::Null),
        "azp",
        json!(CLIENT_ID),
    );
    let first_party = with(first_party, "sub", json!(CLIENT_ID));
    assert_valid(
        &bearer(&app, &token(&first_party)).await,
        "own client credentials",
    );
    assert_valid(
        &bearer(
            &app,
            &token(&with(user_claims(), "ias_apis", json!(REQUIRED_API))),
        )
        .await,
        "ias_apis as one string",
    );
    assert_valid(
        &bearer(&app, &token(&technical_claims())).await,
        "technical App2App token",
    );
}

#[tokio::test]
async fn xsuaa_tokens_are_checked_by_scope() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.xsuaa.client_id = Some(XS_CLIENT_ID.into());
            settings.auth.xsuaa.xsappname = Some(XSAPPNAME.into());
            settings.auth.xsuaa.uaa_domain = Some("authentication.test".into());
        })
        .spawn()
        .await;
    let now = now();
    let xsuaa = json!({
        "iss": "https://sub.authentication.test/oauth/token",
        "zid": "zone-1",
        "cid": XS_CLIENT_ID,
        "azp": XS_CLIENT_ID,
        "aud": [XS_CLIENT_ID, XSAPPNAME],
        "sub": "user-7",
        "user_id": "user-7",
        "user_name": "clerk7",
        "grant_type": "authorization_code",
        "scope": [format!("{XSAPPNAME}.credit_manager"), "openid"],
        "exp": now + 600,
        "iat": now
    })
    .as_object()
    .cloned()
    .unwrap();
    assert_valid(
        &bearer(&app, &token(&xsuaa)).await,
        "XSUAA with a role scope",
    );
    assert_eq!(keys.token_keys_calls(), 1);
    assert_eq!(
        keys.last_jwks_headers().get("x-zid").map(String::as_str),
        Some("zone-1")
    );
    let no_scope = with(
        xsuaa.clone(),
        "scope",
        json!(["openid", "other-app!t1.credit_manager"]),
    );
    assert_forbidden(
        &bearer(&app, &token(&no_scope)).await,
        "XSUAA without our scope",
    );
    let foreign = with(
        with(
            with(xsuaa.clone(), "aud", json!(["other-app"])),
            "cid",
            json!("other"),
        ),
        "azp",
        json!("other"),
    );
    assert_invalid(
        &bearer(&app, &token(&foreign)).await,
        "XSUAA for another app",
    );
}

/// An XSUAA token with a role scope, for `grant_type`.
fn xsuaa_claims(grant_type: &str) -> serde_json::Map<String, Value> {
    let now = now();
    json!({
        "iss": "https://sub.authentication.test/oauth/token",
        "zid": "zone-1",
        "cid": XS_CLIENT_ID,
        "azp": XS_CLIENT_ID,
        "aud": [XS_CLIENT_ID, XSAPPNAME],
        "sub": "user-7",
        "user_id": "user-7",
        "user_name": "clerk7",
        "grant_type": grant_type,
        "scope": [format!("{XSAPPNAME}.credit_manager"), "openid"],
        "exp": now + 600,
        "iat": now
    })
    .as_object()
    .cloned()
    .unwrap()
}

/// The action ledger is for a person with a role: 200 or 403 tells whether
/// the token was taken for one.
async fn ledger_status(app: &TestApp, token: &str) -> u16 {
    app.client
        .get(format!("{}/actions", app.address))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn only_a_person_s_grant_makes_an_xsuaa_token_a_person() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.xsuaa.client_id = Some(XS_CLIENT_ID.into());
            settings.auth.xsuaa.xsappname = Some(XSAPPNAME.into());
            settings.auth.xsuaa.uaa_domain = Some("authentication.test".into());
        })
        .spawn()
        .await;
    for grant in [
        "authorization_code",
        "urn:ietf:params:oauth:grant-type:jwt-bearer",
    ] {
        let person = token(&xsuaa_claims(grant));
        assert_eq!(ledger_status(&app, &person).await, 200, "{grant}");
    }
    // A certificate-authenticated client, client credentials, a grant not
    // known: clients, whatever scopes they carry; they never approve.
    for grant in ["client_x509", "client_credentials", "some_new_grant"] {
        let client = token(&xsuaa_claims(grant));
        assert_eq!(ledger_status(&app, &client).await, 403, "{grant}");
        let asked = bearer(&app, &client).await;
        assert_eq!(asked.status, 200, "{grant}: {:?}", asked.body);
        assert_ne!(
            asked.body["result"]["status"]["state"], "input-required",
            "{grant}: a client is never asked to approve"
        );
    }
}

#[tokio::test]
async fn a_person_s_token_that_names_no_user_is_refused() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.xsuaa.client_id = Some(XS_CLIENT_ID.into());
            settings.auth.xsuaa.xsappname = Some(XSAPPNAME.into());
            settings.auth.xsuaa.uaa_domain = Some("authentication.test".into());
        })
        .spawn()
        .await;
    let mut nameless = user_claims();
    for claim in ["sub", "user_uuid", "scim_id"] {
        nameless.remove(claim);
    }
    let blank = with(
        with(user_claims(), "user_uuid", Value::Null),
        "sub",
        json!("  "),
    );
    let mut xsuaa_nameless = xsuaa_claims("authorization_code");
    for claim in ["sub", "user_id", "user_name"] {
        xsuaa_nameless.remove(claim);
    }
    for (case, claims) in [
        ("IAS user token without user_uuid, scim_id or sub", nameless),
        ("IAS user token whose sub is blank", blank),
        (
            "XSUAA user token without user_id, user_name or sub",
            xsuaa_nameless,
        ),
    ] {
        let answer = bearer(&app, &token(&claims)).await;
        assert_invalid(&answer, case);
        assert!(
            answer.body["error_description"]
                .as_str()
                .is_some_and(|text| text.contains("names no user")),
            "{case}: {:?}",
            answer.body
        );
    }
}

#[tokio::test]
async fn the_card_declares_the_scheme_and_the_extended_card_needs_a_token() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys).spawn().await;
    let card: Value = app
        .client
        .get(format!("{}/.well-known/agent-card.json", app.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    crate::helpers::assert_schema("AgentCard", &card);
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true);
    assert_eq!(card["securitySchemes"]["ias"]["type"], "openIdConnect");
    assert_eq!(
        card["securitySchemes"]["ias"]["openIdConnectUrl"],
        format!("{ISSUER}/.well-known/openid-configuration")
    );
    assert_eq!(card["security"], json!([{ "ias": [] }]));

    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", format!("Bearer {}", token(&user_claims())))
        .json(&json!({ "jsonrpc": "2.0", "id": 9, "method": "agent/getAuthenticatedExtendedCard", "params": {} }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.unwrap();
    crate::helpers::assert_schema("GetAuthenticatedExtendedCardResponse", &body);
    let pricing = body["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|skill| skill["id"] == "pricing")
        .unwrap()
        .clone();
    let description = pricing["description"].as_str().unwrap();
    assert!(description.contains("open_dispute_case"), "{description}");
    assert!(
        description.contains("ar_clerk, credit_manager"),
        "{description}"
    );

    // Without a token the endpoint refuses before any JSON-RPC is read.
    let answer = call(&app, None).await;
    assert_eq!(answer.status, 401);
}

/// The extended card's skills by id, fetched with a valid user token.
async fn extended_skills(app: &TestApp) -> Vec<Value> {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", format!("Bearer {}", token(&user_claims())))
        .json(&json!({ "jsonrpc": "2.0", "id": "card-1", "method": "agent/getAuthenticatedExtendedCard", "params": {} }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.unwrap();
    crate::helpers::assert_schema("GetAuthenticatedExtendedCardResponse", &body);
    body["result"]["skills"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("skills: {body}"))
}

fn skill<'a>(skills: &'a [Value], id: &str) -> &'a Value {
    skills
        .iter()
        .find(|skill| skill["id"] == id)
        .unwrap_or_else(|| panic!("skill {id} in {skills:?}"))
}

#[tokio::test]
async fn the_extended_card_names_the_approvers_of_the_rule_book_in_force() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            // The credit manager no longer approves disputes, a viewer does; the
            // delivery specialist proposes nothing any more.
            let rules = &mut settings.rules;
            rules.roles.insert(
                "credit_manager".into(),
                vec!["request_credit_review".into()],
            );
            rules
                .roles
                .insert("viewer".into(), vec!["open_dispute_case".into()]);
            rules.proposals.insert("delivery".into(), Vec::new());
            // A clerk given the credit release still may not approve the
            // credit review it goes with: the card names the manager only.
            rules.decisions.insert(
                "release_credit_block".into(),
                vec!["ar_clerk".into(), "credit_manager".into()],
            );
        })
        .spawn()
        .await;
    let skills = extended_skills(&app).await;

    let pricing = skill(&skills, "pricing")["description"].as_str().unwrap();
    assert!(
        pricing.ends_with(
            "Proposes `open_dispute_case`; roles that may approve it: ar_clerk, viewer."
        ),
        "{pricing}"
    );
    let credit = skill(&skills, "credit")["description"].as_str().unwrap();
    assert!(
        credit.ends_with(
            "Proposes `request_credit_review`; roles that may approve it: credit_manager. \
             With the approval, `release_credit_block` (within the credit policy's 5 percent) \
             may be decided by: credit_manager."
        ),
        "{credit}"
    );
    assert!(
        skill(&skills, "credit")["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tag| tag == "decision:release_credit_block"),
        "{credit}"
    );
    let delivery = skill(&skills, "delivery");
    let description = delivery["description"].as_str().unwrap();
    assert!(!description.contains("Proposes"), "{description}");
    assert!(
        !delivery["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tag| tag.as_str().is_some_and(|tag| tag.starts_with("action:"))),
        "{delivery}"
    );

    // The rule book the card describes is the one approvals follow: a
    // viewer is asked to approve the dispute.
    let viewer = with(user_claims(), "groups", json!(["viewer"]));
    let body: Value = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", format!("Bearer {}", token(&viewer)))
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": { "message": user_message("Order 4725: Pricing: customer disputes the price.") }
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let task = &body["result"];
    assert_eq!(task["status"]["state"], "input-required", "{body}");
    assert_eq!(
        task["status"]["message"]["metadata"]["approval"]["status"], "pending",
        "{body}"
    );
    keys.stop().await;
}

#[tokio::test]
async fn with_authentication_off_health_warns_and_the_extended_card_is_not_configured() {
    let app = TestApp::spawn().await;
    let health = app.get_json("/health").await;
    assert_eq!(health["authentication"], "off");
    assert!(health["warning"].as_str().unwrap().contains("anonymous"));
    let error = app
        .rpc_error("agent/getAuthenticatedExtendedCard", json!({}))
        .await;
    assert_eq!(error["code"], -32007);
}

#[tokio::test]
async fn a_protected_card_needs_a_token() {
    let keys = KeyServer::start().await;
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.protect_card = true;
        })
        .spawn()
        .await;
    let url = format!("{}/.well-known/agent-card.json", app.address);
    let response = app.client.get(&url).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let response = app
        .client
        .get(&url)
        .header("Authorization", format!("Bearer {}", token(&user_claims())))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn cached_keys_are_refreshed_in_the_background_and_expire() {
    let keys = KeyServer::start().await;
    let clock = Clock::default();
    let app = authenticated(&keys)
        .settings(|settings| {
            settings.auth.key_cache_ttl_secs = 2;
            settings.clock = clock.clone();
        })
        .spawn()
        .await;
    assert_valid(&bearer(&app, &token(&user_claims())).await, "cold");
    assert_eq!(keys.jwks_calls(), 1);
    // Past half the lifetime: served from the cache, refreshed behind it.
    clock.advance(Duration::from_millis(1200));
    // A new token (another jti): verified tokens are remembered, keys are not asked.
    let second = with(user_claims(), "jti", json!("jti-refresh"));
    assert_valid(&bearer(&app, &token(&second)).await, "refresh window");
    wait_until(Duration::from_secs(1), async || keys.jwks_calls() == 2).await;
    assert_eq!(keys.jwks_calls(), 2, "one background refresh");
    // A failing refresh keeps serving; past the hard expiry it must refetch.
    keys.set(|b| b.jwks_status = 500);
    clock.advance(Duration::from_millis(2200));
    let third = with(user_claims(), "jti", json!("jti-expired-keys"));
    let answer = bearer(&app, &token(&third)).await;
    assert_eq!(
        answer.status, 503,
        "expired keys are not used: {:?}",
        answer.body
    );
}

#[tokio::test]
async fn a_remembered_token_is_still_refused_once_it_expires() {
    let keys = KeyServer::start().await;
    let clock = Clock::default();
    let app = authenticated(&keys)
        .settings(|settings| settings.clock = clock.clone())
        .spawn()
        .await;
    // Valid for about 4 more seconds (exp + 60 s leeway).
    let almost_expired = token(&with(user_claims(), "exp", json!(now() - 56)));
    assert_valid(&bearer(&app, &almost_expired).await, "within the leeway");
    let fetched = keys.jwks_calls();
    assert_valid(&bearer(&app, &almost_expired).await, "remembered");
    assert_eq!(keys.jwks_calls(), fetched);
    clock.advance(Duration::from_secs(5));
    assert_invalid(&bearer(&app, &almost_expired).await, "past exp + leeway");
}
