//! The one reader of JSON-RPC `params`: typed A2A values out of the request's
//! JSON, stricter than serde's own reading of a `serde_json::Value` where the
//! protocol needs it.
//!
//! * Every object of the schema is a JSON object on the wire. serde reads a
//!   JSON array into a struct by position, so `["message","user",[…],"m-1"]`
//!   would be a `Message` and `"configuration": []` a configuration; here a
//!   struct, a map or an enum only comes from what the schema says it is.
//! * Errors speak of JSON (`expected an object, got an array`), never of the
//!   Rust types behind the schema (`expected struct PushNotificationConfig
//!   with 4 elements`).
//! * Ids a client chooses (`messageId`, `taskId`, `contextId`, config ids)
//!   are at most [`MAX_ID_BYTES`] long. The types mark those fields with
//!   [`id`], [`optional_id`] or [`optional_ids`]; only this reader enforces
//!   the limit, so what the service stored itself reads back as stored.
//!
//! Field paths come from `serde_path_to_error` on top of this reader
//! (`params.message.parts[0]`), as for every other params error.

use serde::de::{self, Deserializer, Expected, IntoDeserializer, Unexpected, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use serde_json::{Map, Value};
use std::fmt;

/// The longest id a client may send, in bytes (UTF-8). Long enough for any
/// UUID, ULID or composite key a caller uses; short enough that an id never
/// weighs on a task, a log line or an answer.
pub const MAX_ID_BYTES: usize = 256;

/// The newtype name by which id fields ask this reader for the length check.
const BOUNDED_ID: &str = "$a2a::BoundedId";

/// Decode `value` as a `T`; the error names the failing field by its path
/// below the root (`.` for the root itself).
pub fn decode<T: de::DeserializeOwned>(value: Value) -> Result<T, (String, DecodeError)> {
    serde_path_to_error::deserialize(Wire(value)).map_err(|error| {
        let path = error.path().to_string();
        (path, error.into_inner())
    })
}

/// Why a value could not be decoded, in JSON terms.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

/// The JSON type of a value, as errors name it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What serde's `Unexpected` is, in JSON terms.
fn unexpected(unexpected: &Unexpected<'_>) -> String {
    match unexpected {
        Unexpected::Bool(_) => "a boolean".into(),
        Unexpected::Unsigned(_) | Unexpected::Signed(_) => "an integer".into(),
        Unexpected::Float(_) => "a number".into(),
        Unexpected::Char(_) | Unexpected::Str(_) | Unexpected::Bytes(_) => "a string".into(),
        Unexpected::Unit | Unexpected::Option => "null".into(),
        Unexpected::Seq => "an array".into(),
        Unexpected::Map => "an object".into(),
        Unexpected::NewtypeStruct
        | Unexpected::Enum
        | Unexpected::UnitVariant
        | Unexpected::NewtypeVariant
        | Unexpected::TupleVariant
        | Unexpected::StructVariant => "a value of another shape".into(),
        Unexpected::Other(other) => (*other).to_string(),
    }
}

fn quoted(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    names.join(", ")
}

impl DecodeError {
    fn expected(what: &str, got: &Value) -> Self {
        DecodeError(format!("expected {what}, got {}", json_type(got)))
    }
}

/// serde's messages name the Rust side (`expected struct Message`, `i64`);
/// each is replaced by one about the JSON.
impl de::Error for DecodeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DecodeError(message.to_string())
    }

    fn invalid_type(got: Unexpected<'_>, _expected: &dyn Expected) -> Self {
        DecodeError(format!("unexpected {}", unexpected(&got)))
    }

    fn invalid_value(got: Unexpected<'_>, _expected: &dyn Expected) -> Self {
        match got {
            Unexpected::Unsigned(n) => DecodeError(format!("the number {n} is out of range")),
            Unexpected::Signed(n) => DecodeError(format!("the number {n} is out of range")),
            Unexpected::Float(n) => DecodeError(format!("the number {n} is out of range")),
            other => DecodeError(format!("invalid value: {}", unexpected(&other))),
        }
    }

    fn invalid_length(length: usize, _expected: &dyn Expected) -> Self {
        DecodeError(format!("unexpected number of items ({length})"))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        DecodeError(format!(
            "unknown value \"{}\", expected one of {}",
            super::clip::clip(variant),
            quoted(expected)
        ))
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        DecodeError(format!(
            "unknown member `{}`, expected one of {}",
            super::clip::clip(field),
            quoted(expected)
        ))
    }

    fn missing_field(field: &'static str) -> Self {
        DecodeError(format!("missing field `{field}`"))
    }

    fn duplicate_field(field: &'static str) -> Self {
        DecodeError(format!("duplicate member `{field}`"))
    }
}

