//! The real binary as `cargo run` starts it: Cloud Foundry's PORT and
//! VCAP_APPLICATION, AGENT__ overrides, a graceful stop on SIGTERM, and what
//! it logs (who called; never a token).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub struct Running {
    pub child: Child,
    pub port: u16,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

/// Start the binary with `envs` and wait for its "listening on port" line.
pub async fn start_binary(envs: &[(&str, &str)]) -> Running {
    let mut command = Command::new(env!("CARGO_BIN_EXE_order-exception-agent"));
    command
        .env("PORT", "0")
        .env("AGENT__SERVER__HOST", "127.0.0.1")
        .env("NO_COLOR", "1")
        .env("AGENT__STORE__SQLITE_FILE", ":memory:")
        .env_remove("VCAP_APPLICATION")
        .env_remove("VCAP_SERVICES")
        .stderr(Stdio::piped())
        .stdout(Stdio::piped());
    for (name, value) in envs {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (lines_tx, lines) = mpsc::channel();
    // Text logs go to stderr, JSON logs (Cloud Foundry) to stdout.
    let stdout_tx = lines_tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if stdout_tx.send(line).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut running = Running {
        child,
        port: 0,
        lines,
        seen: Vec::new(),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while running.port == 0 && Instant::now() < deadline {
        running.drain();
        running.port = running
            .seen
            .iter()
            .filter_map(|line| line.split("listening on port ").nth(1))
            .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .find_map(|digits| digits.parse().ok())
            .unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if running.port == 0 {
        let _ = running.child.kill();
        panic!(
            "the binary never said which port it listens on: {:?}",
            running.seen
        );
    }
    running
}

impl Running {
    fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
    }

    /// SIGTERM, then wait (CF kills after 10 s); returns everything logged.
    pub async fn terminate(mut self) -> Vec<String> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        let exit = loop {
            if let Some(exit) = self.child.try_wait().expect("wait works") {
                break Some(exit);
            }
            if Instant::now() > deadline {
                break None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let Some(exit) = exit else {
            let _ = self.child.kill();
            panic!("the binary did not stop within 10 s of SIGTERM");
        };
        assert!(exit.success(), "a clean exit after SIGTERM: {exit}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.drain();
        self.seen
    }
}

#[tokio::test]
async fn the_binary_honours_cloud_foundry_settings_and_stops_on_sigterm() {
    let running = start_binary(&[
        (
            "VCAP_APPLICATION",
            r#"{"application_uris":["order-agent.cfapps.example.com"]}"#,
        ),
        ("AGENT__AUTH__MODE", "off"),
        ("AGENT__CARD__NAME", "Order Exception Agent (test)"),
        ("RUST_LOG", "info"),
    ])
    .await;
    let client = crate::helpers::http_client();
    let card: serde_json::Value = client
        .get(format!(
            "http://127.0.0.1:{}/.well-known/agent-card.json",
            running.port
        ))
        .send()
        .await
        .expect("the binary serves")
        .json()
        .await
        .unwrap();
    assert_eq!(card["url"], "https://order-agent.cfapps.example.com/");
    assert_eq!(card["name"], "Order Exception Agent (test)");
    let log = running.terminate().await;
    assert!(
        log.iter()
            .any(|line| line.contains("AUTHENTICATION IS OFF")),
        "a loud warning when authentication is off: {log:?}"
    );
}

#[test]
fn on_cloud_foundry_without_an_identity_binding_the_binary_refuses_to_start() {
    let output = Command::new(env!("CARGO_BIN_EXE_order-exception-agent"))
        .env("PORT", "0")
        .env("AGENT__SERVER__HOST", "127.0.0.1")
        .env(
            "VCAP_APPLICATION",
            r#"{"application_uris":["order-agent.cfapps.example.com"]}"#,
        )
        .env_remove("VCAP_SERVICES")
        .env_remove("AGENT__AUTH__MODE")
        .env("AGENT__STORE__SQLITE_FILE", ":memory:")
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("identity"),
        "says what is missing: {stderr}"
    );
    assert!(stderr.contains("AGENT__AUTH__CLIENT_ID"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_names_the_caller_and_the_reason_but_never_the_token() {
    use crate::key_server::*;
    let keys = KeyServer::start().await;
    let running = start_binary(&[
        ("AGENT__AUTH__CLIENT_ID", CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", "accounts.test,accounts.cloud.test"),
        ("AGENT__AUTH__APP_TID", APP_TID),
        ("AGENT__AUTH__URL", ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", &keys.url),
        ("RUST_LOG", "debug"),
    ])
    .await;
    let client = crate::helpers::http_client();
    let url = format!("http://127.0.0.1:{}/", running.port);
    let good = token(&user_claims());
    let expired = token(&with(user_claims(), "exp", serde_json::json!(now() - 3600)));
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": { "message": crate::helpers::user_message("why is order 4711 blocked by credit") }
    });
    for (token, status) in [(&good, 200), (&expired, 401)] {
        let response = client
            .post(&url)
            .header("Authorization", format!("Bearer {token}"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status);
    }
    let log = running.terminate().await.join("\n");
    assert!(
        log.contains("user-uuid-42"),
        "the caller's user id is logged"
    );
    assert!(
        log.contains("joule-proxy-client"),
        "the calling client is logged"
    );
    assert!(log.contains("expired"), "the rejection reason is logged");
    for token in [&good, &expired] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(!log.contains(token.as_str()), "a token was logged");
        assert!(!log.contains(signature), "a token signature was logged");
    }
}

#[tokio::test]
async fn a_caller_cannot_forge_a_text_log_line_or_send_control_bytes_to_the_terminal() {
    let running = start_binary(&[("AGENT__AUTH__MODE", "off"), ("RUST_LOG", "info")]).await;
    const FORGED: &str = "2026-12-01T00:00:00.000000Z ERROR forged: admin password reset";
    // An unknown task id is logged as it came ("message for an unknown
    // task"); this one carries a line break, a fake line, ESC and NUL.
    let mut message = crate::helpers::user_message("why is order 4711 blocked by credit");
    message["taskId"] = serde_json::json!(format!("t-1\n{FORGED}\u{1b}[2J\u{0}\r\u{2028}end"));
    let answer: serde_json::Value = crate::helpers::http_client()
        .post(format!("http://127.0.0.1:{}/", running.port))
        .json(&serde_json::json!({
            "jsonrpc": "2.0", "id": "req-forge", "method": "message/send",
            "params": { "message": message }
        }))
        .send()
        .await
        .expect("the binary answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    let log = running.terminate().await;
    assert!(
        log.iter()
            .any(|line| line.contains(&format!("t-1\\n{FORGED}\\u{{1b}}[2J\\0\\r\\u{{2028}}end"))),
        "the task id is logged, escaped, on its own line: {log:?}"
    );
    for line in &log {
        assert!(!line.starts_with(FORGED), "a forged log line: {line:?}");
        assert!(
            !line.contains(['\u{1b}', '\0', '\r', '\u{2028}']),
            "a raw control character reached the log: {line:?}"
        );
    }
}
