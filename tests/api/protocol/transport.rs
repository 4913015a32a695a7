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

/// With authentication off the caller names their roles, so a page that
/// rebinds its name to this machine must not reach the service: a `Host`
/// that is not loopback or the public URL's host gets 421, an `Origin`
/// that is not a loopback origin or the public URL's 403, and nothing is
/// done. `X-Forwarded-Host` changes nothing; `/health` answers any host.
#[tokio::test]
async fn with_authentication_off_only_local_hosts_and_origins_are_served() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.server.public_url = Some("http://agent.test:8080/".into());
        })
        .spawn()
        .await;
    let port = app.port;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk
        .send_text("Order 4725: Pricing: customer disputes the price.")
        .await;
    let mut approve = user_message("approve");
    approve["taskId"] = asked["id"].clone();
    approve["contextId"] = asked["contextId"].clone();
    let approval = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                          "params": {"message": approve}})
    .to_string();
    let call_as_clerk = |headers: &[(&'static str, String)], body: String| {
        let mut request = clerk
            .client
            .post(format!("{}/", app.address))
            .header("Content-Type", "application/json")
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        request.send()
    };
    let rebound = format!("attacker.example:{port}");
    for (headers, status) in [
        (vec![("Host", rebound.clone())], 421),
        (
            vec![
                ("Host", rebound.clone()),
                ("X-Forwarded-Host", format!("localhost:{port}")),
                ("Forwarded", format!("host=localhost:{port}")),
            ],
            421,
        ),
        (vec![("Host", "agent.test.attacker.example".into())], 421),
        (vec![("Origin", format!("http://{rebound}"))], 403),
        (vec![("Origin", "null".into())], 403),
        (vec![("Origin", "http://agent.test".into())], 403),
    ] {
        let response = call_as_clerk(&headers, approval.clone()).await.unwrap();
        assert_eq!(response.status().as_u16(), status, "{headers:?}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("authentication is off")),
            "{headers:?}: {body}"
        );
    }
    assert!(app.actions().await.is_empty(), "nothing was approved");
    for headers in [
        vec![("Host", format!("localhost:{port}"))],
        vec![("Host", format!("[::1]:{port}"))],
        vec![("Host", "agent.test:8080".into())],
        vec![("Origin", "http://localhost:3000".into())],
        vec![("Origin", "http://agent.test:8080".into())],
    ] {
        let body = send_request("why is order 4711 blocked by credit");
        let response = call_as_clerk(&headers, body).await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "{headers:?}");
    }
    let response = call_as_clerk(&[("Host", format!("localhost:{port}"))], approval)
        .await
        .unwrap();
    let filed: serde_json::Value = response.json().await.unwrap();
    assert_eq!(filed["result"]["status"]["state"], "completed", "{filed}");
    assert_eq!(app.actions().await.len(), 1);

    let get = |path: &str| {
        app.client
            .get(format!("{}{path}", app.address))
            .header("Host", rebound.clone())
            .send()
    };
    assert_eq!(get("/health").await.unwrap().status().as_u16(), 200);
    for path in ["/.well-known/agent-card.json", "/actions", "/"] {
        assert_eq!(get(path).await.unwrap().status().as_u16(), 421, "{path}");
    }
}

/// With authentication on, `Host` and `Origin` are not judged: the token
/// says who calls (today's behaviour).
#[tokio::test]
async fn with_authentication_on_any_host_reaches_the_token_check() {
    let keys = crate::helpers::key_server::KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    let response = app
        .client
        .post(format!("{}/", app.address))
        .header("Content-Type", "application/json")
        .header("Host", "attacker.example")
        .header("Origin", "http://attacker.example")
        .body(send_request("why is order 4711 blocked by credit"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let card = app
        .client
        .get(format!("{}/.well-known/agent-card.json", app.address))
        .header("Host", "attacker.example")
        .send()
        .await
        .unwrap();
    assert_eq!(card.status().as_u16(), 200);
}

/// Without `server.host`: loopback only with authentication off, every
/// address with it on. (127.0.0.2 is another loopback address: only a
/// listener on every address answers there.)
#[tokio::test]
async fn without_a_host_setting_authentication_off_listens_on_loopback_only() {
    let keys = crate::helpers::key_server::KeyServer::start().await;
    let off = TestApp::builder()
        .settings(|settings| settings.server.host = None)
        .spawn()
        .await;
    let on = TestApp::builder()
        .settings(|settings| settings.server.host = None)
        .auth(&keys)
        .spawn()
        .await;
    for (app, reachable) in [(&off, false), (&on, true)] {
        let local = tokio::net::TcpStream::connect(("127.0.0.1", app.port)).await;
        assert!(local.is_ok(), "127.0.0.1 always: {local:?}");
        let other = tokio::net::TcpStream::connect(("127.0.0.2", app.port)).await;
        assert_eq!(other.is_ok(), reachable, "{other:?}");
    }
}