/// A JSON value read by the rules above.
struct Wire(Value);

impl<'de> IntoDeserializer<'de, DecodeError> for Wire {
    type Deserializer = Wire;

    fn into_deserializer(self) -> Wire {
        self
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    items: Vec<Value>,
    visitor: V,
) -> Result<V::Value, DecodeError> {
    let mut items = de::value::SeqDeserializer::new(items.into_iter().map(Wire));
    let value = visitor.visit_seq(&mut items)?;
    items.end()?;
    Ok(value)
}

fn visit_object<'de, V: Visitor<'de>>(
    object: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, DecodeError> {
    let mut members =
        de::value::MapDeserializer::new(object.into_iter().map(|(key, value)| (key, Wire(value))));
    let value = visitor.visit_map(&mut members)?;
    members.end()?;
    Ok(value)
}

impl Wire {
    fn integer<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match &self.0 {
            Value::Number(number) if !number.is_f64() => self.deserialize_any(visitor),
            other => Err(DecodeError::expected("an integer", other)),
        }
    }

    fn number<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match &self.0 {
            Value::Number(_) => self.deserialize_any(visitor),
            other => Err(DecodeError::expected("a number", other)),
        }
    }

    fn string<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::String(text) => visitor.visit_string(text),
            other => Err(DecodeError::expected("a string", &other)),
        }
    }

    fn array<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(DecodeError::expected("an array", &other)),
        }
    }

    fn object<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::Object(object) => visit_object(object, visitor),
            other => Err(DecodeError::expected("an object", &other)),
        }
    }
}

impl<'de> Deserializer<'de> for Wire {
    type Error = DecodeError;

