//! The one timestamp format of the service: RFC 3339 in UTC with exactly
//! three fractional digits (`2026-11-30T20:59:02.555Z`). Task statuses, the
//! action ledger, log lines and everything else a client or reader sees
//! take their timestamps from here, so no two places print time
//! differently (the SQL columns keep Unix milliseconds, see `db::now_ms`).

use time::OffsetDateTime;

/// `at` as RFC 3339, UTC, millisecond precision (truncated, never rounded
/// up into the next second).
pub fn rfc3339(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
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
}
