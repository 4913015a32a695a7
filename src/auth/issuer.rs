//! Is a token's issuer one of our IAS tenants? SAP's rule (JAVA
//! `JwtIssuerValidator`, XSSEC `getSafeUrlFromTokenIssuer`, GO
//! `matchesDomain`): the host must equal a trusted domain or be exactly one
//! DNS label in front of it; nothing else (port, path, query, userinfo,
//! percent-encoding) may follow. Runs before any network call uses the issuer.

use serde::{Deserialize, Serialize};

/// What to do with one trailing `/` (Joule tokens were seen with one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrailingSlash {
    /// Strip exactly one trailing `/` before the checks (counted in a log line).
    #[default]
    Tolerate,
    Reject,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssuerError {
    #[error("issuer is missing or empty")]
    Missing,
    #[error("no trusted IAS domains are configured")]
    NoDomains,
    #[error("issuer contains encoded or control characters")]
    Characters,
    #[error("issuer is not on a trusted IAS domain")]
    Untrusted,
}

/// A trusted issuer as `https://host` (no trailing slash).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrustedIssuer {
    pub url: String,
    /// A trailing `/` was stripped under `TrailingSlash::Tolerate`.
    pub slash_stripped: bool,
}

fn is_label(label: &str) -> bool {
    (1..=63).contains(&label.len())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Check `issuer` (the token's `ias_iss`, else `iss`) against `domains`.
pub fn trusted_issuer(
    issuer: &str,
    domains: &[String],
    trailing_slash: TrailingSlash,
) -> Result<TrustedIssuer, IssuerError> {
    if issuer.is_empty() {
        return Err(IssuerError::Missing);
    }
    if domains.is_empty() {
        return Err(IssuerError::NoDomains);
    }
    if issuer.contains('%') || issuer.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(IssuerError::Characters);
    }
    let (issuer, slash_stripped) = match (trailing_slash, issuer.strip_suffix('/')) {
        (TrailingSlash::Tolerate, Some(stripped)) => (stripped, true),
        _ => (issuer, false),
    };
    // Scheme-less issuers get https:// (so `http://host` becomes `https://http://host` and fails).
    let host = issuer.strip_prefix("https://").unwrap_or(issuer);
    let trusted = domains.iter().any(|domain| {
        host == domain
            || host
                .strip_suffix(domain.as_str())
                .and_then(|prefix| prefix.strip_suffix('.'))
                .is_some_and(is_label)
    });
    if !trusted {
        return Err(IssuerError::Untrusted);
    }
    Ok(TrustedIssuer {
        url: format!("https://{host}"),
        slash_stripped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domains() -> Vec<String> {
        vec![
            "accounts.ondemand.com".into(),
            "accounts400.ondemand.com".into(),
        ]
    }

    fn check(issuer: &str) -> Result<TrustedIssuer, IssuerError> {
        trusted_issuer(issuer, &domains(), TrailingSlash::Tolerate)
    }

    #[test]
    fn trusted_hosts_and_one_label_subdomains_pass() {
        for issuer in [
            "https://accounts.ondemand.com",
            "https://tenant.accounts.ondemand.com",
            "https://my-tenant-1.accounts400.ondemand.com",
            "tenant.accounts.ondemand.com",
            &format!("https://{}.accounts.ondemand.com", "a".repeat(63)),
        ] {
            assert!(check(issuer).is_ok(), "{issuer}");
        }
        assert_eq!(
            check("tenant.accounts.ondemand.com").unwrap().url,
            "https://tenant.accounts.ondemand.com"
        );
    }

    #[test]
    fn everything_else_is_refused() {
        for issuer in [
            "",
            "https://attackerdomain.com",
            "https://tenant.attackerdomain.com",
            "https://myaccounts400.ondemand.com",
            "https://accounts400.ondemand.com.attackerDomain.com",
            "https://tenant.accounts.ondemand.com/path",
            "https://tenant.accounts.ondemand.com?x=1",
            "https://tenant.accounts.ondemand.com#frag",
            "https://user@tenant.accounts.ondemand.com",
            "https://tenant.accounts.ondemand.com&",
            "https://tenant.accounts.ondemand.coma",
            "https://tenant.accounts.ondemand.com0",
            "https://tenant.accounts.ondemand.com%2f",
            "https://tenant%2eaccounts.ondemand.com",
            "https://tenant.accounts.ondemand.com%40evil.com",
            "https://tenant.accounts.ondemand.com:443",
            "http://tenant.accounts.ondemand.com",
            "https://",
            "https://tenant.accounts.ondemand.com\t",
            "https://tenant.accounts.ondemand.com\n",
            "https://ten\rant.accounts.ondemand.com",
            "https://two.labels.accounts.ondemand.com",
            "https://tenant.accounts.ondemand.com//",
            "https://tenant.accounts.ondemand.com/path/",
            "https://.accounts.ondemand.com",
            "https://ten_ant.accounts.ondemand.com",
            &format!("https://{}.accounts.ondemand.com", "a".repeat(64)),
        ] {
            assert!(check(issuer).is_err(), "{issuer:?} must be refused");
        }
    }

    #[test]
    fn one_trailing_slash_depends_on_the_switch() {
        let tolerated = check("https://tenant.accounts.ondemand.com/").unwrap();
        assert!(tolerated.slash_stripped);
        assert_eq!(tolerated.url, "https://tenant.accounts.ondemand.com");
        assert_eq!(
            trusted_issuer(
                "https://tenant.accounts.ondemand.com/",
                &domains(),
                TrailingSlash::Reject
            ),
            Err(IssuerError::Untrusted)
        );
    }

    #[test]
    fn no_domains_trusts_nothing() {
        assert_eq!(
            trusted_issuer("https://accounts.ondemand.com", &[], TrailingSlash::Reject),
            Err(IssuerError::NoDomains)
        );
    }
}
