//! The real binary as `cargo run` starts it: Cloud Foundry's PORT and
//! VCAP_APPLICATION, AGENT__ overrides, and a graceful stop on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[tokio::test]
async fn the_binary_honours_cloud_foundry_settings_and_stops_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_order-exception-agent"))
        .env("PORT", "0")
        .env(
            "VCAP_APPLICATION",
            r#"{"application_uris":["order-agent.cfapps.example.com"]}"#,
        )
        .env("AGENT__SERVER__HOST", "127.0.0.1")
        .env("AGENT__CARD__NAME", "Order Exception Agent (test)")
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the binary starts");

    // The port comes from the start-up log line.
    let stderr = child.stderr.take().expect("stderr is piped");
    let (lines_tx, lines_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut port = None;
    let deadline = Instant::now() + Duration::from_secs(30);
    while port.is_none() && Instant::now() < deadline {
        if let Ok(line) = lines_rx.recv_timeout(Duration::from_millis(200)) {
            port = line
                .split("listening on port ")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|digits| digits.parse::<u16>().ok());
        }
    }
    let Some(port) = port else {
        let _ = child.kill();
        panic!("the binary never said which port it listens on");
    };

    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let card: serde_json::Value = client
        .get(format!(
            "http://127.0.0.1:{port}/.well-known/agent-card.json"
        ))
        .send()
        .await
        .expect("the binary serves")
        .json()
        .await
        .unwrap();
    assert_eq!(card["url"], "https://order-agent.cfapps.example.com/");
    assert_eq!(card["name"], "Order Exception Agent (test)");

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    // CF sends SIGKILL 10 s after SIGTERM; the service must be gone before.
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait works") {
            break Some(exit);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let Some(exit) = exit else {
        let _ = child.kill();
        panic!("the binary did not stop within 10 s of SIGTERM");
    };
    assert!(exit.success(), "a clean exit after SIGTERM: {exit}");
}
