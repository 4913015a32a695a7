//! What every request handler shares (`AppState`), built by `startup.rs`
//! from the rooms' parts and handed to [`super::server::serve`].

use super::BodyLimits;
use super::card_document::CardDocument;
use crate::a2a::agent_card::AgentCard;
use crate::agent::ledger::ActionLedger;
use crate::auth::TokenValidator;
use crate::tasks::TaskEngine;
use std::sync::Arc;
use std::time::Duration;

/// What every request handler shares.
pub struct AppState {
    pub engine: TaskEngine,
    pub card: CardDocument,
    /// The card for authenticated callers (`agent/getAuthenticatedExtendedCard`).
    pub extended_card: Option<AgentCard>,
    /// `None` when authentication is off.
    pub auth: Option<Arc<TokenValidator>>,
    /// Filed actions, for `GET /actions` and erasing a user's approvals.
    pub ledger: Arc<dyn ActionLedger>,
    /// Where the engine keeps tasks, for erasing a user's tasks
    /// (`POST /users/erase`; everything else goes through the engine).
    pub tasks: Arc<dyn crate::tasks::TaskStore>,
    /// The roles that read every filed action (the rule book's
    /// `rules.ledger_readers`); anyone else reads what they approved.
    pub ledger_readers: std::collections::BTreeSet<crate::roles::BusinessRole>,
    /// JSON-RPC calls handled at once, bounded (`server.max_calls_in_flight`).
    pub calls: super::CallsInFlight,
    /// Size, time and memory bounds of request bodies.
    pub body_limits: BodyLimits,
    pub sse_keep_alive: Duration,
    /// The open event streams, bounded (`server.max_streams`, …).
    pub streams: crate::rpc::StreamSlots,
    /// Requests a second per caller and tenant, or for the instance
    /// (`server.quota.*`).
    pub quotas: super::Quotas,
    /// `GET /metrics` answers (else 404).
    pub metrics_endpoint: bool,
    /// The order source, for what `GET /health` says of it (`None`: an
    /// agent of its own, as tests plug in).
    pub orders: Option<Arc<dyn crate::backend::OrderSource>>,
    /// What `GET /health` says of the task store and the ledger.
    pub store: crate::tasks::StoreHealth,
    /// With authentication off: the only hosts and origins served
    /// (`None` with authentication on).
    pub local_origins: Option<super::LocalOrigins>,
    /// Where security events of refused requests go (`audit/`).
    pub audit: crate::audit::Audit,
}
