//! HTTP with actix-web: the well-known card, the JSON-RPC endpoint (and what
//! `GET /` says of it), health, the action ledger, erasing a user's data,
//! `/metrics`; the request-rate
//! quotas; the shared `AppState`, the server's settings, binding and serving. The only module
//! that knows actix.

mod actions;
mod auth;
mod body;
mod call_ids;
mod calls_in_flight;
mod card_document;
mod card_endpoint;
mod erase_user;
mod error_response;
mod headers;
mod health;
mod index;
mod local_origin;
mod metrics_endpoint;
mod owner;
mod quota;
mod request_log;
mod routes;
mod rpc;
mod server;
mod settings;
mod state;

pub use body::BodyLimits;
pub use calls_in_flight::CallsInFlight;
pub use card_document::{CardDocument, CardSettings, extended_card};
pub use erase_user::erase_user_data;
pub use local_origin::LocalOrigins;
pub use quota::{QuotaSettings, Quotas};
pub use routes::routes;
pub use server::{BindError, Serving, bind, serve};
pub use settings::ServerSettings;
pub use state::AppState;
