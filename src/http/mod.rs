//! HTTP with actix-web: the well-known card, the JSON-RPC endpoint, health.
//! The only module that knows actix.

mod card;
mod health;
mod problem;
mod rpc;

use actix_web::web;

pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route(
            "/.well-known/agent-card.json",
            web::get().to(card::agent_card),
        )
        .route("/.well-known/agent.json", web::get().to(card::agent_card))
        .route("/health", web::get().to(health::health))
        .service(
            web::resource("/")
                .route(web::post().to(rpc::json_rpc))
                .default_service(web::to(problem::method_not_allowed)),
        )
        .default_service(web::to(problem::not_found));
}
