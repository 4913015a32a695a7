//! GET /actions — the action ledger, read-only, newest approval first, a
//! page at a time (`limit`, default 50, at most 200; `after`, the `next`
//! token of the page before). With authentication on, a person with at
//! least one role may read it (who approved what is not for anonymous or
//! technical callers), and reads the rows they approved, found by their
//! key (issuer, tenant and user id, as their tasks are owned): a row
//! carries what S/4HANA showed its approver under their authorizations. A
//! role the rule book names in `rules.ledger_readers` (seed: `auditor`)
//! reads every row, as the CLI `actions` does on the instance. The store
//! does the choosing and the bounding (an index per approver), so a call
//! reads one page however long the ledger is.

use super::AppState;
use super::error_response::error_response;
use crate::agent::ledger::{DEFAULT_PAGE_ROWS, LedgerCursor, LedgerQuery, MAX_PAGE_ROWS};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

/// The longest `after` token read (ours are well under 1 KiB).
const MAX_TOKEN_BYTES: usize = 1024;

/// Why the query string is refused (400).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum PageParameterError {
    #[error("limit must be a whole number from 1 to {MAX_PAGE_ROWS}, got `{0}`")]
    Limit(String),
    #[error("after must be the `next` token of an earlier page of GET /actions")]
    After,
    #[error("`{0}` is given more than once")]
    Repeated(String),
    #[error("unknown query parameter `{0}`: GET /actions takes limit and after")]
    Unknown(String),
}

/// The page the query string asks for (`limit`, `after`), without the
/// approver.
fn page_parameters(query: &str) -> Result<(usize, Option<LedgerCursor>), PageParameterError> {
    let (mut limit, mut after) = (None, None);
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        let slot = match name.as_ref() {
            "limit" => &mut limit,
            "after" => &mut after,
            _ => {
                let shown = crate::a2a::clip::clip(&name);
                return Err(PageParameterError::Unknown(shown));
            }
        };
        if slot.replace(value.into_owned()).is_some() {
            return Err(PageParameterError::Repeated(crate::a2a::clip::clip(&name)));
        }
    }
    let limit = match limit {
        None => DEFAULT_PAGE_ROWS,
        Some(text) => match text.parse::<usize>() {
            Ok(rows) if (1..=MAX_PAGE_ROWS).contains(&rows) => rows,
            _ => return Err(PageParameterError::Limit(crate::a2a::clip::clip(&text))),
        },
    };
    let after = match after {
        None => None,
        Some(token) if token.len() > MAX_TOKEN_BYTES => return Err(PageParameterError::After),
        Some(token) => Some(LedgerCursor::from_token(&token).ok_or(PageParameterError::After)?),
    };
    Ok((limit, after))
}

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
            "the action ledger is for people with a role (ar_clerk, credit_manager, master_data_specialist, viewer, auditor or data_protection_officer)",
        );
    }
    let (limit, after) = match page_parameters(request.query_string()) {
        Ok(page) => page,
        Err(error) => return error_response(StatusCode::BAD_REQUEST, error.to_string()),
    };
    // `None`: every row (authentication off, or a ledger reader).
    let approver_key = super::owner::person_key(
        principal
            .as_deref()
            .filter(|principal| principal.roles.is_disjoint(&state.ledger_readers)),
    );
    let query = LedgerQuery {
        approver_key,
        limit,
        after,
    };
    match state.ledger.page(&query).await {
        Ok(page) => HttpResponse::Ok().json(json!({
            "actions": page.entries,
            "next": page.next.map(|cursor| cursor.to_token()),
        })),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_parameters_are_read_or_refused_precisely() {
        assert_eq!(page_parameters(""), Ok((DEFAULT_PAGE_ROWS, None)));
        assert_eq!(page_parameters("limit=200"), Ok((200, None)));
        for bad in ["limit=0", "limit=201", "limit=-1", "limit=ten", "limit="] {
            assert!(
                matches!(page_parameters(bad), Err(PageParameterError::Limit(_))),
                "{bad}"
            );
        }
        assert_eq!(page_parameters("after=x"), Err(PageParameterError::After));
        assert_eq!(
            page_parameters("limit=1&limit=2"),
            Err(PageParameterError::Repeated("limit".into()))
        );
        assert_eq!(
            page_parameters("page=2"),
            Err(PageParameterError::Unknown("page".into()))
        );
    }
}
