//! The JSON-RPC 2.0 envelope as A2A uses it: request classification in the
//! order the conformance kit expects, error codes, and response bodies.

use super::decode::MAX_ID_BYTES;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const JSON_PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
pub const UNSUPPORTED_OPERATION: i64 = -32004;
pub const EXTENDED_CARD_NOT_CONFIGURED: i64 = -32007;

/// A JSON-RPC error object (`code`, `message`, optional `data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn parse_error() -> Self {
        Self::new(JSON_PARSE_ERROR, "Invalid JSON payload")
    }

    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, detail)
    }

    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", super::clip::clip(method)),
        )
    }

    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, detail)
    }

    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(INTERNAL_ERROR, detail)
    }

    pub fn unsupported(detail: impl Into<String>) -> Self {
        Self::new(UNSUPPORTED_OPERATION, detail)
    }

    pub fn extended_card_not_configured() -> Self {
        Self::new(
            EXTENDED_CARD_NOT_CONFIGURED,
            "Authenticated Extended Card is not configured",
        )
    }
}

/// A request that passed envelope validation. `id` is a string or an
/// integer, or `Value::Null` when the request had none (or `null`): such a
/// request is checked like any other and answered with `id: null`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcRequest {
    pub id: Value,
    pub method: String,
    pub params: Option<Value>,
}

/// The answer to a request that passed every check but has no id: A2A's
/// request types all require one, so it is not run (as the reference SDK
/// does, -32602 with `id: null`).
pub fn missing_id() -> RpcError {
    RpcError::invalid_params(
        "missing `id`: A2A requests need a string or integer id; the request was checked but not run",
    )
}

/// An envelope failure, with the id to echo (`Value::Null` when unreadable).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeError {
    pub id: Value,
    pub error: RpcError,
}

/// Classify a request body in the order of `a2a-0.3.md` §8.2: parse error,
/// not an object, bad id, bad `jsonrpc`, bad `method`. Method and params are
/// checked by the caller, also for a request without an id. A string id is
/// at most [`MAX_ID_BYTES`] long, as every id a client chooses: a longer
/// one is a bad id, answered with `id: null` (it is echoed in the answer
/// and named on the request's span and log line).
pub fn parse_request(body: &[u8]) -> Result<RpcRequest, EnvelopeError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| EnvelopeError {
        id: Value::Null,
        error: RpcError::parse_error(),
    })?;
    let Value::Object(mut object) = value else {
        let what = if value.is_array() {
            "batch requests are not supported; send one JSON-RPC request object"
        } else {
            "the request must be a JSON object"
        };
        return Err(EnvelopeError {
            id: Value::Null,
            error: RpcError::invalid_request(what),
        });
    };
    let id = match object.remove("id") {
        // A notification: the usual checks apply, the answer has `id: null`.
        None | Some(Value::Null) => Value::Null,
        Some(Value::String(id)) if id.len() > MAX_ID_BYTES => {
            return Err(EnvelopeError {
                id: Value::Null,
                error: RpcError::invalid_request(format!(
                    "`id` is {} bytes, more than the {MAX_ID_BYTES} an id may have",
                    id.len()
                )),
            });
        }
        Some(id @ Value::String(_)) => id,
        Some(Value::Number(number)) if number.is_i64() || number.is_u64() => Value::Number(number),
        Some(_) => {
            return Err(EnvelopeError {
                id: Value::Null,
                error: RpcError::invalid_request("`id` must be a string or an integer"),
            });
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(EnvelopeError {
            id,
            error: RpcError::invalid_request("`jsonrpc` must be \"2.0\""),
        });
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => {
            return Err(EnvelopeError {
                id,
                error: RpcError::invalid_request("`method` must be a string"),
            });
        }
        None => {
            return Err(EnvelopeError {
                id,
                error: RpcError::invalid_request("missing `method`"),
            });
        }
    };
    Ok(RpcRequest {
        id,
        method,
        params: object.remove("params"),
    })
}

/// Decode `params` into the method's type with the one params reader
/// ([`super::decode`]: objects must be objects, errors in JSON terms); the
/// error names the failing field by its path (e.g.
/// `params.message.parts[0]: missing field `kind``).
pub fn parse_params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, RpcError> {
    let params = match params {
        Some(Value::Object(object)) => Value::Object(object),
        Some(_) => return Err(RpcError::invalid_params("`params` must be an object")),
        None => return Err(RpcError::invalid_params("missing `params`")),
    };
    super::decode::decode(params).map_err(|(path, error)| {
        let location = if path == "." {
            "params".to_string()
        } else {
            format!("params.{path}")
        };
        RpcError::invalid_params(format!("{location}: {error}"))
    })
}

#[derive(Serialize)]
struct Success<'a, T> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: &'a T,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: &'a RpcError,
}

/// Room for a typical answer (a finished task with its answer and
/// proposal is 3–6 kB), so serializing it does not grow the buffer step
/// by step (about ten reallocations and copies otherwise; see bench/README.md).
const ANSWER_CAPACITY: usize = 8 * 1024;

