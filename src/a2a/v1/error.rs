//! The 1.0 error model (`a2a-1.0.md` §5): the JSON-RPC codes, with
//! −32008 and −32009 new in 1.0, and `error.data` as an array of ProtoJSON
//! `google.protobuf.Any` objects whose first entry is a `google.rpc.ErrorInfo`
//! naming the error (`reason`, `domain: "a2a-protocol.org"`, `metadata`).
//!
//! Project rule (§5): every error on the 1.0 wire carries that array, the
//! standard JSON-RPC codes too (their reasons, `INVALID_PARAMS` and so on,
//! are the ones the official Rust SDK `a2a-lf` uses); the human-readable
//! detail stays in `error.message`. The 0.3 wire keeps its free-form `data`
//! and never sees −32008 or −32009.

use crate::a2a::clip::clip;
use crate::a2a::jsonrpc::RpcError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `google.rpc.ErrorInfo.domain` of every A2A error.
pub const DOMAIN: &str = "a2a-protocol.org";
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";
const STRUCT_TYPE: &str = "type.googleapis.com/google.protobuf.Struct";
const VALUE_TYPE: &str = "type.googleapis.com/google.protobuf.Value";

/// Every error code of the 1.0 JSON-RPC binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    InternalError,
    TaskNotFound,
    TaskNotCancelable,
    PushNotificationNotSupported,
    UnsupportedOperation,
    /// A part's media type is not accepted.
    ContentTypeNotSupported,
    InvalidAgentResponse,
    ExtendedAgentCardNotConfigured,
    /// The card declares a `required` extension the client did not request.
    ExtensionSupportRequired,
    VersionNotSupported,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 14] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::InvalidParams,
        ErrorCode::InternalError,
        ErrorCode::TaskNotFound,
        ErrorCode::TaskNotCancelable,
        ErrorCode::PushNotificationNotSupported,
        ErrorCode::UnsupportedOperation,
        ErrorCode::ContentTypeNotSupported,
        ErrorCode::InvalidAgentResponse,
        ErrorCode::ExtendedAgentCardNotConfigured,
        ErrorCode::ExtensionSupportRequired,
        ErrorCode::VersionNotSupported,
    ];

    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::TaskNotFound => -32001,
            ErrorCode::TaskNotCancelable => -32002,
            ErrorCode::PushNotificationNotSupported => -32003,
            ErrorCode::UnsupportedOperation => -32004,
            ErrorCode::ContentTypeNotSupported => -32005,
            ErrorCode::InvalidAgentResponse => -32006,
            ErrorCode::ExtendedAgentCardNotConfigured => -32007,
            ErrorCode::ExtensionSupportRequired => -32008,
            ErrorCode::VersionNotSupported => -32009,
        }
    }

    /// `ErrorInfo.reason`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::MethodNotFound => "METHOD_NOT_FOUND",
            ErrorCode::InvalidParams => "INVALID_PARAMS",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::TaskNotFound => "TASK_NOT_FOUND",
            ErrorCode::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            ErrorCode::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ErrorCode::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorCode::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            ErrorCode::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            ErrorCode::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            ErrorCode::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            ErrorCode::VersionNotSupported => "VERSION_NOT_SUPPORTED",
        }
    }

    pub fn from_code(code: i64) -> Option<ErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .find(|known| known.code() == code)
    }

    /// −32001 … −32009: the A2A errors, for which the ErrorInfo is a MUST.
    pub fn is_a2a_specific(self) -> bool {
        (-32009..=-32001).contains(&self.code())
    }
}

/// `google.rpc.ErrorInfo` as a ProtoJSON `Any`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    #[serde(rename = "@type")]
    pub type_url: String,
    pub reason: String,
    pub domain: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
}

impl ErrorInfo {
    pub fn new(code: ErrorCode, metadata: BTreeMap<String, String>) -> ErrorInfo {
        ErrorInfo {
            type_url: ERROR_INFO_TYPE.to_string(),
            reason: code.reason().to_string(),
            domain: DOMAIN.to_string(),
            metadata,
        }
    }
}

/// An error answered on the 1.0 wire.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} ({}): {message}", code.reason(), code.code())]
pub struct A2aError {
    pub code: ErrorCode,
    /// `error.message`: what went wrong, for a person.
    pub message: String,
    /// `ErrorInfo.metadata`: lowerCamelCase keys, string values.
    pub metadata: BTreeMap<String, String>,
    /// More `Any` entries after the ErrorInfo (e.g. `google.rpc.BadRequest`).
    pub details: Vec<Value>,
}

