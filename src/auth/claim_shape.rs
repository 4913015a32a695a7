//! Shape limits on what an unauthenticated caller can make us fetch or
//! remember: the token's length, and every claim that picks the signing
//! keys or goes into the key request (`kid`, `iss`/`ias_iss`, `app_tid`/
//! `zone_uuid`, `azp`, `azp_app_tid`, XSUAA `zid` and `cid`). They are read
//! from the unverified payload, so each must be a short identifier, checked
//! before any key is fetched; a token breaking one is refused (401) without
//! a call to the identity service. The bounds are generous for the values
//! SAP's services issue (`ias-tokens.md` §1, §2, §9): GUIDs for tenants and
//! IAS client ids, `sb-<xsappname>!t<n>` (broker clones `…!b<n>|…`) for
//! XSUAA client ids, host names for issuers.

use serde_json::{Map, Value};

/// The longest `Authorization` header value read as a bearer token. IAS
/// and XSUAA tokens are 1–4 kB, XSUAA ones with many scopes up to ~8 kB.
pub const MAX_AUTHORIZATION_BYTES: usize = 16 * 1024;

/// What kind of identifier a claim holds: its longest length and its
/// characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A tenant or identity zone id: a GUID (36), with room for other
    /// ids of letters, digits, `-` and `_`.
    Tenant,
    /// A client id: an IAS GUID, or XSUAA `sb-<xsappname>!t<n>` (a broker
    /// clone `sb-<name>!b<n>|<xsappname>!b<n>`).
    Client,
    /// A key id: IAS and XSUAA use names such as `default-jwt-key-…` or
    /// base64(url) digests.
    KeyId,
    /// An issuer URL: `https://` + a host name (≤ 253) + a short path
    /// (XSUAA `/oauth/token`); its trust is judged by `issuer.rs`.
    Issuer,
}

impl Shape {
    fn max_bytes(self) -> usize {
        match self {
            Shape::Tenant => 64,
            Shape::Client | Shape::KeyId => 128,
            Shape::Issuer => 300,
        }
    }

    fn allows(self, byte: u8) -> bool {
        byte.is_ascii_alphanumeric()
            || match self {
                Shape::Tenant => matches!(byte, b'-' | b'_'),
                Shape::Client => matches!(byte, b'-' | b'_' | b'.' | b'!' | b'|' | b'~' | b':'),
                Shape::KeyId => matches!(byte, b'-' | b'_' | b'.' | b'~' | b'+' | b'/' | b'='),
                // Printable ASCII; the issuer rule refuses what it must.
                Shape::Issuer => byte.is_ascii_graphic(),
            }
    }

    /// The characters allowed, as the refusal names them.
    fn charset(self) -> &'static str {
        match self {
            Shape::Tenant => "letters, digits, - and _",
            Shape::Client => "letters, digits and -_.!|~:",
            Shape::KeyId => "letters, digits and -_.~+/=",
            Shape::Issuer => "printable ASCII",
        }
    }

    fn fits(self, value: &str) -> bool {
        (1..=self.max_bytes()).contains(&value.len()) && value.bytes().all(|b| self.allows(b))
    }
}

/// A claim (or the `kid`) past its shape: the validator refuses the token
/// as malformed, this sentence its description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} is not a short identifier (at most {max} characters of {charset})")]
pub struct ShapeError {
    name: &'static str,
    max: usize,
    charset: &'static str,
}

impl ShapeError {
    fn of(name: &'static str, shape: Shape) -> ShapeError {
        ShapeError {
            name,
            max: shape.max_bytes(),
            charset: shape.charset(),
        }
    }
}

/// The claims that pick keys or go into the key request, with their shape.
const KEY_CLAIMS: [(&str, Shape); 8] = [
    ("iss", Shape::Issuer),
    ("ias_iss", Shape::Issuer),
    ("app_tid", Shape::Tenant),
    ("zone_uuid", Shape::Tenant),
    ("azp_app_tid", Shape::Tenant),
    ("zid", Shape::Tenant),
    ("azp", Shape::Client),
    ("cid", Shape::Client),
];

