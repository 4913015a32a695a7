//! The caller's `x-correlationid` and `conversationid` as the service
//! keeps them: on the request's span and every log line under it, on the
//! outbound calls of its turn, in the ledger row of an approval (kept for
//! good) and echoed to Joule's callback. So each is taken only as a short
//! token ([`MAX_ID_CHARS`] of `A-Z a-z 0-9 . _ : -`, what UUIDs, trace ids
//! and SAP's ids are made of). A correlation id that is no such token is
//! replaced by one the service mints (a UUID), so the call still has one
//! id to find it by; a conversation id that is none is dropped.

use super::headers::header_text;
use actix_web::http::header::HeaderMap;

/// The longest correlation or conversation id taken, in characters.
pub(super) const MAX_ID_CHARS: usize = 128;

/// The ids a call carries, as kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct CallIds {
    /// `x-correlationid` when a short token, a minted UUID when the header
    /// is something else; `None` without the header (the trace id stands in).
    pub(super) correlation_id: Option<String>,
    /// `conversationid` when a short token.
    pub(super) conversation_id: Option<String>,
}

impl CallIds {
    pub(super) fn of(headers: &HeaderMap) -> CallIds {
        // A value that is not visible ASCII is present but no token.
        let present = |name: &str| {
            headers
                .get(name)
                .filter(|value| !value.is_empty())
                .map(|_| header_text(headers, name).unwrap_or_default())
        };
        CallIds {
            correlation_id: present("x-correlationid").map(|value| match short_token(value) {
                Some(token) => token.to_string(),
                None => uuid::Uuid::new_v4().to_string(),
            }),
            conversation_id: present("conversationid")
                .and_then(short_token)
                .map(str::to_string),
        }
    }
}

/// `value` if it is 1 to [`MAX_ID_CHARS`] of `A-Z a-z 0-9 . _ : -`.
fn short_token(value: &str) -> Option<&str> {
    let allowed = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b':' | b'-');
    ((1..=MAX_ID_CHARS).contains(&value.len()) && value.bytes().all(allowed)).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn ids(pairs: &[(&'static str, &str)]) -> CallIds {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_bytes(value.as_bytes()).expect("a header value"),
            );
        }
        CallIds::of(&headers)
    }

    #[test]
    fn short_tokens_are_taken_as_they_are() {
        let uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
        let got = ids(&[("x-correlationid", uuid), ("conversationid", "conv_1.a:b")]);
        assert_eq!(got.correlation_id.as_deref(), Some(uuid));
        assert_eq!(got.conversation_id.as_deref(), Some("conv_1.a:b"));
        let longest = "c".repeat(MAX_ID_CHARS);
        let got = ids(&[("x-correlationid", &longest), ("conversationid", &longest)]);
        assert_eq!(got.correlation_id, Some(longest.clone()));
        assert_eq!(got.conversation_id, Some(longest));
        assert_eq!(ids(&[]), CallIds::default());
        assert_eq!(ids(&[("x-correlationid", "")]), CallIds::default());
    }

    #[test]
    fn anything_else_mints_a_correlation_id_and_drops_the_conversation_id() {
        for value in [
            "c".repeat(MAX_ID_CHARS + 1),
            "a b".into(),
            "a\"b".into(),
            "a/b".into(),
            "ä".into(),
        ] {
            let got = ids(&[("x-correlationid", &value), ("conversationid", &value)]);
            let minted = got.correlation_id.expect("a minted id");
            assert_ne!(minted, value);
            assert!(uuid::Uuid::parse_str(&minted).is_ok(), "{minted}");
            assert_eq!(got.conversation_id, None, "{value:?}");
        }
    }
}
