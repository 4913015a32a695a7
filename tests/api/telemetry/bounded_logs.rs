//! What one request can make the service write: the real binary's JSON log
//! lines while a caller sends a megabyte id or method and headers as long
//! as the server reads (its head holds 128 KiB), and the correlation id
//! the ledger keeps for good.

use crate::helpers::binary::start_binary;
use crate::helpers::{state, user_message};
use serde_json::{Value, json};

/// Longer than any bound the service cuts to; no log line holds it.
const RUN: usize = 1024;

/// Every caller-chosen value below is a run of its own letter.
fn run_of(letter: char) -> String {
    letter.to_string().repeat(RUN)
}

#[tokio::test]
async fn a_megabyte_id_method_or_header_writes_no_more_than_a_line_of_log() {
    let running = start_binary(&[
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__AUTH__MODE", "off"),
    ])
    .await;
    let app = running.app();
    let post = |body: String| {
        app.client
            .post(format!("{}/", app.address))
            .header("Content-Type", "application/json")
            .body(body)
    };
    let message = user_message("why is order 4711 blocked by credit");

    // A 1 MB id: refused as a bad id, in 0.3 and 1.0.
    let id = "i".repeat(1_000_000);
    for (method, version) in [("message/send", "0.3"), ("SendMessage", "1.0")] {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method,
                             "params": {"message": message}});
        let answer: Value = post(request.to_string())
            .header("A2A-Version", version)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["error"]["code"], -32600, "{method}: {answer}");
        assert_eq!(answer["id"], Value::Null);
    }
    // A 1 MB method: not found, and echoed cut.
    for version in ["0.3", "1.0"] {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "m".repeat(1_000_000),
                             "params": {}});
        let response = post(request.to_string())
            .header("A2A-Version", version)
            .send()
            .await
            .unwrap();
        let bytes = response.bytes().await.unwrap();
        assert!(bytes.len() < 2048, "{version}: {} bytes", bytes.len());
        let answer: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(answer["error"]["code"], -32601, "{version}: {answer}");
    }
    // Headers as long as the server reads, on a call that is answered.
    let long = |letter: char| letter.to_string().repeat(20_000);
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "message/send",
                         "params": {"message": message}});
    let answer: Value = post(request.to_string())
        .header("x-correlationid", long('c'))
        .header("conversationid", long('v'))
        .header("x-forwarded-for", long('f'))
        .header("x-vcap-request-id", long('r'))
        .header("user-agent", long('u'))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(state(&answer["result"]), "completed", "{answer}");

    let log = running.terminate().await;
    for letter in ['i', 'm', 'c', 'v', 'f', 'r', 'u'] {
        let run = run_of(letter);
        let long_lines: Vec<&String> = log.iter().filter(|line| line.contains(&run)).collect();
        assert!(
            long_lines.is_empty(),
            "a run of {RUN} `{letter}` is logged: {} lines, the first {} bytes",
            long_lines.len(),
            long_lines[0].len()
        );
    }
    let longest = log.iter().map(String::len).max().unwrap_or(0);
    assert!(longest < 8 * 1024, "a log line of {longest} bytes");
    let requests: Vec<Value> = log
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["type"] == "request")
        .collect();
    assert_eq!(requests.len(), 5, "{requests:?}");
    // The long correlation id was no short token: a minted one stands in.
    let answered = &requests[4];
    let minted = answered["correlation_id"].as_str().unwrap_or("");
    assert!(uuid::Uuid::parse_str(minted).is_ok(), "{answered}");
}

/// The correlation id the ledger keeps with an approval (for good) is the
/// caller's when it is a short token, else the one minted for the call.
#[tokio::test]
async fn the_ledger_keeps_a_short_correlation_id_only() {
    for (correlation, kept_as_sent) in [
        ("0f8fad5b-d9cb-469f-a165-70867728950e".to_string(), true),
        ("c".repeat(20_000), false),
    ] {
        let app = crate::helpers::TestApp::spawn().await;
        let clerk = app.with_headers(&[
            ("x-agent-role", "ar_clerk"),
            ("x-correlationid", &correlation),
        ]);
        let asked = clerk
            .send_text("Order 4725: Pricing: customer disputes the price.")
            .await;
        assert_eq!(state(&asked), "input-required", "{asked}");
        let filed = clerk.reply(&asked, "approve").await;
        assert_eq!(state(&filed), "completed", "{filed}");
        let actions = app.actions().await;
        assert_eq!(actions.len(), 1, "{actions:?}");
        let row = &actions[0];
        let kept = row["correlationId"].as_str().unwrap_or("");
        if kept_as_sent {
            assert_eq!(kept, correlation);
        } else {
            assert!(uuid::Uuid::parse_str(kept).is_ok(), "{row}");
        }
    }
}
