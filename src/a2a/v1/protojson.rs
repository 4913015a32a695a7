//! ProtoJSON building blocks the 1.0 types share: objects that refuse JSON
//! arrays, enums written by name and read by name or number, oneofs written
//! as their one member, `int32`, `google.protobuf.Timestamp` and `bytes`.
//!
//! Why these exist: serde's derive reads a struct from a JSON array by
//! position and knows nothing of ProtoJSON's reader rules (snake_case names,
//! integer enums, numbers in strings, `null` as "unset"). Each rule lives here
//! once, so the types stay plain structs with serde attributes.
//!
//! The 1.0 proto has no 64-bit integers (only `int32`), so no number is
//! written as a string; `google.protobuf.Struct`/`Value` are plain JSON.

use serde::de::{self, MapAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::fmt;

/// `google.protobuf.Struct`: a JSON object.
pub type Struct = Map<String, Value>;

/// Implements `Serialize` and `Deserialize` for a struct whose derives carry
/// `#[serde(remote = "Self")]`: the derived code becomes inherent functions,
/// and the trait impls route through them, reading only from a JSON object
/// (`deserialize_map`), so `[…]` where a message belongs is an error instead
/// of a positional read. Call the traits, never the inherent functions.
macro_rules! protojson_message {
    ($($ty:ident),+ $(,)?) => {$(
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $ty::serialize(self, serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ObjectOnly;
                impl<'de> ::serde::de::Visitor<'de> for ObjectOnly {
                    type Value = $ty;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        formatter.write_str(concat!("a ", stringify!($ty), " object"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, map: A) -> Result<$ty, A::Error> {
                        $ty::deserialize(::serde::de::value::MapAccessDeserializer::new(map))
                    }
                }
                deserializer.deserialize_map(ObjectOnly)
            }
        }
    )+};
}

/// A proto enum: written by its value name, read by name or by number
/// (ProtoJSON readers accept both).
macro_rules! protojson_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $number:literal => $proto:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in proto order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The proto value name, as ProtoJSON writes it.
            pub fn proto_name(self) -> &'static str {
                match self { $($name::$variant => $proto,)+ }
            }

            /// The proto number.
            pub fn number(self) -> i32 {
                match self { $($name::$variant => $number,)+ }
            }

            pub fn from_proto_name(name: &str) -> Option<Self> {
                match name { $($proto => Some($name::$variant),)+ _ => None }
            }

            pub fn from_number(number: i64) -> Option<Self> {
                match number { $($number => Some($name::$variant),)+ _ => None }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.proto_name())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct EnumVisitor;
                impl<'de> ::serde::de::Visitor<'de> for EnumVisitor {
                    type Value = $name;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        formatter.write_str(concat!("one of ", $($proto, " ",)+ "(or its number)"))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, value: &str) -> Result<$name, E> {
                        $name::from_proto_name(value).ok_or_else(|| {
                            E::invalid_value(::serde::de::Unexpected::Str(value), &self)
                        })
                    }
                    fn visit_i64<E: ::serde::de::Error>(self, value: i64) -> Result<$name, E> {
                        $name::from_number(value).ok_or_else(|| {
                            E::invalid_value(::serde::de::Unexpected::Signed(value), &self)
                        })
                    }
                    fn visit_u64<E: ::serde::de::Error>(self, value: u64) -> Result<$name, E> {
                        i64::try_from(value)
                            .ok()
                            .and_then($name::from_number)
                            .ok_or_else(|| E::invalid_value(::serde::de::Unexpected::Unsigned(value), &self))
                    }
                }
                deserializer.deserialize_any(EnumVisitor)
            }
        }
    };
}

