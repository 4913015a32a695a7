//! Exactly once across a crash: the real binary files the
//! approved delivery date change, claims the row and is killed (kill -9)
//! while S/4HANA hangs on the write; a restarted binary on the same SQLite
//! file finds the row unfinished once its lease has run out, checks S/4HANA
//! and carries it out: one change. When S/4HANA already shows the change
//! (it was made just before the crash), the restart records it done and
//! writes nothing. On PostgreSQL another instance takes the row over.

use crate::doubles::s4hana::users::known::COMM_USER;
use crate::doubles::s4hana::{S4Double, Step};
use crate::helpers::binary::start_binary;
use crate::helpers::{approval, state, wait_until};
use serde_json::{Value, json};
use std::time::Duration;

/// The store: a SQLite file in `dir`, or PostgreSQL at a URL.
enum Db<'a> {
    Sqlite(&'a str),
    Postgres(&'a str),
}

fn envs<'a>(s4: &'a str, db: &Db<'a>) -> Vec<(&'a str, &'a str)> {
    let mut envs = match db {
        Db::Sqlite(dir) => vec![
            ("AGENT__STORE__BACKEND", "sqlite"),
            ("AGENT__STORE__DATA_DIR", *dir),
            ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3"),
        ],
        Db::Postgres(url) => vec![("AGENT__STORE__DATABASE_URL", *url)],
    };
    envs.extend([
        ("AGENT__BACKEND__SOURCE", "s4hana"),
        ("AGENT__BACKEND__S4HANA__URL", s4),
        ("AGENT__BACKEND__S4HANA__USER", COMM_USER.0),
        ("AGENT__BACKEND__S4HANA__PASSWORD", COMM_USER.1),
        ("AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__BACKEND__S4HANA__CALL_TIMEOUT_MS", "60000"),
        ("AGENT__ACTIONS__EXECUTOR", "s4hana"),
        ("AGENT__ACTIONS__LEASE_MS", "1000"),
        ("AGENT__ACTIONS__RETRY_INTERVAL_MS", "100"),
    ]);
    envs
}

fn merges(s4: &S4Double) -> usize {
    s4.changes()
        .iter()
        .filter(|change| change.entity == "A_SalesOrder('4740')")
        .count()
}

/// Ask, give the date, approve without waiting; the binary is left working.
async fn approve_and_kill(s4: &S4Double, db: &Db<'_>) {
    s4.always("MERGE", Step::Hang);
    let mut doomed = start_binary(&envs(&s4.url, db)).await;
    let app = doomed.app().as_role("ar_clerk");
    let asked = app
        .send_text("customer wants a later delivery date on 4740")
        .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let dated = app.reply(&asked, &crate::helpers::delivery_day().iso).await;
    assert_eq!(approval(&dated)["status"], "pending", "{dated}");
    let mut message = crate::helpers::user_message("approve");
    message["taskId"] = dated["id"].clone();
    message["contextId"] = dated["contextId"].clone();
    let started = app
        .rpc(
            "message/send",
            json!({"message": message, "configuration": {"blocking": false}}),
        )
        .await;
    assert!(started.get("error").is_none(), "{started}");
    // The write is under way in S/4HANA (it hangs there): kill -9 now.
    let writing = wait_until(Duration::from_secs(20), async || {
        s4.requests()
            .iter()
            .any(|request| request.method == "MERGE")
    })
    .await;
    assert!(writing, "the binary never started the write");
    doomed.child.kill().expect("kill -9");
    let _ = doomed.child.wait();
    s4.clear_faults();
}

async fn restarted_until_done(s4: &S4Double, db: &Db<'_>) -> Value {
    let restarted = start_binary(&envs(&s4.url, db)).await;
    let app = restarted.app().as_role("ar_clerk");
    let mut rows = Vec::new();
    let done = wait_until(Duration::from_secs(20), async || {
        rows = app.actions().await;
        rows.first().is_some_and(|row| row["state"] == "done")
    })
    .await;
    assert!(done, "{rows:?}");
    assert_eq!(rows.len(), 1);
    rows[0].clone()
}

fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("oea-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[tokio::test]
async fn a_crash_between_ledger_and_s4hana_executes_once_after_the_restart() {
    let s4 = S4Double::start().await;
    let dir = temp_dir();
    let dir_text = dir.to_string_lossy().to_string();
    let db = Db::Sqlite(&dir_text);
    approve_and_kill(&s4, &db).await;
    assert_eq!(merges(&s4), 0, "the hanging write changed nothing");
    let row = restarted_until_done(&s4, &db).await;
    assert_eq!(merges(&s4), 1);
    assert_eq!(
        row["parameters"]["requestedDeliveryDate"],
        crate::helpers::delivery_day().iso.as_str()
    );
    assert_eq!(
        s4.entity("A_SalesOrder", "'4740'").expect("4740")["RequestedDeliveryDate"],
        crate::helpers::delivery_day().odata.as_str()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_change_s4hana_already_shows_is_recorded_done_without_a_second_write() {
    let s4 = S4Double::start().await;
    let dir = temp_dir();
    let dir_text = dir.to_string_lossy().to_string();
    let db = Db::Sqlite(&dir_text);
    approve_and_kill(&s4, &db).await;
    // The change reached S/4HANA just before the crash.
    s4.set_field(
        "A_SalesOrder",
        "'4740'",
        "RequestedDeliveryDate",
        json!(crate::helpers::delivery_day().odata.as_str()),
    );
    s4.set_field("A_SalesOrder", "'4740'", "DeliveryBlockReason", json!(""));
    let row = restarted_until_done(&s4, &db).await;
    assert_eq!(merges(&s4), 0, "nothing is written twice");
    assert!(
        row["answer"].as_str().is_some_and(
            |answer| answer.contains(&format!("is now {}", crate::helpers::delivery_day().iso))
        ),
        "{row}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_crashed_instance_s_action_is_carried_out_once_by_another_on_postgres() {
    let Some(url) = crate::helpers::postgres_url("a_crashed_instance_s_action").await else {
        return;
    };
    let s4 = S4Double::start().await;
    let db = Db::Postgres(&url);
    approve_and_kill(&s4, &db).await;
    assert_eq!(merges(&s4), 0);
    // Any instance's retry job takes the row once the lease has run out.
    let row = restarted_until_done(&s4, &db).await;
    assert_eq!(merges(&s4), 1);
    assert_eq!(row["attempts"], 1);
}
