//! Where a caller's id means one caller: the identity service that issued
//! its token and the tenant in it. A user id or client id is unique only
//! there (with IAS and XSUAA both bound, or two IAS tenants, the same id
//! can be two people), so every owner key starts with its realm:
//! `<issuer>:<tenant>:<kind>:<id>`, e.g. `ias:9f3c…:user:P000123` or
//! `xsuaa:zone-1:client:sb-app!t7`. Issuer and tenant are escaped (`%` as
//! `%25`, `:` as `%3A`; tenants are letters, digits, `-` and `_` anyway,
//! `src/auth/claim_shape.rs`), so the first three `:` split every key one
//! way and no id, whatever it holds, makes a key of another realm or kind.
//!
//! Keys written before realms were `user:<id>` and `client:<id>`; a realm's
//! form of one is the realm's prefix in front of it (`IdentityRealm::adopt`),
//! and no key of the new form starts with `user:` or `client:` (issuers are
//! `ias` and `xsuaa`), so the two forms are never confused.

/// An identity service and tenant, as the prefix of its callers' keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentityRealm {
    key_prefix: String,
}

/// `%` and `:` escaped, so a part never holds the separator.
fn escaped(part: &str) -> String {
    part.replace('%', "%25").replace(':', "%3A")
}

impl IdentityRealm {
    /// `issuer`: `ias` or `xsuaa`; `tenant`: IAS `app_tid`, XSUAA `zid`
    /// (empty when neither token nor binding names one).
    pub fn new(issuer: &str, tenant: &str) -> IdentityRealm {
        IdentityRealm {
            key_prefix: format!("{}:{}:", escaped(issuer), escaped(tenant)),
        }
    }

    /// What every key of this realm starts with (`ias:<tenant>:`).
    pub fn key_prefix(&self) -> &str {
        &self.key_prefix
    }

    /// The key of a caller of this realm: `kind` is `user` or `client`.
    pub(super) fn key(&self, kind: &str, id: &str) -> String {
        format!("{}{kind}:{id}", self.key_prefix)
    }

    /// A key of the form before realms (`user:<id>`, `client:<id>`) as
    /// this realm's (what the start-up rewrite of stored keys,
    /// `src/db/legacy_owners.rs`, writes).
    #[cfg(test)]
    pub fn adopt(&self, legacy_key: &str) -> String {
        format!("{}{legacy_key}", self.key_prefix)
    }
}
