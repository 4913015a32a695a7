//! The real binary as `cargo run` starts it: Cloud Foundry's PORT and
//! VCAP_APPLICATION, AGENT__ overrides, a graceful stop on SIGTERM, and what
//! it logs (who called; never a token).

use crate::helpers::binary::start_binary;
use std::process::Command;

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
    use crate::helpers::key_server::*;
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
