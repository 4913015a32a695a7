//! Bearer tokens at the HTTP edge: the `Authorization` header is read here,
//! once, into a [`BearerToken`] that the validator checks and the call
//! carries on (the Joule callback's token exchange); RFC 6750 answers for
//! every failure. Bodies and headers say why in one sentence; the token is
//! never echoed or logged.

use super::AppState;
use crate::auth::{AuthError, BearerToken, Principal};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse};
use serde_json::json;
use std::sync::Arc;

/// How often a refusal of one reason is logged; the count of those not
/// logged is in the next line, and every refusal is in
/// `a2a.token.rejections{reason}`.
pub const REJECTION_LOG_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

static REJECTION_LINES: crate::telemetry::throttle::Throttle =
    crate::telemetry::throttle::Throttle::new(REJECTION_LOG_INTERVAL);

/// Who calls, and the token they called with.
#[derive(Debug, Default)]
pub struct Credentials {
    /// The validated caller; `None` when authentication is off. Shared
    /// with the validator's cache of verified tokens.
    pub principal: Option<Arc<Principal>>,
    /// The request's bearer token: the one validated when authentication
    /// is on, the one sent (if well-formed) when it is off.
    pub token: Option<BearerToken>,
}

/// The caller's credentials; `Err` is the answer to send. With
/// authentication off nothing is refused and there is no principal.
pub async fn authenticate(
    request: &HttpRequest,
    state: &AppState,
) -> Result<Credentials, HttpResponse> {
    let parsed = bearer_token(request);
    let Some(validator) = &state.auth else {
        return Ok(Credentials {
            principal: None,
            token: parsed.ok().flatten(),
        });
    };
    use tracing::Instrument;
    let span = tracing::info_span!(
        "authenticate",
        otel.name = "authenticate",
        auth.outcome = tracing::field::Empty,
        auth.client_id = tracing::field::Empty,
        auth.issuer_host = tracing::field::Empty,
        auth.token_kind = tracing::field::Empty,
        auth.tenant_rule = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_description = tracing::field::Empty,
    );
    let outcome = match &parsed {
        Ok(token) => {
            validator
                .authenticate(token.as_ref())
                .instrument(span.clone())
                .await
        }
        Err(error) => Err(error.clone()),
    };
    let label = match &outcome {
        Ok(principal) => {
            if let Some(client_id) = &principal.client_id {
                span.record("auth.client_id", client_id.as_str());
            }
            span.record("auth.token_kind", tracing::field::debug(&principal.kind));
            span.record("auth.issuer_host", principal.issuer_host.as_str());
            if let Some(rule) = principal.tenant_rule {
                span.record("auth.tenant_rule", rule.as_str());
            }
            "ok"
        }
        Err(AuthError::Missing) => "missing",
        Err(AuthError::Invalid(_)) => "invalid",
        Err(AuthError::Forbidden(_)) => "forbidden",
        Err(AuthError::Unavailable(_)) => "unavailable",
    };
    span.record("auth.outcome", label);
    match outcome {
        Ok(principal) => Ok(Credentials {
            principal: Some(principal),
            token: parsed.ok().flatten(),
        }),
        Err(error) => {
            let reason = error.reason();
            crate::telemetry::metrics::token_rejected(reason);
            // A security event (one per reason and address a minute); a
            // failure to reach the key server is no refusal of the caller.
            if !matches!(error, AuthError::Unavailable(_)) {
                state
                    .audit
                    .refused(reason, client_address(request).as_deref(), None);
            }
            crate::telemetry::status::failed(&span, reason, &error.to_string());
            // One line per reason per interval: a client with a bad token
            // at 10 requests a second writes one line, not 20 a second.
            if let Some(held_back) = REJECTION_LINES.admit(reason, std::time::Instant::now()) {
                tracing::warn!(
                    auth.reason = reason,
                    rejections_not_logged = held_back,
                    detail = %error,
                    path = request.path(),
                    "request rejected by authentication"
                );
            }
            Err(answer(&error))
        }
    }
}

/// Who sent the request, for a security event and the server span's
/// `client.address` (one reading of the header for both): the first address of
/// `X-Forwarded-For` (Cloud Foundry's router sets it) when it is an IP
/// address, else the peer's IP. What a caller writes there only changes
/// which event its refusals are counted in (the audit room bounds those),
/// and never puts anything but an address into a message.
pub fn client_address(request: &HttpRequest) -> Option<String> {
    crate::audit::client_address(forwarded_for(request), request.peer_addr().map(|p| p.ip()))
}

/// The request's `X-Forwarded-For`, as sent (read, not parsed: only a
/// refusal needs the address).
pub fn forwarded_for(request: &HttpRequest) -> Option<&str> {
    request
        .headers()
        .get("x-forwarded-for")
        .and_then(|value| value.to_str().ok())
}

/// The one reading of the request's `Authorization` header: `None` without
/// one, the token of a `Bearer` (any case) header, else why not (another
/// scheme counts as no bearer token).
fn bearer_token(request: &HttpRequest) -> Result<Option<BearerToken>, AuthError> {
    let mut values = request.headers().get_all(header::AUTHORIZATION);
    let first = values.next();
    if values.next().is_some() {
        return Err(AuthError::malformed("more than one Authorization header"));
    }
    match first.map(|value| value.to_str()) {
        None => Ok(None),
        Some(Err(_)) => Err(AuthError::malformed("malformed Authorization header")),
        Some(Ok(value)) => BearerToken::from_authorization(value).map(Some),
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
                quoted(&reason.detail)
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