impl A2aError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> A2aError {
        A2aError {
            code,
            message: message.into(),
            metadata: BTreeMap::new(),
            details: Vec::new(),
        }
    }

    pub fn with_metadata(mut self, key: &str, value: impl Into<String>) -> A2aError {
        self.metadata.insert(key.to_string(), value.into());
        self
    }

    pub fn with_detail(mut self, detail: Value) -> A2aError {
        self.details.push(detail);
        self
    }

    pub fn parse_error() -> A2aError {
        A2aError::new(ErrorCode::ParseError, "Invalid JSON payload")
    }

    pub fn invalid_request(detail: impl Into<String>) -> A2aError {
        A2aError::new(ErrorCode::InvalidRequest, detail)
    }

    pub fn method_not_found(method: &str) -> A2aError {
        A2aError::new(
            ErrorCode::MethodNotFound,
            format!("Method not found: {}", clip(method)),
        )
        .with_metadata("method", clip(method))
    }

    pub fn invalid_params(detail: impl Into<String>) -> A2aError {
        A2aError::new(ErrorCode::InvalidParams, detail)
    }

    /// −32602 naming the field, with a `google.rpc.BadRequest` detail as
    /// a2a-python sends one (`field` as a path such as `message.parts[0]`).
    pub fn invalid_field(field: &str, description: &str) -> A2aError {
        A2aError::invalid_params(format!("params.{field}: {description}")).with_detail(
            serde_json::json!({
                "@type": BAD_REQUEST_TYPE,
                "fieldViolations": [{"field": field, "description": description}],
            }),
        )
    }

    pub fn internal(detail: impl Into<String>) -> A2aError {
        A2aError::new(ErrorCode::InternalError, detail)
    }

    pub fn task_not_found(task_id: &str) -> A2aError {
        A2aError::new(
            ErrorCode::TaskNotFound,
            format!("Task not found: {task_id}"),
        )
        .with_metadata("taskId", clip(task_id))
    }

    /// `state` as the proto names it (`TASK_STATE_COMPLETED`).
    pub fn task_not_cancelable(task_id: &str, state: &str) -> A2aError {
        A2aError::new(
            ErrorCode::TaskNotCancelable,
            format!("Task cannot be canceled: {task_id} is already {state}"),
        )
        .with_metadata("taskId", clip(task_id))
        .with_metadata("state", state)
    }

    pub fn push_notification_not_supported() -> A2aError {
        A2aError::new(
            ErrorCode::PushNotificationNotSupported,
            "Push Notification is not supported",
        )
    }

    pub fn unsupported_operation(detail: impl Into<String>) -> A2aError {
        A2aError::new(ErrorCode::UnsupportedOperation, detail)
    }

    /// A message to (or a subscription on) a task that is terminal.
    pub fn task_is_terminal(task_id: &str, state: &str) -> A2aError {
        A2aError::unsupported_operation(format!("Task {task_id} is in terminal state {state}"))
            .with_metadata("taskId", clip(task_id))
            .with_metadata("state", state)
    }

    pub fn content_type_not_supported(media_type: &str) -> A2aError {
        A2aError::new(
            ErrorCode::ContentTypeNotSupported,
            format!("Content type not supported: {media_type}"),
        )
        .with_metadata("mediaType", clip(media_type))
    }

    pub fn invalid_agent_response(detail: impl Into<String>) -> A2aError {
        A2aError::new(ErrorCode::InvalidAgentResponse, detail)
    }

    pub fn extended_agent_card_not_configured() -> A2aError {
        A2aError::new(
            ErrorCode::ExtendedAgentCardNotConfigured,
            "Extended Agent Card is not configured",
        )
    }

    pub fn extension_support_required(uri: &str) -> A2aError {
        A2aError::new(
            ErrorCode::ExtensionSupportRequired,
            format!("The agent requires extension {uri}; request it in the A2A-Extensions header"),
        )
        .with_metadata("extension", clip(uri))
    }

    /// −32009 for an `A2A-Version` this agent does not speak.
    pub fn version_not_supported(requested: &str) -> A2aError {
        A2aError::new(
            ErrorCode::VersionNotSupported,
            format!(
                "A2A-Version {:?} is not supported; this agent speaks {}",
                clip(requested),
                super::supported::SUPPORTED_VERSIONS.join(" and ")
            ),
        )
        .with_metadata("requestedVersion", clip(requested))
        .with_metadata(
            "supportedVersions",
            super::supported::SUPPORTED_VERSIONS.join(","),
        )
    }

    /// −32009 for a 1.0 method sent without `A2A-Version` (read as 0.3).
    pub fn version_required(method: &str) -> A2aError {
        A2aError::new(
            ErrorCode::VersionNotSupported,
            format!(
                "{} is an A2A 1.0 method; a request without A2A-Version is read as 0.3. Send the header `A2A-Version: 1.0`",
                clip(method)
            ),
        )
        .with_metadata("requestedVersion", "0.3")
        .with_metadata("method", clip(method))
        .with_metadata("supportedVersions", super::supported::SUPPORTED_VERSIONS.join(","))
    }

    /// A 0.3-shaped error (what the engine and the envelope checks produce)
    /// in the 1.0 shape: same code and message, the ErrorInfo first, and a
    /// free-form 0.3 `data` kept as a `google.protobuf.Struct` (an object)
    /// or `google.protobuf.Value` (anything else) `Any`. A code outside the
    /// 1.0 table becomes −32603, keeping the message.
    pub fn from_rpc_error(error: &RpcError) -> A2aError {
        let code = ErrorCode::from_code(error.code).unwrap_or(ErrorCode::InternalError);
        let mut converted = A2aError::new(code, error.message.clone());
        match &error.data {
            None => {}
            Some(Value::Array(entries)) if entries.iter().all(is_any) => {
                // Already 1.0-shaped: keep its entries, without a second ErrorInfo.
                for entry in entries {
                    if entry["@type"] == ERROR_INFO_TYPE {
                        if let Some(metadata) = entry["metadata"].as_object() {
                            for (key, value) in metadata {
                                if let Some(value) = value.as_str() {
                                    converted.metadata.insert(key.clone(), value.to_string());
                                }
                            }
                        }
                    } else {
                        converted.details.push(entry.clone());
                    }
                }
            }
            Some(object @ Value::Object(_)) => converted
                .details
                .push(serde_json::json!({"@type": STRUCT_TYPE, "value": object})),
            Some(other) => converted
                .details
                .push(serde_json::json!({"@type": VALUE_TYPE, "value": other})),
        }
        converted
    }

    /// `error.data`: the ErrorInfo, then the other details.
    pub fn data(&self) -> Value {
        let info = ErrorInfo::new(self.code, self.metadata.clone());
        let mut entries = Vec::with_capacity(1 + self.details.len());
        entries.push(serde_json::to_value(info).unwrap_or(Value::Null));
        entries.extend(self.details.iter().cloned());
        Value::Array(entries)
    }

    /// The JSON-RPC error object to answer with on the 1.0 wire.
    pub fn to_rpc_error(&self) -> RpcError {
        RpcError::new(self.code.code(), self.message.clone()).with_data(self.data())
    }
}

