//! `GET /` (and `HEAD /`): the JSON-RPC root read the way a browser or the
//! BTP cockpit's *Check Connection* reads it, without a token. It answers
//! 200 with where the endpoints are, so a reachable route does not look
//! like a broken one (a 405 did); it reads no state and needs no token.

use actix_web::HttpResponse;
use actix_web::http::header;
use serde_json::json;

pub async fn root() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({
            "message": "the A2A JSON-RPC endpoint: send requests with POST / (with a bearer token when authentication is on)",
            "jsonrpc": "POST /",
            "agentCard": "/.well-known/agent-card.json",
            "health": "/health",
        }))
}
