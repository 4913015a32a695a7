use super::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

/// The card, with `ETag` and `Cache-Control`; `If-None-Match` gives 304.
pub async fn agent_card(request: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let protected = state
        .auth
        .as_ref()
        .is_some_and(|auth| auth.config().protect_card);
    if protected && let Err(answer) = super::auth::authenticate(&request, &state).await {
        return answer;
    }
    let card = &state.card;
    let cache_control = format!("public, max-age={}", card.max_age_secs);
    let not_modified = super::headers::header_text(request.headers(), header::IF_NONE_MATCH)
        .is_some_and(|value| card.matches(value));
    if not_modified {
        return HttpResponse::NotModified()
            .insert_header((header::ETAG, card.etag.clone()))
            .insert_header((header::CACHE_CONTROL, cache_control))
            .finish();
    }
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header((header::ETAG, card.etag.clone()))
        .insert_header((header::CACHE_CONTROL, cache_control))
        .body(card.json.clone())
}
