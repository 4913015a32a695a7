//! POST /users/erase — erase one user's data in this service (GDPR's right
//! to erasure; docs/personal-data.md): their tasks with the contexts and
//! push configs in them are deleted, and the action ledger rows they
//! approved stay (an approval happened, and S/4HANA may have been changed
//! by it) with their identity replaced by `erased`. Only a person holding
//! the `data_protection_officer` role may, and only for users of their own
//! identity service and tenant: the body names a user id, the officer's
//! token supplies the issuer and tenant, so an officer of tenant T cannot
//! reach anyone of another tenant. The user is named in a JSON body, not in
//! the path: user ids can be e-mail addresses or hold `/`, and a path is
//! written into the access logs of the router and of this service. Every
//! erasure, also one a store failed part-way, is a data-modification
//! audit message written before the answer.

use super::AppState;
use super::body::{close_if_unread, read};
use super::error_response::error_response;
use crate::agent::ledger::{ActionLedger, LedgerError};
use crate::audit::{ErasedCounts, ErasedUser, user_data_erased};
use crate::auth::{Principal, TokenKind};
use crate::tasks::{StoreError, TaskStore};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

/// The longest user id read (IAS user UUIDs are 36 bytes; e-mail-like ids
/// stay well below).
const MAX_USER_ID_BYTES: usize = 256;

/// The body: whom to erase.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EraseRequest {
    /// The user id as it appears in the user's tokens (`user_uuid`, else
    /// `scim_id`, else `sub`; XSUAA `user_id`).
    user_id: String,
}

/// Why the body is refused (400).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum BodyError {
    #[error(
        "the body must be a JSON object {{\"userId\": \"<user id as in the user's tokens>\"}}: {0}"
    )]
    Shape(String),
    #[error("userId must not be empty")]
    Empty,
    #[error("userId must be at most {MAX_USER_ID_BYTES} bytes")]
    TooLong,
    #[error("userId must not contain control characters")]
    ControlCharacters,
}

/// The user id the body names, or why not.
fn user_id(body: &[u8]) -> Result<String, BodyError> {
    let request: EraseRequest = serde_json::from_slice(body).map_err(|error| {
        // serde's words name the field or the position, never the value.
        BodyError::Shape(crate::a2a::clip::clip(&error.to_string()))
    })?;
    let id = request.user_id;
    if id.is_empty() {
        return Err(BodyError::Empty);
    }
    if id.len() > MAX_USER_ID_BYTES {
        return Err(BodyError::TooLong);
    }
    if id.chars().any(char::is_control) {
        return Err(BodyError::ControlCharacters);
    }
    Ok(id)
}

/// Whether `principal` may erase users: a person with the role.
fn may_erase(principal: &Principal) -> bool {
    principal.kind == TokenKind::User && principal.roles.iter().any(|role| role.erases_users())
}

pub async fn erase(
    request: HttpRequest,
    mut payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let principal = match super::auth::authenticate(&request, &state).await {
        Ok(credentials) => credentials.principal,
        Err(answer) => return close_if_unread(answer, payload, false),
    };
    let Some(principal) = principal else {
        return close_if_unread(
            error_response(
                StatusCode::CONFLICT,
                "authentication is off: tasks and ledger rows belong to no user, so there is no \
                 user to erase (docs/personal-data.md)",
            ),
            payload,
            false,
        );
    };
    if !may_erase(&principal) {
        let address = super::auth::client_address(&request);
        state.audit.refused(
            "erase_without_role",
            address.as_deref(),
            Some(&principal.user_id),
        );
        return close_if_unread(
            error_response(
                StatusCode::FORBIDDEN,
                "erasing a user's data is for a person with the data_protection_officer role",
            ),
            payload,
            false,
        );
    }
    if let Some(content_type) = request.headers().get(header::CONTENT_TYPE) {
        let content_type = content_type.to_str().unwrap_or("");
        if content_type.split(';').next().map(str::trim) != Some("application/json") {
            return close_if_unread(
                error_response(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    "send the body as application/json",
                ),
                payload,
                false,
            );
        }
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    let body = match read(&mut payload, declared, &state.body_limits).await {
        Ok(body) => body,
        Err(refused) => return close_if_unread(refused.answer(), payload, false),
    };
    let user_id = match user_id(&body) {
        Ok(user_id) => user_id,
        Err(error) => return error_response(StatusCode::BAD_REQUEST, error.to_string()),
    };
    let key = super::owner::colleague_key(&principal, &user_id);
    let mut counts = ErasedCounts::default();
    let outcome = erase_user_data(
        state.tasks.as_ref(),
        state.ledger.as_ref(),
        &key,
        &mut counts,
    )
    .await;
    let user = ErasedUser {
        issuer: super::owner::issuer_name(&principal),
        tenant: principal.tenant.as_deref().unwrap_or(""),
        user_id: &user_id,
    };
    state
        .audit
        .record_and_wait(user_data_erased(
            &principal.user_id,
            user,
            counts,
            outcome.is_ok(),
        ))
        .await;
    match outcome {
        Ok(()) => HttpResponse::Ok().json(json!({
            "userId": user_id,
            "issuer": user.issuer,
            "tenant": user.tenant,
            "erased": counts,
        })),
        Err(error) => {
            // The store's words stay in the log; erasing again is safe.
            tracing::error!(error = %error, "erasing a user's data failed part-way");
            error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "the store is unavailable; nothing more was erased. Send the same request again \
                 (what is erased stays erased)",
            )
        }
    }
}

/// Why an erasure stopped part-way.
#[derive(Debug, thiserror::Error)]
pub enum ErasureFailed {
    #[error("the action ledger: {0}")]
    Ledger(#[from] LedgerError),
    #[error("the task store: {0}")]
    Tasks(#[from] StoreError),
}

/// Erase the data of the user `key` (an owner key): the ledger's rows
/// first (they stay, renamed), then the tasks. `counts` holds what went,
/// also when the second store fails after the first. The one order of the
/// steps for this endpoint and the CLI `erase-user`; both are safe to
/// repeat.
pub async fn erase_user_data(
    tasks: &dyn TaskStore,
    ledger: &dyn ActionLedger,
    key: &str,
    counts: &mut ErasedCounts,
) -> Result<(), ErasureFailed> {
    counts.ledger_rows = ledger.erase_approver(key).await?;
    let erased = tasks.erase_owner(key).await?;
    counts.tasks = erased.tasks;
    counts.contexts = erased.contexts;
    counts.push_configs = erased.push_configs;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_names_one_user_or_is_refused_precisely() {
        assert_eq!(user_id(br#"{"userId":"P000123"}"#), Ok("P000123".into()));
        assert_eq!(user_id(br#"{"userId":""}"#), Err(BodyError::Empty));
        let long = format!(r#"{{"userId":"{}"}}"#, "x".repeat(MAX_USER_ID_BYTES + 1));
        assert_eq!(user_id(long.as_bytes()), Err(BodyError::TooLong));
        assert_eq!(
            user_id(b"{\"userId\":\"a\\nb\"}"),
            Err(BodyError::ControlCharacters)
        );
        for bad in [
            &b"{}"[..],
            br#"{"userId":7}"#,
            br#"{"userId":"a","tenant":"other"}"#,
            b"not json",
            b"",
        ] {
            assert!(
                matches!(user_id(bad), Err(BodyError::Shape(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
