//! What must never reach a log: a secret of the settings or a binding
//! (client secrets, passwords, API keys, database URLs) and the caller's
//! bearer token, carried as this one type from the HTTP edge to the
//! Destination service. Both wrap `secrecy::SecretString`: `Debug` prints
//! `[REDACTED]`, the text is zeroed when dropped, and the value is read
//! only through `expose`, where it is sent. A shared leaf: the settings of
//! several rooms hold secrets, and the token crosses `auth/`, `tasks/`,
//! `agent/`, `backend/`, `push/` and `btp/`.

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// What a set secret serializes as. The settings serialize only to be
/// layered (their defaults, which hold no secret) and checked by tests, so
/// nothing needs the value; a serialized copy can never leak one.
pub const REDACTED: &str = "[redacted]";

/// A secret setting or binding field. Read from a plain string; serialized
/// as [`REDACTED`].
#[derive(Debug, Clone)]
pub struct Secret(SecretString);

impl Secret {
    pub fn new(secret: impl Into<String>) -> Self {
        Secret(SecretString::from(secret.into()))
    }

    /// The secret itself, for the request that sends it; never for a log.
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl From<String> for Secret {
    fn from(secret: String) -> Self {
        Secret::new(secret)
    }
}

impl From<&str> for Secret {
    fn from(secret: &str) -> Self {
        Secret::new(secret)
    }
}

/// Settings and bindings compare whole (tests, a target read twice); no
/// secret is checked against a guess with it.
impl PartialEq for Secret {
    fn eq(&self, other: &Self) -> bool {
        self.expose() == other.expose()
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(REDACTED)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Secret::new)
    }
}

/// The caller's bearer token (RFC 6750 `b64token`), as `auth/` parsed it
/// from the `Authorization` header: checked by the validator, and handed on
/// with the call to the Destination service (`X-user-token`), Joule's token
/// exchange and the connectivity proxy. Shared, not copied: a turn's
/// readers and the later results of its actions clone it.
#[derive(Debug, Clone)]
pub struct BearerToken(Arc<SecretString>);

impl BearerToken {
    /// A token as it was sent, without its scheme.
    pub fn new(token: &str) -> Self {
        BearerToken(Arc::new(SecretString::from(token)))
    }

    /// The token itself, for the signature check and an outbound header;
    /// never for a log.
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl PartialEq for BearerToken {
    fn eq(&self, other: &Self) -> bool {
        self.expose() == other.expose()
    }
}

impl Eq for BearerToken {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_serde_never_show_a_secret() {
        let secret: Secret = serde_json::from_str("\"s3cr3t\"").expect("a string");
        assert_eq!(secret.expose(), "s3cr3t");
        let token = BearerToken::new("token-value");
        let shown = format!("{:?} {:?} {token:?}", Some(&secret), secret.clone());
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(!shown.contains("token-value"), "{shown}");
        assert_eq!(
            serde_json::to_value(Some(&secret)).expect("serializes"),
            serde_json::json!(REDACTED)
        );
        assert_eq!(token, BearerToken::new("token-value"));
    }
}
