//! A client secret from the settings or a binding: its `Debug` prints no
//! secret, so a `{:?}` of the settings never puts one in a log. Read with
//! [`ClientSecret::expose`], only where it is sent.

use serde::{Deserialize, Serialize};

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClientSecret(String);

impl ClientSecret {
    pub fn new(secret: impl Into<String>) -> Self {
        ClientSecret(secret.into())
    }

    /// The secret itself, for the token request; never for a log.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for ClientSecret {
    fn from(secret: String) -> Self {
        ClientSecret(secret)
    }
}

impl From<&str> for ClientSecret {
    fn from(secret: &str) -> Self {
        ClientSecret(secret.to_string())
    }
}

impl std::fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientSecret(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_no_secret_and_serde_reads_a_plain_string() {
        let secret: ClientSecret = serde_json::from_str("\"s3cr3t\"").expect("a string");
        assert_eq!(secret.expose(), "s3cr3t");
        let shown = format!("{:?}", Some(&secret));
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
}
