//! Durable stores: tasks, history, push configs and the ledger survive a
//! restart of the real binary (SQLite file, PostgreSQL); two instances share
//! one PostgreSQL; a turn whose instance dies ends `failed` after its lease;
//! a database that goes away gives a clear -32603 and the service recovers.

use crate::helpers::binary::start_binary;
use crate::helpers::{
    Store, TestApp, approval, postgres_url, state, status_text, user_message, wait_until,
};
use serde_json::{Value, json};
use std::time::Duration;

const PUSH_FOR_TESTS: [(&str, &str); 3] = [
    ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1"),
    ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true"),
    ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true"),
];

/// Everything written before a restart is there after it.
async fn survives_a_restart(store_env: &[(&str, &str)]) {
    let envs: Vec<(&str, &str)> = store_env.iter().chain(&PUSH_FOR_TESTS).copied().collect();
    let first = start_binary(&envs).await;
    let app = first.app();
    let clerk = app.as_role("ar_clerk");
    let asked = clerk
        .send_text("Order 4725: Pricing: customer disputes the price.")
        .await;
    assert_eq!(state(&asked), "input-required");
    let config = json!({
        "taskId": asked["id"],
        "pushNotificationConfig": {"id": "hook-1", "url": "http://127.0.0.1:9/hook", "token": "t-1"}
    });
    let set = app.rpc("tasks/pushNotificationConfig/set", config).await;
    assert!(set.get("error").is_none(), "{set}");
    let manager = app.as_role("credit_manager");
    let review = manager
        .send_text("why is order 4711 blocked by credit")
        .await;
    let filed = manager.reply(&review, "approve").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");
    let log = first.terminate().await;
    assert!(
        log.iter()
            .any(|line| line.contains("task store and action ledger")),
        "{log:?}"
    );

    let second = start_binary(&envs).await;
    let app = second.app();
    let task = app.rpc("tasks/get", json!({"id": asked["id"]})).await["result"].clone();
    assert_eq!(state(&task), "input-required", "{task}");
    assert_eq!(
        task["history"][0]["parts"][0]["text"],
        "Order 4725: Pricing: customer disputes the price."
    );
    assert_eq!(status_text(&task), status_text(&asked));
    assert!(
        task["artifacts"]
            .as_array()
            .is_some_and(|artifacts| artifacts.iter().any(|a| a["name"] == "proposal"))
    );
    let configs = app
        .rpc(
            "tasks/pushNotificationConfig/list",
            json!({"id": asked["id"]}),
        )
        .await;
    assert_eq!(
        configs["result"][0]["pushNotificationConfig"]["id"], "hook-1",
        "{configs}"
    );
    assert_eq!(
        configs["result"][0]["pushNotificationConfig"]["token"],
        "t-1"
    );
    let finished = app.rpc("tasks/get", json!({"id": filed["id"]})).await["result"].clone();
    assert_eq!(state(&finished), "completed");
    assert_eq!(
        finished["history"].as_array().map(Vec::len),
        Some(3),
        "{finished}"
    );

    // The approval asked before the restart is answered after it.
    let filed_after = app.as_role("ar_clerk").reply(&asked, "approve").await;
    assert_eq!(approval(&filed_after)["status"], "filed", "{filed_after}");
    let actions = app.actions().await;
    let orders: Vec<&str> = actions
        .iter()
        .filter_map(|row| row["salesOrder"].as_str())
        .collect();
    assert_eq!(orders, ["4725", "4711"], "newest first: {actions:?}");
    second.terminate().await;

    // The `actions` command reads the same ledger.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_order-exception-agent"))
        .arg("actions")
        .arg("--json")
        .envs(store_env.iter().copied())
        .env_remove("VCAP_SERVICES")
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{output:?}");
    let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    assert_eq!(
        listed["actions"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    assert_eq!(listed["actions"][0]["approverRole"], "credit_manager");
}

fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("oea-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[tokio::test]
async fn tasks_push_configs_and_ledger_survive_a_restart_with_sqlite() {
    let dir = temp_dir();
    let dir_text = dir.to_string_lossy().to_string();
    survives_a_restart(&[
        ("AGENT__STORE__BACKEND", "sqlite"),
        ("AGENT__STORE__DATA_DIR", &dir_text),
        ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3"),
    ])
    .await;
    assert!(dir.join("agent.sqlite3").exists());
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn tasks_push_configs_and_ledger_survive_a_restart_with_postgres() {
    let Some(url) = postgres_url("survive_a_restart_with_postgres").await else {
        return;
    };
    survives_a_restart(&[("AGENT__STORE__DATABASE_URL", &url)]).await;
}

#[tokio::test]
async fn two_instances_on_one_postgres_share_tasks_and_the_ledger() {
    let Some(url) = postgres_url("two_instances_on_one_postgres").await else {
        return;
    };
    let one = TestApp::builder()
        .store(Store::Postgres(url.clone()))
        .spawn()
        .await;
    let two = TestApp::builder().store(Store::Postgres(url)).spawn().await;
    let asked = one
        .as_role("ar_clerk")
        .send_text("the customer disputes the price on 4725")
        .await;
    assert_eq!(state(&asked), "input-required");
    // Joule's follow-up lands on the other instance.
    let filed = two.as_role("ar_clerk").reply(&asked, "approve").await;
    assert_eq!(filed["id"], asked["id"]);
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");
    let read = one.rpc("tasks/get", json!({"id": asked["id"]})).await["result"].clone();
    assert_eq!(state(&read), "completed");
    assert_eq!(status_text(&read), status_text(&filed));
    assert_eq!(one.actions().await.len(), 1);
    // The second approval, on the first instance, finds the row.
    let again = one
        .as_role("credit_manager")
        .send_text("the customer disputes the price on 4725")
        .await;
    let again = one.as_role("credit_manager").reply(&again, "approve").await;
    assert_eq!(approval(&again)["status"], "already_filed", "{again}");
}

/// Start a slow turn on a binary, kill it, and watch `observer` end the task.
async fn a_killed_instance_leaves_no_task_working(
    store_env: &[(&str, &str)],
    observer: impl AsyncFnOnce() -> TestApp,
) {
    let mut envs: Vec<(&str, &str)> = store_env.to_vec();
    envs.extend([
        ("AGENT__BACKEND__LATENCY_MS", "60000"),
        ("AGENT__STORE__LEASE_SECS", "1"),
        ("AGENT__STORE__SWEEP_INTERVAL_SECS", "1"),
    ]);
    let mut doomed = start_binary(&envs).await;
    let app = doomed.app();
    let started = app
        .rpc(
            "message/send",
            json!({"message": user_message("why is order 4711 blocked by credit"),
                   "configuration": {"blocking": false}}),
        )
        .await["result"]
        .clone();
    assert_eq!(state(&started), "working", "{started}");
    // Let one lease renewal happen, then the instance dies without a word.
    tokio::time::sleep(Duration::from_millis(600)).await;
    doomed.child.kill().expect("kill -9");
    let _ = doomed.child.wait();

    let survivor = observer().await;
    let mut task = Value::Null;
    wait_until(Duration::from_secs(20), async || {
        task = survivor
            .rpc("tasks/get", json!({"id": started["id"]}))
            .await["result"]
            .clone();
        state(&task) != "working"
    })
    .await;
    assert_eq!(state(&task), "failed", "{task}");
    assert!(status_text(&task).contains("its lease ran out"), "{task}");
}

#[tokio::test]
async fn a_turn_of_a_killed_instance_ends_failed_after_the_lease_with_postgres() {
    let Some(url) = postgres_url("a_turn_of_a_killed_instance_with_postgres").await else {
        return;
    };
    let store_env = [("AGENT__STORE__DATABASE_URL", url.as_str())];
    a_killed_instance_leaves_no_task_working(&store_env, async || {
        // The other instance, already running in real life; here started now.
        TestApp::builder()
            .store(Store::Postgres(url.clone()))
            .settings(|settings| {
                settings.store.lease_secs = 1;
                settings.store.sweep_interval_secs = 1;
            })
            .spawn()
            .await
    })
    .await;
}

#[tokio::test]
async fn a_turn_of_a_killed_instance_ends_failed_after_a_restart_with_sqlite() {
    let dir = temp_dir();
    let dir_text = dir.to_string_lossy().to_string();
    let store_env = [
        ("AGENT__STORE__BACKEND", "sqlite"),
        ("AGENT__STORE__DATA_DIR", dir_text.as_str()),
        ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3"),
    ];
    a_killed_instance_leaves_no_task_working(&store_env, async || {
        TestApp::builder()
            .store(Store::SqliteFile {
                dir: dir.clone(),
                file: "agent.sqlite3".into(),
            })
            .settings(|settings| {
                settings.store.lease_secs = 1;
                settings.store.sweep_interval_secs = 1;
            })
            .spawn()
            .await
    })
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run SQL on the test server's maintenance database.
async fn admin(base: &str, sql: String) {
    let pool = sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(base)
        .await
        .expect("the test PostgreSQL answers");
    sqlx::query(&sql)
        .execute(&pool)
        .await
        .expect("admin statement");
    pool.close().await;
}

#[tokio::test]
async fn a_database_that_goes_away_gives_a_clear_error_and_the_service_recovers() {
    let Ok(base) = std::env::var("TEST_DATABASE_URL") else {
        eprintln!("SKIPPED a_database_that_goes_away: TEST_DATABASE_URL is not set");
        return;
    };
    sqlx::any::install_default_drivers();
    let name = format!("oea_down_{}", uuid::Uuid::new_v4().simple());
    admin(&base, format!("CREATE DATABASE {name}")).await;
    let url = match base.rfind('/') {
        Some(slash) => format!("{}/{name}", &base[..slash]),
        None => panic!("TEST_DATABASE_URL has no database path: {base}"),
    };
    let app = TestApp::builder().store(Store::Postgres(url)).spawn().await;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk
        .send_text("the customer disputes the price on 4725")
        .await;
    assert_eq!(state(&asked), "input-required");

    admin(
        &base,
        format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false"),
    )
    .await;
    admin(
        &base,
        format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"),
    )
    .await;
    let mut message = user_message("approve");
    message["taskId"] = asked["id"].clone();
    let body = clerk
        .rpc("message/send", json!({ "message": message }))
        .await;
    assert_eq!(body["error"]["code"], -32603, "{body}");
    let reason = body["error"]["message"].as_str().unwrap_or("");
    assert!(reason.starts_with("task store unavailable: "), "{reason}");
    assert!(!reason.contains('\n'), "one line: {reason}");
    // The ledger cannot be read either: 503, and the database's words
    // (its name, the driver's message) stay in the log.
    let listed = app
        .client
        .get(format!("{}/actions", app.address))
        .send()
        .await
        .expect("request reaches the server");
    assert_eq!(listed.status(), 503);
    let listed: serde_json::Value = listed.json().await.expect("a JSON answer");
    let said = listed["error"]["message"].as_str().unwrap_or("");
    assert_eq!(
        said, "the action ledger is unavailable; try again later",
        "{listed}"
    );
    assert!(!listed.to_string().contains(&name), "{listed}");
    let health = app.get_json("/health").await;
    assert_eq!(health["status"], "UP", "the service keeps running");

    admin(
        &base,
        format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS true"),
    )
    .await;
    // Nothing was half-written: the task still waits, and approving works now.
    let read = app.rpc("tasks/get", json!({"id": asked["id"]})).await["result"].clone();
    assert_eq!(state(&read), "input-required", "{read}");
    let filed = clerk.reply(&asked, "approve").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");
    assert_eq!(app.actions().await.len(), 1);
    admin(&base, format!("DROP DATABASE {name} WITH (FORCE)")).await;
}

#[tokio::test]
async fn finished_tasks_go_after_the_retention_and_the_ledger_stays() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.store.retention_days = 0;
            settings.store.sweep_interval_secs = 1;
        })
        .spawn()
        .await;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk
        .send_text("the customer disputes the price on 4725")
        .await;
    let filed = clerk.reply(&asked, "approve").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");
    let open = clerk.send_text("why is it blocked by credit").await;
    assert_eq!(state(&open), "input-required");

    let mut gone = Value::Null;
    wait_until(Duration::from_secs(10), async || {
        gone = app.rpc("tasks/get", json!({"id": filed["id"]})).await;
        gone.get("error").is_some()
    })
    .await;
    assert_eq!(
        gone["error"]["code"], -32001,
        "the finished task was deleted: {gone}"
    );
    // Open tasks stay, and the ledger is never deleted.
    let still = app.rpc("tasks/get", json!({"id": open["id"]})).await;
    assert_eq!(state(&still["result"]), "input-required", "{still}");
    assert_eq!(app.actions().await.len(), 1);
}

/// A small disk of its own (tmpfs), unmounted when dropped; `None` where
/// this machine cannot mount one (not root).
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(megabytes: u32) -> Option<SmallDisk> {
        let dir = std::env::temp_dir().join(format!("oea-disk-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).ok()?;
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|status| status.success());
        if !mounted {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(SmallDisk(dir))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A full disk: the request that cannot be stored gets the clear -32603
/// at once (no retries that only make every caller wait), `/health` says
/// so and stays UP, and once space returns the service takes writes again
/// with every acknowledged task still there.
#[tokio::test]
async fn a_full_disk_fails_fast_shows_in_health_and_heals() {
    let Some(disk) = SmallDisk::mount(4) else {
        eprintln!("SKIPPED a_full_disk_fails_fast_shows_in_health_and_heals: cannot mount a tmpfs");
        return;
    };
    let app = TestApp::builder()
        .store(Store::SqliteFile {
            dir: disk.0.clone(),
            file: "agent.sqlite3".into(),
        })
        .spawn()
        .await;
    let first = app.send_text("why is order 4711 blocked").await;
    // Most of the room taken by something else.
    let filler = disk.0.join("filler");
    let mut size = 4 * 1024 * 1024;
    while size > 0 && std::fs::write(&filler, vec![0u8; size]).is_err() {
        size -= 64 * 1024;
    }
    let text = format!("why is order 4711 blocked {}", "lorem ipsum ".repeat(1_200));
    let mut refused = None;
    for _ in 0..200 {
        let started = std::time::Instant::now();
        let body = app
            .rpc("message/send", json!({"message": user_message(&text)}))
            .await;
        if body.get("error").is_some() {
            refused = Some((body, started.elapsed()));
            break;
        }
    }
    let (body, took) = refused.expect("the disk filled up");
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert_eq!(
        body["error"]["message"],
        "task store unavailable: please try again shortly"
    );
    // The turn's retries for a store that is briefly down take 4.2 s; a
    // full disk gets none.
    assert!(took < Duration::from_secs(4), "answered after {took:?}");
    let health = app.get_json("/health").await;
    assert_eq!(health["status"], "UP", "{health}");
    assert!(
        health["store"]["state"]
            .as_str()
            .is_some_and(|s| s.starts_with("no space left")),
        "{health}"
    );

    std::fs::remove_file(&filler).expect("space returns");
    let mut healed = Value::Null;
    let recovered = wait_until(Duration::from_secs(10), async || {
        healed = app
            .rpc(
                "message/send",
                json!({"message": user_message("why is order 4711 blocked")}),
            )
            .await;
        healed.get("result").is_some()
    })
    .await;
    assert!(recovered, "{healed}");
    let health = app.get_json("/health").await;
    assert!(health["store"].get("state").is_none(), "{health}");
    let kept = app.rpc("tasks/get", json!({"id": first["id"]})).await;
    assert_eq!(kept["result"]["id"], first["id"], "{kept}");
    drop(app);
}
