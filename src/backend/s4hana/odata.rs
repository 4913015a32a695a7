//! The OData V2 wire format as S/4HANA sends it (`reference/s4hana.md` §3):
//! query encoding, key literals, the `{"d": …}` envelopes, strings and
//! decimals, and the SAP error body. One reader for every S/4 answer.

use crate::backend::Amount;
use serde_json::Value;

/// Percent-encode a query option's value: a space is `%20`; OData's own
/// punctuation (`$ ' ( ) , / = :`) stays readable.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(byte as char),
            b'-' | b'.' | b'_' | b'~' | b'$' | b'\'' | b'(' | b')' | b',' | b'/' | b':' | b'*' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A key literal (`'O''Neil'`) for a URL path (`A_SalesOrder('4711')`):
/// only unreserved characters and the quotes stay as they are; `/` (which
/// would start another path segment), `?`, `#`, `%`, `(`, `)`, `,` and the
/// rest are percent-encoded, so a value never leaves its key predicate.
pub fn literal(value: &str) -> String {
    let quoted = format!("'{}'", value.replace('\'', "''"));
    let mut out = String::with_capacity(quoted.len());
    for byte in quoted.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'\'' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// `?$filter=…&$select=…`: options with encoded values.
pub fn query(options: &[(&str, String)]) -> String {
    let parts: Vec<String> = options
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("?{}", parts.join("&"))
    }
}

/// The payload of `{"d": …}`.
pub fn payload(body: &Value) -> Option<&Value> {
    body.get("d")
}

/// The rows of a set or an expanded to-many navigation (`{"results": […]}`).
pub fn results(value: &Value) -> &[Value] {
    value
        .get("results")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A string property; `""` when absent or null.
pub fn text(value: &Value, field: &str) -> String {
    value
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// A decimal property (a string on the wire), as an [`Amount`].
pub fn decimal(value: &Value, field: &str) -> Result<Amount, String> {
    let raw = value
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{field}` is missing or not a decimal string"))?;
    Amount::parse_decimal(raw).map_err(|error| format!("`{field}`: {error}"))
}

/// A quantity as the clerk reads it: `"60.000"` → `"60"`.
pub fn quantity(value: &Value, field: &str) -> String {
    let raw = text(value, field);
    if raw.contains('.') {
        raw.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        raw
    }
}

/// What the SAP error body says: `error.message.value`, `error.code` and
/// `innererror.transactionid` (for the log: an S/4 administrator finds the
/// entry by it).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SapError {
    pub code: String,
    pub message: String,
    pub transaction_id: String,
}

pub fn sap_error(body: &str) -> SapError {
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return SapError::default();
    };
    let error = &value["error"];
    SapError {
        code: text(error, "code"),
        message: error["message"]["value"]
            .as_str()
            .or_else(|| error["message"].as_str())
            .unwrap_or("")
            .to_string(),
        transaction_id: text(&error["innererror"], "transactionid"),
    }
}

/// Today as an OData V2 date literal: `datetime'2026-12-01T00:00:00'`.
pub fn today_literal() -> String {
    let today = time::OffsetDateTime::now_utc().date();
    format!(
        "datetime'{:04}-{:02}-{:02}T00:00:00'",
        today.year(),
        u8::from(today.month()),
        today.day()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn queries_are_encoded_as_s4_expects() {
        assert_eq!(
            query(&[
                (
                    "$filter",
                    "Customer eq 'O''Neil' and IsCleared eq false".into()
                ),
                ("$top", "1".into()),
                ("$skip", String::new()),
            ]),
            "?$filter=Customer%20eq%20'O''Neil'%20and%20IsCleared%20eq%20false&$top=1"
        );
        assert_eq!(literal("47&11"), "'47%2611'");
    }

    /// A key literal stays inside its predicate and its path segment.
    #[test]
    fn key_literals_are_encoded_for_a_path_segment() {
        assert_eq!(literal("4711"), "'4711'");
        assert_eq!(literal("O'Neil"), "'O''Neil'");
        assert_eq!(literal("A/../B"), "'A%2F..%2FB'");
        assert_eq!(
            literal("1')/to_Item?$top=1#"),
            "'1''%29%2Fto_Item%3F%24top%3D1%23'"
        );
        assert_eq!(literal("a,b(c):*%"), "'a%2Cb%28c%29%3A%2A%25'");
        assert_eq!(literal("x y"), "'x%20y'");
    }

    #[test]
    fn the_wire_values_are_read() {
        let row = json!({"A": "3900.000000000", "Q": "60.000", "E": "", "N": null});
        assert_eq!(decimal(&row, "A").unwrap().to_string(), "3900.00");
        assert_eq!(quantity(&row, "Q"), "60");
        assert_eq!(text(&row, "E"), "");
        assert_eq!(text(&row, "N"), "");
        assert!(decimal(&row, "N").is_err());
        let error = sap_error(
            r#"{"error":{"code":"SY/530","message":{"lang":"en","value":"No authorization"},"innererror":{"transactionid":"C83C"}}}"#,
        );
        assert_eq!(error.message, "No authorization");
        assert_eq!(error.transaction_id, "C83C");
    }
}
