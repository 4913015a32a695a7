//! Whose words stay out of spans. A log line may quote what S/4HANA or an
//! action hook answered (on-call reads it there), but a trace is read more
//! widely and kept elsewhere: an event that carries such words declares
//! the empty field [`MARKER`] (no log line shows an empty field), and the
//! span export leaves it out unless `telemetry.debug_content` is on. Code
//! that puts such words in a span attribute asks [`in_spans`] first.

use std::sync::atomic::{AtomicBool, Ordering};

/// The field an event declares, empty, when it quotes words of a user, a
/// customer or S/4HANA: `telemetry.content = tracing::field::Empty`.
pub const MARKER: &str = "telemetry.content";

static DEBUG_CONTENT: AtomicBool = AtomicBool::new(false);

/// Whether spans may carry such words (`telemetry.debug_content`).
pub fn in_spans() -> bool {
    DEBUG_CONTENT.load(Ordering::Relaxed)
}

/// Set once at start, before the first event.
pub(super) fn allow_in_spans(allowed: bool) {
    DEBUG_CONTENT.store(allowed, Ordering::Relaxed);
}

/// The span export's filter: spans pass, and events but the marked ones
/// (all of them with `telemetry.debug_content`).
pub(super) fn span_export_filter() -> tracing_subscriber::filter::FilterFn {
    tracing_subscriber::filter::filter_fn(|metadata| {
        !metadata.is_event() || in_spans() || metadata.fields().field(MARKER).is_none()
    })
}
