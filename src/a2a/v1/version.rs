//! Which protocol version a JSON-RPC request speaks (`a2a-1.0.md` §1), as
//! a pure function of the `A2A-Version` header, the `A2A-Version` query
//! parameter and the method name. The HTTP layer extracts the two values
//! (the header name is case-insensitive); `rpc/` dispatches on the answer.
//!
//! The rules, in order:
//! 1. The version: the header; when it is absent or empty, the query
//!    parameter (§3.6.1); when that is absent or empty too, 0.3 (§3.6.2).
//!    A value is `Major.Minor` with an optional patch that is ignored
//!    (`1.0.3` is 1.0). Anything but 0.3 and 1.0 — `1.1`, `2.0`, `0.2`,
//!    garbage — is −32009, before the method is looked at (project rule:
//!    a2a-python would accept `1.1`, a2a-js would refuse `1.0.1`).
//! 2. The method, in that version's table:
//!    - found → that version;
//!    - a 1.0 method while no version was given → −32009 with a message
//!      that says to send `A2A-Version: 1.0` (a2a-python's answer);
//!    - anything else → −32601: a 0.3 name under 1.0 (`message/send` with
//!      `A2A-Version: 1.0`), a 1.0 name under an explicit `0.3`, an unknown
//!      name. Under 0.3 it is today's 0.3 error object, unchanged.

use super::error::A2aError;
use crate::a2a::jsonrpc::RpcError;

/// The service parameter's name, as header and as query parameter.
pub const VERSION_PARAMETER: &str = "A2A-Version";

/// The method names of the 0.3 wire (with the 0.2 alias `tasks/send`), as
/// `rpc/` dispatches them.
pub const V0_3_METHODS: [&str; 11] = [
    "message/send",
    "message/stream",
    "tasks/send",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireVersion {
    V0_3,
    V1_0,
}

impl WireVersion {
    /// `Major.Minor`, as the card's `protocolVersion` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            WireVersion::V0_3 => "0.3",
            WireVersion::V1_0 => "1.0",
        }
    }
}

/// The methods of the 1.0 JSON-RPC binding: the rpc names of `A2AService`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    SendMessage,
    SendStreamingMessage,
    GetTask,
    ListTasks,
    CancelTask,
    SubscribeToTask,
    CreateTaskPushNotificationConfig,
    GetTaskPushNotificationConfig,
    ListTaskPushNotificationConfigs,
    DeleteTaskPushNotificationConfig,
    GetExtendedAgentCard,
}

impl Method {
    pub const ALL: [Method; 11] = [
        Method::SendMessage,
        Method::SendStreamingMessage,
        Method::GetTask,
        Method::ListTasks,
        Method::CancelTask,
        Method::SubscribeToTask,
        Method::CreateTaskPushNotificationConfig,
        Method::GetTaskPushNotificationConfig,
        Method::ListTaskPushNotificationConfigs,
        Method::DeleteTaskPushNotificationConfig,
        Method::GetExtendedAgentCard,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Method::SendMessage => "SendMessage",
            Method::SendStreamingMessage => "SendStreamingMessage",
            Method::GetTask => "GetTask",
            Method::ListTasks => "ListTasks",
            Method::CancelTask => "CancelTask",
            Method::SubscribeToTask => "SubscribeToTask",
            Method::CreateTaskPushNotificationConfig => "CreateTaskPushNotificationConfig",
            Method::GetTaskPushNotificationConfig => "GetTaskPushNotificationConfig",
            Method::ListTaskPushNotificationConfigs => "ListTaskPushNotificationConfigs",
            Method::DeleteTaskPushNotificationConfig => "DeleteTaskPushNotificationConfig",
            Method::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }

    /// Exact, case-sensitive (JSON-RPC method names are).
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|method| method.name() == name)
    }
}

/// Where a request goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The 0.3 dispatcher, exactly as today; the method is one of [`V0_3_METHODS`].
    V0_3,
    V1_0(Method),
}

/// Why a request cannot be routed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NegotiationError {
    #[error("A2A-Version {requested:?} is not supported")]
    VersionNotSupported { requested: String },
    #[error("{} is a 1.0 method and needs `A2A-Version: 1.0`", method.name())]
    VersionRequired { method: Method },
    #[error("method not found in A2A {}: {method}", version.as_str())]
    MethodNotFound {
        method: String,
        version: WireVersion,
    },
}

impl NegotiationError {
    /// The JSON-RPC error object: −32009 is a 1.0 error (with its
    /// `ErrorInfo`); −32601 is in the shape of the version looked in.
    pub fn to_rpc_error(&self) -> RpcError {
        match self {
            NegotiationError::VersionNotSupported { requested } => {
                A2aError::version_not_supported(requested).to_rpc_error()
            }
            NegotiationError::VersionRequired { method } => {
                A2aError::version_required(method.name()).to_rpc_error()
            }
            NegotiationError::MethodNotFound {
                method,
                version: WireVersion::V0_3,
            } => RpcError::method_not_found(method),
            NegotiationError::MethodNotFound {
                method,
                version: WireVersion::V1_0,
            } => A2aError::method_not_found(method).to_rpc_error(),
        }
    }
}

