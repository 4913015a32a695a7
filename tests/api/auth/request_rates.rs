//! Request-rate quotas over real HTTP with real tokens: a caller past its
//! burst gets 429, `Retry-After` and -32029 naming its limit, before its
//! body is read; another caller of the same tenant is still served, until
//! the tenant's rate refuses every caller of it; with authentication off
//! one bucket holds for the whole instance and `/health` is not counted;
//! `a2a_limit_refusals_total{limit}` counts each refusal.
//!
//! The rates are 1 a second, the least there is, and each check leaves
//! seconds of slack: "at least one refusal in 10 requests" holds unless the
//! 10 take longer than the bucket needs to refill them all.

use crate::helpers::key_server::*;
use crate::helpers::{Settings, TestApp};
use serde_json::{Value, json};

/// A person's token with this user id, in the test tenant.
fn person(id: &str) -> String {
    let claims = with(user_claims(), "user_uuid", json!(id));
    token(&with(claims, "sub", json!(id)))
}

/// A technical client's token (client credentials) as client `azp`.
fn technical(azp: &str) -> String {
    let claims = with(technical_claims(), "azp", json!(azp));
    token(&with(claims, "sub", json!(azp)))
}

/// One cheap call (`tasks/get` of an unknown task), as `token` if any:
/// the status, `Retry-After`, `Connection` and the JSON body.
async fn call(app: &TestApp, token: Option<&str>) -> (u16, Option<String>, Option<String>, Value) {
    let mut request = app.client.post(format!("{}/", app.address));
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let answer = request
        .json(&json!({"jsonrpc": "2.0", "id": "r-1", "method": "tasks/get", "params": {"id": "no-such-task"}}))
        .send()
        .await
        .expect("reaches the server");
    let header = |name: &str| {
        answer
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let (retry_after, connection) = (header("retry-after"), header("connection"));
    let status = answer.status().as_u16();
    let body = answer.json().await.expect("a JSON answer");
    (status, retry_after, connection, body)
}

/// Calls as `token` until the first refusal (at most 10): its answer.
async fn first_refusal(
    app: &TestApp,
    token: Option<&str>,
) -> (u16, Option<String>, Option<String>, Value) {
    for _ in 0..10 {
        let answer = call(app, token).await;
        if answer.0 != 200 {
            return answer;
        }
        assert_eq!(answer.3["error"]["code"], -32001, "served: {}", answer.3);
    }
    panic!("10 calls at once were all served");
}

/// The answer is a refusal past `setting`: 429, a `Retry-After` of at
/// least a second, the body unread (the connection closes), -32029 with
/// `id: null` naming the setting and the same wait.
fn assert_refused(answer: &(u16, Option<String>, Option<String>, Value), setting: &str) {
    let (status, retry_after, connection, body) = answer;
    assert_eq!(*status, 429, "{body}");
    let wait: u64 = retry_after
        .as_deref()
        .and_then(|secs| secs.parse().ok())
        .unwrap_or_else(|| panic!("a Retry-After in seconds: {retry_after:?}"));
    assert!(wait >= 1, "{wait}");
    assert_eq!(
        connection.as_deref(),
        Some("close"),
        "the body was not read"
    );
    assert_eq!(body["id"], Value::Null, "{body}");
    assert_eq!(body["error"]["code"], -32029, "{body}");
    assert_eq!(body["error"]["data"]["limit"], setting, "{body}");
    assert_eq!(body["error"]["data"]["max"], 1, "{body}");
    assert_eq!(body["error"]["data"]["retryAfterSeconds"], wait, "{body}");
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(message.contains(setting), "{message}");
    assert!(
        message.ends_with(&format!("retry after {wait} s")),
        "{message}"
    );
}

fn rates(caller_burst: u32, tenant_burst: u32) -> impl FnOnce(&mut Settings) {
    move |settings| {
        let quota = &mut settings.server.quota;
        quota.caller_per_sec = 1;
        quota.caller_burst = caller_burst;
        quota.tenant_per_sec = 1;
        quota.tenant_burst = tenant_burst;
        settings.telemetry.metrics_endpoint = true;
    }
}

#[tokio::test]
async fn a_caller_past_its_burst_is_refused_and_another_caller_of_its_tenant_is_not() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder()
        .auth(&keys)
        .settings(rates(3, 100))
        .spawn()
        .await;
    let before = app.limit_refusals("caller").await;
    let flooding = person("user-flood");
    let refused = first_refusal(&app, Some(&flooding)).await;
    assert_refused(&refused, "server.quota.caller_per_sec");
    assert!(
        app.limit_refusals("caller").await > before,
        "the refusal is counted"
    );
    // Another person, and a technical client, of the same tenant: served.
    for other in [person("user-calm"), technical("other-app")] {
        let (status, _, _, body) = call(&app, Some(&other)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["error"]["code"], -32001, "{body}");
    }
}

#[tokio::test]
async fn a_tenant_past_its_rate_refuses_every_caller_of_it() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder()
        .auth(&keys)
        .settings(rates(100, 3))
        .spawn()
        .await;
    let before = app.limit_refusals("tenant").await;
    let refused = first_refusal(&app, Some(&person("user-a"))).await;
    assert_refused(&refused, "server.quota.tenant_per_sec");
    // A caller that has sent nothing yet is refused too: in three calls at
    // once at most one can find a token refilled.
    let fresh = person("user-b");
    let mut answers = Vec::new();
    for _ in 0..3 {
        answers.push(call(&app, Some(&fresh)).await);
    }
    let refusal = answers
        .iter()
        .find(|answer| answer.0 == 429)
        .unwrap_or_else(|| panic!("user-b was served 3 times: {answers:?}"));
    assert_refused(refusal, "server.quota.tenant_per_sec");
    assert!(app.limit_refusals("tenant").await >= before + 2);
}

#[tokio::test]
async fn with_authentication_off_one_bucket_holds_for_the_instance_and_health_is_not_counted() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.server.quota.local_per_sec = 1;
            settings.server.quota.local_burst = 3;
            settings.telemetry.metrics_endpoint = true;
        })
        .spawn()
        .await;
    let before = app.limit_refusals("instance").await;
    let refused = first_refusal(&app, None).await;
    assert_refused(&refused, "server.quota.local_per_sec");
    // Any other local caller shares the bucket; GET /health does not.
    let other = app.as_role("ar_clerk");
    let answers = [call(&other, None).await, call(&other, None).await];
    assert!(answers.iter().any(|answer| answer.0 == 429), "{answers:?}");
    let health = app
        .client
        .get(format!("{}/health", app.address))
        .send()
        .await
        .expect("reaches the server");
    assert_eq!(health.status().as_u16(), 200);
    assert!(app.limit_refusals("instance").await > before);
}
