//! What one caller may make the instance hold is bounded: the
//! size of a message, the messages and bytes of a task, the open tasks of a
//! caller, how long a task waits for an answer; past a bound the caller is
//! told what to do and nothing stored is lost. A task that does not read
//! back is its owner's problem only, and never fails a listing.

use crate::auth::ownership::{ok, raw, user};
use crate::helpers::key_server::KeyServer;
use crate::helpers::{Store, TestApp, state, user_message, wait_until};
use serde_json::{Value, json};
use std::time::Duration;

/// The error of a `message/send` that must fail.
async fn send_error(app: &TestApp, message: Value) -> Value {
    app.rpc_error("message/send", json!({ "message": message }))
        .await
}

#[tokio::test]
async fn a_message_past_the_bound_is_refused_naming_it_and_the_bound() {
    let app = TestApp::spawn().await;
    // The largest accepted: a sentence, an order, and one huge word (the
    // text the stemmer used to take quadratic time on).
    let mut text = "why is order 4711 blocked ".to_string();
    let room = 16 * 1024 - json!(user_message(&text)).to_string().len() - 64;
    text.push_str(&"a".repeat(room));
    let task = app.send_text(&text).await;
    assert_eq!(state(&task), "completed", "{task}");

    text.push_str(&"a".repeat(128));
    let error = send_error(&app, user_message(&text)).await;
    assert_eq!(error["code"], -32602, "{error}");
    let said = error["message"].as_str().expect("a message");
    assert!(said.starts_with("params.message is "), "{said}");
    assert!(said.contains("16384"), "{said}");

    // The same on the 1.0 wire.
    let (status, body) = raw(
        &app,
        "unused",
        true,
        "SendMessage",
        json!({"message": crate::protocol::a2a_v1::message(&text)}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("16384")),
        "{body}"
    );
}

/// A task with no room for a follow-up refuses it with what to do; what it
/// holds stays as it was, and a new conversation works.
#[tokio::test]
async fn a_full_task_is_not_continued_and_keeps_what_it_holds() {
    let app = TestApp::builder()
        .settings(|settings| settings.tasks.max_task_messages = 4)
        .spawn()
        .await;
    let task = app.send_text("hello").await;
    assert_eq!(state(&task), "input-required", "{task}");
    let task = app.reply(&task, "hi").await;
    assert_eq!(state(&task), "input-required", "{task}");
    let mut full = user_message("approve");
    full["taskId"] = task["id"].clone();
    full["contextId"] = task["contextId"].clone();
    let error = send_error(&app, full).await;
    assert_eq!(error["code"], -32602, "{error}");
    let said = error["message"].as_str().expect("a message");
    assert!(said.contains("tasks.max_task_messages"), "{said}");
    assert!(said.contains("start a new conversation"), "{said}");
    let kept = app.rpc("tasks/get", json!({"id": task["id"]})).await;
    assert_eq!(kept["result"]["status"], task["status"], "{kept}");
    assert_eq!(kept["result"]["history"], task["history"], "{kept}");
    assert_eq!(state(&app.send_text("hello").await), "input-required");

    // Bytes, the same way.
    let app = TestApp::builder()
        .settings(|settings| settings.tasks.max_task_bytes = 4096)
        .spawn()
        .await;
    let task = app.send_text("hello").await;
    let mut long = user_message(&"word ".repeat(800));
    long["taskId"] = task["id"].clone();
    let error = send_error(&app, long).await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("tasks.max_task_bytes")),
        "{error}"
    );
}

/// A caller's open tasks are bounded, per caller: another user is not
/// refused, and a canceled task makes room.
#[tokio::test]
async fn open_tasks_are_bounded_per_caller() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder()
        .auth(&keys)
        .settings(|settings| settings.tasks.max_open_per_caller = 2)
        .spawn()
        .await;
    let (alice, bob) = (user("alice", &["viewer"]), user("bob", &["viewer"]));
    let hello = || json!({"message": user_message("hello")});
    let first = ok(&app, &alice, false, "message/send", hello()).await;
    assert_eq!(first["status"]["state"], "input-required", "{first}");
    ok(&app, &alice, false, "message/send", hello()).await;
    let (_, refused) = raw(&app, &alice, false, "message/send", hello()).await;
    let refused: Value = serde_json::from_str(&refused).expect("JSON");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let said = refused["error"]["message"].as_str().expect("a message");
    assert!(said.starts_with("you have 2 open tasks"), "{said}");
    assert!(said.contains("tasks/cancel"), "{said}");

    ok(&app, &bob, false, "message/send", hello()).await;
    ok(
        &app,
        &alice,
        false,
        "tasks/cancel",
        json!({"id": first["id"]}),
    )
    .await;
    ok(&app, &alice, false, "message/send", hello()).await;
}