/// Every key-picking claim the token has is a short identifier of its
/// kind (a claim may be absent: the rules that need it say so).
pub fn check_key_claims(claims: &Map<String, Value>) -> Result<(), ShapeError> {
    for (name, shape) in KEY_CLAIMS {
        match claims.get(name) {
            None => {}
            Some(Value::String(value)) if shape.fits(value) => {}
            Some(_) => return Err(ShapeError::of(name, shape)),
        }
    }
    Ok(())
}

/// The token header's `kid` is a short key id.
pub fn check_kid(kid: &str) -> Result<(), ShapeError> {
    if Shape::KeyId.fits(kid) {
        Ok(())
    } else {
        Err(ShapeError::of("kid", Shape::KeyId))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(name: &str, value: Value) -> Map<String, Value> {
        let mut claims = Map::new();
        claims.insert(name.into(), value);
        claims
    }

    #[test]
    fn the_values_sap_issues_fit() {
        for (name, value) in [
            ("app_tid", "7f2a9c4e-1b3d-4e5f-8a6b-0c1d2e3f4a5b"),
            ("zone_uuid", "7f2a9c4e-1b3d-4e5f-8a6b-0c1d2e3f4a5b"),
            ("azp_app_tid", "7f2a9c4e-1b3d-4e5f-8a6b-0c1d2e3f4a5b"),
            ("zid", "7f2a9c4e-1b3d-4e5f-8a6b-0c1d2e3f4a5b"),
            ("azp", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"),
            ("azp", "sb-order-agent!t123"),
            ("cid", "sb-clone-7f2a9c4e!b42|order-agent!b7"),
            ("iss", "https://tenant.accounts.ondemand.com"),
            (
                "iss",
                "https://sub.authentication.eu10.hana.ondemand.com/oauth/token",
            ),
            ("ias_iss", "https://tenant.accounts400.ondemand.com/"),
        ] {
            assert_eq!(
                check_key_claims(&claims(name, json!(value))),
                Ok(()),
                "{name}"
            );
        }
        for kid in [
            "default-jwt-key-1234567890",
            "key-id-1",
            "xnaHEyQd3usvLWYu2VB2Y_sy-mY",
        ] {
            assert_eq!(check_kid(kid), Ok(()), "{kid}");
        }
    }

    #[test]
    fn long_odd_or_non_text_values_are_refused() {
        let forty_kb = "a".repeat(40 * 1024);
        for (name, value) in [
            ("azp", json!(forty_kb)),
            ("azp", json!("a".repeat(129))),
            ("azp", json!("client id")),
            ("azp", json!("client%0a")),
            ("azp", json!("")),
            ("azp", json!(42)),
            ("azp_app_tid", json!("a".repeat(65))),
            ("app_tid", json!("tenant/../x")),
            ("zone_uuid", json!(["a", "b"])),
            ("zid", json!("zone.1")),
            ("cid", json!("sb-x!t1\u{e9}")),
            (
                "iss",
                json!(format!("https://{}.accounts.test", "a".repeat(300))),
            ),
            ("ias_iss", json!("https://tenant.accounts.test\n")),
        ] {
            let refused = check_key_claims(&claims(name, value.clone()));
            assert!(
                refused.as_ref().is_err_and(|error| error.name == name),
                "{name} = {value:.40}: {refused:?}"
            );
        }
        assert!(check_kid(&"k".repeat(129)).is_err());
        assert!(check_kid("key 1").is_err());
        assert!(check_kid("").is_err());
    }

    #[test]
    fn the_bounds_hold_at_their_edges() {
        assert_eq!(
            check_key_claims(&claims("azp", json!("a".repeat(128)))),
            Ok(())
        );
        assert_eq!(
            check_key_claims(&claims("app_tid", json!("a".repeat(64)))),
            Ok(())
        );
        assert_eq!(check_kid(&"k".repeat(128)), Ok(()));
        assert!(check_key_claims(&claims("app_tid", json!("a".repeat(65)))).is_err());
    }
}
