//! The routes: which handler answers which path and method, and the
//! answer to every other method and path. A file of its own because the
//! server (`server.rs`) configures its app with it, and `mod.rs`
//! re-exports the server.

use super::{
    actions, card_endpoint, erase_user, error_response, health, index, metrics_endpoint, rpc,
};
use actix_web::web;

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
            web::resource("/users/erase")
                .route(web::post().to(erase_user::erase))
                .default_service(web::to(error_response::only_post_here)),
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
