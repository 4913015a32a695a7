//! Every task, context and push config is its creator's: with
//! authentication on, another user, or another technical client, given a
//! task's id gets exactly the answer an unknown id gets, on every method of
//! A2A 0.3 and 1.0; continuing someone else's task or context starts a new
//! task in a new context; the ledger lists a user the actions they
//! approved (an auditor all of them).

use crate::helpers::key_server::*;
use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{TestApp, state, user_message};
use serde_json::{Value, json};

const DISPUTE_4725: &str = "Order 4725: Pricing: customer disputes the price.";

/// A person's token: `id` as user id, in these IAS groups.
pub(crate) fn user(id: &str, groups: &[&str]) -> String {
    let claims = with(user_claims(), "user_uuid", json!(id));
    let claims = with(claims, "sub", json!(id));
    token(&with(claims, "groups", json!(groups)))
}

/// An application's own token (client credentials) as client `azp`.
fn client(azp: &str) -> String {
    let claims = with(technical_claims(), "azp", json!(azp));
    token(&with(claims, "sub", json!(azp)))
}

async fn spawn(keys: &KeyServer) -> TestApp {
    TestApp::builder()
        .auth(keys)
        .loopback_webhooks(&["127.0.0.1"])
        .spawn()
        .await
}

/// One JSON-RPC call as `token` (over 1.0 when `v1`); the HTTP status and
/// the body as sent (a JSON answer, or a stream's SSE text).
pub(crate) async fn raw(
    app: &TestApp,
    token: &str,
    v1: bool,
    method: &str,
    params: Value,
) -> (u16, String) {
    let mut request = app
        .client
        .post(format!("{}/", app.address))
        .header("Authorization", format!("Bearer {token}"));
    if v1 {
        request = request.header("A2A-Version", "1.0");
    }
    let response = request
        .json(&json!({"jsonrpc": "2.0", "id": "own-1", "method": method, "params": params}))
        .send()
        .await
        .expect("reaches the server");
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// A call that must answer a result; the result.
pub(crate) async fn ok(app: &TestApp, token: &str, v1: bool, method: &str, params: Value) -> Value {
    let (status, body) = raw(app, token, v1, method, params).await;
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    assert!(body.get("error").is_none(), "{method}: {body}");
    body["result"].clone()
}

/// The intruder's answer about `theirs` is, byte for byte, the answer
/// about an id that never existed (with that id in its place), and it is
/// -32001 (task not found).
async fn assert_unknown(
    app: &TestApp,
    intruder: &str,
    v1: bool,
    method: &str,
    params: impl Fn(&str) -> Value,
    theirs: &str,
) {
    let unknown = uuid::Uuid::now_v7().to_string();
    let (status, foreign) = raw(app, intruder, v1, method, params(theirs)).await;
    let (unknown_status, answer) = raw(app, intruder, v1, method, params(&unknown)).await;
    assert_eq!(status, unknown_status, "{method}: {foreign}");
    assert_eq!(
        foreign,
        answer.replace(&unknown, theirs),
        "{method} (1.0: {v1}): another caller's task answers as an unknown one"
    );
    assert!(foreign.contains("-32001"), "{method}: {foreign}");
}

/// A method's params for a task id.
type ParamsFor = Box<dyn Fn(&str) -> Value>;

/// The 0.3 and 1.0 methods that name a task, with their params for an id.
fn task_methods(v1: bool, hook: &str) -> Vec<(&'static str, ParamsFor)> {
    let hook = hook.to_string();
    if v1 {
        vec![
            ("GetTask", Box::new(|id| json!({"id": id}))),
            (
                "GetTask",
                Box::new(|id| json!({"id": id, "historyLength": 0})),
            ),
            ("CancelTask", Box::new(|id| json!({"id": id}))),
            ("SubscribeToTask", Box::new(|id| json!({"id": id}))),
            (
                "CreateTaskPushNotificationConfig",
                Box::new(move |id| json!({"taskId": id, "id": "bob", "url": hook.clone()})),
            ),
            (
                "GetTaskPushNotificationConfig",
                Box::new(|id| json!({"taskId": id, "id": "alice"})),
            ),
            (
                "ListTaskPushNotificationConfigs",
                Box::new(|id| json!({"taskId": id})),
            ),
            (
                "DeleteTaskPushNotificationConfig",
                Box::new(|id| json!({"taskId": id, "id": "alice"})),
            ),
            (
                "SendMessage",
                Box::new(|id| {
                    let mut message = crate::protocol::a2a_v1::message("approve");
                    message["taskId"] = json!(id);
                    json!({"message": message})
                }),
            ),
        ]
    } else {
        vec![
            ("tasks/get", Box::new(|id| json!({"id": id}))),
            (
                "tasks/get",
                Box::new(|id| json!({"id": id, "historyLength": 0})),
            ),
            ("tasks/cancel", Box::new(|id| json!({"id": id}))),
            ("tasks/resubscribe", Box::new(|id| json!({"id": id}))),
            (
                "tasks/pushNotificationConfig/set",
                Box::new(
                    move |id| json!({"taskId": id, "pushNotificationConfig": {"id": "bob", "url": hook.clone()}}),
                ),
            ),
            (
                "tasks/pushNotificationConfig/get",
                Box::new(|id| json!({"id": id})),
            ),
            (
                "tasks/pushNotificationConfig/get",
                Box::new(|id| json!({"id": id, "pushNotificationConfigId": "alice"})),
            ),
            (
                "tasks/pushNotificationConfig/list",
                Box::new(|id| json!({"id": id})),
            ),
            (
                "tasks/pushNotificationConfig/delete",
                Box::new(|id| json!({"id": id, "pushNotificationConfigId": "alice"})),
            ),
        ]
    }
}

/// A task of `owner`'s waiting for approval (the dispute of 4725, with a
/// push config `alice` to `hook`) and a finished (canceled) one.
async fn tasks_of(app: &TestApp, owner: &str, hook: &str) -> (Value, Value) {
    let mut message = user_message(DISPUTE_4725);
    message["messageId"] = json!(uuid::Uuid::new_v4().to_string());
    let waiting = ok(
        app,
        owner,
        false,
        "message/send",
        json!({"message": message}),
    )
    .await;
    assert_eq!(state(&waiting), "input-required", "{waiting}");
    ok(
        app,
        owner,
        false,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": waiting["id"], "pushNotificationConfig": {"id": "alice", "url": hook}}),
    )
    .await;
    let mut message = user_message(DISPUTE_4725);
    message["messageId"] = json!(uuid::Uuid::new_v4().to_string());
    let other = ok(
        app,
        owner,
        false,
        "message/send",
        json!({"message": message}),
    )
    .await;
    let finished = ok(
        app,
        owner,
        false,
        "tasks/cancel",
        json!({"id": other["id"]}),
    )
    .await;
    assert_eq!(state(&finished), "canceled", "{finished}");
    (waiting, finished)
}

/// What the owner still sees of their waiting task.
async fn assert_untouched(app: &TestApp, owner: &str, waiting: &Value, hook: &str) {
    let now = ok(app, owner, false, "tasks/get", json!({"id": waiting["id"]})).await;
    assert_eq!(state(&now), "input-required", "{now}");
    assert_eq!(
        now["history"], waiting["history"],
        "no one else's turn in it"
    );
    let configs = ok(
        app,
        owner,
        false,
        "tasks/pushNotificationConfig/list",
        json!({"id": waiting["id"]}),
    )
    .await;
    assert_eq!(configs.as_array().map(Vec::len), Some(1), "{configs}");
    assert_eq!(configs[0]["pushNotificationConfig"]["url"], hook);
}

#[tokio::test]
async fn another_users_task_answers_every_0_3_and_1_0_method_as_an_unknown_one() {
    let keys = KeyServer::start().await;
    let hooks = WebhookReceiver::start().await;
    let app = spawn(&keys).await;
    let (alice, bob) = (user("alice", &["ar_clerk"]), user("bob", &["ar_clerk"]));
    let alice_hook = format!("{}/alice", hooks.url);
    let (waiting, finished) = tasks_of(&app, &alice, &alice_hook).await;
    let bob_hook = format!("{}/bob", hooks.url);
    for v1 in [false, true] {
        for (method, params) in task_methods(v1, &bob_hook) {
            for theirs in [&waiting, &finished] {
                let id = theirs["id"].as_str().expect("an id");
                assert_unknown(&app, &bob, v1, method, &params, id).await;
            }
        }
    }
    assert_untouched(&app, &alice, &waiting, &alice_hook).await;
    assert!(
        hooks.at("/bob").is_empty(),
        "bob's URL hears nothing of hers"
    );

    // Alice approves her own task: filed, by her.
    let mut approve = user_message("approve");
    approve["taskId"] = waiting["id"].clone();
    approve["contextId"] = waiting["contextId"].clone();
    let filed = ok(
        &app,
        &alice,
        false,
        "message/send",
        json!({"message": approve}),
    )
    .await;
    assert_eq!(state(&filed), "completed", "{filed}");
    let auditor = user("audrey", &["auditor"]);
    let actions = ledger(&app, &auditor).await;
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0]["approvedBy"], "alice");
}

