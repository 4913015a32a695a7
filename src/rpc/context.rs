//! What a request runs with besides its body (the engine, the caller, the
//! extended card, the call's context, the version it asked for): given by
//! `http/`, read by the handler and by `run`, so it sits below both.

use crate::a2a::agent_card::AgentCard;
use crate::auth::Principal;
use crate::tasks::{CallContext, TaskEngine};

/// What a request runs with besides its body.
pub struct RpcContext<'a> {
    pub engine: &'a TaskEngine,
    /// The authenticated caller; `None` when authentication is off.
    pub principal: Option<&'a Principal>,
    /// Served to authenticated callers only.
    pub extended_card: Option<&'a AgentCard>,
    /// What a later callback needs from this call.
    pub call: CallContext,
    /// The `A2A-Version` header and query parameter, as sent (negotiation
    /// in `a2a::v1::version`).
    pub a2a_version: VersionParameter<'a>,
    /// The open event streams, bounded.
    pub streams: &'a super::StreamSlots,
    /// Where a refusal past a bound is reported as a security event.
    pub audit: &'a crate::audit::Audit,
    /// Who sent the request, for that event: `X-Forwarded-For` as sent
    /// and the peer (read into an address only on a refusal).
    pub forwarded_for: Option<&'a str>,
    pub peer: Option<std::net::IpAddr>,
}

/// The `A2A-Version` service parameter as a request carried it.
#[derive(Debug, Clone, Copy, Default)]
pub struct VersionParameter<'a> {
    pub header: Option<&'a str>,
    pub query: Option<&'a str>,
}
