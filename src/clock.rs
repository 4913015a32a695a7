//! The one timestamp format of the service: RFC 3339 in UTC with exactly
//! three fractional digits (`2026-11-30T20:59:02.555Z`). Task statuses, the
//! action ledger, log lines and everything else a client or reader sees
//! take their timestamps from here, so no two places print time
//! differently (the SQL columns keep Unix milliseconds, see `db::now_ms`).
//! Durations a user reads ("waited 1 day") are written here too, exactly
//! as long as they are, never rounded to a unit that does not fit. And
//! the [`Clock`] expiries are judged by, which tests can move forward.

use time::OffsetDateTime;

/// `at` as RFC 3339, UTC, millisecond precision (truncated, never rounded
/// up into the next second).
pub fn rfc3339(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    // The calendar date and the time of day, each worked out once (every
    // `year()`, `month()`, `day()` call decodes the date again), written
    // digit by digit: a task gets several timestamps per request.
    let (year, month, day) = at.to_calendar_date();
    let (hour, minute, second, millisecond) = at.to_hms_milli();
    let mut out = String::with_capacity(24);
    push_digits(&mut out, u32::try_from(year).unwrap_or(0), 4);
    out.push('-');
    push_digits(&mut out, u32::from(u8::from(month)), 2);
    out.push('-');
    push_digits(&mut out, u32::from(day), 2);
    out.push('T');
    push_digits(&mut out, u32::from(hour), 2);
    out.push(':');
    push_digits(&mut out, u32::from(minute), 2);
    out.push(':');
    push_digits(&mut out, u32::from(second), 2);
    out.push('.');
    push_digits(&mut out, u32::from(millisecond), 3);
    out.push('Z');
    out
}

/// The last `width` decimal digits of `value`, zero-padded.
fn push_digits(out: &mut String, value: u32, width: u32) {
    for place in (0..width).rev() {
        let digit = (value / 10u32.pow(place)) % 10;
        out.push(char::from(b'0' + digit as u8));
    }
}

/// The current time in the service's format.
pub fn now_rfc3339() -> String {
    rfc3339(OffsetDateTime::now_utc())
}

/// Unix milliseconds (a SQL column) in the service's format; a value out of
/// the calendar's range gives the epoch.
pub fn rfc3339_from_unix_ms(ms: i64) -> String {
    let at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    rfc3339(at)
}

/// `duration` in words, to the second: "1 second", "1 minute and 30
/// seconds", "1 day". Each unit that is not zero, the largest first; under
/// a second, "less than a second".
pub fn duration_in_words(duration: std::time::Duration) -> String {
    const UNITS: [(u64, &str); 4] = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let mut left = duration.as_secs();
    let mut words = Vec::new();
    for (seconds, unit) in UNITS {
        let count = left / seconds;
        left %= seconds;
        if count > 0 {
            let plural = if count == 1 { "" } else { "s" };
            words.push(format!("{count} {unit}{plural}"));
        }
    }
    match words.as_slice() {
        [] => "less than a second".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The time the service's expiries are judged by: the token cache, the
/// remembered tokens, a token's `exp` and `nbf`. It is the system's time,
/// which tests move forward with [`Clock::advance`] instead of sleeping
/// until a cache or a token expires; nothing in the service moves it.
/// Clones share one reading.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    /// How far a test moved the clock ahead of the system's, in ms.
    ahead_ms: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Clock {
    fn ahead(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.ahead_ms.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Move the clock forward by `by` (tests only).
    pub fn advance(&self, by: std::time::Duration) {
        let by_ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.ahead_ms
            .fetch_add(by_ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// The monotonic now.
    pub fn instant(&self) -> std::time::Instant {
        std::time::Instant::now() + self.ahead()
    }

    /// Unix seconds now.
    pub fn unix_secs(&self) -> i64 {
        (std::time::SystemTime::now() + self.ahead())
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| i64::try_from(since.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 24 characters, `Z`, three fractional digits: the one shape.
    fn assert_shape(text: &str) {
        let bytes = text.as_bytes();
        assert_eq!(bytes.len(), 24, "{text}");
        for (index, byte) in bytes.iter().enumerate() {
            let expected = match index {
                4 | 7 => b'-',
                10 => b'T',
                13 | 16 => b':',
                19 => b'.',
                23 => b'Z',
                _ => {
                    assert!(byte.is_ascii_digit(), "{text}: position {index}");
                    continue;
                }
            };
            assert_eq!(*byte, expected, "{text}: position {index}");
        }
    }

    #[test]
    fn every_timestamp_has_milliseconds_and_ends_in_z() {
        assert_eq!(
            rfc3339_from_unix_ms(1_796_072_342_555),
            "2026-11-30T20:59:02.555Z"
        );
        // Whole seconds and tenths keep all three digits.
        assert_eq!(
            rfc3339_from_unix_ms(1_796_072_342_000),
            "2026-11-30T20:59:02.000Z"
        );
        assert_eq!(
            rfc3339_from_unix_ms(1_796_072_342_500),
            "2026-11-30T20:59:02.500Z"
        );
        assert_eq!(rfc3339_from_unix_ms(0), "1970-01-01T00:00:00.000Z");
        assert_shape(&now_rfc3339());
        // Nanoseconds are cut, not rounded into the next second.
        let late =
            OffsetDateTime::from_unix_timestamp_nanos(1_796_072_342_999_999_999).expect("in range");
        assert_eq!(rfc3339(late), "2026-11-30T20:59:02.999Z");
        // Another offset is printed in UTC.
        let offset = late.to_offset(time::UtcOffset::from_hms(2, 0, 0).expect("valid"));
        assert_eq!(rfc3339(offset), "2026-11-30T20:59:02.999Z");
        assert_eq!(rfc3339_from_unix_ms(i64::MAX), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn a_duration_reads_as_long_as_it_is() {
        let words = |secs| duration_in_words(std::time::Duration::from_secs(secs));
        assert_eq!(words(1), "1 second");
        assert_eq!(words(45), "45 seconds");
        assert_eq!(words(60), "1 minute");
        assert_eq!(words(90), "1 minute and 30 seconds");
        assert_eq!(words(3_600), "1 hour");
        assert_eq!(words(5_400), "1 hour and 30 minutes");
        assert_eq!(words(3_661), "1 hour, 1 minute and 1 second");
        assert_eq!(words(86_400), "1 day");
        assert_eq!(words(7 * 86_400), "7 days");
        assert_eq!(
            duration_in_words(std::time::Duration::from_millis(300)),
            "less than a second"
        );
    }
}
