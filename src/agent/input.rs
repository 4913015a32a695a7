//! Structured input: the fields of a data part this agent knows. A calling
//! agent may pass `{"salesOrder": "4711"}` (or S/4HANA's `SalesOrder`, and a
//! block note) instead of, or next to, text. The agent reads those fields by
//! name and nothing else; unknown members are ignored, as A2A asks, and a
//! data object is never turned into text wholesale.

use serde_json::{Map, Value};

/// Keys that carry the sales order number, the first found wins.
const ORDER_KEYS: &[&str] = &[
    "salesOrder",
    "SalesOrder",
    "salesOrderId",
    "SalesOrderId",
    "salesOrderNumber",
    "order",
    "orderId",
];

/// Keys that carry a note about the block (its words route like text).
const NOTE_KEYS: &[&str] = &["blockNote", "BlockNote", "note", "reason"];

/// The longest sales order number S/4HANA has (`VBELN`, 10 digits).
const MAX_ORDER_DIGITS: usize = 10;

/// What one message's data parts tell the agent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataFields {
    /// Digits only, as the order source looks orders up.
    pub sales_order: Option<String>,
    pub note: Option<String>,
}

impl DataFields {
    /// The known fields of one message's data parts; within the message the
    /// first part that has a field wins.
    pub fn read(data: &[Map<String, Value>]) -> DataFields {
        let first = |keys: &[&str], read: fn(&Value) -> Option<String>| {
            data.iter()
                .find_map(|object| keys.iter().find_map(|key| object.get(*key).and_then(read)))
        };
        DataFields {
            sales_order: first(ORDER_KEYS, order_number),
            note: first(NOTE_KEYS, note),
        }
    }
}

/// A sales order number: a string of 1 to 10 digits (surrounding spaces
/// allowed) or a non-negative integer of as many digits.
fn order_number(value: &Value) -> Option<String> {
    let digits = match value {
        Value::String(text) => text.trim().to_string(),
        Value::Number(number) => number.as_u64()?.to_string(),
        _ => return None,
    };
    let valid = (1..=MAX_ORDER_DIGITS).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit());
    valid.then_some(digits)
}

fn note(value: &Value) -> Option<String> {
    value
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(data: Value) -> DataFields {
        let Value::Array(objects) = data else {
            panic!("a list of data objects")
        };
        let objects: Vec<Map<String, Value>> = objects
            .into_iter()
            .map(|object| match object {
                Value::Object(object) => object,
                other => panic!("not an object: {other}"),
            })
            .collect();
        DataFields::read(&objects)
    }

    #[test]
    fn the_order_number_by_any_of_its_names() {
        for data in [
            json!([{ "salesOrder": "4711" }]),
            json!([{ "SalesOrder": 4711 }]),
            json!([{ "salesOrderId": " 4711 " }]),
            json!([{ "order": "4711" }]),
            json!([{ "other": 1 }, { "orderId": 4711 }]),
        ] {
            assert_eq!(
                read(data.clone()).sales_order.as_deref(),
                Some("4711"),
                "{data}"
            );
        }
    }

    #[test]
    fn what_is_no_order_number_is_ignored() {
        for data in [
            json!([{ "salesOrder": "47a1" }]),
            json!([{ "salesOrder": -4711 }]),
            json!([{ "salesOrder": 47.11 }]),
            json!([{ "salesOrder": "12345678901" }]),
            json!([{ "salesOrder": { "SalesOrder": "4711" } }]),
            json!([{ "customer": "10023" }]),
        ] {
            assert_eq!(read(data.clone()).sales_order, None, "{data}");
        }
        // The first usable field wins, within an object and across parts.
        let fields =
            read(json!([{ "salesOrder": "x", "order": "4725" }, { "salesOrder": "4711" }]));
        assert_eq!(fields.sales_order.as_deref(), Some("4725"));
    }

    #[test]
    fn a_block_note() {
        let fields =
            read(json!([{ "SalesOrder": "4711", "blockNote": " credit limit exceeded " }]));
        assert_eq!(fields.note.as_deref(), Some("credit limit exceeded"));
        assert_eq!(read(json!([{ "note": 5 }])).note, None);
    }
}
