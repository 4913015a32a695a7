//! Whose tasks and ledger rows a caller reaches: one key per caller, made
//! here once from the validated token for the engine's scope, the open
//! event streams' counts and the ledger's approver, so all of them tell
//! callers apart the same way. A key names the token's issuer (IAS or
//! XSUAA) and tenant besides the id (`tasks/owner_realm.rs`): with both
//! bound, or tokens of two tenants, equal ids are different callers.

use crate::auth::{Principal, TokenIssuer, TokenKind};
use crate::tasks::{IdentityRealm, OwnerScope};

/// The identity service of the token, as owner keys name it.
pub fn issuer_name(principal: &Principal) -> &'static str {
    match principal.issuer {
        TokenIssuer::Ias => "ias",
        TokenIssuer::Xsuaa => "xsuaa",
    }
}

/// The identity service and tenant of the token: IAS `app_tid` (for a
/// token of the binding's own issuer without one, the binding's), XSUAA
/// `zid`.
fn realm(principal: &Principal) -> IdentityRealm {
    IdentityRealm::new(
        issuer_name(principal),
        principal.tenant.as_deref().unwrap_or(""),
    )
}

/// Whose tasks the caller may see and touch: a person's own, an
/// application's own (by its client id: `azp`, XSUAA `cid`, else the
/// token's subject); everyone's with authentication off (one local caller).
pub fn owner_scope(principal: Option<&Principal>, authentication_on: bool) -> OwnerScope {
    match principal {
        Some(principal) if principal.kind == TokenKind::User => {
            OwnerScope::user(&realm(principal), &principal.user_id)
        }
        Some(principal) => OwnerScope::client(
            &realm(principal),
            principal.client_id.as_deref().unwrap_or(&principal.user_id),
        ),
        None if authentication_on => OwnerScope::Owner(String::new()),
        None => OwnerScope::Everyone,
    }
}

/// A person's key, as their ledger rows are filed and listed under
/// (`None` for a technical client, or with authentication off).
pub fn person_key(principal: Option<&Principal>) -> Option<String> {
    let principal = principal.filter(|principal| principal.kind == TokenKind::User)?;
    owner_scope(Some(principal), true)
        .owner()
        .map(str::to_string)
}

/// The key of the person `user_id` of the caller's own identity service and
/// tenant: whom a data protection officer of that tenant may erase (a
/// person of another tenant has another key, and is out of reach).
pub fn colleague_key(principal: &Principal, user_id: &str) -> String {
    OwnerScope::user(&realm(principal), user_id)
        .owner()
        .unwrap_or_default()
        .to_string()
}