#[tokio::test]
async fn continuing_another_users_task_or_context_over_0_3_starts_a_new_task_in_a_new_context() {
    let keys = KeyServer::start().await;
    let hooks = WebhookReceiver::start().await;
    let app = spawn(&keys).await;
    let (alice, bob) = (user("alice", &["ar_clerk"]), user("bob", &["ar_clerk"]));
    let alice_hook = format!("{}/alice", hooks.url);
    let (waiting, finished) = tasks_of(&app, &alice, &alice_hook).await;

    // "approve" into her waiting task, her finished one, and her context.
    let mut answers = Vec::new();
    for (task_id, context_id) in [
        (Some(&waiting["id"]), Some(&waiting["contextId"])),
        (Some(&waiting["id"]), None),
        (Some(&finished["id"]), Some(&finished["contextId"])),
        (None, Some(&waiting["contextId"])),
    ] {
        let mut message = user_message("approve");
        if let Some(task_id) = task_id {
            message["taskId"] = task_id.clone();
        }
        if let Some(context_id) = context_id {
            message["contextId"] = context_id.clone();
        }
        let answer = ok(
            &app,
            &bob,
            false,
            "message/send",
            json!({"message": message}),
        )
        .await;
        for theirs in [&waiting, &finished] {
            assert_ne!(answer["id"], theirs["id"], "{answer}");
            assert_ne!(answer["contextId"], theirs["contextId"], "{answer}");
        }
        let text = said(&answer);
        assert!(!text.contains("4725"), "nothing of hers: {text}");
        assert!(
            !text.contains("already"),
            "nothing of her task's state: {text}"
        );
        answers.push(answer);
    }
    assert_untouched(&app, &alice, &waiting, &alice_hook).await;
    let auditor = user("audrey", &["auditor"]);
    assert!(
        ledger(&app, &auditor).await.is_empty(),
        "bob filed nothing of hers"
    );

    // Bob's own contexts are his to continue; hers stays hers.
    let mut again = user_message("hello");
    again["contextId"] = answers[0]["contextId"].clone();
    let his = ok(&app, &bob, false, "message/send", json!({"message": again})).await;
    assert_eq!(his["contextId"], answers[0]["contextId"]);
    let mut hers = user_message("hello");
    hers["contextId"] = waiting["contextId"].clone();
    let own = ok(
        &app,
        &alice,
        false,
        "message/send",
        json!({"message": hers}),
    )
    .await;
    assert_eq!(
        own["contextId"], waiting["contextId"],
        "her context is hers"
    );
    let listed = ok(
        &app,
        &bob,
        true,
        "ListTasks",
        json!({"contextId": waiting["contextId"]}),
    )
    .await;
    assert_eq!(listed["totalSize"], 0, "{listed}");
}

