//! The one log line per JSON-RPC call. With JSON logs it is a `type:
//! request` record with the field names of SAP's request logs (`request`,
//! `method`, `response_status`, `response_time_ms`, `remote_ip`, …) plus
//! what the call was (`rpc.method`, `a2a.task.id`, `a2a.context.id`,
//! `a2a.task.state`, `user.id`, `tenant_id`, …: the task's ids under the names its
//! spans carry, so Cloud Logging finds a task without a sampled trace); the
//! SAP JSON layer turns `log.type = "request"` into `"type": "request"`.
//! With text logs it is a short line with the call's facts.

use super::headers::{header_text, logged};
use actix_web::body::{BodySize, MessageBody};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use std::time::Instant;

/// What the JSON-RPC layer learned about a call; unset parts are logged
/// as `-` (a request refused before its body was read has none).
#[derive(Debug, Default)]
pub struct CallFacts {
    pub rpc_method: Option<String>,
    pub rpc_id: Option<String>,
    /// The task and context the call named or answered with.
    pub task: crate::rpc::TaskIds,
    pub task_state: Option<&'static str>,
    pub error_code: Option<i64>,
    /// The JSON-RPC error's message (for the span's status, not the line).
    pub error_message: Option<String>,
    pub user_id: Option<String>,
    pub client_id: Option<String>,
    /// Which branch of the tenant rule accepted the caller's IAS token.
    pub tenant_rule: Option<&'static str>,
    /// The tenant and user on the call's spans (the tenant also labels
    /// its metrics).
    pub tags: crate::telemetry::CallerTags,
    pub request_bytes: Option<usize>,
}

/// Write the line for `request`, answered with `response` after `started`:
/// SAP's request record with JSON logs, a short line with text logs.
pub fn log(request: &HttpRequest, response: &HttpResponse, facts: &CallFacts, started: Instant) {
    if !crate::telemetry::json_logs() {
        tracing::info!(
            rpc.method = facts.rpc_method.as_deref().unwrap_or("-"),
            rpc.id = facts.rpc_id.as_deref().unwrap_or("-"),
            a2a.task.id = facts.task.task_id.as_deref().unwrap_or("-"),
            a2a.context.id = facts.task.context_id.as_deref().unwrap_or("-"),
            a2a.task.state = facts.task_state.unwrap_or("-"),
            rpc.error_code = facts.error_code,
            http.status = i64::from(response.status().as_u16()),
            latency_ms = started.elapsed().as_secs_f64() * 1000.0,
            user.id = facts.user_id.as_deref().unwrap_or("-"),
            client.id = facts.client_id.as_deref().unwrap_or("-"),
            auth.tenant_rule = facts.tenant_rule,
            "jsonrpc request"
        );
        return;
    }
    let size = |size: Option<usize>| size.map_or(-1, |bytes| bytes as i64);
    let response_bytes = match response.body().size() {
        BodySize::Sized(bytes) => Some(bytes as usize),
        BodySize::None => Some(0),
        BodySize::Stream => None,
    };
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        log.type = "request",
        direction = "IN",
        request = request.path(),
        method = request.method().as_str(),
        protocol = ?request.version(),
        response_status = i64::from(response.status().as_u16()),
        response_time_ms = latency_ms,
        request_size_b = size(facts.request_bytes),
        response_size_b = size(response_bytes),
        response_content_type =
            header_text(response.headers(), header::CONTENT_TYPE).unwrap_or("-"),
        remote_ip = request
            .peer_addr()
            .map_or_else(|| "-".to_string(), |peer| peer.ip().to_string()),
        x_forwarded_for = &*logged(header_text(request.headers(), "x-forwarded-for").unwrap_or("-")),
        request_id = &*logged(header_text(request.headers(), "x-vcap-request-id").unwrap_or("-")),
        rpc.method = facts.rpc_method.as_deref().unwrap_or("-"),
        rpc.id = facts.rpc_id.as_deref().unwrap_or("-"),
        a2a.task.id = facts.task.task_id.as_deref().unwrap_or("-"),
        a2a.context.id = facts.task.context_id.as_deref().unwrap_or("-"),
        a2a.task.state = facts.task_state.unwrap_or("-"),
        rpc.error_code = facts.error_code,
        user.id = facts.user_id.as_deref().unwrap_or("-"),
        client.id = facts.client_id.as_deref().unwrap_or("-"),
        tenant_id = facts.tags.tenant_id.as_deref().unwrap_or("-"),
        auth.tenant_rule = facts.tenant_rule,
        "jsonrpc request"
    );
}
