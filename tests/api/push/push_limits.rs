//! What one caller can make the push room hold and send. Push
//! configs per task are bounded (`push.max_configs_per_task`) on every way
//! in (0.3 set, an inline config continuing a task, 1.0 create); header
//! values of a config are judged when it is set; the delivery log names a
//! webhook without its query or user information and says why a delivery
//! failed.

use crate::helpers::binary::start_binary;
use crate::helpers::webhook::WebhookReceiver as Receiver;
use crate::helpers::{ScriptedAgent, TestApp, TestAppBuilder, state, user_message, wait_until};
use crate::protocol::a2a_v1::{message as v1_message, send as v1_send, v1_error, v1_ok};
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

/// A header value no header can carry: a secret with CR/LF in it.
const CRLF_SECRET: &str = "crlf-secret\r\nX-Injected: 1";

#[tokio::test]
async fn header_values_with_control_characters_are_32602_naming_the_field_as_sent() {
    let app = app_with_bound(10).spawn().await;
    let task = waiting_task(&app).await;
    let id = &task["id"];
    let hook = "http://127.0.0.1:9/hook";
    let cases = [
        (
            json!({ "url": hook, "token": CRLF_SECRET }),
            "params.pushNotificationConfig.token",
        ),
        (
            json!({ "url": hook, "authentication": { "schemes": ["Bearer"], "credentials": CRLF_SECRET } }),
            "params.pushNotificationConfig.authentication.credentials",
        ),
        (
            json!({ "url": hook, "authentication": { "schemes": ["Bearer", "Basic\u{7f}"], "credentials": "c" } }),
            "params.pushNotificationConfig.authentication.schemes[1]",
        ),
        (
            json!({ "url": hook, "token": "tab\tinside" }),
            "params.pushNotificationConfig.token",
        ),
    ];
    for (config, field) in cases {
        let error = app
            .rpc_error(
                "tasks/pushNotificationConfig/set",
                json!({ "taskId": id, "pushNotificationConfig": config }),
            )
            .await;
        assert_eq!(error["code"], -32602, "{error}");
        let text = error["message"].as_str().unwrap_or_default();
        assert!(text.starts_with(&format!("{field}: ")), "{field}: {text}");
        assert!(text.contains("control character"), "{text}");
        assert!(!error.to_string().contains("crlf-secret"), "{error}");
    }
    assert!(listed(&app, id).await.is_empty(), "nothing stored");

    // Inline, starting a task and continuing one.
    let inline = |message: Value| {
        json!({ "message": message, "configuration": { "pushNotificationConfig": {
            "url": hook, "authentication": { "schemes": ["Bearer"], "credentials": CRLF_SECRET } } } })
    };
    let mut follow_up = user_message("that one");
    follow_up["taskId"] = id.clone();
    for message in [user_message("new"), follow_up] {
        let error = app.rpc_error("message/send", inline(message)).await;
        assert_eq!(error["code"], -32602, "{error}");
        let text = error["message"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(
                "params.configuration.pushNotificationConfig.authentication.credentials: "
            ),
            "{text}"
        );
    }
    assert!(listed(&app, id).await.is_empty(), "nothing stored");
}