#[tokio::test]
async fn two_technical_clients_do_not_share_their_tasks() {
    let keys = KeyServer::start().await;
    let app = spawn(&keys).await;
    let (reporting, billing) = (client("reporting-app"), client("billing-app"));
    let task = ok(
        &app,
        &reporting,
        false,
        "message/send",
        json!({"message": user_message("hello")}),
    )
    .await;
    let id = task["id"].as_str().expect("an id").to_string();
    for v1 in [false, true] {
        for (method, params) in task_methods(v1, "http://127.0.0.1:9/billing") {
            assert_unknown(&app, &billing, v1, method, &params, &id).await;
        }
    }
    // Its own client reads it, and lists it; the other lists none, and a
    // person none of the clients' tasks.
    let got = ok(&app, &reporting, false, "tasks/get", json!({"id": id})).await;
    assert_eq!(got["id"], task["id"]);
    let listed = ok(&app, &reporting, true, "ListTasks", json!({})).await;
    assert_eq!(listed["totalSize"], 1, "{listed}");
    for other in [&billing, &user("alice", &["ar_clerk"])] {
        let listed = ok(&app, other, true, "ListTasks", json!({})).await;
        assert_eq!(listed["totalSize"], 0, "{listed}");
    }
    let mut joined = user_message("hello");
    joined["contextId"] = task["contextId"].clone();
    let theirs = ok(
        &app,
        &billing,
        false,
        "message/send",
        json!({"message": joined}),
    )
    .await;
    assert_ne!(theirs["contextId"], task["contextId"]);
}