/// A message that is only a oneof (`SendMessageResponse`, `StreamResponse`,
/// `SecurityScheme`, `OAuthFlows`): written as `{"member": value}`; read
/// from an object with exactly one member set (camelCase or, after `|`, the
/// snake_case name;
/// `null` counts as unset; unknown keys are ignored).
macro_rules! protojson_oneof {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident($ty:ty) = $json:literal $(| $snake:literal)?,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $($(#[$vmeta])* $variant($ty),)+
        }

        impl $name {
            /// The oneof's members, by ProtoJSON name.
            pub const MEMBERS: &'static [&'static str] = &[$($json),+];

            /// The member's ProtoJSON name.
            pub fn member_name(&self) -> &'static str {
                match self { $($name::$variant(_) => $json,)+ }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(1))?;
                match self { $($name::$variant(value) => map.serialize_entry($json, value)?,)+ }
                map.end()
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct OneofVisitor;
                impl<'de> ::serde::de::Visitor<'de> for OneofVisitor {
                    type Value = $name;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        write!(
                            formatter,
                            "a {} object with exactly one of: {}",
                            stringify!($name),
                            $crate::a2a::v1::protojson::member_list($name::MEMBERS),
                        )
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut found: Option<$name> = None;
                        while let Some(key) = map.next_key::<String>()? {
                            match key.as_str() {
                                $($json $(| $snake)? => {
                                    if let Some(value) = map.next_value::<Option<$ty>>()? {
                                        if let Some(first) = &found {
                                            return Err(::serde::de::Error::custom(format!(
                                                "`{}` and `{}` are members of one oneof: set exactly one of {}",
                                                first.member_name(),
                                                $json,
                                                $crate::a2a::v1::protojson::member_list($name::MEMBERS),
                                            )));
                                        }
                                        found = Some($name::$variant(value));
                                    }
                                })+
                                _ => {
                                    map.next_value::<::serde::de::IgnoredAny>()?;
                                }
                            }
                        }
                        found.ok_or_else(|| ::serde::de::Error::custom(format!(
                            "missing member: set exactly one of {}",
                            $crate::a2a::v1::protojson::member_list($name::MEMBERS),
                        )))
                    }
                }
                deserializer.deserialize_map(OneofVisitor)
            }
        }
    };
}

pub(crate) use protojson_enum;
pub(crate) use protojson_message;
pub(crate) use protojson_oneof;

/// `` `a`, `b` `` for error messages.
pub fn member_list(members: &[&str]) -> String {
    members
        .iter()
        .map(|member| format!("`{member}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// For fields without presence (strings, lists, maps): `null` reads as the
/// default, as ProtoJSON says.
pub fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

/// `int32` fields: written as JSON numbers; read from a number (an integral
/// float too) or a decimal string, within the `int32` range.
pub mod int32 {
    use super::*;

    struct Int32Visitor;

    impl<'de> Visitor<'de> for Int32Visitor {
        type Value = i32;

        fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
            formatter.write_str("a 32-bit integer (a number or a decimal string)")
        }

        fn visit_i64<E: de::Error>(self, value: i64) -> Result<i32, E> {
            i32::try_from(value).map_err(|_| E::invalid_value(Unexpected::Signed(value), &self))
        }

        fn visit_u64<E: de::Error>(self, value: u64) -> Result<i32, E> {
            i32::try_from(value).map_err(|_| E::invalid_value(Unexpected::Unsigned(value), &self))
        }

        fn visit_f64<E: de::Error>(self, value: f64) -> Result<i32, E> {
            let in_range = value.fract() == 0.0
                && value >= f64::from(i32::MIN)
                && value <= f64::from(i32::MAX);
            if in_range {
                // Integral and in range: the cast is exact.
                Ok(value as i32)
            } else {
                Err(E::invalid_value(Unexpected::Float(value), &self))
            }
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<i32, E> {
            let digits = value.strip_prefix('-').unwrap_or(value);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(E::invalid_value(Unexpected::Str(value), &self));
            }
            value
                .parse::<i32>()
                .map_err(|_| E::invalid_value(Unexpected::Str(value), &self))
        }
    }

    /// A required (or defaulted) `int32`.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i32, D::Error> {
        deserializer.deserialize_any(Int32Visitor)
    }

    /// An `int32` without presence: `null` reads as 0.
    pub fn deserialize_nullable<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<i32, D::Error> {
        deserialize_option(deserializer).map(Option::unwrap_or_default)
    }

    /// An `optional int32`: `null` or absent is `None`.
    pub fn deserialize_option<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<i32>, D::Error> {
        struct OptionVisitor;
        impl<'de> Visitor<'de> for OptionVisitor {
            type Value = Option<i32>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a 32-bit integer or null")
            }
            fn visit_none<E: de::Error>(self) -> Result<Option<i32>, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Option<i32>, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Option<i32>, D::Error> {
                deserialize(inner).map(Some)
            }
        }
        deserializer.deserialize_option(OptionVisitor)
    }
}

