//! GET /metrics — Prometheus text, when `telemetry.metrics_endpoint` is on.

use super::AppState;
use super::error_response::error_response;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    if !state.metrics_endpoint {
        return error_response(
            StatusCode::NOT_FOUND,
            "/metrics is off (telemetry.metrics_endpoint)",
        );
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(crate::telemetry::metrics::render())
}