impl From<A2aError> for RpcError {
    fn from(error: A2aError) -> RpcError {
        error.to_rpc_error()
    }
}

fn is_any(entry: &Value) -> bool {
    entry.get("@type").is_some_and(Value::is_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_and_reasons_match_the_reference_table() {
        let table = [
            (-32700, "PARSE_ERROR"),
            (-32600, "INVALID_REQUEST"),
            (-32601, "METHOD_NOT_FOUND"),
            (-32602, "INVALID_PARAMS"),
            (-32603, "INTERNAL_ERROR"),
            (-32001, "TASK_NOT_FOUND"),
            (-32002, "TASK_NOT_CANCELABLE"),
            (-32003, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
            (-32004, "UNSUPPORTED_OPERATION"),
            (-32005, "CONTENT_TYPE_NOT_SUPPORTED"),
            (-32006, "INVALID_AGENT_RESPONSE"),
            (-32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
            (-32008, "EXTENSION_SUPPORT_REQUIRED"),
            (-32009, "VERSION_NOT_SUPPORTED"),
        ];
        for (code, reason) in table {
            let known = ErrorCode::from_code(code).expect("a 1.0 code");
            assert_eq!(known.reason(), reason);
            assert_eq!(known.is_a2a_specific(), code > -32100, "{reason}");
        }
        assert_eq!(ErrorCode::from_code(-32000), None);
    }

    #[test]
    fn every_error_carries_the_error_info_first() {
        let errors = [
            (A2aError::parse_error(), -32700),
            (A2aError::invalid_request("x"), -32600),
            (A2aError::method_not_found("tasks/get"), -32601),
            (A2aError::invalid_params("params.id: missing"), -32602),
            (A2aError::internal("store down"), -32603),
            (A2aError::task_not_found("t-1"), -32001),
            (
                A2aError::task_not_cancelable("t-1", "TASK_STATE_COMPLETED"),
                -32002,
            ),
            (A2aError::push_notification_not_supported(), -32003),
            (
                A2aError::task_is_terminal("t-1", "TASK_STATE_COMPLETED"),
                -32004,
            ),
            (A2aError::content_type_not_supported("image/png"), -32005),
            (A2aError::invalid_agent_response("no parts"), -32006),
            (A2aError::extended_agent_card_not_configured(), -32007),
            (
                A2aError::extension_support_required("https://ext.example.com/v1"),
                -32008,
            ),
            (A2aError::version_not_supported("2.0"), -32009),
            (A2aError::version_required("SendMessage"), -32009),
        ];
        for (error, code) in errors {
            let rpc = error.to_rpc_error();
            assert_eq!(rpc.code, code);
            let data = rpc.data.expect("data");
            let info = &data[0];
            assert_eq!(info["@type"], ERROR_INFO_TYPE);
            assert_eq!(info["domain"], DOMAIN);
            assert_eq!(info["reason"], error.code.reason());
            assert!(!rpc.message.is_empty());
        }
    }

    #[test]
    fn the_error_object_has_the_reference_shape() {
        let rpc = A2aError::task_not_found("t-1").to_rpc_error();
        assert_eq!(
            serde_json::to_value(&rpc).expect("writes"),
            json!({
                "code": -32001,
                "message": "Task not found: t-1",
                "data": [{
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "TASK_NOT_FOUND",
                    "domain": "a2a-protocol.org",
                    "metadata": {"taskId": "t-1"}
                }]
            })
        );
    }

    #[test]
    fn invalid_field_adds_a_bad_request_detail() {
        let data = A2aError::invalid_field("message.role", "ROLE_UNSPECIFIED is not a sender")
            .to_rpc_error()
            .data
            .expect("data");
        assert_eq!(data[0]["reason"], "INVALID_PARAMS");
        assert_eq!(data[1]["@type"], BAD_REQUEST_TYPE);
        assert_eq!(data[1]["fieldViolations"][0]["field"], "message.role");
    }

    #[test]
    fn a_0_3_error_is_reshaped_for_the_1_0_wire() {
        let plain = RpcError::new(-32001, "Task not found: t-1");
        let reshaped = A2aError::from_rpc_error(&plain).to_rpc_error();
        assert_eq!(reshaped.code, -32001);
        assert_eq!(reshaped.message, "Task not found: t-1");
        assert_eq!(reshaped.data.expect("data")[0]["reason"], "TASK_NOT_FOUND");

        let with_data = RpcError::new(-32602, "bad").with_data(json!({"field": "message"}));
        let data = A2aError::from_rpc_error(&with_data)
            .to_rpc_error()
            .data
            .expect("data");
        assert_eq!(data[0]["reason"], "INVALID_PARAMS");
        assert_eq!(
            data[1],
            json!({"@type": "type.googleapis.com/google.protobuf.Struct", "value": {"field": "message"}})
        );

        let unknown = RpcError::new(-32000, "custom");
        let reshaped = A2aError::from_rpc_error(&unknown).to_rpc_error();
        assert_eq!(reshaped.code, -32603);
        assert_eq!(reshaped.message, "custom");

        // Reshaping a 1.0 error again changes nothing.
        let once = A2aError::task_not_found("t-1").to_rpc_error();
        let twice = A2aError::from_rpc_error(&once).to_rpc_error();
        assert_eq!(once, twice);
    }

    #[test]
    fn echoed_input_is_clipped() {
        let long = "x".repeat(1000);
        let error = A2aError::version_not_supported(&long);
        assert!(error.message.len() < 300, "{}", error.message.len());
        assert!(error.metadata["requestedVersion"].ends_with('…'));
    }
}
