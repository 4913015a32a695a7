//! SIGTERM with a turn running (Cloud Foundry kills 10 s later): a turn
//! that ends within the grace (`server.shutdown_timeout_secs`, 5 s) is
//! stored and pushed; one still running then ends `failed`, saying to ask
//! again, pushed too; the next start finds it so, never `working`. The
//! real binary on a SQLite file, stopped as `cf stop` stops it.

use crate::helpers::binary::start_binary;
use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{state, status_text, user_message};
use serde_json::{Value, json};

/// The binary's settings for a SQLite file in `dir`, push to loopback, and
/// `latency_ms` on each order read (the turn's length).
fn settings(dir: &str, latency_ms: &'static str) -> Vec<(&'static str, String)> {
    vec![
        ("AGENT__STORE__BACKEND", "sqlite".into()),
        ("AGENT__STORE__DATA_DIR", dir.into()),
        ("AGENT__STORE__SQLITE_FILE", "agent.sqlite3".into()),
        ("AGENT__BACKEND__LATENCY_MS", latency_ms.into()),
        ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1".into()),
        ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true".into()),
        ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true".into()),
    ]
}

/// A fresh folder for one test's SQLite file, removed when dropped.
struct Folder(std::path::PathBuf);

impl Folder {
    fn new() -> Folder {
        let dir = std::env::temp_dir().join(format!("oea-stop-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        Folder(dir)
    }

    fn path(&self) -> String {
        self.0.to_string_lossy().to_string()
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Start the binary, send a non-blocking question whose result goes to
/// `webhook`, SIGTERM it after `after_ms`; the log, and the task as the
/// next start on the same file reads it.
async fn stopped_mid_turn(
    envs: &[(&'static str, String)],
    webhook: &WebhookReceiver,
    after_ms: u64,
) -> (Vec<String>, Value) {
    let envs: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let first = start_binary(&envs).await;
    let sent = first
        .app()
        .rpc(
            "message/send",
            json!({"message": user_message("why is order 4711 blocked by credit"),
                   "configuration": {"blocking": false,
                       "pushNotificationConfig": {"url": format!("{}/hook", webhook.url)}}}),
        )
        .await["result"]
        .clone();
    assert_eq!(state(&sent), "working", "{sent}");
    tokio::time::sleep(std::time::Duration::from_millis(after_ms)).await;
    // Exits, cleanly, within 10 s (it panics otherwise).
    let log = first.terminate().await;

    let second = start_binary(&envs).await;
    let task = second
        .app()
        .rpc("tasks/get", json!({"id": sent["id"]}))
        .await["result"]
        .clone();
    second.terminate().await;
    (log, task)
}

/// The states the webhook was told of, in order.
fn pushed_states(webhook: &WebhookReceiver) -> Vec<String> {
    webhook
        .at("/hook")
        .iter()
        .map(|received| state(&received.body).to_string())
        .collect()
}

#[tokio::test]
async fn a_turn_still_running_after_the_grace_ends_failed_to_be_asked_again() {
    let folder = Folder::new();
    let webhook = WebhookReceiver::start().await;
    // Each order read takes a minute: far past the 5 s grace.
    let (log, task) = stopped_mid_turn(&settings(&folder.path(), "60000"), &webhook, 300).await;
    assert_eq!(
        state(&task),
        "failed",
        "never `working` after the restart: {task}"
    );
    let said = status_text(&task);
    assert!(said.contains("Please send the request again"), "{said}");
    assert!(
        log.iter()
            .any(|line| line.contains("turns still running at the end of the shutdown grace")),
        "{log:?}"
    );
    let pushed = pushed_states(&webhook);
    assert_eq!(
        pushed.last().map(String::as_str),
        Some("failed"),
        "the failure is pushed before the exit: {pushed:?}"
    );
}

#[tokio::test]
async fn a_turn_that_ends_within_the_grace_is_stored_and_pushed() {
    let folder = Folder::new();
    let webhook = WebhookReceiver::start().await;
    // Stopped at once; the turn needs about a second more.
    let (log, task) = stopped_mid_turn(&settings(&folder.path(), "800"), &webhook, 0).await;
    assert_eq!(state(&task), "completed", "{task}");
    assert!(status_text(&task).contains("4711"), "{task}");
    assert!(
        !log.iter()
            .any(|line| line.contains("turns still running at the end of the shutdown grace")),
        "{log:?}"
    );
    let pushed = pushed_states(&webhook);
    assert_eq!(
        pushed.last().map(String::as_str),
        Some("completed"),
        "the result is pushed before the exit: {pushed:?}"
    );
}
