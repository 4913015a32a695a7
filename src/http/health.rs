use super::AppState;
use actix_web::{HttpResponse, web};
use serde_json::json;

/// Answers from memory only, so CF's 1 s health check never waits on a
/// backend; says whether authentication is on, and which order source
/// reads with whose identity (a technical user is said out loud).
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let mut body = match &state.auth {
        Some(_) => json!({ "status": "UP", "authentication": "required" }),
        None => json!({
            "status": "UP",
            "authentication": "off",
            "warning": "authentication is off: every caller is anonymous"
        }),
    };
    if let Some(orders) = &state.orders {
        let info = orders.describe();
        if info.identity == crate::backend::ReadIdentity::TechnicalUser {
            body["backendWarning"] = json!(
                "S/4HANA is read as one technical user for every caller: its per-user authorizations do not apply"
            );
        }
        body["backend"] = json!(info);
    }
    // Streams take at most half the connections: the rest answer this.
    let (open, most) = state.streams.open();
    body["streams"] = json!({ "open": open, "max": most });
    // Never counted itself: it answers when every call's place is taken.
    let (in_flight, most) = state.calls.in_flight();
    body["calls"] = json!({ "inFlight": in_flight, "max": most });
    // The audit outbox, shown and never failing the check.
    body["audit"] = match state.audit.outbox_counts() {
        Some(counts) => json!({ "destination": "auditlog", "outbox": counts }),
        None => json!({ "destination": "log" }),
    };
    // Shown, never failing the check: a restart would lose a SQLite file.
    body["store"] = json!(state.store);
    // Shown, never failing the check: a restart brings no database back,
    // and every instance would be restarted over and over.
    if state.engine.store_database_down() {
        body["store"]["state"] = json!(
            "database unreachable: calls that need the store are refused (-32603) at once \
             until it answers again (tried every second); nothing acknowledged is lost"
        );
    } else if state.engine.store_out_of_space() {
        body["store"]["state"] = json!(
            "no space left: new tasks and changes are refused (-32603) until space returns; \
             nothing acknowledged is lost"
        );
    }
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(body)
}
