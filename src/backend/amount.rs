//! Money as OData sends it ("3900.00"), held in hundredths so arithmetic is exact.

use serde::{Deserialize, Deserializer};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Amount {
    cents: i64,
}

#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a decimal amount with at most two places")]
pub struct AmountError(String);

impl Amount {
    pub fn from_cents(cents: i64) -> Self {
        Amount { cents }
    }

    pub fn cents(self) -> i64 {
        self.cents
    }

    pub fn parse(text: &str) -> Result<Self, AmountError> {
        let invalid = || AmountError(text.to_string());
        let trimmed = text.trim();
        let (negative, digits) = match trimmed.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty()
            || fraction.len() > 2
            || !whole.bytes().all(|b| b.is_ascii_digit())
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(invalid());
        }
        let whole: i64 = whole.parse().map_err(|_| invalid())?;
        let fraction: i64 = format!("{fraction:0<2}").parse().map_err(|_| invalid())?;
        let cents = whole
            .checked_mul(100)
            .and_then(|c| c.checked_add(fraction))
            .ok_or_else(invalid)?;
        Ok(Amount {
            cents: if negative { -cents } else { cents },
        })
    }

    /// An OData decimal with any scale (`"3900.000000000"`, `"20000.00"`):
    /// places beyond the second must be zero (a price with fractions of a
    /// cent is refused, not rounded).
    pub fn parse_decimal(text: &str) -> Result<Self, AmountError> {
        let trimmed = text.trim();
        match trimmed.split_once('.') {
            Some((whole, fraction)) if fraction.len() > 2 => {
                let (kept, rest) = fraction.split_at(2);
                if !rest.bytes().all(|b| b == b'0') {
                    return Err(AmountError(text.to_string()));
                }
                Amount::parse(&format!("{whole}.{kept}"))
            }
            _ => Amount::parse(trimmed),
        }
    }

    /// `self − other` as a percentage of `other`, to one decimal place.
    pub fn percent_over(self, base: Amount) -> Option<f64> {
        if base.cents == 0 {
            return None;
        }
        let percent = (self.cents - base.cents) as f64 / base.cents as f64 * 100.0;
        Some((percent * 10.0).round() / 10.0)
    }
}

impl std::ops::Add for Amount {
    type Output = Amount;
    fn add(self, other: Amount) -> Amount {
        Amount::from_cents(self.cents + other.cents)
    }
}

impl std::ops::Sub for Amount {
    type Output = Amount;
    fn sub(self, other: Amount) -> Amount {
        Amount::from_cents(self.cents - other.cents)
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.cents < 0 { "-" } else { "" };
        let abs = self.cents.unsigned_abs();
        write!(f, "{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Amount::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_odata_amounts() {
        assert_eq!(Amount::parse("3900.00").unwrap().to_string(), "3900.00");
        assert_eq!(Amount::parse("12.5").unwrap().cents(), 1250);
        assert_eq!(Amount::parse("-3").unwrap().to_string(), "-3.00");
        assert!(Amount::parse("1.234").is_err());
        assert!(Amount::parse("abc").is_err());
        assert_eq!(
            Amount::parse_decimal("3900.000000000").unwrap().cents(),
            390000
        );
        assert_eq!(Amount::parse_decimal("20000.00").unwrap().cents(), 2000000);
        assert!(Amount::parse_decimal("1.005").is_err());
    }

    #[test]
    fn percent_over_the_limit() {
        let open = Amount::parse("50700").unwrap();
        let limit = Amount::parse("50000").unwrap();
        assert_eq!(open.percent_over(limit), Some(1.4));
    }
}