#[tokio::test]
async fn with_authentication_off_the_one_local_caller_reaches_every_task() {
    let app = TestApp::builder()
        .loopback_webhooks(&["127.0.0.1"])
        .spawn()
        .await;
    let waiting = app.as_role("ar_clerk").send_text(DISPUTE_4725).await;
    let got = app.rpc("tasks/get", json!({"id": waiting["id"]})).await;
    assert_eq!(got["result"]["id"], waiting["id"], "{got}");
    let filed = app.as_role("ar_clerk").reply(&waiting, "approve").await;
    assert_eq!(state(&filed), "completed", "{filed}");
    assert_eq!(app.actions().await.len(), 1);
}

/// `GET /actions` as `token`: the rows.
pub(crate) async fn ledger(app: &TestApp, token: &str) -> Vec<Value> {
    let response = app
        .client
        .get(format!("{}/actions", app.address))
        .header("Authorization", format!("Bearer {token}"))
        .send()
        .await
        .expect("reaches the server");
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.expect("JSON");
    body["actions"].as_array().cloned().expect("a list")
}

/// `text` asked and approved in its task by `approver`: one ledger row.
pub(crate) async fn approved(app: &TestApp, approver: &str, text: &str) -> Value {
    let mut message = user_message(text);
    message["messageId"] = json!(uuid::Uuid::new_v4().to_string());
    let asked = ok(
        app,
        approver,
        false,
        "message/send",
        json!({"message": message}),
    )
    .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let mut approve = user_message("approve");
    approve["taskId"] = asked["id"].clone();
    approve["contextId"] = asked["contextId"].clone();
    let filed = ok(
        app,
        approver,
        false,
        "message/send",
        json!({"message": approve}),
    )
    .await;
    assert_eq!(state(&filed), "completed", "{filed}");
    filed
}

#[tokio::test]
async fn the_ledger_lists_a_user_what_they_approved_and_an_auditor_everything() {
    let keys = KeyServer::start().await;
    let app = spawn(&keys).await;
    let (alice, carl) = (
        user("alice", &["ar_clerk"]),
        user("carl", &["credit_manager"]),
    );
    approved(&app, &alice, DISPUTE_4725).await;
    approved(&app, &carl, CREDIT_4711).await;
    let orders = |rows: &[Value]| -> Vec<String> {
        let mut orders: Vec<String> = rows
            .iter()
            .map(|row| row["salesOrder"].as_str().unwrap_or("?").to_string())
            .collect();
        orders.sort();
        orders
    };
    let mine = ledger(&app, &alice).await;
    assert_eq!(orders(&mine), ["4725"], "{mine:?}");
    assert!(mine.iter().all(|row| row["approvedBy"] == "alice"));
    assert_eq!(orders(&ledger(&app, &carl).await), ["4711"]);
    let viewer = user("vera", &["viewer"]);
    assert!(
        ledger(&app, &viewer).await.is_empty(),
        "she approved nothing"
    );
    let auditor = user("audrey", &["auditor"]);
    assert_eq!(orders(&ledger(&app, &auditor).await), ["4711", "4725"]);
}

const CREDIT_4711: &str = "why is order 4711 blocked by credit";

/// `GET /actions?<query>` as `token`: the status and the body.
async fn ledger_page(app: &TestApp, token: &str, query: &str) -> (u16, Value) {
    let response = app
        .client
        .get(format!("{}/actions?{query}", app.address))
        .bearer_auth(token)
        .send()
        .await
        .expect("reaches the server");
    let status = response.status().as_u16();
    (status, response.json().await.expect("JSON"))
}

