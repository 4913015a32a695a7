//! HTTP-level errors (wrong path, method, content type, size) as JSON bodies
//! in the JSON-RPC error shape, so every client gets something it can read.

use crate::a2a::jsonrpc::{INVALID_REQUEST, RpcError, error_body};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::Value;

pub fn error_response(status: StatusCode, message: impl Into<String>) -> HttpResponse {
    HttpResponse::build(status).json(error_body(
        &Value::Null,
        &RpcError::new(INVALID_REQUEST, message),
    ))
}

/// 503 with `Retry-After: seconds`: the instance is full for now (bodies
/// or calls in flight), the caller may send the same again after the wait.
pub fn unavailable_for(seconds: u32, message: impl Into<String>) -> HttpResponse {
    let mut response = error_response(StatusCode::SERVICE_UNAVAILABLE, message);
    response.headers_mut().insert(
        actix_web::http::header::RETRY_AFTER,
        actix_web::http::header::HeaderValue::from(seconds),
    );
    response
}

pub async fn not_found(request: HttpRequest) -> HttpResponse {
    error_response(
        StatusCode::NOT_FOUND,
        format!(
            "no resource at {}: the JSON-RPC endpoint is POST /, the agent card is at /.well-known/agent-card.json",
            request.path()
        ),
    )
}

fn method_not_allowed(request: &HttpRequest, allowed: &'static str, hint: &str) -> HttpResponse {
    let mut response = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} {} is not allowed: {hint}",
            request.method(),
            request.path()
        ),
    );
    response.headers_mut().insert(
        actix_web::http::header::ALLOW,
        actix_web::http::header::HeaderValue::from_static(allowed),
    );
    response
}

pub async fn only_post(request: HttpRequest) -> HttpResponse {
    method_not_allowed(&request, "POST", "send JSON-RPC requests with POST")
}

/// Another method on a resource answered with POST alone (not JSON-RPC).
pub async fn only_post_here(request: HttpRequest) -> HttpResponse {
    method_not_allowed(&request, "POST", "this resource takes POST")
}

pub async fn only_get(request: HttpRequest) -> HttpResponse {
    method_not_allowed(&request, "GET", "this resource is read with GET")
}