/// Why a timestamp or a base64 string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    #[error(
        "not an RFC 3339 timestamp (`YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`, years 0001 to 9999 in UTC)"
    )]
    Timestamp,
    #[error("not base64 (standard or URL-safe alphabet, padding optional)")]
    Base64,
}

/// `google.protobuf.Timestamp`: read from RFC 3339 with any offset, kept
/// and written in UTC with `Z` and 0, 3, 6 or 9 fractional digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(time::OffsetDateTime);

impl Timestamp {
    pub fn parse(text: &str) -> Result<Timestamp, ValueError> {
        parse_rfc3339(text.as_bytes())
            .map(Timestamp)
            .ok_or(ValueError::Timestamp)
    }

    /// The moment (in UTC), or `None` outside ProtoJSON's years 0001–9999.
    pub fn from_offset_date_time(at: time::OffsetDateTime) -> Option<Timestamp> {
        let utc = at.checked_to_offset(time::UtcOffset::UTC)?;
        (1..=9999).contains(&utc.year()).then_some(Timestamp(utc))
    }

    pub fn as_offset_date_time(&self) -> time::OffsetDateTime {
        self.0
    }

    /// The ProtoJSON text: `2026-12-01T08:56:50.123Z`.
    pub fn to_rfc3339(&self) -> String {
        let at = self.0;
        let nanos = at.nanosecond();
        let fraction = if nanos == 0 {
            String::new()
        } else if nanos.is_multiple_of(1_000_000) {
            format!(".{:03}", nanos / 1_000_000)
        } else if nanos.is_multiple_of(1_000) {
            format!(".{:06}", nanos / 1_000)
        } else {
            format!(".{nanos:09}")
        };
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}Z",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second(),
        )
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&self.to_rfc3339())
    }
}

fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    bytes.iter().try_fold(0u32, |acc, b| {
        acc.checked_mul(10)?.checked_add(u32::from(b - b'0'))
    })
}

fn parse_rfc3339(text: &[u8]) -> Option<time::OffsetDateTime> {
    // YYYY-MM-DDThh:mm:ss, then an optional fraction, then Z or ±hh:mm.
    if text.len() < 20 {
        return None;
    }
    let (head, rest) = text.split_at(19);
    let separators_ok = head[4] == b'-'
        && head[7] == b'-'
        && matches!(head[10], b'T' | b't')
        && head[13] == b':'
        && head[16] == b':';
    if !separators_ok {
        return None;
    }
    let year = i32::try_from(digits(&head[0..4])?).ok()?;
    let month = u8::try_from(digits(&head[5..7])?).ok()?;
    let day = u8::try_from(digits(&head[8..10])?).ok()?;
    let hour = u8::try_from(digits(&head[11..13])?).ok()?;
    let minute = u8::try_from(digits(&head[14..16])?).ok()?;
    let second = u8::try_from(digits(&head[17..19])?).ok()?;

    let (nanos, zone) = match rest.strip_prefix(b".") {
        Some(fraction_and_zone) => {
            let length = fraction_and_zone
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if !(1..=9).contains(&length) {
                return None;
            }
            let (fraction, zone) = fraction_and_zone.split_at(length);
            let scale = 10u32.pow(9 - u32::try_from(length).ok()?);
            (digits(fraction)? * scale, zone)
        }
        None => (0, rest),
    };
    let offset = match zone {
        b"Z" | b"z" => time::UtcOffset::UTC,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let hours = i8::try_from(digits(&[*h1, *h2])?).ok()?;
            let minutes = i8::try_from(digits(&[*m1, *m2])?).ok()?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let (hours, minutes) = if *sign == b'-' {
                (-hours, -minutes)
            } else {
                (hours, minutes)
            };
            time::UtcOffset::from_hms(hours, minutes, 0).ok()?
        }
        _ => return None,
    };
    let month = time::Month::try_from(month).ok()?;
    let date = time::Date::from_calendar_date(year, month, day).ok()?;
    let clock = time::Time::from_hms_nano(hour, minute, second, nanos).ok()?;
    let at = time::PrimitiveDateTime::new(date, clock).assume_offset(offset);
    Timestamp::from_offset_date_time(at).map(|timestamp| timestamp.0)
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimestampVisitor;
        impl Visitor<'_> for TimestampVisitor {
            type Value = Timestamp;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an RFC 3339 timestamp such as \"2026-12-01T08:56:50Z\"")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Timestamp, E> {
                Timestamp::parse(value).map_err(|_| E::invalid_value(Unexpected::Str(value), &self))
            }
        }
        deserializer.deserialize_str(TimestampVisitor)
    }
}

