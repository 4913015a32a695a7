//! Request headers as the handlers read them: a header's value as text,
//! and actix's headers as trace propagation reads them. A leaf that the
//! handlers share, apart from `mod.rs`, which lists the handlers.

use actix_web::http::header::{AsHeaderName, HeaderMap};

/// A header's value as text; `None` when it is absent or not visible ASCII.
pub(super) fn header_text(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
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