#[tokio::test]
async fn over_1_0_header_values_are_named_as_1_0_spells_them() {
    let app = app_with_bound(10).spawn().await;
    let task = v1_send(&app, v1_message("wait")).await;
    let id = task["id"].as_str().unwrap_or_default();
    let hook = "http://127.0.0.1:9/hook";
    let cases = [
        (
            json!({"taskId": id, "url": hook, "token": CRLF_SECRET}),
            "params.token",
        ),
        (
            json!({"taskId": id, "url": hook, "authentication": {"scheme": "Bearer", "credentials": CRLF_SECRET}}),
            "params.authentication.credentials",
        ),
        (
            json!({"taskId": id, "url": hook, "authentication": {"scheme": "Bea\nrer", "credentials": "c"}}),
            "params.authentication.scheme",
        ),
    ];
    for (params, field) in cases {
        let error = v1_error(&app, "CreateTaskPushNotificationConfig", params).await;
        assert_eq!(error["code"], -32602, "{error}");
        let text = error["message"].as_str().unwrap_or_default();
        assert!(text.starts_with(&format!("{field}: ")), "{field}: {text}");
        assert!(!error.to_string().contains("crlf-secret"), "{error}");
    }
    let error = v1_error(
        &app,
        "SendMessage",
        json!({"message": v1_message("new"), "configuration": {"taskPushNotificationConfig": {
            "url": hook, "token": CRLF_SECRET}}}),
    )
    .await;
    assert_eq!(error["code"], -32602, "{error}");
    let text = error["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("params.configuration.taskPushNotificationConfig.token: "),
        "{text}"
    );
    let listed = v1_ok(
        &app,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(
        listed["configs"].as_array().map(Vec::len),
        Some(0),
        "{listed}"
    );
}

/// The real binary with JSON logs, webhooks on loopback, two quick tries.
async fn binary_with_loopback_webhooks() -> crate::helpers::binary::Running {
    start_binary(&[
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1"),
        ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true"),
        ("AGENT__PUSH__MAX_ATTEMPTS", "2"),
        ("AGENT__PUSH__RETRY_BASE_MS", "20"),
        ("RUST_LOG", "info"),
    ])
    .await
}

/// `message/send` (blocking) with an inline webhook `url`.
async fn send_with_hook(app: &TestApp, url: &str) -> Value {
    app.rpc(
        "message/send",
        json!({ "message": user_message("why is order 4711 blocked by credit"),
            "configuration": { "blocking": true, "pushNotificationConfig": { "url": url } } }),
    )
    .await
}

/// The log lines that are JSON records with `msg`.
fn records<'a>(log: &'a [String], msg: &str) -> Vec<&'a String> {
    log.iter()
        .filter(|line| serde_json::from_str::<Value>(line).is_ok_and(|record| record["msg"] == msg))
        .collect()
}

