//! Whose call a span is: the tenant and the user, as SAP's Cloud SDK and
//! `cap-js/agents` tag spans (`sap.tenancy.tenant_id`, `user.id`), so a
//! trace is found by tenant or user and an APM can split by tenant.
//! Attributes are not inherited in OpenTelemetry: every span that must be
//! found by them (the server span, the turn span, which outlives its
//! request) records them itself.

/// The tenant and user of a call, as they go on spans. Empty with
/// authentication off; no user for a technical (client credentials) token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallerTags {
    /// The token's tenant (IAS `app_tid`, XSUAA `zid`).
    pub tenant_id: Option<String>,
    /// The person's id (`user_uuid`, else the subject); `None` for an
    /// application calling on its own behalf.
    pub user_id: Option<String>,
}

/// The span attribute of the tenant.
pub const TENANT_ATTRIBUTE: &str = "sap.tenancy.tenant_id";
/// The span attribute of the user.
pub const USER_ATTRIBUTE: &str = "user.id";

impl CallerTags {
    /// Record the tags on `span` (which declares both fields, empty).
    pub fn record(&self, span: &tracing::Span) {
        if let Some(tenant) = &self.tenant_id {
            span.record(TENANT_ATTRIBUTE, tenant.as_str());
        }
        if let Some(user) = &self.user_id {
            span.record(USER_ATTRIBUTE, user.as_str());
        }
    }
}