/// A proto `bytes` value as base64 text, kept in the standard alphabet with
/// padding (as ProtoJSON writes it); URL-safe and unpadded input is
/// accepted and normalised.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Base64(String);

impl Base64 {
    pub fn parse(text: &str) -> Result<Base64, ValueError> {
        let body = text.trim_end_matches('=');
        let padding = text.len() - body.len();
        let standard = body.bytes().any(|b| b == b'+' || b == b'/');
        let url_safe = body.bytes().any(|b| b == b'-' || b == b'_');
        let alphabet_ok = body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'));
        let remainder = body.len() % 4;
        let padding_ok = padding == 0 || (padding <= 2 && (remainder + padding).is_multiple_of(4));
        if !alphabet_ok || (standard && url_safe) || remainder == 1 || !padding_ok {
            return Err(ValueError::Base64);
        }
        let mut normalised: String = body
            .chars()
            .map(|c| match c {
                '-' => '+',
                '_' => '/',
                other => other,
            })
            .collect();
        normalised.extend(std::iter::repeat_n('=', (4 - remainder) % 4));
        Ok(Base64(normalised))
    }

    /// Text taken as it is, for 0.3 `bytes` that were never validated (the
    /// 0.3 model passes them through; see `convert`).
    pub(crate) fn unchecked(text: String) -> Base64 {
        Base64(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl Serialize for Base64 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Base64 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Base64Visitor;
        impl Visitor<'_> for Base64Visitor {
            type Value = Base64;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("base64 text")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Base64, E> {
                Base64::parse(value).map_err(|_| E::invalid_value(Unexpected::Str(value), &self))
            }
        }
        deserializer.deserialize_str(Base64Visitor)
    }
}