/// With authentication off, the one local caller's bound is the instance's.
/// The error says when a waiting task ends by itself, as long as it is
/// (an expiry under an hour is not "0 hours").
#[tokio::test]
async fn without_authentication_the_bound_is_the_instances() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.tasks.max_open_without_authentication = 1;
            settings.tasks.waiting_expiry_secs = 90;
        })
        .spawn()
        .await;
    let waiting = app.send_text("hello").await;
    let error = send_error(&app, user_message("hello")).await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("this instance has 1 open tasks")
                && m.contains("tasks.max_open_without_authentication")
                && m.ends_with("a waiting task ends by itself after 1 minute and 30 seconds")),
        "{error}"
    );
    // Canceled, the waiting task makes room.
    app.rpc("tasks/cancel", json!({"id": waiting["id"]})).await;
    let done = app.send_text("why is order 4711 blocked").await;
    assert_eq!(state(&done), "completed", "{done}");
}

/// The bound counts tasks that stay open, where they are first stored:
/// at the bound a blocking question that completes is still answered (it
/// holds nothing open), one that would wait is refused when its turn ends,
/// and a non-blocking send, whose task is stored `working` before its
/// turn, is refused before it runs.
#[tokio::test]
async fn at_the_bound_only_a_task_that_would_stay_open_is_refused() {
    for (name, store) in [("sqlite", Store::Sqlite), ("memory", Store::Memory)] {
        let app = TestApp::builder()
            .store(store)
            .settings(|settings| settings.tasks.max_open_without_authentication = 1)
            .spawn()
            .await;
        let waiting = app.send_text("hello").await;
        assert_eq!(state(&waiting), "input-required", "{waiting}");

        let done = app.send_text("why is order 4711 blocked").await;
        assert_eq!(state(&done), "completed", "{name}: {done}");

        let error = send_error(&app, user_message("hello")).await;
        assert_eq!(error["code"], -32602, "{name}: {error}");
        let said = error["message"].as_str().expect("a message");
        assert!(said.starts_with("this instance has 1 open tasks"), "{said}");

        let error = app
            .rpc_error(
                "message/send",
                json!({"message": user_message("why is order 4711 blocked"),
                       "configuration": {"blocking": false}}),
            )
            .await;
        assert_eq!(error["code"], -32602, "{name}: {error}");

        // The refused turn kept nothing: the waiting task is still the
        // only open one, and canceling it makes room.
        app.rpc("tasks/cancel", json!({"id": waiting["id"]})).await;
        let again = app.send_text("hello").await;
        assert_eq!(state(&again), "input-required", "{name}: {again}");
    }
}

/// A task that waits longer than the expiry ends `canceled`, saying why.
#[tokio::test]
async fn a_task_that_waits_too_long_ends_canceled() {
    for store in [Store::Sqlite, Store::Memory] {
        let app = TestApp::builder()
            .store(store)
            .settings(|settings| {
                settings.tasks.waiting_expiry_secs = 1;
                settings.store.sweep_interval_secs = 1;
            })
            .spawn()
            .await;
        let task = app.send_text("hello").await;
        assert_eq!(state(&task), "input-required", "{task}");
        let mut seen = Value::Null;
        let ended = wait_until(Duration::from_secs(10), async || {
            seen = app.rpc("tasks/get", json!({"id": task["id"]})).await;
            seen["result"]["status"]["state"] == "canceled"
        })
        .await;
        assert!(ended, "{seen}");
        let said = seen["result"]["status"]["message"]["parts"][0]["text"]
            .as_str()
            .expect("a reason");
        assert!(said.contains("waited 1 second for an answer"), "{said}");
    }
}

