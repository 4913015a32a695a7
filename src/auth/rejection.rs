//! Why a token was refused, in a few words from a fixed set: the `reason`
//! label of `a2a.token.rejections`, the `error.type` of the `authenticate`
//! span and the `auth.reason` of the (rate-limited) log line. The detail
//! (which claim, which issuer) stays in the answer and the log line; the
//! reason never carries what a caller sent.

/// The class of an invalid token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// Not a JWT, a payload or header that does not decode, a claim of the
    /// wrong type, a missing `kid`, two `Authorization` headers; a token or
    /// key-picking claim past its shape limit; a token naming no caller.
    Malformed,
    /// Signed with anything but RS256 (`none`, HMAC).
    UnsupportedAlgorithm,
    /// `exp` (plus the leeway) has passed.
    Expired,
    /// `nbf` (or `iat`) is in the future beyond the leeway.
    NotYetValid,
    /// The issuer is missing, not one of `auth.domains`, or changed.
    UntrustedIssuer,
    /// The audience does not name this application.
    WrongAudience,
    /// `app_tid` / `zone_uuid` / `zid` is missing or another tenant's.
    WrongTenant,
    /// No key of the issuer's key set has the token's `kid`.
    UnknownKey,
    /// The issuer's key endpoint refused our request (4xx) or its
    /// discovery document does not fit.
    KeysRefused,
    /// The signature does not verify with the issuer's key.
    BadSignature,
}

impl Rejection {
    /// Every reason (the tests check each is a distinct metric label).
    #[cfg(test)]
    pub const ALL: [Rejection; 10] = [
        Rejection::Malformed,
        Rejection::UnsupportedAlgorithm,
        Rejection::Expired,
        Rejection::NotYetValid,
        Rejection::UntrustedIssuer,
        Rejection::WrongAudience,
        Rejection::WrongTenant,
        Rejection::UnknownKey,
        Rejection::KeysRefused,
        Rejection::BadSignature,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Rejection::Malformed => "malformed",
            Rejection::UnsupportedAlgorithm => "unsupported_algorithm",
            Rejection::Expired => "expired",
            Rejection::NotYetValid => "not_yet_valid",
            Rejection::UntrustedIssuer => "untrusted_issuer",
            Rejection::WrongAudience => "wrong_audience",
            Rejection::WrongTenant => "wrong_tenant",
            Rejection::UnknownKey => "unknown_key",
            Rejection::KeysRefused => "keys_refused",
            Rejection::BadSignature => "bad_signature",
        }
    }

    /// The class of a failed signature or claims check.
    pub fn of_jwt_error(kind: &jsonwebtoken::errors::ErrorKind) -> Rejection {
        use jsonwebtoken::errors::ErrorKind;
        match kind {
            ErrorKind::ExpiredSignature => Rejection::Expired,
            ErrorKind::ImmatureSignature => Rejection::NotYetValid,
            ErrorKind::InvalidAudience => Rejection::WrongAudience,
            ErrorKind::InvalidIssuer => Rejection::UntrustedIssuer,
            ErrorKind::InvalidAlgorithm
            | ErrorKind::InvalidAlgorithmName
            | ErrorKind::UnsupportedAlgorithm
            | ErrorKind::MissingAlgorithm => Rejection::UnsupportedAlgorithm,
            ErrorKind::MissingRequiredClaim(_)
            | ErrorKind::InvalidClaimFormat(_)
            | ErrorKind::InvalidToken
            | ErrorKind::Base64(_)
            | ErrorKind::Json(_)
            | ErrorKind::Utf8(_) => Rejection::Malformed,
            _ => Rejection::BadSignature,
        }
    }
}

/// An invalid token: its reason, and the sentence that explains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidToken {
    pub reason: Rejection,
    pub detail: String,
}

impl std::fmt::Display for InvalidToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_distinct_words() {
        let words: std::collections::BTreeSet<&str> = Rejection::ALL
            .iter()
            .map(|reason| reason.as_str())
            .collect();
        assert_eq!(words.len(), Rejection::ALL.len());
        assert!(
            words
                .iter()
                .all(|word| word.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        );
    }

    #[test]
    fn every_reason_is_a_label_of_its_own_in_the_metrics() {
        for reason in Rejection::ALL {
            crate::telemetry::metrics::token_rejected(reason.as_str());
            let series = format!(
                "a2a_token_rejections_total{{reason=\"{}\"}}",
                reason.as_str()
            );
            assert!(
                crate::telemetry::metrics::render().contains(&series),
                "{series}"
            );
        }
    }

    #[test]
    fn a_failed_check_is_told_by_its_kind() {
        use jsonwebtoken::errors::ErrorKind;
        assert_eq!(
            Rejection::of_jwt_error(&ErrorKind::InvalidSignature),
            Rejection::BadSignature
        );
        assert_eq!(
            Rejection::of_jwt_error(&ErrorKind::ExpiredSignature),
            Rejection::Expired
        );
        assert_eq!(
            Rejection::of_jwt_error(&ErrorKind::InvalidAudience),
            Rejection::WrongAudience
        );
    }
}
