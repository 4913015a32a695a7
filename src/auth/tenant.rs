//! Is a token meant for our tenant (`ias-tokens.md` §4.5)? SAP's Java
//! library (`SapIdJwtSignatureValidator`) requires the tenant claim
//! (`app_tid`, legacy `zone_uuid`) only of a token whose issuer is not the
//! binding's own `url`: for another tenant's token, IAS's key endpoint
//! judges the tenant it names (`x-app_tid`). We follow it, and (single
//! tenant) refuse a named tenant that is not the binding's `app_tid`. Kept
//! apart so the rule, and which branch accepted a token, are in one place.

use super::issuer::{TrailingSlash, trusted_issuer};

/// Why a token's tenant was accepted (the `auth.tenant_rule` of the
/// `authenticate` span and of the request log line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TenantRule {
    /// The token's `app_tid` (or `zone_uuid`) is the binding's.
    AppTidMatchesBinding,
    /// The token names a tenant and the binding none to compare with: the
    /// key endpoint's online check (`x-app_tid`) decides.
    AppTidCheckedByKeyEndpoint,
    /// No `app_tid`, and the issuer is the binding's own tenant (`url`).
    OwnIssuerWithoutAppTid,
}

impl TenantRule {
    pub fn as_str(self) -> &'static str {
        match self {
            TenantRule::AppTidMatchesBinding => "app_tid_matches_binding",
            TenantRule::AppTidCheckedByKeyEndpoint => "app_tid_checked_by_key_endpoint",
            TenantRule::OwnIssuerWithoutAppTid => "own_issuer_without_app_tid",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TenantError {
    #[error("app_tid does not match our tenant")]
    OtherTenant,
    #[error("app_tid missing for an issuer other than the binding's url")]
    MissingForOtherIssuer,
}

/// The binding's `url` as an issuer (`https://host`), read by the parser
/// that reads token issuers, so the two compare as equals; `None` when it is
/// absent or not on a trusted domain (then every token must name its tenant).
pub fn own_issuer(url: Option<&str>, domains: &[String]) -> Option<String> {
    trusted_issuer(url?, domains, TrailingSlash::Tolerate)
        .ok()
        .map(|trusted| trusted.url)
}

/// The tenant rule for a token of the trusted `issuer` (as
/// [`trusted_issuer`] gave it) naming `token_tenant`.
pub fn check_tenant(
    token_tenant: Option<&str>,
    issuer: &str,
    binding_tenant: Option<&str>,
    own_issuer: Option<&str>,
) -> Result<TenantRule, TenantError> {
    match (token_tenant, binding_tenant) {
        (Some(theirs), Some(ours)) if theirs == ours => Ok(TenantRule::AppTidMatchesBinding),
        (Some(_), Some(_)) => Err(TenantError::OtherTenant),
        (Some(_), None) => Ok(TenantRule::AppTidCheckedByKeyEndpoint),
        (None, _) if own_issuer == Some(issuer) => Ok(TenantRule::OwnIssuerWithoutAppTid),
        (None, _) => Err(TenantError::MissingForOtherIssuer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: &str = "https://tenant.accounts.test";

    #[test]
    fn the_binding_url_reads_like_a_token_issuer() {
        let domains = vec!["accounts.test".to_string()];
        for url in [
            "https://tenant.accounts.test",
            "https://tenant.accounts.test/",
            "tenant.accounts.test",
        ] {
            assert_eq!(
                own_issuer(Some(url), &domains).as_deref(),
                Some(OWN),
                "{url}"
            );
        }
        for url in [
            "https://tenant.elsewhere.test",
            "https://tenant.accounts.test/path",
            "http://tenant.accounts.test",
        ] {
            assert_eq!(own_issuer(Some(url), &domains), None, "{url}");
        }
        assert_eq!(own_issuer(None, &domains), None);
    }

    #[test]
    fn each_branch_of_the_rule() {
        let other = "https://other.accounts.test";
        assert_eq!(
            check_tenant(Some("t-1"), other, Some("t-1"), Some(OWN)),
            Ok(TenantRule::AppTidMatchesBinding)
        );
        assert_eq!(
            check_tenant(Some("t-2"), OWN, Some("t-1"), Some(OWN)),
            Err(TenantError::OtherTenant)
        );
        assert_eq!(
            check_tenant(Some("t-2"), other, None, Some(OWN)),
            Ok(TenantRule::AppTidCheckedByKeyEndpoint)
        );
        for binding_tenant in [Some("t-1"), None] {
            assert_eq!(
                check_tenant(None, OWN, binding_tenant, Some(OWN)),
                Ok(TenantRule::OwnIssuerWithoutAppTid)
            );
            assert_eq!(
                check_tenant(None, other, binding_tenant, Some(OWN)),
                Err(TenantError::MissingForOtherIssuer)
            );
            assert_eq!(
                check_tenant(None, OWN, binding_tenant, None),
                Err(TenantError::MissingForOtherIssuer)
            );
        }
    }
}
