//! A delivery date the service takes as "in the future" on whatever day the
//! tests run: a year from today (UTC), in the forms the tests type and the
//! forms the service and the S/4HANA double write back. A fixed date in a
//! test would turn into a date in the past, and the test red, on its day.

use time::{Duration, OffsetDateTime};

/// One day, written every way the tests need it.
pub struct DeliveryDay {
    /// `2027-12-01`: what the ledger and the answers carry.
    pub iso: String,
    /// `1 December 2027`.
    pub written: String,
    /// `December 1, 2027`.
    pub us: String,
    /// `01.12.2027`: how a German user types it and reads it back.
    pub german: String,
    /// The year, month (1–12) and day of the month.
    pub year: i32,
    pub month: u8,
    pub day: u8,
    /// `/Date(1827705600000)/`: the OData V2 form S/4HANA stores.
    pub odata: String,
}

/// A year from today.
pub fn delivery_day() -> DeliveryDay {
    delivery_day_in(365)
}

/// `days` from today (another date the customer may ask for).
pub fn delivery_day_in(days: i64) -> DeliveryDay {
    let date = OffsetDateTime::now_utc().date() + Duration::days(days);
    let (year, month, day) = (date.year(), date.month(), date.day());
    let midnight = date.midnight().assume_utc().unix_timestamp() * 1000;
    DeliveryDay {
        iso: format!("{year:04}-{:02}-{day:02}", u8::from(month)),
        written: format!("{day} {month} {year}"),
        us: format!("{month} {day}, {year}"),
        german: format!("{day:02}.{:02}.{year:04}", u8::from(month)),
        year,
        month: u8::from(month),
        day,
        odata: format!("/Date({midnight})/"),
    }
}