    /// Free-form JSON (metadata, data parts): anything goes.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(value) => visitor.visit_bool(value),
            Value::Number(number) => {
                if let Some(n) = number.as_u64() {
                    visitor.visit_u64(n)
                } else if let Some(n) = number.as_i64() {
                    visitor.visit_i64(n)
                } else {
                    visitor.visit_f64(number.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(text) => visitor.visit_string(text),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(object) => visit_object(object, visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::Bool(value) => visitor.visit_bool(value),
            other => Err(DecodeError::expected("a boolean", &other)),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.integer(visitor)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.number(visitor)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.number(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.string(visitor)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.string(visitor)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.string(visitor)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.string(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(Wire(value)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(DecodeError::expected("null", &other)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_unit(visitor)
    }

    /// The id fields come through here, asking for the length check.
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name == BOUNDED_ID
            && let Value::String(id) = &self.0
            && id.len() > MAX_ID_BYTES
        {
            return Err(DecodeError(format!(
                "an id must be at most {MAX_ID_BYTES} bytes long (got {} bytes)",
                id.len()
            )));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.array(visitor)
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _length: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.array(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _length: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.array(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.object(visitor)
    }

    /// The heart of it: a struct only from a JSON object, never by position.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.object(visitor)
    }

    /// The schema's enums are strings (`role`, `kind`).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        match self.0 {
            Value::String(text) => visitor.visit_enum(text.into_deserializer()),
            other => Err(DecodeError::expected(
                &format!("one of {}", quoted(variants)),
                &other,
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! { bytes byte_buf }
}

/// A client-chosen id; the reader above bounds its length.
struct BoundedId(String);

impl<'de> Deserialize<'de> for BoundedId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl<'de> Visitor<'de> for IdVisitor {
            type Value = BoundedId;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string")
            }

            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<BoundedId, D::Error> {
                String::deserialize(deserializer).map(BoundedId)
            }

            fn visit_str<E: de::Error>(self, id: &str) -> Result<BoundedId, E> {
                Ok(BoundedId(id.to_string()))
            }

            fn visit_string<E: de::Error>(self, id: String) -> Result<BoundedId, E> {
                Ok(BoundedId(id))
            }
        }

        deserializer.deserialize_newtype_struct(BOUNDED_ID, IdVisitor)
    }
}

/// `#[serde(deserialize_with = "…")]` for a required id.
pub fn id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    BoundedId::deserialize(deserializer).map(|id| id.0)
}

/// `#[serde(default, deserialize_with = "…")]` for an optional id.
pub fn optional_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Option::<BoundedId>::deserialize(deserializer).map(|id| id.map(|id| id.0))
}

/// `#[serde(default, deserialize_with = "…")]` for an optional list of ids.
pub fn optional_ids<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<String>>, D::Error> {
    Option::<Vec<BoundedId>>::deserialize(deserializer)
        .map(|ids| ids.map(|ids| ids.into_iter().map(|id| id.0).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Inner {
        #[serde(deserialize_with = "id")]
        id: String,
        #[serde(default)]
        count: Option<i64>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        inner: Inner,
        #[serde(default)]
        list: Vec<Inner>,
        #[serde(default)]
        extra: Option<Map<String, Value>>,
    }

    fn error(value: Value) -> String {
        let (path, error) = decode::<Outer>(value).unwrap_err();
        format!("{path}: {error}")
    }

    #[test]
    fn objects_decode_and_free_form_json_stays_free() {
        let outer: Outer = decode(json!({
            "inner": { "id": "a", "count": 3 },
            "list": [{ "id": "b" }],
            "extra": { "nested": [1, [2, {"x": null}], 1.5, -4, true] },
            "unknown": [1]
        }))
        .unwrap();
        assert_eq!(outer.inner.count, Some(3));
        assert_eq!(outer.list[0].id, "b");
        assert_eq!(
            outer.extra.unwrap()["nested"],
            json!([1, [2, {"x": null}], 1.5, -4, true])
        );
    }

    #[test]
    fn an_array_is_no_struct() {
        assert_eq!(
            error(json!({ "inner": ["a", 3] })),
            "inner: expected an object, got an array"
        );
        assert_eq!(
            error(json!({ "inner": { "id": "a" }, "list": [["b"]] })),
            "list[0]: expected an object, got an array"
        );
        assert_eq!(
            error(json!({ "inner": { "id": "a" }, "extra": [] })),
            "extra: expected an object, got an array"
        );
    }

    #[test]
    fn type_errors_name_json_types() {
        assert_eq!(
            error(json!({ "inner": { "id": 5 } })),
            "inner.id: expected a string, got an integer"
        );
        assert_eq!(
            error(json!({ "inner": { "id": "a", "count": 1.5 } })),
            "inner.count: expected an integer, got a number"
        );
        assert_eq!(
            error(json!({ "inner": { "id": "a", "count": u64::MAX } })),
            format!("inner.count: the number {} is out of range", u64::MAX)
        );
        assert_eq!(error(json!({})), ".: missing field `inner`");
    }

    #[test]
    fn ids_are_bounded_here_only() {
        let long = "x".repeat(MAX_ID_BYTES + 1);
        assert_eq!(
            error(json!({ "inner": { "id": long } })),
            format!(
                "inner.id: an id must be at most {MAX_ID_BYTES} bytes long (got {} bytes)",
                MAX_ID_BYTES + 1
            )
        );
        let at_limit = "x".repeat(MAX_ID_BYTES);
        assert!(decode::<Outer>(json!({ "inner": { "id": at_limit } })).is_ok());
        // What the service stored itself reads back as stored.
        let stored: Inner = serde_json::from_value(json!({ "id": long })).unwrap();
        assert_eq!(stored.id.len(), MAX_ID_BYTES + 1);
        let stored: Inner = serde_json::from_str(&json!({ "id": long }).to_string()).unwrap();
        assert_eq!(stored.id.len(), MAX_ID_BYTES + 1);
    }
}