/// A stored task that does not read back: its owner is told so (not "the
/// store is down"), anyone else gets the unknown-task answer, and the
/// owner's listing leaves it out instead of failing.
#[tokio::test]
async fn an_unreadable_task_is_its_owners_and_skipped_by_listings() {
    let keys = KeyServer::start().await;
    let dir = std::env::temp_dir().join(format!("oea-bounds-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let app = TestApp::builder()
        .auth(&keys)
        .store(Store::SqliteFile {
            dir: dir.clone(),
            file: "agent.sqlite3".into(),
        })
        .spawn()
        .await;
    let (alice, bob) = (user("alice", &["viewer"]), user("bob", &["viewer"]));
    let hello = || json!({"message": user_message("hello")});
    let broken = ok(&app, &alice, false, "message/send", hello()).await;
    let kept = ok(&app, &alice, false, "message/send", hello()).await;

    let file = dir.join("agent.sqlite3");
    let db = sqlx::SqlitePool::connect(&format!("sqlite://{}", file.display()))
        .await
        .expect("the app's file opens");
    sqlx::query("UPDATE tasks SET body = x'ffffffff00' WHERE id = $1")
        .bind(broken["id"].as_str())
        .execute(&db)
        .await
        .expect("the row is damaged");
    db.close().await;

    let (_, answer) = raw(
        &app,
        &alice,
        false,
        "tasks/get",
        json!({"id": broken["id"]}),
    )
    .await;
    let answer: Value = serde_json::from_str(&answer).expect("JSON");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does not read back") && m.contains("new conversation")),
        "{answer}"
    );
    let (_, intruder) = raw(&app, &bob, false, "tasks/get", json!({"id": broken["id"]})).await;
    let intruder: Value = serde_json::from_str(&intruder).expect("JSON");
    assert_eq!(intruder["error"]["code"], -32001, "{intruder}");

    let listed = ok(&app, &alice, true, "ListTasks", json!({})).await;
    let ids: Vec<&Value> = listed["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| &t["id"])
        .collect();
    assert_eq!(ids, [&kept["id"]], "{listed}");
    drop(app);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `/health` says which store holds tasks and the ledger, and whether they
/// survive a restart where the app runs (a SQLite file off Cloud Foundry
/// does; the memory store never), without failing the check.
#[tokio::test]
async fn health_shows_the_store_and_whether_it_is_durable() {
    let app = TestApp::spawn().await;
    let health = app.get_json("/health").await;
    assert_eq!(health["status"], "UP", "{health}");
    assert_eq!(health["store"]["backend"], "sqlite", "{health}");
    assert_eq!(health["store"]["durable"], true, "{health}");
    let app = TestApp::builder().store(Store::Memory).spawn().await;
    let health = app.get_json("/health").await;
    assert_eq!(health["status"], "UP", "{health}");
    assert_eq!(health["store"]["durable"], false, "{health}");
    assert!(
        health["store"]["warning"]
            .as_str()
            .is_some_and(|w| w.contains("do not survive a restart")),
        "{health}"
    );
}

/// Memory store: one caller's finished tasks never push out another's.
/// Past the instance's cap (`tasks.max_finished`) the caller holding the
/// most loses its own oldest; past a caller's own cap
/// (`tasks.max_finished_per_caller`) its own oldest goes.
#[tokio::test]
async fn one_callers_finished_tasks_never_evict_anothers() {
    let keys = KeyServer::start().await;
    let (alice, bob) = (user("alice", &["viewer"]), user("bob", &["viewer"]));
    let ask = || json!({"message": user_message("why is order 4711 blocked by credit")});
    // (instance cap, per-caller cap)
    for (instance, per_caller) in [(4, 200), (2_000, 3)] {
        let app = TestApp::builder()
            .auth(&keys)
            .store(Store::Memory)
            .settings(move |settings| {
                settings.tasks.max_finished = instance;
                settings.tasks.max_finished_per_caller = per_caller;
            })
            .spawn()
            .await;
        let hers = ok(&app, &alice, false, "message/send", ask()).await;
        assert_eq!(hers["status"]["state"], "completed", "{hers}");
        let mut his = Vec::new();
        for _ in 0..6 {
            his.push(ok(&app, &bob, false, "message/send", ask()).await["id"].clone());
        }
        let kept = ok(&app, &alice, false, "tasks/get", json!({"id": hers["id"]})).await;
        assert_eq!(kept["id"], hers["id"], "({instance}, {per_caller})");
        let (_, gone) = raw(&app, &bob, false, "tasks/get", json!({"id": his[0]})).await;
        assert!(gone.contains("-32001"), "his oldest went: {gone}");
        let newest = ok(&app, &bob, false, "tasks/get", json!({"id": his[5]})).await;
        assert_eq!(newest["id"], his[5]);
    }
}

/// The default SQLite store: a caller past `tasks.max_finished_per_caller`
/// loses its own oldest finished tasks at the next trim (every second
/// here, with the sweep); its waiting task and another user's finished
/// task stay.
#[tokio::test]
async fn the_sql_store_trims_a_callers_finished_tasks_to_its_cap() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder()
        .auth(&keys)
        .settings(|settings| {
            settings.tasks.max_finished_per_caller = 3;
            settings.store.sweep_interval_secs = 1;
        })
        .spawn()
        .await;
    let (alice, bob) = (user("alice", &["viewer"]), user("bob", &["viewer"]));
    let ask = || json!({"message": user_message("why is order 4711 blocked by credit")});
    let waiting = ok(
        &app,
        &bob,
        false,
        "message/send",
        json!({"message": user_message("hello")}),
    )
    .await;
    assert_eq!(waiting["status"]["state"], "input-required", "{waiting}");
    let hers = ok(&app, &alice, false, "message/send", ask()).await;
    assert_eq!(hers["status"]["state"], "completed", "{hers}");
    let mut his = Vec::new();
    for _ in 0..6 {
        let task = ok(&app, &bob, false, "message/send", ask()).await;
        assert_eq!(task["status"]["state"], "completed", "{task}");
        his.push(task["id"].clone());
    }
    let readable = async |id: &Value| {
        let (_, body) = raw(&app, &bob, false, "tasks/get", json!({"id": id})).await;
        !body.contains("-32001")
    };
    let trimmed = wait_until(Duration::from_secs(10), async || !readable(&his[2]).await).await;
    assert!(trimmed, "bob's third oldest finished task is still there");
    for (n, id) in his.iter().enumerate() {
        assert_eq!(
            readable(id).await,
            n >= 3,
            "bob's task {n}: the newest 3 stay"
        );
    }
    assert!(
        readable(&waiting["id"]).await,
        "a waiting task is never trimmed"
    );
    let kept = ok(&app, &alice, false, "tasks/get", json!({"id": hers["id"]})).await;
    assert_eq!(kept["id"], hers["id"]);
}
