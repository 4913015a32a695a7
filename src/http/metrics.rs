//! GET /metrics — Prometheus text, when `telemetry.metrics_endpoint` is on.

use super::AppState;
use super::problem::problem;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};

pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    if !state.metrics_endpoint {
        return problem(
            StatusCode::NOT_FOUND,
            "/metrics is off (telemetry.metrics_endpoint)",
        );
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(crate::telemetry::metrics::render())
}