/// The version a request asks for, and whether it asked at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requested {
    pub version: WireVersion,
    /// `false` when neither the header nor the query parameter had a value.
    pub explicit: bool,
}

/// Step 1: the version from the header, else the query parameter, else 0.3.
pub fn requested_version(
    header: Option<&str>,
    query: Option<&str>,
) -> Result<Requested, NegotiationError> {
    let given = [header, query]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|value| !value.is_empty());
    let Some(value) = given else {
        return Ok(Requested {
            version: WireVersion::V0_3,
            explicit: false,
        });
    };
    let version = match major_minor(value) {
        Some((0, 3)) => WireVersion::V0_3,
        Some((1, 0)) => WireVersion::V1_0,
        _ => {
            return Err(NegotiationError::VersionNotSupported {
                requested: value.to_string(),
            });
        }
    };
    Ok(Requested {
        version,
        explicit: true,
    })
}

/// `Major.Minor[.Patch]`, each a run of ASCII digits; the patch is ignored.
fn major_minor(value: &str) -> Option<(u32, u32)> {
    let mut components = value.split('.');
    let number = |component: Option<&str>| -> Option<u32> {
        let component = component?;
        if component.is_empty() || !component.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        component.parse().ok()
    };
    let major = number(components.next())?;
    let minor = number(components.next())?;
    if let Some(patch) = components.next() {
        number(Some(patch))?;
    }
    if components.next().is_some() {
        return None;
    }
    Some((major, minor))
}

