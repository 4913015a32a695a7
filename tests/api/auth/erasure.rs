//! Erasing one user's data (`POST /users/erase`, the CLI `erase-user`;
//! docs/personal-data.md), on SQLite and PostgreSQL, over real HTTP with
//! IAS tokens: the user's tasks, contexts and push configs are gone
//! (`tasks/get` answers -32001), another user's are untouched, the ledger
//! rows they approved are kept with the approver `erased`, and one
//! data-modification message reaches the Audit Log Service double. Only a
//! data protection officer may, only for users of their own tenant; every
//! bad call gets its precise status.

use super::ownership::{approved, ledger, ok, raw, user};
use crate::doubles::audit_log::AuditLogDouble;
use crate::helpers::key_server::*;
use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{Store, TestApp, postgres_url, state, user_message, wait_until};
use serde_json::{Value, json};
use std::time::Duration;

const DISPUTE_4725: &str = "Order 4725: Pricing: customer disputes the price.";
const CREDIT_4711: &str = "why is order 4711 blocked by credit";

/// An app with authentication on, on `store`, webhooks on loopback, bound
/// to the Audit Log Service `double`.
async fn app(keys: &KeyServer, store: Store, double: &AuditLogDouble) -> TestApp {
    let services = double.vcap_services("oauth2");
    TestApp::builder()
        .store(store)
        .auth(keys)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| {
            settings.bind_services(&services).expect("VCAP_SERVICES");
            settings.audit.poll_interval_ms = 50;
        })
        .spawn()
        .await
}

/// `POST /users/erase` with `body` as `token` (none: no header).
async fn erase(app: &TestApp, token: Option<&str>, body: &str) -> (u16, Value) {
    let mut request = app
        .client
        .post(format!("{}/users/erase", app.address))
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("reaches the server");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON answer"))
}

/// A task of `owner` asking about `text`, left waiting for approval.
async fn waiting(app: &TestApp, owner: &str, text: &str) -> Value {
    let mut message = user_message(text);
    message["messageId"] = json!(uuid::Uuid::new_v4().to_string());
    let task = ok(
        app,
        owner,
        false,
        "message/send",
        json!({"message": message}),
    )
    .await;
    assert_eq!(state(&task), "input-required", "{task}");
    task
}

/// The JSON-RPC error code of `tasks/get` of `task_id` as `token`, or
/// `None` when the task is answered.
async fn get_error(app: &TestApp, token: &str, task_id: &Value) -> Option<i64> {
    let (status, body) = raw(app, token, false, "tasks/get", json!({"id": task_id})).await;
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    body["error"]["code"].as_i64()
}

async fn erases_one_user(store: Store) {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    let hooks = WebhookReceiver::start().await;
    let app = app(&keys, store, &double).await;
    let alice = user("alice", &["ar_clerk"]);
    let bob = user("bob", &["credit_manager"]);
    let dana = user("dana", &["data_protection_officer"]);
    let auditor = user("audrey", &["auditor"]);

    // Alice: one task waiting with a push config, one approval filed;
    // bob (a credit manager) the same of his own.
    let hers = waiting(&app, &alice, DISPUTE_4725).await;
    ok(
        &app,
        &alice,
        false,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": hers["id"], "pushNotificationConfig": {
            "id": "alice", "url": format!("{}/alice", hooks.url), "token": "alice-hook-token"}}),
    )
    .await;
    let filed = approved(&app, &alice, DISPUTE_4725).await;
    let his = waiting(&app, &bob, CREDIT_4711).await;
    let his_filed = approved(&app, &bob, CREDIT_4711).await;
    let before = ledger(&app, &auditor).await;
    assert_eq!(before.len(), 2, "{before:?}");

    let (status, answer) = erase(&app, Some(&dana), r#"{"userId":"alice"}"#).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer,
        json!({"userId": "alice", "issuer": "ias", "tenant": APP_TID, "erased": {
            "tasks": 2, "contexts": 2, "pushConfigs": 1, "ledgerRows": 1}})
    );

    // Her tasks are gone, as an unknown id is; his are whole.
    for task in [&filed, &hers] {
        assert_eq!(get_error(&app, &alice, &task["id"]).await, Some(-32001));
    }
    for task in [&his_filed, &his] {
        assert_eq!(get_error(&app, &bob, &task["id"]).await, None);
    }
    let listed = ok(&app, &alice, true, "ListTasks", json!({})).await;
    assert_eq!(listed["tasks"], json!([]), "{listed}");

    // Her approval is kept, nobody's now; his is his.
    let after = ledger(&app, &auditor).await;
    assert_eq!(after.len(), 2, "{after:?}");
    let row = |order: &str, rows: &[Value]| -> Value {
        rows.iter()
            .find(|row| row["salesOrder"] == order)
            .cloned()
            .unwrap_or_else(|| panic!("a row of {order}: {rows:?}"))
    };
    let (was, now) = (row("4725", &before), row("4725", &after));
    assert_eq!(now["approvedBy"], "erased");
    for kept in [
        "salesOrder",
        "action",
        "approvedAt",
        "state",
        "taskId",
        "summary",
    ] {
        assert_eq!(now[kept], was[kept], "{kept} is kept");
    }
    assert_eq!(row("4711", &after)["approvedBy"], "bob");
    assert!(
        ledger(&app, &alice).await.is_empty(),
        "no row is hers any more"
    );

    // One data modification: who erased whom, counts only.
    assert!(
        wait_until(Duration::from_secs(10), async || {
            !double.accepted("data-modifications").is_empty()
        })
        .await,
        "writes: {:?}",
        double.writes()
    );
    let messages = double.accepted("data-modifications");
    assert_eq!(messages.len(), 1, "{messages:?}");
    let message = &messages[0];
    assert_eq!(message["user"], "dana");
    assert_eq!(
        message["data_subject"],
        json!({"type": "user", "id": {"issuer": "ias", "tenant": APP_TID, "userId": "alice"}})
    );
    assert_eq!(message["success"], true);
    assert_eq!(
        message["attributes"][0],
        json!({"name": "tasks", "old": "2", "new": "0"})
    );
    let text = message.to_string();
    for never in ["4725", "4711", "alice-hook-token", "dispute"] {
        assert!(!text.contains(never), "{never} in {text}");
    }

    // Again: nothing left, and said so.
    let (status, again) = erase(&app, Some(&dana), r#"{"userId":"alice"}"#).await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(
        again["erased"],
        json!({"tasks": 0, "contexts": 0, "pushConfigs": 0, "ledgerRows": 0})
    );
}

