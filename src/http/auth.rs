//! Bearer tokens at the HTTP edge: RFC 6750 answers for every failure.
//! Bodies and headers say why in one sentence; the token is never echoed or
//! logged.

use crate::auth::{AuthError, Principal};
use crate::startup::AppState;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;

/// `Ok(None)` when authentication is off; `Err` is the answer to send.
pub async fn authenticate(
    request: &HttpRequest,
    state: &AppState,
) -> Result<Option<Principal>, HttpResponse> {
    let Some(validator) = &state.auth else {
        return Ok(None);
    };
    use tracing::Instrument;
    let span = tracing::info_span!(
        "authenticate",
        otel.name = "authenticate",
        auth.outcome = tracing::field::Empty,
        auth.client_id = tracing::field::Empty,
        auth.issuer_host = tracing::field::Empty,
        auth.token_kind = tracing::field::Empty,
    );
    let outcome = check(request, validator).instrument(span.clone()).await;
    let label = match &outcome {
        Ok(principal) => {
            if let Some(client_id) = &principal.client_id {
                span.record("auth.client_id", client_id.as_str());
            }
            span.record("auth.token_kind", tracing::field::debug(&principal.kind));
            span.record("auth.issuer_host", principal.issuer_host.as_str());
            "ok"
        }
        Err(AuthError::Missing) => "missing",
        Err(AuthError::Invalid(_)) => "invalid",
        Err(AuthError::Forbidden(_)) => "forbidden",
        Err(AuthError::Unavailable(_)) => "unavailable",
    };
    span.record("auth.outcome", label);
    match outcome {
        Ok(principal) => Ok(Some(principal)),
        Err(error) => {
            crate::telemetry::metrics::token_rejected(label);
            tracing::warn!(reason = %error, path = request.path(), "request rejected by authentication");
            Err(answer(&error))
        }
    }
}

/// The validator's verdict on the request's `Authorization` header.
async fn check(
    request: &HttpRequest,
    validator: &crate::auth::TokenValidator,
) -> Result<Principal, AuthError> {
    let mut values = request.headers().get_all(header::AUTHORIZATION);
    let first = values.next();
    if values.next().is_some() {
        Err(AuthError::Invalid(
            "more than one Authorization header".into(),
        ))
    } else {
        match first.map(|value| value.to_str()) {
            Some(Err(_)) => Err(AuthError::Invalid("malformed Authorization header".into())),
            Some(Ok(value)) => validator.authenticate(Some(value)).await,
            None => validator.authenticate(None).await,
        }
    }
}

/// Quotes and backslashes cannot appear inside a quoted header parameter.
fn quoted(text: &str) -> String {
    text.replace(['"', '\\'], "'")
}

fn answer(error: &AuthError) -> HttpResponse {
    let (status, challenge, code) = match error {
        AuthError::Missing => (
            StatusCode::UNAUTHORIZED,
            Some("Bearer".to_string()),
            "unauthorized",
        ),
        AuthError::Invalid(reason) => (
            StatusCode::UNAUTHORIZED,
            Some(format!(
                "Bearer error=\"invalid_token\", error_description=\"{}\"",
                quoted(reason)
            )),
            "invalid_token",
        ),
        AuthError::Forbidden(reason) => (
            StatusCode::FORBIDDEN,
            Some(format!(
                "Bearer error=\"insufficient_scope\", error_description=\"{}\"",
                quoted(reason)
            )),
            "insufficient_scope",
        ),
        AuthError::Unavailable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            "temporarily_unavailable",
        ),
    };
    // For 503 the details (URLs, transport errors) stay in the log.
    let description = match error {
        AuthError::Unavailable(_) => {
            "The token's signing keys could not be fetched from the identity service; try again shortly.".to_string()
        }
        other => format!("{}.", capitalized(&other.to_string())),
    };
    let mut response = HttpResponse::build(status);
    if let Some(challenge) = challenge {
        response.insert_header((header::WWW_AUTHENTICATE, challenge));
    }
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.insert_header((header::RETRY_AFTER, "5"));
    }
    response.json(json!({ "error": code, "error_description": description }))
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
