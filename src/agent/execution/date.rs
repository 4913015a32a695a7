//! The delivery date a user types, in the usual written forms: ISO
//! (`2026-12-18`), German (`18.12.2026`, `18.12.`), with slashes as the
//! turn's language writes them (`18/12/2026` day first in French and
//! Spanish, `12/18/2026` month first otherwise), and with the month's name
//! in English, German, French or Spanish (`18 December 2026`, `December 18,
//! 2026`, `Dec 18 2026`, `18. Dezember 2026`, `le 18 décembre 2026`, `18 de
//! diciembre de 2026`). Without a year (`18. Dezember`, `18.12.`, `December
//! 18`) it is the next such day after today. Only a date after today counts.
//! The months' names are the vocabularies' (`data/lang/*.toml`, `months`).

use crate::agent::language::catalog::text as say;
use crate::agent::language::lexicon::{fold, lexicon};
use crate::agent::language::{Language, locale};
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

impl DateError {
    /// What the user reads, in `language` (a date the way it writes dates).
    pub fn for_the_user(&self, language: Language) -> String {
        match self {
            DateError::Unreadable(text) => say(
                language,
                "date-unreadable",
                &[("text", text.as_str().into())],
            ),
            DateError::NotInFuture(iso) => say(
                language,
                "date-not-in-future",
                &[("date", locale::iso_date(language, iso).into())],
            ),
        }
    }
}

/// Words around a date that say nothing about it ("le 18 décembre", "18 de
/// diciembre de 2026", "am 18. Dezember", "on the 18th of December").
const FILLERS: [&str; 12] = [
    "the", "of", "on", "am", "den", "zum", "bis", "le", "au", "de", "del", "el",
];

/// `word` lower case with its accents folded, as the fillers are written.
fn folded(word: &str) -> String {
    fold(&word.to_lowercase()).into_owned()
}

/// The month `word` names in any language (the vocabularies' `months`).
fn month_named(word: &str) -> Option<u8> {
    lexicon().month_named(word)
}

fn date(year: &str, month: u8, day: &str) -> Option<Date> {
    let year: i32 = year.parse().ok()?;
    calendar(year, month, day)
}

fn calendar(year: i32, month: u8, day: &str) -> Option<Date> {
    let day: u8 = day
        .trim_end_matches('.')
        .trim_end_matches(|c: char| c.is_alphabetic())
        .parse()
        .ok()?;
    Date::from_calendar_date(year, Month::try_from(month).ok()?, day).ok()
}

/// A day and month without a year: the next such day after `today`.
fn next(month: u8, day: &str, today: Date) -> Option<Date> {
    [today.year(), today.year() + 1]
        .into_iter()
        .filter_map(|year| calendar(year, month, day))
        .find(|date| *date > today)
}

/// Whether `language` writes a date with slashes day first (`18/12/2026`,
/// as [`locale::date`] writes it for the user); else month first, the US
/// way (`12/18/2026`).
fn slashes_day_first(language: Language) -> bool {
    match language {
        Language::Fr | Language::Es => true,
        Language::En | Language::De => false,
    }
}

/// The date in `text`, any of the forms above, typed in a turn in
/// `language`.
pub fn parse(text: &str, today: Date, language: Language) -> Option<Date> {
    let text = text.trim().trim_end_matches(['!', '?']).trim();
    let numeric: Vec<&str> = text.trim_end_matches('.').split(['-', '.', '/']).collect();
    if numeric
        .iter()
        .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
    {
        let dots = text.contains('.');
        let (dashes, slashes) = (text.contains('-'), text.contains('/'));
        return match (numeric.as_slice(), dashes, dots, slashes) {
            ([a, b, c], true, false, false) if a.len() == 4 => date(a, b.parse().ok()?, c),
            ([a, b, c], false, true, false) if c.len() == 4 => date(c, b.parse().ok()?, a),
            ([a, b, c], false, false, true) if c.len() == 4 && slashes_day_first(language) => {
                date(c, b.parse().ok()?, a)
            }
            ([a, b, c], false, false, true) if c.len() == 4 => date(c, a.parse().ok()?, b),
            // "18.12." or "18.12": day and month, German style.
            ([a, b], false, true, false) if a.len() <= 2 && b.len() <= 2 => {
                next(b.parse().ok()?, a, today)
            }
            _ => None,
        };
    }
    let text = text.trim_end_matches('.');
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|word| !word.is_empty() && !FILLERS.contains(&folded(word).as_str()))
        .collect();
    match words.as_slice() {
        [day, month, year] if month_named(month).is_some() => date(year, month_named(month)?, day),
        [month, day, year] if month_named(month).is_some() => date(year, month_named(month)?, day),
        [day, month] if month_named(month).is_some() => next(month_named(month)?, day, today),
        [month, day] if month_named(month).is_some() => next(month_named(month)?, day, today),
        _ => None,
    }
}

