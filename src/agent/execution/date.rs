//! The delivery date a user types, in the usual written forms: ISO
//! (`2026-12-18`), German (`18.12.2026`), US (`12/18/2026`), and with the
//! month's name (`18 December 2026`, `December 18, 2026`, `Dec 18 2026`).
//! Only a date after today counts.

use time::{Date, Month};

/// Why a typed date is not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DateError {
    #[error(
        "\"{0}\" is not a date I understand; please write it like 2026-12-18 or 18 December 2026"
    )]
    Unreadable(String),
    #[error("{0} is not in the future; please give a later date")]
    NotInFuture(String),
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn month_named(word: &str) -> Option<u8> {
    let word = word.trim_end_matches('.').to_lowercase();
    if word.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|name| name.starts_with(&word) && (word.len() >= 3))
        .map(|index| index as u8 + 1)
}

fn date(year: &str, month: u8, day: &str) -> Option<Date> {
    let year: i32 = year.parse().ok()?;
    let day: u8 = day
        .trim_end_matches(|c: char| c.is_alphabetic())
        .parse()
        .ok()?;
    Date::from_calendar_date(year, Month::try_from(month).ok()?, day).ok()
}

/// The date in `text`, any of the forms above.
pub fn parse(text: &str) -> Option<Date> {
    let text = text.trim().trim_end_matches(['.', '!']).trim();
    let numeric: Vec<&str> = text.split(['-', '.', '/']).collect();
    if numeric.len() == 3
        && numeric
            .iter()
            .all(|part| part.chars().all(|c| c.is_ascii_digit()))
    {
        let [a, b, c] = [numeric[0], numeric[1], numeric[2]];
        return match (text.contains('-'), text.contains('.'), text.contains('/')) {
            (true, false, false) if a.len() == 4 => date(a, b.parse().ok()?, c),
            (false, true, false) if c.len() == 4 => date(c, b.parse().ok()?, a),
            (false, false, true) if c.len() == 4 => date(c, a.parse().ok()?, b),
            _ => None,
        };
    }
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|word| !word.is_empty())
        .collect();
    match words.as_slice() {
        [day, month, year] if month_named(month).is_some() => {
            date(year, month_named(month)?, day.trim_end_matches('.'))
        }
        [month, day, year] if month_named(month).is_some() => date(year, month_named(month)?, day),
        _ => None,
    }
}

/// A date after `today`, as `YYYY-MM-DD`.
pub fn future_date(text: &str, today: Date) -> Result<String, DateError> {
    let Some(date) = parse(text) else {
        return Err(DateError::Unreadable(
            text.trim().chars().take(40).collect(),
        ));
    };
    let iso = format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    );
    if date <= today {
        return Err(DateError::NotInFuture(iso));
    }
    Ok(iso)
}

/// Today in UTC.
pub fn today() -> Date {
    time::OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> Date {
        Date::from_calendar_date(2026, Month::December, 1).expect("a date")
    }

    #[test]
    fn the_usual_written_forms_are_understood() {
        for text in [
            "2026-12-18",
            "18.12.2026",
            "12/18/2026",
            "18 December 2026",
            "December 18, 2026",
            "Dec 18 2026",
            "18th Dec 2026.",
        ] {
            assert_eq!(
                future_date(text, today()).as_deref(),
                Ok("2026-12-18"),
                "{text}"
            );
        }
    }

    #[test]
    fn past_impossible_and_unreadable_dates_are_refused() {
        assert_eq!(
            future_date("2026-11-30", today()),
            Err(DateError::NotInFuture("2026-11-30".into()))
        );
        assert_eq!(
            future_date("2026-12-01", today()),
            Err(DateError::NotInFuture("2026-12-01".into()))
        );
        assert!(matches!(
            future_date("2026-02-30", today()),
            Err(DateError::Unreadable(_))
        ));
        assert!(matches!(
            future_date("next week", today()),
            Err(DateError::Unreadable(_))
        ));
        assert!(matches!(
            future_date("approve", today()),
            Err(DateError::Unreadable(_))
        ));
    }
}
