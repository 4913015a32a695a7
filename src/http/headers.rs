//! Request headers as the handlers read them: a header's value as text,
//! and actix's headers as trace propagation reads them. A leaf that the
//! handlers share, apart from `mod.rs`, which lists the handlers.

use actix_web::http::header::{AsHeaderName, HeaderMap};
use std::borrow::Cow;

/// The most bytes of a header value a log line or span attribute carries.
pub(super) const LOGGED_HEADER_BYTES: usize = 256;

/// A header's value as text; `None` when it is absent or not visible ASCII.
pub(super) fn header_text(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// A header value (`X-Forwarded-For`, `x-vcap-request-id`, `User-Agent`,
/// `Host`, …) as a log line or span carries it: at most
/// [`LOGGED_HEADER_BYTES`], cut with `…`. A caller chooses these values,
/// and one request must not write more than a line's worth of them.
pub(super) fn logged(value: &str) -> Cow<'_, str> {
    if value.len() <= LOGGED_HEADER_BYTES {
        return Cow::Borrowed(value);
    }
    let mut cut = LOGGED_HEADER_BYTES;
    while !value.is_char_boundary(cut) {
        cut -= 1;
    }
    Cow::Owned(format!("{}…", &value[..cut]))
}

/// actix's headers as trace propagation reads them.
pub(super) struct TraceHeaders<'a>(pub(super) &'a HeaderMap);

impl crate::telemetry::propagation::RequestHeaders for TraceHeaders<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        header_text(self.0, name)
    }

    fn names(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logged_values_are_cut_to_the_bound() {
        assert_eq!(logged("10.0.0.1, 10.0.0.2"), "10.0.0.1, 10.0.0.2");
        let long = "9".repeat(1 << 20);
        let cut = logged(&long);
        assert_eq!(cut.len(), LOGGED_HEADER_BYTES + '…'.len_utf8());
        assert!(cut.ends_with('…'));
        let wide = "é".repeat(LOGGED_HEADER_BYTES);
        assert!(logged(&wide).len() <= LOGGED_HEADER_BYTES + '…'.len_utf8());
    }
}
