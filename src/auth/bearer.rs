//! The caller's bearer token: parsed from the `Authorization` header value
//! once, at the HTTP edge, into the one token type ([`BearerToken`], a
//! shared leaf), then handed on as it is: to the validator and with the
//! call (a Joule callback exchanges it for a Joule-API token, the S/4HANA
//! source and the action hook look their destinations up with it).

use super::AuthError;
use super::claim_shape::MAX_AUTHORIZATION_BYTES;
pub use crate::secret::BearerToken;

impl BearerToken {
    /// The token of an `Authorization` header value: the scheme `Bearer`
    /// in any case (RFC 7235 §2.1: schemes are case-insensitive), one or
    /// more spaces, then one token with no whitespace, the whole value at
    /// most [`MAX_AUTHORIZATION_BYTES`]. Another scheme is
    /// [`AuthError::Missing`] (no bearer token was sent), a malformed or
    /// oversized value [`AuthError::Invalid`].
    pub fn from_authorization(value: &str) -> Result<BearerToken, AuthError> {
        if value.len() > MAX_AUTHORIZATION_BYTES {
            return Err(AuthError::malformed(format!(
                "Authorization header longer than {} KiB",
                MAX_AUTHORIZATION_BYTES / 1024
            )));
        }
        let value = value.trim();
        let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(AuthError::Missing);
        }
        let token = token.trim();
        if token.is_empty() || has_whitespace(token) {
            return Err(AuthError::malformed("malformed Authorization header"));
        }
        Ok(BearerToken::new(token))
    }
}

/// `str::contains(char::is_whitespace)`, on bytes for the ASCII text every
/// header value is: a JWT is some 800 characters, and decoding each as a
/// `char` cost more than the token cache's SHA-256 of it (measured in
/// bench/README.md).
fn has_whitespace(text: &str) -> bool {
    if text.is_ascii() {
        // The ASCII characters `char::is_whitespace` accepts: tab, line
        // feed, vertical tab, form feed, carriage return and space. No
        // early exit, so the compiler takes several bytes per step.
        let found = text.bytes().fold(0u8, |found, byte| {
            found | u8::from(matches!(byte, b'\t'..=b'\r' | b' '))
        });
        found != 0
    } else {
        text.contains(char::is_whitespace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_case_insensitive_and_the_token_is_one_word() {
        for header in [
            "Bearer abc.def.ghi",
            "bearer abc.def.ghi",
            "BEARER   abc.def.ghi ",
        ] {
            let token = BearerToken::from_authorization(header).expect(header);
            assert_eq!(token.expose(), "abc.def.ghi", "{header}");
        }
        for header in ["Basic dXNlcjpwdw==", "abc.def.ghi", ""] {
            assert_eq!(
                BearerToken::from_authorization(header),
                Err(AuthError::Missing),
                "{header}"
            );
        }
        let oversized = format!("Bearer {}", "a".repeat(MAX_AUTHORIZATION_BYTES));
        for header in ["Bearer", "Bearer ", "Bearer abc def", oversized.as_str()] {
            assert!(
                matches!(
                    BearerToken::from_authorization(header),
                    Err(AuthError::Invalid(_))
                ),
                "{header:.20}"
            );
        }
        let largest = format!("Bearer {}", "a".repeat(MAX_AUTHORIZATION_BYTES - 7));
        assert!(BearerToken::from_authorization(&largest).is_ok());
    }

    #[test]
    fn whitespace_is_found_as_char_is_whitespace_finds_it() {
        let mut texts: Vec<String> = (0u8..=127)
            .map(|byte| format!("abc{}def", char::from(byte)))
            .collect();
        texts.extend(
            ["abc\u{a0}def", "abc\u{2003}def", "ab\u{e9}cd", "", "a.b.c"].map(String::from),
        );
        for text in &texts {
            assert_eq!(
                has_whitespace(text),
                text.contains(char::is_whitespace),
                "{text:?}"
            );
        }
        let with_nbsp = BearerToken::from_authorization("Bearer abc\u{a0}def");
        assert!(matches!(with_nbsp, Err(AuthError::Invalid(_))));
    }

    #[test]
    fn debug_never_shows_the_token() {
        let token = BearerToken::from_authorization("Bearer secret-token-value").expect("valid");
        let shown = format!("{token:?} {:?}", Some(&token));
        assert!(!shown.contains("secret-token-value"), "{shown}");
        assert!(shown.contains("REDACTED"), "{shown}");
    }
}
