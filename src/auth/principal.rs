//! Who called: what a valid token says about the caller.

use super::tenant::TenantRule;
use crate::roles::BusinessRole;
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// A person's token (principal propagation).
    User,
    /// An application's own token (client credentials); never approves.
    Technical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenIssuer {
    Ias,
    Xsuaa,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Principal {
    /// `user_uuid`, else `scim_id`, else `sub` (XSUAA: `user_id`, else `user_name`, else `sub`).
    pub user_id: String,
    pub email: Option<String>,
    pub display_name: Option<String>,
    /// The calling application (`azp`, XSUAA `cid`).
    pub client_id: Option<String>,
    /// `app_tid` (XSUAA `zid`); for an IAS token of the binding's own
    /// issuer without one, the binding's `app_tid`. With the issuer, where
    /// the user and client ids are unique (owner keys, `http/owner.rs`).
    pub tenant: Option<String>,
    pub kind: TokenKind,
    pub issuer: TokenIssuer,
    /// The host of the token's issuer (for traces; not secret).
    pub issuer_host: String,
    /// Which branch of the tenant rule accepted an IAS token (logged).
    #[serde(skip)]
    pub tenant_rule: Option<TenantRule>,
    /// API permission groups granted to the calling app (`ias_apis`).
    pub apis: Vec<String>,
    pub roles: BTreeSet<BusinessRole>,
}

impl Principal {
    /// Only a person with a role may approve; a technical token never does.
    pub fn may_approve(&self) -> bool {
        self.kind == TokenKind::User && !self.roles.is_empty()
    }
}
