//! The params and results of the 1.0 methods (`service A2AService` in
//! `a2a.proto`) that are not data-model messages themselves.
//!
//! `tenant` is in every request, as in the proto; this agent serves one
//! tenant, so callers read it only to refuse or ignore it.

use super::protojson::{Struct, Timestamp, int32, nullable, protojson_message};
use super::types::{Message, Task, TaskPushNotificationConfig, TaskState};
use crate::a2a::PushConfigPlace;
use serde::{Deserialize, Serialize};

/// The webhook URL's field below `params` in a 1.0 request, for errors
/// about it: the inline config of `SendMessage` is
/// `configuration.taskPushNotificationConfig`, and
/// `CreateTaskPushNotificationConfig` takes the config flat as its params
/// (0.3 nests both under `pushNotificationConfig`).
pub fn push_config_url_field(place: PushConfigPlace) -> &'static str {
    match place {
        PushConfigPlace::SendConfiguration | PushConfigPlace::V1SendConfiguration => {
            "configuration.taskPushNotificationConfig.url"
        }
        PushConfigPlace::SetParams | PushConfigPlace::V1CreateParams => "url",
    }
}

/// `SendMessageConfiguration`. `returnImmediately` replaces 0.3's
/// `blocking`, inverted: absent or `false` means wait until the task is
/// terminal or interrupted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SendMessageConfiguration {
    #[serde(
        default,
        alias = "accepted_output_modes",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub accepted_output_modes: Vec<String>,
    /// Flat, with an empty `taskId` (the task does not exist yet).
    #[serde(
        default,
        alias = "task_push_notification_config",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// Absent: no limit; 0: no history; n: the last n messages.
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "int32::deserialize_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    #[serde(
        default,
        alias = "return_immediately",
        deserialize_with = "nullable",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub return_immediately: bool,
}

/// Params of `SendMessage` and `SendStreamingMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SendMessageRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    pub message: Message,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// Params of `GetTask`; the result is a bare `Task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct GetTaskRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    pub id: String,
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "int32::deserialize_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
}

/// Params of `ListTasks`. Every filter is optional; `status`
/// `TASK_STATE_UNSPECIFIED` filters nothing (see [`ListTasksRequest::status_filter`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ListTasksRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskState>,
    /// 1 to 100; absent means 50 (the proto's comment).
    #[serde(
        default,
        alias = "page_size",
        deserialize_with = "int32::deserialize_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_size: Option<i32>,
    #[serde(
        default,
        alias = "page_token",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub page_token: String,
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "int32::deserialize_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// Only tasks whose status timestamp is at or after this moment.
    #[serde(
        default,
        alias = "status_timestamp_after",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_timestamp_after: Option<Timestamp>,
    /// Without `true`, the tasks carry no `artifacts` member.
    #[serde(
        default,
        alias = "include_artifacts",
        skip_serializing_if = "Option::is_none"
    )]
    pub include_artifacts: Option<bool>,
}

impl ListTasksRequest {
    /// The state to filter by; `None` for absent or `TASK_STATE_UNSPECIFIED`.
    pub fn status_filter(&self) -> Option<TaskState> {
        self.status.filter(|state| *state != TaskState::Unspecified)
    }
}

/// Result of `ListTasks`. Every member is REQUIRED and always written,
/// `nextPageToken` too (`""` on the last page), although plain ProtoJSON
/// would leave an empty string out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ListTasksResponse {
    pub tasks: Vec<Task>,
    #[serde(alias = "next_page_token")]
    pub next_page_token: String,
    #[serde(alias = "page_size", deserialize_with = "int32::deserialize")]
    pub page_size: i32,
    #[serde(alias = "total_size", deserialize_with = "int32::deserialize")]
    pub total_size: i32,
}

/// Params of `CancelTask`; the result is a bare `Task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct CancelTaskRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// Params of `SubscribeToTask`; the result is a stream of `StreamResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct SubscribeToTaskRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    pub id: String,
}

/// Params of `GetTaskPushNotificationConfig`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct GetTaskPushNotificationConfigRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    #[serde(alias = "task_id")]
    pub task_id: String,
    pub id: String,
}

/// Params of `DeleteTaskPushNotificationConfig`; the result is
/// `google.protobuf.Empty`. Deleting twice is not an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct DeleteTaskPushNotificationConfigRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    #[serde(alias = "task_id")]
    pub task_id: String,
    pub id: String,
}

/// Params of `ListTaskPushNotificationConfigs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// 0 when not given (the field has no presence).
    #[serde(
        default,
        alias = "page_size",
        deserialize_with = "int32::deserialize_nullable",
        skip_serializing_if = "is_zero"
    )]
    pub page_size: i32,
    #[serde(
        default,
        alias = "page_token",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub page_token: String,
}

fn is_zero(value: &i32) -> bool {
    *value == 0
}

/// Result of `ListTaskPushNotificationConfigs`. `configs` and
/// `nextPageToken` are always written (an empty list, `""`), as for
/// `ListTasks`, so that clients need not tell "absent" from "none".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsResponse {
    #[serde(default, deserialize_with = "nullable")]
    pub configs: Vec<TaskPushNotificationConfig>,
    #[serde(default, alias = "next_page_token", deserialize_with = "nullable")]
    pub next_page_token: String,
}