/// A date after `today`, as `YYYY-MM-DD`, typed in a turn in `language`.
pub fn future_date(text: &str, today: Date, language: Language) -> Result<String, DateError> {
    let Some(date) = parse(text, today, language) else {
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
            "18. Dezember 2026",
            "18. Dezember",
            "am 18. Dezember",
            "18.12.",
            "18.12",
            "le 18 décembre 2026",
            "18 décembre",
            "18 de diciembre de 2026",
            "diciembre 18",
            "December 18",
            "18 dez. 2026",
        ] {
            assert_eq!(
                future_date(text, today(), Language::En).as_deref(),
                Ok("2026-12-18"),
                "{text}"
            );
        }
    }

    /// With slashes the day comes first where the turn's language writes
    /// dates so (French, Spanish), the month first elsewhere (the US way);
    /// the other forms read the same in every language.
    #[test]
    fn slashes_are_read_as_the_turns_language_writes_dates() {
        for language in [Language::Fr, Language::Es] {
            for (text, iso) in [("18/12/2026", "2026-12-18"), ("05/01/2027", "2027-01-05")] {
                assert_eq!(
                    future_date(text, today(), language).as_deref(),
                    Ok(iso),
                    "{language}: {text}"
                );
            }
            assert!(
                matches!(
                    future_date("12/18/2026", today(), language),
                    Err(DateError::Unreadable(_))
                ),
                "{language}"
            );
        }
        for language in [Language::En, Language::De] {
            for (text, iso) in [("12/18/2026", "2026-12-18"), ("05/01/2027", "2027-05-01")] {
                assert_eq!(
                    future_date(text, today(), language).as_deref(),
                    Ok(iso),
                    "{language}: {text}"
                );
            }
        }
        for language in Language::ALL {
            for text in [
                "2026-12-18",
                "18.12.2026",
                "18 décembre 2026",
                "le 18 décembre 2026",
                "18 de diciembre de 2026",
            ] {
                assert_eq!(
                    future_date(text, today(), language).as_deref(),
                    Ok("2026-12-18"),
                    "{language}: {text}"
                );
            }
        }
        // The examples the French question gives are understood.
        let asked = DateError::Unreadable("la semaine prochaine".into()).for_the_user(Language::Fr);
        let examples = asked
            .rsplit_once("par exemple ")
            .map(|(_, examples)| examples)
            .unwrap_or_default();
        assert!(!examples.is_empty(), "{asked}");
        for example in examples.split(" ou ") {
            assert_eq!(
                future_date(example, today(), Language::Fr).as_deref(),
                Ok("2026-12-18"),
                "{example}"
            );
        }
    }

    #[test]
    fn a_date_without_a_year_is_the_next_such_day() {
        // 1 December 2026: 18 December is this year's, 5 January next year's,
        // 1 December (today) next year's.
        assert_eq!(
            future_date("5. Januar", today(), Language::En).as_deref(),
            Ok("2027-01-05")
        );
        assert_eq!(
            future_date("01.12.", today(), Language::En).as_deref(),
            Ok("2027-12-01")
        );
        assert_eq!(
            future_date("18. Dezember", today(), Language::En).as_deref(),
            Ok("2026-12-18")
        );
    }

    #[test]
    fn ambiguous_or_unknown_month_words_are_no_date() {
        for text in ["18 jui 2026", "18 ma 2026", "18 Sperre 2026"] {
            assert!(
                matches!(
                    future_date(text, today(), Language::En),
                    Err(DateError::Unreadable(_))
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn the_user_reads_why_in_their_language() {
        let past = DateError::NotInFuture("2026-11-30".into());
        assert_eq!(
            past.for_the_user(Language::De),
            "30.11.2026 liegt nicht in der Zukunft; bitte nennen Sie ein späteres Datum"
        );
        assert_eq!(
            past.for_the_user(Language::Fr),
            "Le 30/11/2026 n'est pas dans le futur\u{202F}; veuillez indiquer une date ultérieure"
        );
        assert_eq!(past.for_the_user(Language::En), past.to_string());
        let unreadable = DateError::Unreadable("next week".into());
        assert_eq!(
            unreadable.for_the_user(Language::En),
            unreadable.to_string()
        );
    }

    #[test]
    fn past_impossible_and_unreadable_dates_are_refused() {
        assert_eq!(
            future_date("2026-11-30", today(), Language::En),
            Err(DateError::NotInFuture("2026-11-30".into()))
        );
        assert_eq!(
            future_date("2026-12-01", today(), Language::En),
            Err(DateError::NotInFuture("2026-12-01".into()))
        );
        assert!(matches!(
            future_date("2026-02-30", today(), Language::En),
            Err(DateError::Unreadable(_))
        ));
        assert!(matches!(
            future_date("next week", today(), Language::En),
            Err(DateError::Unreadable(_))
        ));
        assert!(matches!(
            future_date("approve", today(), Language::En),
            Err(DateError::Unreadable(_))
        ));
    }
}
