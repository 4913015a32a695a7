//! HTTP-level errors (wrong path, method, content type, size) as JSON bodies
//! in the JSON-RPC error shape, so every client gets something it can read.

use crate::a2a::jsonrpc::{INVALID_REQUEST, RpcError, error_body};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::Value;

pub fn problem(status: StatusCode, message: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("application/json")
        .json(error_body(
            &Value::Null,
            &RpcError::new(INVALID_REQUEST, message),
        ))
}

pub async fn not_found(request: HttpRequest) -> HttpResponse {
    problem(
        StatusCode::NOT_FOUND,
        format!(
            "no resource at {}: the JSON-RPC endpoint is POST /, the agent card is at /.well-known/agent-card.json",
            request.path()
        ),
    )
}

pub async fn method_not_allowed(request: HttpRequest) -> HttpResponse {
    let mut response = problem(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} / is not allowed: send JSON-RPC requests with POST",
            request.method()
        ),
    );
    response.headers_mut().insert(
        actix_web::http::header::ALLOW,
        actix_web::http::header::HeaderValue::from_static("POST"),
    );
    response
}
