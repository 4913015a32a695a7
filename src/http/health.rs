use super::AppState;
use actix_web::{HttpResponse, web};
use serde_json::json;

/// Answers from memory only, so CF's 1 s health check never waits on a
/// backend; says whether authentication is on.
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let body = match &state.auth {
        Some(_) => json!({ "status": "UP", "authentication": "required" }),
        None => json!({
            "status": "UP",
            "authentication": "off",
            "warning": "authentication is off: every caller is anonymous"
        }),
    };
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(body)
}
