//! Numbers and dates as a language writes them, for the texts of the
//! catalogs: German `50.700,00`, `1,4`, `18.12.2026`; English as the agent
//! has always written them (`50700.00`, `1.4`, `2026-12-18`: the decimal
//! strings and ISO dates of S/4HANA's data, which English readers take as
//! they are). Data parts never go through here: they stay decimal strings
//! and ISO dates whatever the user's language.

use super::Language;
use crate::backend::Amount;
use time::Date;

/// How a language separates thousands and decimals; `None`: no grouping.
fn separators(language: Language) -> (Option<&'static str>, &'static str) {
    match language {
        Language::En => (None, "."),
        Language::De | Language::Es => (Some("."), ","),
        // A narrow no-break space, as French typography groups digits.
        Language::Fr => (Some("\u{202F}"), ","),
    }
}

fn grouped(digits: &str, separator: Option<&str>) -> String {
    let Some(separator) = separator else {
        return digits.to_string();
    };
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push_str(separator);
        }
        out.push(digit);
    }
    out
}

/// An amount with two decimal places: `50.700,00` (German), `50700.00`
/// (English).
pub fn amount(language: Language, amount: Amount) -> String {
    let (thousands, decimal) = separators(language);
    let cents = amount.cents();
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!(
        "{sign}{}{decimal}{:02}",
        grouped(&(abs / 100).to_string(), thousands),
        abs % 100
    )
}

/// A number as Rust writes it shortest (`1.4`, `5`), with the language's
/// decimal sign and grouping: `1,4` in German.
pub fn number(language: Language, value: f64) -> String {
    let (thousands, decimal) = separators(language);
    let written = value.to_string();
    let (sign, unsigned) = match written.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", written.as_str()),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let mut out = format!("{sign}{}", grouped(whole, thousands));
    if !fraction.is_empty() {
        out.push_str(decimal);
        out.push_str(fraction);
    }
    out
}

/// A date: `18.12.2026` (German), `18/12/2026` (French, Spanish),
/// `2026-12-18` (English, as ISO).
pub fn date(language: Language, date: Date) -> String {
    let (day, month, year) = (date.day(), u8::from(date.month()), date.year());
    match language {
        Language::En => format!("{year:04}-{month:02}-{day:02}"),
        Language::De => format!("{day:02}.{month:02}.{year:04}"),
        Language::Fr | Language::Es => format!("{day:02}/{month:02}/{year:04}"),
    }
}

/// A moment the service recorded (RFC 3339 in UTC, `2026-12-18T14:03:09Z`)
/// as [`date`] writes the day, with hour and minute: `18.12.2026, 14:03 UTC`.
/// English keeps it as recorded; any other text stays as it is.
pub fn timestamp(language: Language, rfc3339: &str) -> String {
    if language == Language::En {
        return rfc3339.to_string();
    }
    let Some((day, rest)) = rfc3339.split_once('T') else {
        return rfc3339.to_string();
    };
    let in_utc = rest.ends_with('Z') || rest.ends_with("+00:00");
    match (rest.get(..5), in_utc) {
        (Some(clock), true) if clock.as_bytes().get(2) == Some(&b':') => {
            let local_day = iso_date(language, day);
            if local_day == day {
                return rfc3339.to_string();
            }
            format!("{local_day}, {clock} UTC")
        }
        _ => rfc3339.to_string(),
    }
}

/// An ISO date (`2026-12-18`) as [`date`] writes it; any other text as it is.
pub fn iso_date(language: Language, iso: &str) -> String {
    let parts: Vec<&str> = iso.split('-').collect();
    let parsed = match parts.as_slice() {
        [year, month, day] if year.len() == 4 && month.len() == 2 && day.len() == 2 => {
            let month = month
                .parse::<u8>()
                .ok()
                .and_then(|m| time::Month::try_from(m).ok());
            match (year.parse::<i32>(), month, day.parse::<u8>()) {
                (Ok(year), Some(month), Ok(day)) => Date::from_calendar_date(year, month, day).ok(),
                _ => None,
            }
        }
        _ => None,
    };
    match parsed {
        Some(parsed) => date(language, parsed),
        None => iso.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Month;

    fn money(text: &str) -> Amount {
        Amount::parse(text).expect("an amount")
    }

    #[test]
    fn amounts() {
        assert_eq!(amount(Language::De, money("50700")), "50.700,00");
        assert_eq!(amount(Language::En, money("50700")), "50700.00");
        assert_eq!(amount(Language::De, money("1234567.5")), "1.234.567,50");
        assert_eq!(amount(Language::De, money("400")), "400,00");
        assert_eq!(amount(Language::De, money("-3900")), "-3.900,00");
        assert_eq!(amount(Language::Fr, money("50700")), "50\u{202F}700,00");
        assert_eq!(amount(Language::Es, money("0.05")), "0,05");
        // English stays what the agent always wrote.
        for text in ["3900.00", "-3.00", "0.50", "50000.00"] {
            assert_eq!(amount(Language::En, money(text)), money(text).to_string());
        }
    }

    #[test]
    fn numbers_and_percentages() {
        assert_eq!(number(Language::De, 1.4), "1,4");
        assert_eq!(number(Language::En, 1.4), "1.4");
        assert_eq!(number(Language::De, 5.0), "5");
        assert_eq!(number(Language::De, 12.5), "12,5");
        assert_eq!(number(Language::De, 1234.5), "1.234,5");
        assert_eq!(number(Language::De, -0.5), "-0,5");
        assert_eq!(number(Language::En, 1234.5), "1234.5");
    }

    #[test]
    fn dates() {
        let day = Date::from_calendar_date(2026, Month::December, 18).expect("a date");
        assert_eq!(date(Language::De, day), "18.12.2026");
        assert_eq!(date(Language::En, day), "2026-12-18");
        assert_eq!(date(Language::Fr, day), "18/12/2026");
        assert_eq!(iso_date(Language::De, "2027-01-05"), "05.01.2027");
        assert_eq!(iso_date(Language::De, "soon"), "soon");
    }

    #[test]
    fn a_recorded_moment_reads_as_a_local_day_and_time() {
        let at = "2026-12-18T14:03:09.123Z";
        assert_eq!(timestamp(Language::De, at), "18.12.2026, 14:03 UTC");
        assert_eq!(timestamp(Language::Fr, at), "18/12/2026, 14:03 UTC");
        assert_eq!(timestamp(Language::En, at), at);
        for odd in [
            "yesterday",
            "2026-12-18T14:03:09+02:00",
            "2026-13-45T14:03Z",
        ] {
            assert_eq!(timestamp(Language::De, odd), odd);
        }
    }
}