/// Reads the value of a map member that may appear once only.
pub(crate) fn next_once<'de, A, T>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    T: Deserialize<'de>,
{
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timestamps_normalise_to_utc_with_0_3_6_or_9_digits() {
        let cases = [
            ("2026-12-01T08:56:50Z", "2026-12-01T08:56:50Z"),
            ("2026-12-01t08:56:50z", "2026-12-01T08:56:50Z"),
            ("2026-12-01T08:56:50.1Z", "2026-12-01T08:56:50.100Z"),
            ("2026-12-01T08:56:50.1234Z", "2026-12-01T08:56:50.123400Z"),
            (
                "2026-12-01T08:56:50.123456789Z",
                "2026-12-01T08:56:50.123456789Z",
            ),
            ("2026-12-01T08:56:50.000Z", "2026-12-01T08:56:50Z"),
            ("2026-12-01T10:56:50+02:00", "2026-12-01T08:56:50Z"),
            ("2026-12-01T00:30:00-01:30", "2026-12-01T02:00:00Z"),
            ("2024-02-29T23:59:59+00:00", "2024-02-29T23:59:59Z"),
        ];
        for (input, expected) in cases {
            let parsed = Timestamp::parse(input).unwrap_or_else(|_| panic!("{input} parses"));
            assert_eq!(parsed.to_rfc3339(), expected, "{input}");
            assert_eq!(
                Timestamp::parse(expected),
                Ok(parsed),
                "{expected} reads back"
            );
        }
    }

    #[test]
    fn timestamps_refuse_what_rfc_3339_and_protojson_refuse() {
        for input in [
            "",
            "2026-12-01",
            "2026-12-01 08:56:50Z",
            "2026-12-01T08:56:50",
            "2026-12-01T08:56:50.Z",
            "2026-12-01T08:56:50.1234567891Z",
            "2026-13-01T08:56:50Z",
            "2023-02-29T08:56:50Z",
            "2026-12-01T24:00:00Z",
            "2026-12-01T23:59:60Z",
            "2026-12-01T08:56:50+0200",
            "2026-12-01T08:56:50+24:00",
            "0001-01-01T00:00:00+01:00",
            "9999-12-31T23:59:59-01:00",
            "+2026-12-01T08:56:50Z",
            "2026-12-01T08:56:50Z ",
        ] {
            assert_eq!(
                Timestamp::parse(input),
                Err(ValueError::Timestamp),
                "{input:?}"
            );
        }
    }

    #[test]
    fn timestamps_keep_the_protojson_year_range() {
        assert!(Timestamp::parse("0001-01-01T00:00:00Z").is_ok());
        assert!(Timestamp::parse("9999-12-31T23:59:59.999999999Z").is_ok());
    }

    #[test]
    fn base64_accepts_standard_and_url_safe_and_writes_standard_padded() {
        let cases = [
            ("", ""),
            ("aGk=", "aGk="),
            ("aGk", "aGk="),
            ("aA==", "aA=="),
            ("aA", "aA=="),
            ("+/+/", "+/+/"),
            ("-_-_", "+/+/"),
            ("SGVsbG8gVENL", "SGVsbG8gVENL"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                Base64::parse(input).map(Base64::into_string),
                Ok(expected.to_string()),
                "{input:?}"
            );
        }
    }

    #[test]
    fn base64_refuses_bad_alphabet_length_padding_and_mixing() {
        for input in [
            "a", "aGk==", "aA===", "a b=", "aGk=aGk=", "+-ab", "éé==", "=", "aGk\n",
        ] {
            assert_eq!(Base64::parse(input), Err(ValueError::Base64), "{input:?}");
        }
    }

    #[derive(Debug, Deserialize)]
    struct Sizes {
        #[serde(deserialize_with = "int32::deserialize")]
        required: i32,
        #[serde(default, deserialize_with = "int32::deserialize_option")]
        optional: Option<i32>,
    }

    #[test]
    fn int32_reads_numbers_integral_floats_and_decimal_strings() {
        for (input, expected) in [
            (json!(5), 5),
            (json!(-5), -5),
            (json!(5.0), 5),
            (json!("42"), 42),
            (json!("-42"), -42),
            (json!(2147483647), i32::MAX),
            (json!("-2147483648"), i32::MIN),
        ] {
            let sizes: Sizes = serde_json::from_value(json!({"required": input})).expect("reads");
            assert_eq!(sizes.required, expected);
            assert_eq!(sizes.optional, None);
        }
        let sizes: Sizes =
            serde_json::from_value(json!({"required": 1, "optional": null})).expect("reads");
        assert_eq!(sizes.optional, None);
        let sizes: Sizes =
            serde_json::from_value(json!({"required": 1, "optional": "7"})).expect("reads");
        assert_eq!(sizes.optional, Some(7));
    }

    #[test]
    fn int32_refuses_out_of_range_fractions_and_words() {
        for input in [
            json!(2147483648u64),
            json!(-2147483649i64),
            json!(1.5),
            json!("1.0"),
            json!("ten"),
            json!(""),
            json!("+1"),
            json!(true),
            json!([1]),
        ] {
            let result = serde_json::from_value::<Sizes>(json!({"required": input.clone()}));
            assert!(result.is_err(), "{input} should be refused");
        }
    }
}