#[tokio::test]
async fn the_ledger_answers_a_page_at_a_time_newest_first() {
    let keys = KeyServer::start().await;
    let app = spawn(&keys).await;
    let ada = user("ada", &["ar_clerk", "credit_manager"]);
    approved(&app, &ada, DISPUTE_4725).await;
    approved(&app, &ada, CREDIT_4711).await;
    let auditor = user("audrey", &["auditor"]);
    for reader in [&ada, &auditor] {
        let (status, first) = ledger_page(&app, reader, "limit=1").await;
        assert_eq!(status, 200, "{first}");
        assert_eq!(
            first["actions"].as_array().map(Vec::len),
            Some(1),
            "{first}"
        );
        assert_eq!(first["actions"][0]["salesOrder"], "4711", "newest first");
        let next = first["next"].as_str().expect("a next page");
        let (status, second) = ledger_page(&app, reader, &format!("limit=1&after={next}")).await;
        assert_eq!(status, 200, "{second}");
        assert_eq!(second["actions"][0]["salesOrder"], "4725", "{second}");
        assert_eq!(second["next"], Value::Null, "the last page: {second}");
        let (_, whole) = ledger_page(&app, reader, "").await;
        assert_eq!(whole["actions"].as_array().map(Vec::len), Some(2));
        assert_eq!(whole["next"], Value::Null);
    }
    for (query, says) in [
        (
            "limit=0",
            "limit must be a whole number from 1 to 200, got `0`",
        ),
        (
            "limit=201",
            "limit must be a whole number from 1 to 200, got `201`",
        ),
        ("limit=many", "got `many`"),
        ("after=not-a-token", "after must be the `next` token"),
        ("limit=1&limit=2", "`limit` is given more than once"),
        ("page=2", "unknown query parameter `page`"),
    ] {
        let (status, body) = ledger_page(&app, &ada, query).await;
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{query}: {body}");
    }
}

/// An XSUAA person's token, as `user_id`, with the `credit_manager` scope.
fn xsuaa_user(user_id: &str) -> String {
    let now = now();
    let claims = json!({
        "iss": "https://sub.authentication.test/oauth/token",
        "zid": "zone-1",
        "cid": XS_CLIENT_ID,
        "azp": XS_CLIENT_ID,
        "aud": [XS_CLIENT_ID, XSAPPNAME],
        "sub": user_id,
        "user_id": user_id,
        "user_name": user_id,
        "grant_type": "authorization_code",
        "scope": [format!("{XSAPPNAME}.credit_manager"), "openid"],
        "exp": now + 600,
        "iat": now
    });
    token(claims.as_object().expect("claims"))
}

/// With IAS and XSUAA both bound, an IAS user and an XSUAA user of the
/// same user id are two people: neither reaches, lists or sees the
/// approvals of the other's tasks.
#[tokio::test]
async fn an_ias_user_and_an_xsuaa_user_of_one_id_are_two_people() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder()
        .auth(&keys)
        .settings(|settings| {
            settings.auth.xsuaa.client_id = Some(XS_CLIENT_ID.into());
            settings.auth.xsuaa.xsappname = Some(XSAPPNAME.into());
            settings.auth.xsuaa.uaa_domain = Some("authentication.test".into());
        })
        .spawn()
        .await;
    let (ias, xsuaa) = (user("user-7", &["credit_manager"]), xsuaa_user("user-7"));
    let filed = approved(&app, &ias, CREDIT_4711).await;
    assert_eq!(ledger(&app, &ias).await.len(), 1);

    let listed = ok(&app, &xsuaa, true, "ListTasks", json!({})).await;
    assert_eq!(listed["totalSize"], 0, "{listed}");
    let (_, got) = raw(&app, &xsuaa, false, "tasks/get", json!({"id": filed["id"]})).await;
    assert!(got.contains("-32001"), "{got}");
    assert!(
        ledger(&app, &xsuaa).await.is_empty(),
        "the IAS user's approval is not the XSUAA user's"
    );
    let theirs = ok(&app, &ias, true, "ListTasks", json!({})).await;
    assert_eq!(theirs["totalSize"], 1, "{theirs}");
}

/// Every string an answer carries but the ids the service made up (a random
/// id may hold any four digits, an order number among them).
fn said(answer: &Value) -> String {
    const IDS: [&str; 6] = [
        "id",
        "contextId",
        "taskId",
        "messageId",
        "artifactId",
        "referenceTaskIds",
    ];
    match answer {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(said).collect::<Vec<_>>().join(" "),
        Value::Object(fields) => fields
            .iter()
            .filter(|(key, _)| !IDS.contains(&key.as_str()))
            .map(|(_, value)| said(value))
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}
