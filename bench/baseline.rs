//! The benchmark's baseline: a bare actix-web handler that parses the JSON-RPC
//! body and writes a task-sized answer, nothing else. `bench/run.sh` loads it
//! and the real service with the same script in the same run.
//!
//! Run: cargo run --release --example bench_baseline -- 18081

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::{Value, json};

async fn handle(body: web::Bytes) -> HttpResponse {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(_) => {
            return HttpResponse::Ok().json(json!({
                "jsonrpc": "2.0", "id": null,
                "error": { "code": -32700, "message": "Invalid JSON payload" }
            }));
        }
    };
    let text = request
        .pointer("/params/message/parts/0/text")
        .and_then(Value::as_str)
        .unwrap_or("");
    let task_id = uuid::Uuid::new_v4().to_string();
    let context_id = uuid::Uuid::new_v4().to_string();
    // About the size of the service's answer to one walkthrough request.
    let answer = format!("{text}: {}", "lorem ipsum dolor sit amet ".repeat(14));
    let agent_message = json!({
        "kind": "message", "role": "agent", "messageId": uuid::Uuid::new_v4().to_string(),
        "taskId": task_id, "contextId": context_id,
        "parts": [{ "kind": "text", "text": answer }],
        "metadata": { "routing": { "specialist": "credit", "basis": "text",
            "scores": { "credit": 9.7, "pricing": 0.0, "masterdata": 0.0, "delivery": 0.0 } } }
    });
    HttpResponse::Ok().json(json!({
        "jsonrpc": "2.0",
        "id": request.get("id").cloned().unwrap_or(Value::Null),
        "result": {
            "kind": "task", "id": task_id, "contextId": context_id,
            "status": { "state": "completed", "timestamp": "2026-11-30T12:00:00Z", "message": agent_message },
            "artifacts": [
                { "artifactId": uuid::Uuid::new_v4().to_string(), "name": "answer",
                  "parts": [{ "kind": "text", "text": answer }] },
                { "artifactId": uuid::Uuid::new_v4().to_string(), "name": "proposal",
                  "parts": [{ "kind": "data", "data": { "action": "request_credit_review", "salesOrder": "4711" } }] }
            ],
            "history": [request.pointer("/params/message").cloned().unwrap_or(Value::Null), agent_message]
        }
    }))
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|port| port.parse().ok())
        .unwrap_or(18081);
    HttpServer::new(|| App::new().route("/", web::post().to(handle)))
        .bind(("127.0.0.1", port))?
        .run()
        .await
}
