//! GET /actions — the action ledger, read-only. With authentication on, a
//! person with at least one role may read it (who approved what is not for
//! anonymous or technical callers), and reads the rows they approved: a row
//! carries what S/4HANA showed its approver under their authorizations. A
//! role the rule book names in `rules.ledger_readers` (seed: `auditor`)
//! reads every row, as the CLI `actions` does on the instance.

use super::AppState;
use super::error_response::error_response;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

pub async fn list(request: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let principal = match super::auth::authenticate(&request, &state).await {
        Ok(credentials) => credentials.principal,
        Err(answer) => return answer,
    };
    if let Some(principal) = &principal
        && !principal.may_approve()
    {
        return error_response(
            StatusCode::FORBIDDEN,
            "the action ledger is for people with a role (ar_clerk, credit_manager, master_data_specialist, viewer or auditor)",
        );
    }
    // `None`: every row (authentication off, or a ledger reader).
    let approver = principal
        .as_ref()
        .filter(|principal| principal.roles.is_disjoint(&state.ledger_readers))
        .map(|principal| principal.user_id.as_str());
    match state.ledger.list().await {
        Ok(mut entries) => {
            if let Some(approver) = approver {
                entries.retain(|entry| entry.approved_by == approver);
            }
            HttpResponse::Ok().json(json!({ "actions": entries }))
        }
        Err(error) => {
            // The database's words stay in the log; the caller learns only
            // that the ledger cannot be read now.
            tracing::error!(%error, "listing the action ledger failed");
            error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "the action ledger is unavailable; try again later",
            )
        }
    }
}
