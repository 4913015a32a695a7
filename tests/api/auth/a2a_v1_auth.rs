//! A2A 1.0 with authentication on: `ListTasks` shows each user their own
//! tasks (technical callers the tasks created without a user), the
//! extended card over 1.0 is a valid pure 1.0 card, and the public card
//! carries both versions' security members.

use crate::helpers::key_server::*;
use crate::helpers::{ScriptedAgent, TestApp, assert_schema};
use crate::protocol::a2a_v1::{assert_v1_error, message};
use crate::protocol::a2a_v1_schema::assert_v1;
use serde_json::{Value, json};
use std::time::Duration;

async fn call(app: &TestApp, token: &str, method: &str, params: Value) -> Value {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", format!("Bearer {token}"))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.expect("JSON");
    if let Some(error) = body.get("error") {
        assert_v1_error(error);
        panic!("unexpected error: {body}");
    }
    body["result"].clone()
}

fn user(id: &str) -> String {
    let claims = with(user_claims(), "user_uuid", json!(id));
    token(&with(claims, "sub", json!(id)))
}

#[tokio::test]
async fn list_tasks_shows_a_user_their_own_tasks_only() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder()
        .auth(&keys)
        .agent(ScriptedAgent::answering_after(Duration::ZERO).shared())
        .spawn()
        .await;
    let (alice, bob, technical) = (user("alice"), user("bob"), token(&technical_claims()));
    let mut mine = Vec::new();
    for _ in 0..2 {
        let sent = call(
            &app,
            &alice,
            "SendMessage",
            json!({"message": message("a")}),
        )
        .await;
        mine.push(sent["task"]["id"].clone());
    }
    let theirs = call(&app, &bob, "SendMessage", json!({"message": message("b")})).await;
    let machine = call(
        &app,
        &technical,
        "SendMessage",
        json!({"message": message("t")}),
    )
    .await;

    let listed = call(&app, &alice, "ListTasks", json!({})).await;
    assert_v1("ListTasksResponse", &listed);
    assert_eq!(listed["totalSize"], 2, "{listed}");
    let mut ids: Vec<Value> = listed["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|task| task["id"].clone())
        .collect();
    ids.sort_by_key(|id| id.to_string());
    mine.sort_by_key(|id| id.to_string());
    assert_eq!(ids, mine);

    let listed = call(&app, &bob, "ListTasks", json!({})).await;
    assert_eq!(listed["totalSize"], 1);
    assert_eq!(listed["tasks"][0]["id"], theirs["task"]["id"]);
    let listed = call(&app, &technical, "ListTasks", json!({})).await;
    assert_eq!(listed["totalSize"], 1);
    assert_eq!(listed["tasks"][0]["id"], machine["task"]["id"]);
}

#[tokio::test]
async fn the_extended_card_over_1_0_is_a_pure_1_0_card_and_the_public_card_carries_both() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    let card = call(&app, &user("alice"), "GetExtendedAgentCard", json!({})).await;
    assert_v1("AgentCard", &card);
    assert!(card.get("url").is_none(), "no 0.3 keys: {card}");
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    assert_eq!(card["capabilities"]["extendedAgentCard"], true);
    assert!(
        card["securitySchemes"]["ias"]["openIdConnectSecurityScheme"]["openIdConnectUrl"]
            .as_str()
            .is_some_and(|url| url.ends_with("/.well-known/openid-configuration")),
        "{card}"
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"ias": {"list": []}}}])
    );
    // Action tags come from the extended card, as over 0.3.
    let tags = card["skills"][0]["tags"].to_string();
    assert!(tags.contains("action:"), "{tags}");

    let public = app.get_json("/.well-known/agent-card.json").await;
    assert_schema("AgentCard", &public);
    assert_eq!(public["securitySchemes"]["ias"]["type"], "openIdConnect");
    assert_eq!(public["security"], json!([{"ias": []}]));
    assert_eq!(public["supportsAuthenticatedExtendedCard"], true);
    assert_eq!(public["capabilities"]["extendedAgentCard"], true);
    assert_eq!(
        public["securityRequirements"],
        json!([{"schemes": {"ias": {"list": []}}}])
    );
}
