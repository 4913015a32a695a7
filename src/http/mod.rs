//! HTTP with actix-web: the well-known card, the JSON-RPC endpoint (and what
//! `GET /` says of it), health, the action ledger, `/metrics`; the shared
//! `AppState`, the server's settings, binding and serving. The only module
//! that knows actix.

mod actions;
mod auth;
mod body;
mod card_document;
mod card_endpoint;
mod error_response;
mod health;
mod index;
mod metrics_endpoint;
mod request_log;
mod rpc;
mod server;
mod settings;
mod state;

use actix_web::http::header::{AsHeaderName, HeaderMap};
use actix_web::web;

pub use body::BodyLimits;
pub use card_document::{CardDocument, CardSettings, extended_card};
pub use server::{BindError, Serving, bind, serve};
pub use settings::ServerSettings;
pub use state::AppState;

/// A header's value as text; `None` when it is absent or not visible ASCII.
fn header_text(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// actix's headers as trace propagation reads them.
struct TraceHeaders<'a>(&'a HeaderMap);

impl crate::telemetry::propagation::RequestHeaders for TraceHeaders<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        header_text(self.0, name)
    }

    fn names(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}

pub fn routes(config: &mut web::ServiceConfig) {
    for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
        config.service(
            web::resource(path)
                .route(web::get().to(card_endpoint::agent_card))
                .default_service(web::to(error_response::only_get)),
        );
    }
    config
        .service(
            web::resource("/health")
                .route(web::get().to(health::health))
                .default_service(web::to(error_response::only_get)),
        )
        .service(
            web::resource("/metrics")
                .route(web::get().to(metrics_endpoint::metrics))
                .default_service(web::to(error_response::only_get)),
        )
        .service(
            web::resource("/actions")
                .route(web::get().to(actions::list))
                .default_service(web::to(error_response::only_get)),
        )
        .service(
            web::resource("/")
                .route(web::post().to(rpc::json_rpc))
                .route(web::get().to(index::root))
                .route(web::head().to(index::root))
                .default_service(web::to(error_response::only_post)),
        )
        .default_service(web::to(error_response::not_found));
}