#[tokio::test]
async fn an_officer_erases_one_users_tasks_and_keeps_their_approvals_nameless_on_sqlite() {
    erases_one_user(Store::Sqlite).await;
}

#[tokio::test]
async fn an_officer_erases_one_users_tasks_and_keeps_their_approvals_nameless_on_postgres() {
    let Some(url) = postgres_url("an_officer_erases_one_users_tasks_on_postgres").await else {
        return;
    };
    erases_one_user(Store::Postgres(url)).await;
}

#[tokio::test]
async fn only_an_officer_may_erase_and_only_with_a_body_naming_one_user() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    let app = app(&keys, Store::Sqlite, &double).await;
    let alice = user("alice", &["ar_clerk"]);
    let hers = waiting(&app, &alice, DISPUTE_4725).await;
    let dana = user("dana", &["data_protection_officer"]);
    let body = r#"{"userId":"alice"}"#;

    let (status, answer) = erase(&app, None, body).await;
    assert_eq!(status, 401, "{answer}");
    for (token, who) in [
        (user("bob", &["auditor"]), "an auditor"),
        (alice.clone(), "a clerk"),
    ] {
        let (status, answer) = erase(&app, Some(&token), body).await;
        assert_eq!(status, 403, "{who}: {answer}");
        assert!(
            answer.to_string().contains("data_protection_officer"),
            "{answer}"
        );
    }
    let technical = token(&with(technical_claims(), "azp", json!("some-app")));
    let (status, _) = erase(&app, Some(&technical), body).await;
    assert_eq!(status, 403, "an application is no officer");

    for (bad, says) in [
        ("{}", "userId"),
        (r#"{"userId":""}"#, "empty"),
        (r#"{"userId":"alice","tenant":"another"}"#, "tenant"),
        (r#"{"userId":7}"#, "userId"),
        ("alice", "JSON"),
    ] {
        let (status, answer) = erase(&app, Some(&dana), bad).await;
        assert_eq!(status, 400, "{bad}: {answer}");
        assert!(answer.to_string().contains(says), "{bad}: {answer}");
    }
    let long = json!({"userId": "x".repeat(300)}).to_string();
    let (status, answer) = erase(&app, Some(&dana), &long).await;
    assert_eq!(status, 400, "{answer}");
    let status = app
        .client
        .post(format!("{}/users/erase", app.address))
        .bearer_auth(&dana)
        .header("Content-Type", "text/plain")
        .body(body)
        .send()
        .await
        .expect("reaches the server")
        .status();
    assert_eq!(status, 415);
    let response = app
        .client
        .get(format!("{}/users/erase", app.address))
        .bearer_auth(&dana)
        .send()
        .await
        .expect("reaches the server");
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "POST");

    // Nothing of hers went.
    assert_eq!(get_error(&app, &alice, &hers["id"]).await, None);
    assert!(double.accepted("data-modifications").is_empty());
}

/// An officer of one tenant reaches the users of that tenant only: the
/// same user id in another tenant is another person, and keeps their task.
#[tokio::test]
async fn an_officer_of_one_tenant_cannot_erase_a_user_of_another() {
    let keys = KeyServer::start().await;
    let double = AuditLogDouble::start().await;
    let services = double.vcap_services("oauth2");
    // The binding names no tenant: tokens of several tenants are taken
    // (the key endpoint judges each one's tenant).
    let app = TestApp::builder()
        .auth(&keys)
        .settings(|settings| {
            settings.bind_services(&services).expect("VCAP_SERVICES");
            settings.auth.app_tid = None;
        })
        .spawn()
        .await;
    let in_tenant = |id: &str, groups: &[&str], tenant: &str| {
        let claims = with(user_claims(), "user_uuid", json!(id));
        let claims = with(claims, "groups", json!(groups));
        token(&with(claims, "app_tid", json!(tenant)))
    };
    let alice_here = in_tenant("alice", &["ar_clerk"], "tenant-a");
    let alice_there = in_tenant("alice", &["ar_clerk"], "tenant-b");
    let here = waiting(&app, &alice_here, DISPUTE_4725).await;
    let there = waiting(&app, &alice_there, DISPUTE_4725).await;
    let officer = in_tenant("dana", &["data_protection_officer"], "tenant-a");

    let (status, answer) = erase(&app, Some(&officer), r#"{"userId":"alice"}"#).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["tenant"], "tenant-a");
    assert_eq!(answer["erased"]["tasks"], 1, "{answer}");
    assert_eq!(
        get_error(&app, &alice_here, &here["id"]).await,
        Some(-32001)
    );
    assert_eq!(get_error(&app, &alice_there, &there["id"]).await, None);
}

/// The CLI `erase-user` against the SQLite file a running service uses:
/// the same erasure, its counts on standard output, its audit message a
/// `type: audit` line (no binding); without a tenant to name, exit 2.
#[tokio::test]
async fn the_erase_user_command_erases_in_the_configured_sqlite_file() {
    let keys = KeyServer::start().await;
    let dir = std::env::temp_dir().join(format!("oea-erase-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let app = TestApp::builder()
        .store(Store::SqliteFile {
            dir: dir.clone(),
            file: "agent.sqlite3".into(),
        })
        .auth(&keys)
        .spawn()
        .await;
    let alice = user("alice", &["ar_clerk"]);
    let bob = user("bob", &["ar_clerk"]);
    let auditor = user("audrey", &["auditor"]);
    let his = waiting(&app, &bob, DISPUTE_4725).await;
    let filed = approved(&app, &alice, DISPUTE_4725).await;

    let dir_text = dir.to_string_lossy().to_string();
    let store_env = [
        ("AGENT__STORE__BACKEND", "sqlite"),
        ("AGENT__STORE__DATA_DIR", dir_text.as_str()),
        ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3"),
    ];
    let run = |args: Vec<&'static str>| {
        let envs: Vec<(String, String)> = store_env
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_order-exception-agent"))
                .args(args)
                .envs(envs)
                .env("NO_COLOR", "1")
                .env_remove("RUST_LOG")
                .env_remove("AGENT_CONFIG")
                .env_remove("VCAP_SERVICES")
                .env_remove("VCAP_APPLICATION")
                .output()
                .expect("the binary runs")
        })
    };

    let missing = run(vec!["erase-user", "--user", "alice"]).await.unwrap();
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("--tenant"),
        "{missing:?}"
    );

    let output = run(vec![
        "erase-user",
        "--user",
        "alice",
        "--tenant",
        APP_TID,
        "--by",
        "dpo@example.com",
        "--json",
    ])
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let printed: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    assert_eq!(
        printed,
        json!({"userId": "alice", "issuer": "ias", "tenant": APP_TID, "erased": {
            "tasks": 1, "contexts": 1, "pushConfigs": 0, "ledgerRows": 1}})
    );
    let audit_line = stderr
        .lines()
        .find(|line| line.contains("data-modifications"))
        .unwrap_or_else(|| panic!("the audit line on stderr: {stderr}"));
    assert!(audit_line.contains("dpo@example.com"), "{audit_line}");
    assert!(!audit_line.contains("4725"), "{audit_line}");

    assert_eq!(get_error(&app, &alice, &filed["id"]).await, Some(-32001));
    assert_eq!(get_error(&app, &bob, &his["id"]).await, None);
    let rows = ledger(&app, &auditor).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["approvedBy"], "erased");
    drop(app);
    let _ = std::fs::remove_dir_all(dir);
}
