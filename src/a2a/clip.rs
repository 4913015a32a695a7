//! Caller-supplied text that an error echoes (an unknown method, a version,
//! a value the schema does not know), cut to a readable length: an error
//! answers, and its message becomes a span's status, but neither carries a
//! megabyte a caller chose to send.

/// The most characters of caller-supplied text an error repeats.
const LIMIT: usize = 128;

/// `text`, or its first [`LIMIT`] characters and `…`.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_on_a_character_boundary() {
        assert_eq!(clip("message/send"), "message/send");
        let long = "é".repeat(1000);
        let clipped = clip(&long);
        assert_eq!(clipped.chars().count(), LIMIT + 1);
        assert!(clipped.ends_with('…'));
    }
}