/// Steps 1 and 2: the route for a request.
pub fn negotiate(
    header: Option<&str>,
    query: Option<&str>,
    method: &str,
) -> Result<Route, NegotiationError> {
    let requested = requested_version(header, query)?;
    let v1_method = Method::from_name(method);
    match requested.version {
        WireVersion::V0_3 if V0_3_METHODS.contains(&method) => Ok(Route::V0_3),
        WireVersion::V0_3 => match v1_method {
            Some(v1_method) if !requested.explicit => {
                Err(NegotiationError::VersionRequired { method: v1_method })
            }
            _ => Err(NegotiationError::MethodNotFound {
                method: method.to_string(),
                version: WireVersion::V0_3,
            }),
        },
        WireVersion::V1_0 => {
            v1_method
                .map(Route::V1_0)
                .ok_or_else(|| NegotiationError::MethodNotFound {
                    method: method.to_string(),
                    version: WireVersion::V1_0,
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn code(result: Result<Route, NegotiationError>) -> i64 {
        result.expect_err("an error").to_rpc_error().code
    }

    fn reason(error: &NegotiationError) -> Value {
        error.to_rpc_error().data.expect("1.0 data")[0]["reason"].clone()
    }

    #[test]
    fn joule_without_a_header_stays_on_0_3() {
        assert_eq!(negotiate(None, None, "message/send"), Ok(Route::V0_3));
        assert_eq!(negotiate(Some(""), None, "message/send"), Ok(Route::V0_3));
        assert_eq!(negotiate(Some("  "), None, "message/send"), Ok(Route::V0_3));
        for method in V0_3_METHODS {
            assert_eq!(negotiate(None, None, method), Ok(Route::V0_3), "{method}");
        }
    }

    #[test]
    fn the_sdks_0_3_clients_send_0_3_and_stay_on_0_3() {
        assert_eq!(
            negotiate(Some("0.3"), None, "message/send"),
            Ok(Route::V0_3)
        );
        assert_eq!(
            negotiate(Some("0.3.0"), None, "message/send"),
            Ok(Route::V0_3)
        );
        assert_eq!(negotiate(Some(" 0.3 "), None, "tasks/get"), Ok(Route::V0_3));
    }

    #[test]
    fn a_1_0_method_with_1_0_is_routed_to_1_0() {
        for method in Method::ALL {
            assert_eq!(
                negotiate(Some("1.0"), None, method.name()),
                Ok(Route::V1_0(method)),
                "{method:?}"
            );
        }
    }

    #[test]
    fn a_patch_number_is_ignored() {
        assert_eq!(
            negotiate(Some("1.0.3"), None, "GetTask"),
            Ok(Route::V1_0(Method::GetTask))
        );
        assert_eq!(
            negotiate(Some("1.0.0"), None, "GetTask"),
            Ok(Route::V1_0(Method::GetTask))
        );
    }

    #[test]
    fn a_1_0_method_without_a_version_is_32009_saying_what_to_send() {
        for header in [None, Some(""), Some(" ")] {
            let error = negotiate(header, None, "SendMessage").expect_err("no version");
            assert_eq!(
                error,
                NegotiationError::VersionRequired {
                    method: Method::SendMessage
                }
            );
            let rpc = error.to_rpc_error();
            assert_eq!(rpc.code, -32009);
            assert!(rpc.message.contains("A2A-Version: 1.0"), "{}", rpc.message);
            assert_eq!(reason(&error), "VERSION_NOT_SUPPORTED");
        }
    }

    #[test]
    fn unsupported_versions_are_32009_whatever_the_method() {
        for value in [
            "1.1",
            "1.1.0",
            "2.0",
            "0.2",
            "0.3.0.1",
            "1",
            "1.",
            ".0",
            "v1.0",
            "1.0-rc1",
            "1.0,0.3",
            "garbage",
            "１.０",
            "99999999999.0",
        ] {
            for method in ["SendMessage", "message/send", "no/such/method"] {
                let error = negotiate(Some(value), None, method).expect_err(value);
                assert_eq!(
                    error,
                    NegotiationError::VersionNotSupported {
                        requested: value.to_string()
                    },
                    "{value} {method}"
                );
                assert_eq!(error.to_rpc_error().code, -32009);
                assert_eq!(reason(&error), "VERSION_NOT_SUPPORTED");
            }
        }
    }

    #[test]
    fn a_0_3_method_under_1_0_does_not_exist() {
        for method in V0_3_METHODS {
            let error = negotiate(Some("1.0"), None, method).expect_err(method);
            assert_eq!(error.to_rpc_error().code, -32601);
            assert_eq!(reason(&error), "METHOD_NOT_FOUND");
        }
    }

    #[test]
    fn a_1_0_method_under_an_explicit_0_3_does_not_exist() {
        let error = negotiate(Some("0.3"), None, "SendMessage").expect_err("0.3");
        let answer = error.to_rpc_error();
        assert_eq!(answer.code, -32601);
        assert!(answer.data.is_none(), "a 0.3 error: {answer:?}");
    }

    #[test]
    fn unknown_methods_are_32601_in_the_version_looked_in() {
        // On 0.3 exactly today's error object: no `data`.
        let error = negotiate(None, None, "tasks/list").expect_err("unknown");
        assert_eq!(
            error.to_rpc_error(),
            RpcError::method_not_found("tasks/list")
        );
        let error = negotiate(Some("1.0"), None, "sendMessage").expect_err("case matters");
        assert_eq!(code(Err(error.clone())), -32601);
        assert_eq!(reason(&error), "METHOD_NOT_FOUND");
    }

    #[test]
    fn the_query_parameter_counts_when_the_header_is_absent_or_empty() {
        assert_eq!(
            negotiate(None, Some("1.0"), "SendMessage"),
            Ok(Route::V1_0(Method::SendMessage))
        );
        assert_eq!(
            negotiate(Some(""), Some("1.0"), "SendMessage"),
            Ok(Route::V1_0(Method::SendMessage))
        );
        assert_eq!(
            negotiate(None, Some("0.3"), "message/send"),
            Ok(Route::V0_3)
        );
        assert_eq!(negotiate(None, Some(""), "message/send"), Ok(Route::V0_3));
        assert_eq!(code(negotiate(None, Some("2.0"), "SendMessage")), -32009);
        // With an empty query parameter a 1.0 method still asks for the header.
        assert_eq!(code(negotiate(None, Some(""), "SendMessage")), -32009);
    }

    #[test]
    fn the_header_wins_over_the_query_parameter() {
        assert_eq!(
            negotiate(Some("1.0"), Some("0.3"), "GetTask"),
            Ok(Route::V1_0(Method::GetTask))
        );
        assert_eq!(
            negotiate(Some("0.3"), Some("1.0"), "message/send"),
            Ok(Route::V0_3)
        );
        assert_eq!(
            code(negotiate(Some("0.3"), Some("1.0"), "SendMessage")),
            -32601
        );
        // The query parameter is not read once the header has a value.
        assert_eq!(
            negotiate(Some("1.0"), Some("garbage"), "GetTask"),
            Ok(Route::V1_0(Method::GetTask))
        );
    }

    #[test]
    fn requested_version_says_whether_one_was_given() {
        assert_eq!(
            requested_version(None, None),
            Ok(Requested {
                version: WireVersion::V0_3,
                explicit: false
            })
        );
        assert_eq!(
            requested_version(Some("0.3"), None),
            Ok(Requested {
                version: WireVersion::V0_3,
                explicit: true
            })
        );
        assert_eq!(
            WireVersion::V1_0.as_str(),
            crate::a2a::v1::supported::SUPPORTED_VERSIONS[1]
        );
    }
}
