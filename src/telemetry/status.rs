//! A span that ended in failure, as OpenTelemetry's rules have it: status
//! ERROR with a short message, and `error.type` naming the class of the
//! failure (a JSON-RPC error code, an HTTP status, `timeout`, …) so an
//! APM's error rate and its breakdown by `error.type` read what users
//! met. The span must declare `error.type` and `otel.status_description`
//! (tracing records only the fields a span was made with); recording the
//! description sets the status to ERROR.

/// The longest status message recorded: a sentence, not a body.
const MESSAGE_MAX: usize = 160;

/// Mark `span` failed with `error_type` and `message` (cut to a sentence's
/// length on a character boundary).
pub fn failed(span: &tracing::Span, error_type: &str, message: &str) {
    span.record("error.type", error_type);
    span.record("otel.status_description", short(message));
}

/// `message` cut to at most [`MESSAGE_MAX`] bytes, on a character
/// boundary; never empty (an empty description would
/// read as no reason).
pub fn short(message: &str) -> &str {
    let message = message.trim();
    if message.is_empty() {
        return "failed";
    }
    if message.len() <= MESSAGE_MAX {
        return message;
    }
    let mut end = MESSAGE_MAX;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    &message[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_cut_on_a_character_boundary_and_an_empty_one_says_failed() {
        let long = "é".repeat(200);
        let cut = short(&long);
        assert!(
            cut.len() <= MESSAGE_MAX && cut.chars().all(|c| c == 'é'),
            "{cut}"
        );
        assert_eq!(short("  "), "failed");
        assert_eq!(short("HTTP 503"), "HTTP 503");
    }
}
