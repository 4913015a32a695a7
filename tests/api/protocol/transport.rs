//! HTTP-level guards: content type, body size, paths and methods. Each gives
//! a clear JSON error with the right status, never a panic.

use crate::helpers::{TestApp, user_message};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn send_request(text: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": "t1", "method": "message/send",
        "params": { "message": user_message(text) }
    })
    .to_string()
}

#[tokio::test]
async fn non_json_content_types_get_415_with_a_json_reason() {
    let app = TestApp::spawn().await;
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "text/html; charset=utf-8",
    ] {
        let (status, body) = app
            .post_raw(send_request("order 4711"), Some(content_type))
            .await;
        assert_eq!(status, 415, "{content_type}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("application/json"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn json_content_types_and_a_missing_header_are_accepted() {
    let app = TestApp::spawn().await;
    for content_type in [Some("application/json; charset=utf-8"), None] {
        let (status, body) = app
            .post_raw(
                send_request("why is order 4711 blocked by credit"),
                content_type,
            )
            .await;
        assert_eq!(status, 200, "{content_type:?}: {body}");
        assert_eq!(body["result"]["status"]["state"], "completed");
    }
}

#[tokio::test]
async fn bodies_over_one_mebibyte_get_413_and_the_server_keeps_serving() {
    let app = TestApp::spawn().await;
    let huge = send_request(&"x".repeat(1024 * 1024 + 10));
    let (status, body) = app.post_raw(huge, Some("application/json")).await;
    assert_eq!(status, 413);
    assert!(
        body["error"]["message"].as_str().unwrap().contains("limit"),
        "{body}"
    );

    // Chunked, without Content-Length: the limit still holds. Raw TCP, so
    // the answer is read even if the server stops reading the upload.
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", app.port))
        .await
        .expect("connects");
    let head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Transfer-Encoding: chunked\r\n\r\n";
    stream
        .write_all(head.as_bytes())
        .await
        .expect("headers sent");
    let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, " ".repeat(64 * 1024));
    for _ in 0..20 {
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
    }
    let mut answer = vec![0u8; 64];
    let read = tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("the server answers")
        .expect("the answer is readable");
    let status_line = String::from_utf8_lossy(&answer[..read]).to_string();
    assert!(status_line.starts_with("HTTP/1.1 413"), "{status_line}");

    let (status, _) = app
        .post_raw(
            send_request("why is order 4711 blocked by credit"),
            Some("application/json"),
        )
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn wrong_paths_and_methods_get_json_404_and_405() {
    let app = TestApp::spawn().await;
    let response = app
        .client
        .put(format!("{}/", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("POST"));

    let response = app
        .client
        .post(format!("{}/.well-known/agent-card.json", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 405);
    assert_eq!(response.headers()["allow"], "GET");

    let response = app
        .client
        .get(format!("{}/nothing-here", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
    let body: serde_json::Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/nothing-here")
    );
}

#[tokio::test]
async fn get_on_the_root_says_where_the_endpoints_are_without_a_token() {
    // The cockpit's Check Connection on the Joule destination sends a GET to
    // its URL (the JSON-RPC root) without a token.
    let keys = crate::helpers::key_server::KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    let response = app
        .client
        .get(format!("{}/", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["jsonrpc"], "POST /");
    assert_eq!(body["agentCard"], "/.well-known/agent-card.json");
    assert_eq!(body["health"], "/health");
    let card = app.get_json(body["agentCard"].as_str().unwrap()).await;
    assert!(card["name"].is_string(), "the card is where the root says");
    let health = app.get_json(body["health"].as_str().unwrap()).await;
    assert_eq!(health["status"], "UP");
    let head = app
        .client
        .head(format!("{}/", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status().as_u16(), 200, "HEAD / too");
    assert_eq!(keys.jwks_calls(), 0, "no token, no key fetch");
}
