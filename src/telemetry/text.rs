//! The readable text log format (stderr): tracing-subscriber's full format
//! with two changes. Every value a line prints, the message and each event
//! and span field, is written through [`Escaped`], so a control character
//! from a caller (a `taskId` with a line break and a fake timestamp, an
//! ANSI escape, a NUL) shows as an escape sequence and can neither start a
//! forged line nor reach the terminal raw. And the timestamp comes from
//! [`crate::clock`], in the service's one format. The JSON format
//! (`sap_json.rs`) escapes through serde_json instead.

use std::fmt::{self, Write as _};
use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

/// The text layer of the service and of the client commands: escaped
/// values, the service's timestamps, on stderr (colours only on a terminal).
/// It writes events with their own fields and never looks at spans
/// ([`EventsOnly`]); with text logs and no OTLP export no layer wants a
/// span, and the service's global filter then keeps the registry from
/// making any (`events_only_unless` in `telemetry/mod.rs`).
pub fn layer<S>() -> impl tracing_subscriber::Layer<S> + Send + Sync
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use std::io::IsTerminal;
    use tracing_subscriber::Layer as _;
    tracing_subscriber::fmt::layer()
        .fmt_fields(EscapedFields)
        .with_timer(ServiceClock)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(EventsOnly)
}

/// The text layer's filter: events only. A span's fields would be
/// formatted when it is made and again on every `record`, for the line
/// prefix of events inside it; under load that was a large share of the
/// service's time (measured in bench/README.md). The facts a line needs are
/// its own fields (the request line names method, task state, user).
/// Spans still go to the OTLP export and to JSON logs' trace ids.
struct EventsOnly;

impl<S> tracing_subscriber::layer::Filter<S> for EventsOnly {
    fn enabled(
        &self,
        metadata: &tracing::Metadata<'_>,
        _: &tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        metadata.is_event()
    }

    fn callsite_enabled(
        &self,
        metadata: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        if metadata.is_event() {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }
}

/// Log line timestamps as everywhere else (`2026-11-30T20:59:02.555Z`).
struct ServiceClock;

impl FormatTime for ServiceClock {
    fn format_time(&self, writer: &mut Writer<'_>) -> fmt::Result {
        writer.write_str(&crate::clock::now_rfc3339())
    }
}

/// Whether `c` must not appear raw in a log line: C0 controls (line feed,
/// carriage return, tab, ESC, NUL…), DEL, C1 controls, and the Unicode line
/// and paragraph separators some viewers break lines at.
fn must_escape(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// A `fmt::Write` that passes text through with every character
/// [`must_escape`] says so replaced by its Rust escape (`\n`, `\r`, `\t`,
/// `\0`, `\u{1b}`, `\u{2028}`…).
pub struct Escaped<'a, W: fmt::Write + ?Sized>(pub &'a mut W);

impl<W: fmt::Write + ?Sized> fmt::Write for Escaped<'_, W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some(at) = rest.find(must_escape) {
            self.0.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or('\0');
            match c {
                '\n' => self.0.write_str("\\n")?,
                '\r' => self.0.write_str("\\r")?,
                '\t' => self.0.write_str("\\t")?,
                '\0' => self.0.write_str("\\0")?,
                other => write!(self.0, "\\u{{{:x}}}", u32::from(other))?,
            }
            rest = &rest[at + c.len_utf8()..];
        }
        self.0.write_str(rest)
    }
}

/// The field formatter of the text layer: `message` first as it is, the
/// other fields as `name=value` (strings quoted, as the default formatter
/// does), every value escaped.
pub struct EscapedFields;

impl<'writer> FormatFields<'writer> for EscapedFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = EscapingVisitor {
            writer,
            empty: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct EscapingVisitor<'writer> {
    writer: Writer<'writer>,
    /// Nothing written yet: no separating space.
    empty: bool,
    result: fmt::Result,
}

impl EscapingVisitor<'_> {
    fn write(&mut self, field: &Field, value: fmt::Arguments<'_>) {
        if self.result.is_err() {
            return;
        }
        let name = field.name();
        // Fields of `log` records, already shown as the line's metadata.
        if name.starts_with("log.") {
            return;
        }
        let separator = if self.empty { "" } else { " " };
        self.empty = false;
        self.result = if name == "message" {
            self.writer.write_str(separator).and_then(|()| {
                let mut escaped = Escaped(&mut self.writer);
                escaped.write_fmt(value)
            })
        } else {
            let name = name.strip_prefix("r#").unwrap_or(name);
            write!(self.writer, "{separator}{name}=").and_then(|()| {
                let mut escaped = Escaped(&mut self.writer);
                escaped.write_fmt(value)
            })
        };
    }
}

impl Visit for EscapingVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.write(field, format_args!("{value}"));
        } else {
            self.write(field, format_args!("{value:?}"));
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.write(field, format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.write(field, format_args!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::layer::SubscriberExt;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        Escaped(&mut out).write_str(text).expect("writes");
        out
    }

    #[test]
    fn control_characters_and_line_separators_are_escaped() {
        assert_eq!(escaped("plain 4711 äöü €"), "plain 4711 äöü €");
        assert_eq!(
            escaped("a\nb\rc\td\0e\u{1b}[31mf\u{7f}g\u{85}h\u{2028}i\u{2029}j\u{9b}"),
            "a\\nb\\rc\\td\\0e\\u{1b}[31mf\\u{7f}g\\u{85}h\\u{2028}i\\u{2029}j\\u{9b}"
        );
    }

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn messages_event_fields_and_span_fields_stay_on_one_line() {
        let buffer = Buffer::default();
        let sink = buffer.clone();
        let subscriber = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .fmt_fields(EscapedFields)
                .with_timer(ServiceClock)
                .with_ansi(false)
                .with_writer(move || sink.clone()),
        );
        let forged = "x\n2026-12-01T00:00:00.000000Z ERROR forged: \u{1b}[2J\0";
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!("request", task.id = forged);
            let _entered = span.enter();
            tracing::info!(shown = %forged, quoted = forged, count = 3, "message {forged}");
        });
        let bytes = buffer.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let text = String::from_utf8(bytes).expect("UTF-8");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(!text.contains(['\u{1b}', '\0']), "{text:?}");
        assert!(text.contains("count=3"), "{text}");
        assert!(
            text.contains("message x\\n2026-12-01T00:00:00.000000Z ERROR forged: \\u{1b}[2J\\0"),
            "{text}"
        );
        assert!(text.contains("shown=x\\n2026"), "{text}");
        assert!(text.contains("quoted=\"x\\n2026"), "{text}");
        assert!(text.contains("request{task.id=\"x\\n2026"), "{text}");
        // The service's timestamp: 24 characters, milliseconds, `Z`.
        let stamp = text.split(' ').next().unwrap_or("");
        assert!(stamp.len() == 24 && stamp.ends_with('Z'), "{text}");
    }
}
