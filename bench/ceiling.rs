//! The lighter ceiling of `bench/perf.sh`: a bare actix-web handler
//! that parses the JSON-RPC body and writes a fixed, task-sized answer built
//! once at start (only the request's `id` is put in per request). It is the
//! least any JSON-RPC server must do per request; `bench/baseline.rs` also
//! builds the answer as a `serde_json::Value` per request and stays for
//! `bench/run.sh`.
//!
//! Run: cargo run --release --example bench_ceiling -- 18081

use actix_web::{App, HttpResponse, HttpServer, http::header::ContentType, web};
use serde_json::{Value, json};

/// The answer around the request id: `{"jsonrpc":"2.0","id":` + id + the rest.
struct Answer {
    head: &'static str,
    tail: String,
}

fn answer_tail() -> String {
    let answer = format!(
        "why is order 4711 blocked by credit: {}",
        "lorem ipsum dolor sit amet ".repeat(80)
    );
    let agent_message = json!({
        "kind": "message", "role": "agent", "messageId": uuid::Uuid::new_v4().to_string(),
        "taskId": "0b7c6a4e-1a5e-4f55-9d43-2d1c1f0f9a11", "contextId": "5e0e4a53-77d5-4c6f-8f0e-6b1c1e1f2a3b",
        "parts": [{ "kind": "text", "text": answer }],
        "metadata": { "routing": { "specialist": "credit", "basis": "text",
            "scores": { "credit": 9.7, "pricing": 0.0, "masterdata": 0.0, "delivery": 0.0 } } }
    });
    let result = json!({
        "kind": "task", "id": "0b7c6a4e-1a5e-4f55-9d43-2d1c1f0f9a11",
        "contextId": "5e0e4a53-77d5-4c6f-8f0e-6b1c1e1f2a3b",
        "status": { "state": "completed", "timestamp": "2026-11-30T12:00:00Z", "message": agent_message },
        "artifacts": [
            { "artifactId": uuid::Uuid::new_v4().to_string(), "name": "answer",
              "parts": [{ "kind": "text", "text": answer }] },
            { "artifactId": uuid::Uuid::new_v4().to_string(), "name": "proposal",
              "parts": [{ "kind": "data", "data": { "action": "request_credit_review", "salesOrder": "4711" } }] }
        ]
    });
    format!(",\"result\":{result}}}")
}

async fn handle(answer: web::Data<Answer>, body: web::Bytes) -> HttpResponse {
    let id = match serde_json::from_slice::<Value>(&body) {
        Ok(request) => request.get("id").cloned().unwrap_or(Value::Null),
        Err(_) => Value::Null,
    };
    let mut out = String::with_capacity(answer.head.len() + answer.tail.len() + 24);
    out.push_str(answer.head);
    out.push_str(&id.to_string());
    out.push_str(&answer.tail);
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(out)
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|port| port.parse().ok())
        .unwrap_or(18081);
    let answer = web::Data::new(Answer {
        head: "{\"jsonrpc\":\"2.0\",\"id\":",
        tail: answer_tail(),
    });
    HttpServer::new(move || {
        App::new()
            .app_data(answer.clone())
            .route("/", web::post().to(handle))
    })
    .bind(("127.0.0.1", port))?
    .run()
    .await
}
