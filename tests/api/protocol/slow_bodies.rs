//! Clients that send a request slowly or not at all, over raw TCP: a body
//! that stalls gets 408 within `server.request_timeout_ms` and its
//! connection is closed; large bodies together hold at most
//! `server.body_bytes_in_flight` (the excess gets 503 with `Retry-After`),
//! and a normal request is served all the while.

use crate::helpers::{TestApp, user_message};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Generous: the answers under test come after half a second to 3 s.
const PATIENCE: Duration = Duration::from_secs(20);

fn request_json(text: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": "slow-1", "method": "message/send",
        "params": { "message": user_message(text) }
    })
    .to_string()
}

/// Everything the server sends until it closes the connection; `None`
/// when it neither answers nor closes within [`PATIENCE`].
async fn until_closed(stream: &mut TcpStream) -> Option<String> {
    let mut received = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut buffer = [0u8; 8192];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&received).into_owned())
}

/// The status code and JSON body of a raw HTTP/1.1 answer.
fn parse(answer: &str) -> (u16, String, Value) {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = serde_json::from_str(body).unwrap_or(Value::Null);
    (status, head.to_ascii_lowercase(), body)
}

async fn connect(port: u16) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connects")
}

#[tokio::test]
async fn a_request_that_stalls_gets_408_and_its_connection_is_closed() {
    let app = TestApp::builder()
        .settings(|settings| {
            settings.server.request_timeout_ms = 500;
            settings.server.head_timeout_ms = 500;
        })
        .spawn()
        .await;

    // Headers and the start of the body, declared and chunked; then nothing.
    for head in [
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: 1000\r\n\r\n{\"jsonrpc\": \"2.0\", ",
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\n10\r\n{\"jsonrpc\": \"2.0\r\n",
    ] {
        let mut stream = connect(app.port).await;
        stream.write_all(head.as_bytes()).await.expect("sent");
        let answer = until_closed(&mut stream)
            .await
            .unwrap_or_else(|| panic!("no answer and still open: {head:?}"));
        let (status, headers, body) = parse(&answer);
        assert_eq!(status, 408, "{answer}");
        assert!(headers.contains("connection: close"), "{answer}");
        assert_eq!(body["error"]["code"], -32600, "{answer}");
        assert_eq!(
            body["error"]["message"], "the request body did not arrive within 500 ms",
            "{answer}"
        );
    }

    // Headers that never end: actix's head timer (`server.head_timeout_ms`).
    let mut stream = connect(app.port).await;
    stream
        .write_all(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .expect("sent");
    let answer = until_closed(&mut stream)
        .await
        .expect("unfinished headers end the connection");
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );

    let (status, body) = app
        .post_raw(
            request_json("why is order 4711 blocked by credit"),
            Some("application/json"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn large_bodies_in_flight_are_capped_and_normal_requests_still_pass() {
    const BUDGET: usize = 512 * 1024;
    const SENT: usize = 200 * 1024;
    const STALLED: usize = 8;
    let app = TestApp::builder()
        .settings(|settings| {
            settings.server.body_bytes_in_flight = BUDGET;
            settings.server.request_timeout_ms = 3_000;
        })
        .spawn()
        .await;

    // Each declares 900 kB (under the 1 MiB limit), sends 200 KiB, stops.
    let head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
                Content-Length: 900000\r\n\r\n";
    let stalled = (0..STALLED).map(|_| async {
        let mut stream = connect(app.port).await;
        let mut upload = head.as_bytes().to_vec();
        upload.extend(std::iter::repeat_n(b' ', SENT));
        // A refused body closes the connection: the rest may not go out.
        let _ = stream.write_all(&upload).await;
        stream
    });
    let mut streams = futures_util::future::join_all(stalled).await;

    // While they hold the budget, an ordinary call is served.
    let (status, body) = app
        .post_raw(
            request_json("why is order 4711 blocked by credit"),
            Some("application/json"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");

    let answers = futures_util::future::join_all(streams.iter_mut().map(until_closed)).await;
    let (mut refused, mut timed_out) = (0, 0);
    for answer in answers {
        let answer = answer.expect("every stalled connection is answered and closed");
        let (status, headers, body) = parse(&answer);
        assert!(headers.contains("connection: close"), "{answer}");
        match status {
            503 => {
                refused += 1;
                assert!(headers.contains("retry-after: 1"), "{answer}");
                assert!(
                    body["error"]["message"]
                        .as_str()
                        .is_some_and(|message| message.contains("retry")),
                    "{answer}"
                );
            }
            408 => timed_out += 1,
            _ => panic!("a stalled body is refused or times out: {answer}"),
        }
    }
    assert!(refused >= 1, "the budget refuses the excess");
    assert!(
        timed_out >= 1,
        "bodies within the budget are read until they stall"
    );

    // The budget is given back: a large body that fits is read and served.
    let large = request_json(&format!(
        "why is order 4711 blocked by credit {}",
        "please ".repeat(40_000)
    ));
    assert!(large.len() > 256 * 1024);
    let (status, body) = app.post_raw(large, Some("application/json")).await;
    assert_eq!(status, 200, "{body}");
}
