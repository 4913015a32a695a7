//! Issue 38: what one caller can make the push room hold and send. Push
//! configs per task are bounded (`push.max_configs_per_task`) on every way
//! in (0.3 set, an inline config continuing a task, 1.0 create); header
//! values of a config are judged when it is set; the delivery log names a
//! webhook without its query or user information and says why a delivery
//! failed.

use crate::a2a_v1::{message as v1_message, send as v1_send, v1_error, v1_ok};
use crate::helpers::webhook::WebhookReceiver as Receiver;
use crate::helpers::{ScriptedAgent, TestApp, TestAppBuilder, state, user_message};
use serde_json::{Value, json};
use std::time::Duration;

/// Loopback webhooks, a task that waits for input, at most `most` configs.
fn app_with_bound(most: usize) -> TestAppBuilder {
    TestApp::builder()
        .loopback_webhooks(&["127.0.0.1"])
        .agent(
            ScriptedAgent::answering_after(Duration::ZERO)
                .asking_first()
                .shared(),
        )
        .settings(move |settings| settings.push.max_configs_per_task = most)
}

/// A task in `input-required` (0.3).
async fn waiting_task(app: &TestApp) -> Value {
    let task = app.send(user_message("which one?")).await;
    assert_eq!(state(&task), "input-required", "{task}");
    task
}

async fn set(app: &TestApp, task_id: &Value, config_id: &str, url: &str) -> Value {
    app.rpc(
        "tasks/pushNotificationConfig/set",
        json!({ "taskId": task_id, "pushNotificationConfig": { "id": config_id, "url": url } }),
    )
    .await
}

async fn listed(app: &TestApp, task_id: &Value) -> Vec<Value> {
    app.rpc(
        "tasks/pushNotificationConfig/list",
        json!({ "id": task_id }),
    )
    .await["result"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test]
async fn a_set_past_the_bound_is_32602_naming_the_bound_and_replacing_still_works() {
    let receiver = Receiver::start().await;
    let app = app_with_bound(3).spawn().await;
    let task = waiting_task(&app).await;
    let id = &task["id"];
    for n in 1..=3 {
        let body = set(
            &app,
            id,
            &format!("c{n}"),
            &format!("{}/c{n}", receiver.url),
        )
        .await;
        assert!(body.get("result").is_some(), "{body}");
    }
    let refused = set(&app, id, "c4", &format!("{}/c4", receiver.url)).await;
    let error = &refused["error"];
    assert_eq!(error["code"], -32602, "{refused}");
    let text = error["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("params.pushNotificationConfig: "),
        "names the config: {text}"
    );
    assert!(
        text.contains("push.max_configs_per_task") && text.contains('3'),
        "{text}"
    );
    assert!(text.contains("delete one"), "says what to do: {text}");
    let replaced = set(&app, id, "c2", &format!("{}/moved", receiver.url)).await;
    assert_eq!(
        replaced["result"]["pushNotificationConfig"]["url"],
        format!("{}/moved", receiver.url),
        "replacing by id is not a new config: {replaced}"
    );
    let kept = listed(&app, id).await;
    assert_eq!(kept.len(), 3, "{kept:?}");
    // Deleting one makes room again.
    app.rpc(
        "tasks/pushNotificationConfig/delete",
        json!({ "id": id, "pushNotificationConfigId": "c1" }),
    )
    .await;
    let body = set(&app, id, "c4", &format!("{}/c4", receiver.url)).await;
    assert!(body.get("result").is_some(), "{body}");
}

#[tokio::test]
async fn concurrent_sets_do_not_race_past_the_bound() {
    let receiver = Receiver::start().await;
    let app = app_with_bound(4).spawn().await;
    let task = waiting_task(&app).await;
    let id = &task["id"];
    let sets = (0..12).map(|n| {
        let url = format!("{}/r{n}", receiver.url);
        let app = &app;
        async move { set(app, id, &format!("r{n}"), &url).await }
    });
    let answers = futures_util::future::join_all(sets).await;
    let stored = answers.iter().filter(|a| a.get("result").is_some()).count();
    let refused = answers
        .iter()
        .filter(|a| a["error"]["code"] == -32602)
        .count();
    assert_eq!((stored, refused), (4, 8), "{answers:?}");
    assert_eq!(listed(&app, id).await.len(), 4);
}

#[tokio::test]
async fn an_inline_config_continuing_a_full_task_is_refused_before_the_turn() {
    let receiver = Receiver::start().await;
    let app = app_with_bound(1).spawn().await;
    let task = waiting_task(&app).await;
    let id = &task["id"];
    let body = set(&app, id, "only", &format!("{}/only", receiver.url)).await;
    assert!(body.get("result").is_some(), "{body}");
    let mut follow_up = user_message("that one");
    follow_up["taskId"] = id.clone();
    follow_up["contextId"] = task["contextId"].clone();
    let refused = app
        .rpc(
            "message/send",
            json!({ "message": follow_up, "configuration": { "pushNotificationConfig": {
                "id": "second", "url": format!("{}/second", receiver.url) } } }),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let text = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("params.configuration.pushNotificationConfig: ")
            && text.contains("push.max_configs_per_task"),
        "{text}"
    );
    let ids: Vec<Value> = listed(&app, id)
        .await
        .iter()
        .map(|c| c["pushNotificationConfig"]["id"].clone())
        .collect();
    assert_eq!(ids, [json!("only")]);
    let after = app.rpc("tasks/get", json!({ "id": id })).await;
    assert_eq!(state(&after["result"]), "input-required", "no turn ran");
}

#[tokio::test]
async fn a_1_0_create_past_the_bound_is_32602_naming_params() {
    let app = app_with_bound(2).spawn().await;
    let task = v1_send(&app, v1_message("wait")).await;
    let id = task["id"].as_str().unwrap_or_default();
    for n in 1..=2 {
        v1_ok(
            &app,
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": format!("h{n}"), "url": "http://127.0.0.1:9/hook"}),
        )
        .await;
    }
    let error = v1_error(
        &app,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": id, "id": "h3", "url": "http://127.0.0.1:9/hook"}),
    )
    .await;
    assert_eq!(error["code"], -32602, "{error}");
    let text = error["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("params: ") && text.contains("push.max_configs_per_task"),
        "{text}"
    );
    let listed = v1_ok(
        &app,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(listed["configs"].as_array().map(Vec::len), Some(2));
}
