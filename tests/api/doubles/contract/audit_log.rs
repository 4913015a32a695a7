//! The Audit Log Service double against reference/audit-log.md: the token
//! endpoint and its check of the client credentials (§1.3, §7.1), the four
//! write paths (§0), field validation with the 400 on a missing
//! `data_subject.id` and the 413 past 10 KB (§2.3, §2.4), and the 429 and
//! 503 switches (§2.3, §5).

use super::support::{client, send};
use crate::doubles::audit_log::{AuditLogDouble, CLIENT_ID, CLIENT_SECRET, MAX_BODY_BYTES};
use serde_json::{Value, json};

async fn token(double: &AuditLogDouble) -> String {
    let answer = send(
        client()
            .post(format!("{}/oauth/token", double.url))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(format!(
                "grant_type=client_credentials&response_type=token&client_id={}&client_secret={CLIENT_SECRET}",
                CLIENT_ID.replace('!', "%21").replace('|', "%7C")
            )),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let body = answer.json();
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["expires_in"], 43199);
    body["access_token"].as_str().expect("a token").to_string()
}

async fn post(double: &AuditLogDouble, token: &str, kind: &str, body: &Value) -> u16 {
    send(
        client()
            .post(format!("{}/audit-log/oauth2/v2/{kind}", double.url))
            .bearer_auth(token)
            .header("Content-Type", "application/json; charset=UTF-8")
            .body(body.to_string()),
    )
    .await
    .status
}

fn access() -> Value {
    json!({"data_subject":{"id":{"ID":"1004155"},"role":"Customer","type":"AdminService.Customers"},
        "object":{"type":"AdminService.Customers","id":{"ID":"1004155"}},
        "attributes":[{"name":"creditCardNo"}],
        "uuid":"71fa93d9-c993-405f-ba1b-a9ef42668199","tenant":"$PROVIDER","user":"alice",
        "time":"2023-02-26T08:13:48.287Z"})
}

#[tokio::test]
async fn the_token_endpoint_checks_the_client_credentials_in_the_form_or_basic() {
    let double = AuditLogDouble::start().await;
    let _ = token(&double).await;
    let basic = send(
        client()
            .post(format!("{}/oauth/token", double.url))
            .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
            .body("grant_type=client_credentials"),
    )
    .await;
    assert_eq!(basic.status, 200);
    let wrong = send(
        client()
            .post(format!("{}/oauth/token", double.url))
            .basic_auth(CLIENT_ID, Some("guess"))
            .body("grant_type=client_credentials"),
    )
    .await;
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["error"], "invalid_client");
    assert_eq!(double.token_calls(), 3);
}

#[tokio::test]
async fn writes_need_its_token_valid_fields_and_at_most_10_kb() {
    let double = AuditLogDouble::start().await;
    assert_eq!(
        post(&double, "forged", "data-accesses", &access()).await,
        401
    );
    let token = token(&double).await;
    assert_eq!(post(&double, &token, "data-accesses", &access()).await, 201);
    let mut no_subject_id = access();
    no_subject_id["data_subject"]
        .as_object_mut()
        .unwrap()
        .remove("id");
    assert_eq!(
        post(&double, &token, "data-accesses", &no_subject_id).await,
        400
    );
    let security = json!({"data":"{\"action\":\"x\"}","ip":"127.0.0.1","uuid":"u","tenant":"$PROVIDER",
        "user":"alice","time":"2023-02-26T08:13:48.287Z"});
    assert_eq!(
        post(&double, &token, "security-events", &security).await,
        201
    );
    let mut empty_data = security.clone();
    empty_data["data"] = json!("");
    assert_eq!(
        post(&double, &token, "security-events", &empty_data).await,
        400
    );
    let mut large = security.clone();
    large["data"] = json!("x".repeat(MAX_BODY_BYTES));
    assert_eq!(post(&double, &token, "security-events", &large).await, 413);
    let change = json!({"object":{"type":"sap.common.Currencies","id":{"ID":"f79b"}},
        "attributes":[{"name":"symbol","old":"EUR","new":"€"}],
        "uuid":"u2","tenant":"$PROVIDER","user":"alice","time":"t","success":true,
        "customDetails":null,"identityProvider":"$IDP"});
    assert_eq!(
        post(&double, &token, "configuration-changes", &change).await,
        201
    );
    let mut no_attributes = change.clone();
    no_attributes["attributes"] = json!([]);
    assert_eq!(
        post(&double, &token, "configuration-changes", &no_attributes).await,
        400
    );
    assert_eq!(post(&double, &token, "other-events", &change).await, 404);
    assert_eq!(double.accepted("data-accesses"), vec![access()]);
    assert_eq!(double.accepted("configuration-changes").len(), 1);
}

#[tokio::test]
async fn the_switches_answer_429_and_503_until_cleared() {
    let double = AuditLogDouble::start().await;
    let token = token(&double).await;
    double.answer_writes_with(Some(429), Some(2));
    let answer = send(
        client()
            .post(format!("{}/audit-log/oauth2/v2/data-accesses", double.url))
            .bearer_auth(&token)
            .header("Content-Type", "application/json")
            .body(access().to_string()),
    )
    .await;
    assert_eq!(answer.status, 429);
    assert_eq!(answer.header("retry-after"), Some("2"));
    double.answer_writes_with(Some(503), None);
    assert_eq!(post(&double, &token, "data-accesses", &access()).await, 503);
    double.answer_writes_with(None, None);
    assert_eq!(post(&double, &token, "data-accesses", &access()).await, 201);
    let statuses: Vec<u16> = double.writes().iter().map(|write| write.status).collect();
    assert_eq!(statuses, [429, 503, 201]);
}