#[tokio::test]
async fn a_failed_delivery_is_logged_with_its_reason() {
    let webhook = Receiver::start().await;
    webhook.fail("/hook", 2);
    let running = binary_with_loopback_webhooks().await;
    let app = running.app();
    let answered = send_with_hook(&app, &format!("{}/hook", webhook.url)).await;
    assert_eq!(state(&answered["result"]), "completed", "{answered}");
    wait_until(Duration::from_secs(10), async || {
        webhook.at("/hook").len() >= 2
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = running.terminate().await;
    let failed = records(&log, "push delivery failed");
    assert_eq!(failed.len(), 2, "{log:#?}");
    for line in &failed {
        assert!(line.contains("the webhook answered HTTP 500"), "{line}");
    }
    let given_up = records(&log, "push delivery given up");
    assert_eq!(given_up.len(), 1, "{log:#?}");
    assert!(
        given_up[0].contains("the webhook answered HTTP 500"),
        "{}",
        given_up[0]
    );
}

#[tokio::test]
async fn logs_name_a_webhook_by_scheme_host_and_path_never_its_query_or_user_info() {
    let webhook = Receiver::start().await;
    webhook.fail("/hook", 2);
    let running = binary_with_loopback_webhooks().await;
    let app = running.app();
    let named = format!("{}/hook", webhook.url);
    // Delivered to (and failing), with a secret in its query.
    let answered = send_with_hook(&app, &format!("{named}?sig=q-secret&x=1")).await;
    assert_eq!(state(&answered["result"]), "completed", "{answered}");
    // With user information: refused at set time, without repeating it.
    let with_user = named.replacen("http://", "http://hook-user:pw-secret@", 1);
    let refused = send_with_hook(&app, &format!("{with_user}?sig=q-secret")).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(!refused.to_string().contains("secret"), "{refused}");
    wait_until(Duration::from_secs(10), async || {
        webhook.at("/hook").len() >= 2
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = running.terminate().await;
    let delivery: Vec<&String> = ["push delivery failed", "push delivery given up"]
        .iter()
        .flat_map(|msg| records(&log, msg))
        .collect();
    assert_eq!(delivery.len(), 3, "two tries and the give-up: {log:#?}");
    for line in delivery {
        let record: Value = serde_json::from_str(line).unwrap_or_default();
        assert_eq!(record["push.webhook"], json!(named), "{line}");
    }
    for line in &log {
        assert!(
            !line.contains("q-secret")
                && !line.contains("pw-secret")
                && !line.contains("hook-user"),
            "a secret in the log: {line}"
        );
    }
}

/// Each value of a config is bounded (URL 2 KiB, token and credentials
/// 4 KiB, id 256 bytes, four schemes): past it −32602 naming the field and
/// the bound, on every way in, and nothing stored.
#[tokio::test]
async fn oversize_config_values_are_32602_naming_the_field_and_the_bound() {
    let app = app_with_bound(10).spawn().await;
    let task = waiting_task(&app).await;
    let id = &task["id"];
    let hook = "http://127.0.0.1:9/hook";
    let long_url = format!("{hook}?q={}", "u".repeat(2048));
    let cases = [
        (json!({ "url": long_url }), "url", "2048"),
        (
            json!({ "url": hook, "token": "t".repeat(4097) }),
            "token",
            "4096",
        ),
        (
            json!({ "url": hook, "authentication": { "schemes": ["Bearer"], "credentials": "c".repeat(4097) } }),
            "authentication.credentials",
            "4096",
        ),
        (
            json!({ "url": hook, "authentication": { "schemes": ["Bearer", "Basic", "a", "b", "c"] } }),
            "authentication.schemes",
            "4",
        ),
    ];
    for (config, field, bound) in cases {
        let error = app
            .rpc_error(
                "tasks/pushNotificationConfig/set",
                json!({ "taskId": id, "pushNotificationConfig": config }),
            )
            .await;
        assert_eq!(error["code"], -32602, "{error}");
        let text = error["message"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(&format!("params.pushNotificationConfig.{field}: ")),
            "{field}: {text}"
        );
        assert!(text.contains(bound), "names the bound: {text}");
        assert!(text.len() < 400, "the value is not repeated: {text}");
    }
    // At the bound: taken.
    let at_bound = json!({ "url": hook, "token": "t".repeat(4096) });
    let body = app
        .rpc(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": id, "pushNotificationConfig": at_bound }),
        )
        .await;
    assert!(body.get("result").is_some(), "{body}");
    // Inline, continuing the task.
    let mut follow_up = user_message("that one");
    follow_up["taskId"] = id.clone();
    let error = app
        .rpc_error(
            "message/send",
            json!({ "message": follow_up, "configuration": { "pushNotificationConfig": {
                "id": "inline", "url": hook, "token": "t".repeat(5000) } } }),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    let text = error["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("params.configuration.pushNotificationConfig.token: ")
            && text.contains("4096"),
        "{text}"
    );
    assert_eq!(listed(&app, id).await.len(), 1, "only the one at the bound");
}

#[tokio::test]
async fn over_1_0_oversize_values_are_named_as_1_0_spells_them() {
    let app = app_with_bound(10).spawn().await;
    let task = v1_send(&app, v1_message("wait")).await;
    let id = task["id"].as_str().unwrap_or_default();
    let hook = "http://127.0.0.1:9/hook";
    let cases = [
        (
            json!({"taskId": id, "url": hook, "id": "i".repeat(257)}),
            "params.id",
            "256",
        ),
        (
            json!({"taskId": id, "url": hook, "token": "t".repeat(4097)}),
            "params.token",
            "4096",
        ),
        (
            json!({"taskId": id, "url": hook, "authentication": {"scheme": "Bearer", "credentials": "c".repeat(4097)}}),
            "params.authentication.credentials",
            "4096",
        ),
    ];
    for (params, field, bound) in cases {
        let error = v1_error(&app, "CreateTaskPushNotificationConfig", params).await;
        assert_eq!(error["code"], -32602, "{error}");
        let text = error["message"].as_str().unwrap_or_default();
        assert!(
            text.starts_with(&format!("{field}: ")) && text.contains(bound),
            "{field}: {text}"
        );
    }
    let listed = v1_ok(
        &app,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(
        listed["configs"].as_array().map(Vec::len),
        Some(0),
        "{listed}"
    );
}

/// A finished task gets no more notifications: a config set on it is
/// refused with −32004 (UnsupportedOperation, as a message to or a
/// subscription on a finished task), over 0.3 and 1.0.
#[tokio::test]
async fn a_config_on_a_finished_task_is_32004() {
    let app = TestApp::builder()
        .loopback_webhooks(&["127.0.0.1"])
        .spawn()
        .await;
    let hook = "http://127.0.0.1:9/hook";
    let done = app.send_text("why is order 4711 blocked by credit").await;
    assert_eq!(state(&done), "completed", "{done}");
    let error = app
        .rpc_error(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": done["id"], "pushNotificationConfig": { "url": hook } }),
        )
        .await;
    assert_eq!(error["code"], -32004, "{error}");
    let text = error["message"].as_str().unwrap_or_default();
    assert!(text.contains("completed"), "{text}");
    assert!(listed(&app, &done["id"]).await.is_empty(), "nothing stored");
    // Bad params are still -32602 on a finished task.
    let error = app
        .rpc_error(
            "tasks/pushNotificationConfig/set",
            json!({ "taskId": done["id"], "pushNotificationConfig": { "url": hook, "token": "t".repeat(4097) } }),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");

    let done = v1_send(&app, v1_message("why is order 4711 blocked by credit")).await;
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED", "{done}");
    let error = v1_error(
        &app,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": done["id"], "url": hook}),
    )
    .await;
    assert_eq!(error["code"], -32004, "{error}");
}

/// A task's configs count in its bytes (`tasks.max_task_bytes`): a config
/// past them is refused naming the bound, so listing one task's configs is
/// bounded too; and a follow-up that fits beside the task but not beside
/// its configs is refused.
#[tokio::test]
async fn a_tasks_configs_count_in_its_bytes() {
    let app = app_with_bound(10)
        .settings(|settings| settings.tasks.max_task_bytes = 16 * 1024)
        .spawn()
        .await;
    let task = waiting_task(&app).await;
    let id = &task["id"];
    let hook = "http://127.0.0.1:9/hook";
    let mut answers = Vec::new();
    for n in 0..6 {
        let config = json!({ "id": format!("c{n}"), "url": hook, "token": "t".repeat(4000) });
        answers.push(
            app.rpc(
                "tasks/pushNotificationConfig/set",
                json!({ "taskId": id, "pushNotificationConfig": config }),
            )
            .await,
        );
    }
    let stored = answers
        .iter()
        .take_while(|a| a.get("result").is_some())
        .count();
    assert_eq!(stored, 3, "three 4 kB configs beside the task: {answers:?}");
    let refused = &answers[stored]["error"];
    assert_eq!(refused["code"], -32602, "{refused}");
    let text = refused["message"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("params.pushNotificationConfig: ")
            && text.contains("tasks.max_task_bytes"),
        "{text}"
    );
    assert!(
        answers[stored..]
            .iter()
            .all(|a| a["error"]["code"] == -32602),
        "{answers:?}"
    );
    let all = listed(&app, id).await;
    assert_eq!(all.len(), 3);
    assert!(json!(all).to_string().len() < 16 * 1024);

    // 4 kB more fits beside the task alone, not beside its configs.
    let mut follow_up = user_message(&format!("that one {}", "x".repeat(4000)));
    follow_up["taskId"] = id.clone();
    let error = app
        .rpc_error("message/send", json!({ "message": follow_up }))
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("push notification configs counted")),
        "{error}"
    );
    // Deleting a config makes room.
    app.rpc(
        "tasks/pushNotificationConfig/delete",
        json!({ "id": id, "pushNotificationConfigId": "c0" }),
    )
    .await;
    let body = app
        .rpc("message/send", json!({ "message": follow_up }))
        .await;
    assert!(body.get("result").is_some(), "{body}");
}