/// Params of `GetExtendedAgentCard` (may be absent: use the default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct GetExtendedAgentCardRequest {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
}

protojson_message!(
    SendMessageConfiguration,
    SendMessageRequest,
    GetTaskRequest,
    ListTasksRequest,
    ListTasksResponse,
    CancelTaskRequest,
    SubscribeToTaskRequest,
    GetTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    GetExtendedAgentCardRequest,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::jsonrpc::parse_params;
    use serde_json::json;

    #[test]
    fn a_send_message_request_reads_the_1_0_configuration() {
        let request: SendMessageRequest = parse_params(Some(json!({
            "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": {
                "acceptedOutputModes": ["text/plain"],
                "historyLength": "3",
                "returnImmediately": true,
                "taskPushNotificationConfig": {
                    "url": "https://hooks.example.com/a2a",
                    "token": "tok",
                    "authentication": {"scheme": "Bearer", "credentials": "secret"}
                }
            },
            "metadata": {"k": "v"}
        })))
        .expect("reads");
        let configuration = request.configuration.expect("configuration");
        assert_eq!(configuration.accepted_output_modes, ["text/plain"]);
        assert_eq!(configuration.history_length, Some(3));
        assert!(configuration.return_immediately);
        let push = configuration
            .task_push_notification_config
            .expect("push config");
        assert_eq!(push.task_id, "");
        assert_eq!(push.authentication.expect("auth").scheme, "Bearer");
    }

    #[test]
    fn a_0_3_style_configuration_is_not_mistaken_for_1_0() {
        // `blocking` and `pushNotificationConfig` are unknown in 1.0: ignored.
        let configuration: SendMessageConfiguration = serde_json::from_value(json!({
            "blocking": false,
            "pushNotificationConfig": {"url": "https://hooks.example.com"}
        }))
        .expect("reads");
        assert_eq!(configuration, SendMessageConfiguration::default());
    }

    #[test]
    fn list_tasks_reads_every_filter_in_either_spelling() {
        let camel: ListTasksRequest = serde_json::from_value(json!({
            "contextId": "c", "status": "TASK_STATE_WORKING", "pageSize": 10,
            "pageToken": "p", "historyLength": 0,
            "statusTimestampAfter": "2026-12-01T00:00:00Z", "includeArtifacts": true
        }))
        .expect("reads");
        let snake: ListTasksRequest = serde_json::from_value(json!({
            "context_id": "c", "status": 2, "page_size": "10",
            "page_token": "p", "history_length": 0,
            "status_timestamp_after": "2026-12-01T01:00:00+01:00", "include_artifacts": true
        }))
        .expect("reads");
        assert_eq!(camel, snake);
        assert_eq!(camel.status_filter(), Some(TaskState::Working));
        let unspecified: ListTasksRequest =
            serde_json::from_value(json!({"status": "TASK_STATE_UNSPECIFIED"})).expect("reads");
        assert_eq!(unspecified.status_filter(), None);
        assert_eq!(
            serde_json::to_value(ListTasksRequest::default()).expect("writes"),
            json!({})
        );
    }

    #[test]
    fn list_tasks_response_always_writes_the_page_token() {
        let response = ListTasksResponse {
            tasks: Vec::new(),
            next_page_token: String::new(),
            page_size: 50,
            total_size: 0,
        };
        assert_eq!(
            serde_json::to_value(&response).expect("writes"),
            json!({"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0})
        );
    }

    #[test]
    fn push_config_requests_read_task_id_and_id() {
        let get: GetTaskPushNotificationConfigRequest =
            parse_params(Some(json!({"taskId": "t", "id": "p"}))).expect("reads");
        assert_eq!((get.task_id.as_str(), get.id.as_str()), ("t", "p"));
        let delete: DeleteTaskPushNotificationConfigRequest =
            parse_params(Some(json!({"task_id": "t", "id": "p"}))).expect("reads");
        assert_eq!(delete.task_id, "t");
        let list: ListTaskPushNotificationConfigsRequest =
            parse_params(Some(json!({"taskId": "t"}))).expect("reads");
        assert_eq!(list.page_size, 0);
        let list: ListTaskPushNotificationConfigsRequest =
            parse_params(Some(json!({"taskId": "t", "pageSize": null}))).expect("reads");
        assert_eq!(list.page_size, 0);
        let error = parse_params::<GetTaskPushNotificationConfigRequest>(Some(json!({"id": "p"})))
            .expect_err("no task id");
        assert!(error.message.contains("taskId"), "{}", error.message);
        let empty = ListTaskPushNotificationConfigsResponse {
            configs: Vec::new(),
            next_page_token: String::new(),
        };
        assert_eq!(
            serde_json::to_value(&empty).expect("writes"),
            json!({"configs": [], "nextPageToken": ""})
        );
    }

    #[test]
    fn requests_refuse_arrays_and_negative_nonsense_types() {
        assert!(serde_json::from_value::<GetTaskRequest>(json!(["", "t"])).is_err());
        assert!(
            serde_json::from_value::<GetTaskRequest>(json!({"id": "t", "historyLength": "x"}))
                .is_err()
        );
        assert!(serde_json::from_value::<SendMessageRequest>(json!({"message": ["m"]})).is_err());
        let card: GetExtendedAgentCardRequest =
            serde_json::from_value(json!({})).expect("empty params");
        assert_eq!(card, GetExtendedAgentCardRequest::default());
    }
}