/// A success response, serialized straight from the result type.
pub fn success_bytes<T: Serialize>(id: &Value, result: &T) -> Vec<u8> {
    let success = Success {
        jsonrpc: "2.0",
        id,
        result,
    };
    let mut out = Vec::with_capacity(ANSWER_CAPACITY);
    serde_json::to_writer(&mut out, &success)
        .map(|()| out)
        .unwrap_or_else(|error| {
            error_bytes(
                id,
                &RpcError::internal(format!("could not encode the result: {error}")),
            )
        })
}

/// A success response around a result that is JSON already (a task as its
/// store wrote it, by serde_json from the same type): the bytes
/// [`success_bytes`] writes for the value, without encoding it again.
pub fn success_bytes_raw(id: &Value, result: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + 64);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    // A `Value` read from the request always encodes.
    if serde_json::to_writer(&mut out, id).is_err() {
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result.as_bytes());
    out.push(b'}');
    out
}

/// An error response; `id` is `null` when it could not be read.
pub fn error_bytes(id: &Value, error: &RpcError) -> Vec<u8> {
    let failure = Failure {
        jsonrpc: "2.0",
        id,
        error,
    };
    // An RpcError is strings, numbers and JSON values: it always encodes.
    serde_json::to_vec(&failure).unwrap_or_default()
}

/// An error response body; `id` is `null` when it could not be read.
pub fn error_body(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result that is JSON already makes the same bytes as the value.
    #[test]
    fn a_raw_result_is_framed_like_an_encoded_one() {
        let result = json!({"kind": "task", "id": "t-1", "text": "a \"quoted\" line\n"});
        let encoded = serde_json::to_string(&result).unwrap();
        for id in [json!(7), json!("req-\"1\""), Value::Null] {
            assert_eq!(
                String::from_utf8(success_bytes_raw(&id, &encoded)).unwrap(),
                String::from_utf8(success_bytes(&id, &result)).unwrap()
            );
        }
    }

    #[test]
    fn unparsable_body_is_a_parse_error_with_null_id() {
        let error = parse_request(b"{not json").unwrap_err();
        assert_eq!(error.id, Value::Null);
        assert_eq!(error.error.code, JSON_PARSE_ERROR);
    }

    #[test]
    fn object_id_is_invalid_request_with_null_id() {
        let error = parse_request(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#).unwrap_err();
        assert_eq!(error.id, Value::Null);
        assert_eq!(error.error.code, INVALID_REQUEST);
    }

    #[test]
    fn an_id_longer_than_an_id_may_be_is_invalid_request_with_null_id() {
        let longest = "i".repeat(MAX_ID_BYTES);
        let body = format!(r#"{{"jsonrpc":"2.0","id":"{longest}","method":"x"}}"#);
        assert_eq!(parse_request(body.as_bytes()).unwrap().id, json!(longest));
        let body = format!(r#"{{"jsonrpc":"2.0","id":"{longest}i","method":"x"}}"#);
        let error = parse_request(body.as_bytes()).unwrap_err();
        assert_eq!((error.id, error.error.code), (Value::Null, INVALID_REQUEST));
        assert!(
            error.error.message.contains("257 bytes"),
            "{}",
            error.error.message
        );
    }

    #[test]
    fn an_unknown_method_is_echoed_cut() {
        let error = RpcError::method_not_found(&"m".repeat(1 << 20));
        assert!(error.message.len() < 200, "{}", error.message.len());
    }

    #[test]
    fn fractional_id_is_invalid_request() {
        let error = parse_request(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#).unwrap_err();
        assert_eq!(error.error.code, INVALID_REQUEST);
    }

    #[test]
    fn a_missing_or_null_id_is_a_null_id_not_an_error() {
        for body in [
            &br#"{"jsonrpc":"2.0","method":"x"}"#[..],
            br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        ] {
            let request = parse_request(body).unwrap();
            assert_eq!(request.id, Value::Null);
            assert!(request.id.is_null());
        }
        let error = parse_request(br#"{"jsonrpc":"1.0","method":"x"}"#).unwrap_err();
        assert_eq!((error.id, error.error.code), (Value::Null, INVALID_REQUEST));
    }

    #[test]
    fn wrong_version_echoes_the_id() {
        let error = parse_request(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#).unwrap_err();
        assert_eq!(error.id, json!(7));
        assert_eq!(error.error.code, INVALID_REQUEST);
    }

    #[test]
    fn params_errors_name_the_field() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Inner {
            text: String,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Outer {
            inner: Inner,
        }
        let error = parse_params::<Outer>(Some(json!({"inner": {"text": 5}}))).unwrap_err();
        assert_eq!(error.code, INVALID_PARAMS);
        assert!(
            error.message.starts_with("params.inner.text:"),
            "{}",
            error.message
        );
    }
}
