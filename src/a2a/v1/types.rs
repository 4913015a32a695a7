//! The A2A 1.0 data model in ProtoJSON (`lf.a2a.v1` in `a2a.proto`):
//! messages, parts, tasks, artifacts, the stream events and push configs.
//!
//! Field rules, from the proto: a field marked REQUIRED is always written
//! and must be present on input; a field without presence (plain `string`,
//! `bool`, `repeated`) is left out at its default and reads `null` as the
//! default; an `optional` field or a message field is an `Option`.

use super::protojson::{
    Base64, Struct, Timestamp, next_once, nullable, protojson_enum, protojson_message,
    protojson_oneof,
};
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

protojson_enum! {
    /// The sender of a message.
    pub enum Role {
        Unspecified = 0 => "ROLE_UNSPECIFIED",
        User = 1 => "ROLE_USER",
        Agent = 2 => "ROLE_AGENT",
    }
}

protojson_enum! {
    /// A task's lifecycle state.
    pub enum TaskState {
        Unspecified = 0 => "TASK_STATE_UNSPECIFIED",
        Submitted = 1 => "TASK_STATE_SUBMITTED",
        Working = 2 => "TASK_STATE_WORKING",
        Completed = 3 => "TASK_STATE_COMPLETED",
        Failed = 4 => "TASK_STATE_FAILED",
        Canceled = 5 => "TASK_STATE_CANCELED",
        InputRequired = 6 => "TASK_STATE_INPUT_REQUIRED",
        Rejected = 7 => "TASK_STATE_REJECTED",
        AuthRequired = 8 => "TASK_STATE_AUTH_REQUIRED",
    }
}

impl TaskState {
    /// `COMPLETED`, `FAILED`, `CANCELED`, `REJECTED`: the task never changes again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// `INPUT_REQUIRED`, `AUTH_REQUIRED`: the task waits for the client.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }
}

/// One unit of communication between client and agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct Message {
    #[serde(alias = "message_id")]
    pub message_id: String,
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    #[serde(
        default,
        alias = "task_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub task_id: String,
    pub role: Role,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<String>,
    #[serde(
        default,
        alias = "reference_task_ids",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub reference_task_ids: Vec<String>,
}

/// The content of a part: the `content` oneof of `Part`.
#[derive(Debug, Clone, PartialEq)]
pub enum PartContent {
    Text(String),
    /// File bytes (base64 on the wire).
    Raw(Base64),
    /// A URL pointing to the file's content.
    Url(String),
    /// Any JSON value (`google.protobuf.Value`), not only objects.
    Data(Value),
}

impl PartContent {
    pub fn member_name(&self) -> &'static str {
        match self {
            PartContent::Text(_) => "text",
            PartContent::Raw(_) => "raw",
            PartContent::Url(_) => "url",
            PartContent::Data(_) => "data",
        }
    }
}

/// A section of content: exactly one of `text`, `raw`, `url`, `data`, with
/// optional `mediaType`, `filename` and `metadata` for every kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub content: PartContent,
    pub metadata: Option<Struct>,
    /// Empty when not given.
    pub filename: String,
    /// Empty when not given.
    pub media_type: String,
}

impl Part {
    pub fn new(content: PartContent) -> Part {
        Part {
            content,
            metadata: None,
            filename: String::new(),
            media_type: String::new(),
        }
    }

    pub fn text(text: impl Into<String>) -> Part {
        Part::new(PartContent::Text(text.into()))
    }
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.content {
            PartContent::Text(text) => map.serialize_entry("text", text)?,
            PartContent::Raw(raw) => map.serialize_entry("raw", raw)?,
            PartContent::Url(url) => map.serialize_entry("url", url)?,
            PartContent::Data(data) => map.serialize_entry("data", data)?,
        }
        if let Some(metadata) = &self.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        if !self.filename.is_empty() {
            map.serialize_entry("filename", &self.filename)?;
        }
        if !self.media_type.is_empty() {
            map.serialize_entry("mediaType", &self.media_type)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;

        impl<'de> Visitor<'de> for PartVisitor {
            type Value = Part;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter
                    .write_str("a Part object with exactly one of `text`, `raw`, `url`, `data`")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
                let mut content: Option<PartContent> = None;
                let mut metadata: Option<Option<Struct>> = None;
                let mut filename: Option<Option<String>> = None;
                let mut media_type: Option<Option<String>> = None;
                let set = |content: &mut Option<PartContent>,
                           value: PartContent|
                 -> Result<(), A::Error> {
                    if let Some(first) = content {
                        return Err(de::Error::custom(format!(
                            "`{}` and `{}` are members of one oneof: a part carries exactly one of `text`, `raw`, `url`, `data`",
                            first.member_name(),
                            value.member_name()
                        )));
                    }
                    *content = Some(value);
                    Ok(())
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        // `null` leaves a string or bytes member unset; for
                        // `data` (a `google.protobuf.Value`) it is the value.
                        "text" => {
                            if let Some(text) = map.next_value::<Option<String>>()? {
                                set(&mut content, PartContent::Text(text))?;
                            }
                        }
                        "raw" => {
                            if let Some(raw) = map.next_value::<Option<Base64>>()? {
                                set(&mut content, PartContent::Raw(raw))?;
                            }
                        }
                        "url" => {
                            if let Some(url) = map.next_value::<Option<String>>()? {
                                set(&mut content, PartContent::Url(url))?;
                            }
                        }
                        "data" => {
                            let data = map.next_value::<Value>()?;
                            set(&mut content, PartContent::Data(data))?;
                        }
                        "metadata" => next_once(&mut map, &mut metadata, "metadata")?,
                        "filename" => next_once(&mut map, &mut filename, "filename")?,
                        "mediaType" | "media_type" => {
                            next_once(&mut map, &mut media_type, "mediaType")?
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let content = content.ok_or_else(|| {
                    de::Error::custom(
                        "a part carries exactly one of `text`, `raw`, `url`, `data`; none was set",
                    )
                })?;
                Ok(Part {
                    content,
                    metadata: metadata.flatten(),
                    filename: filename.flatten().unwrap_or_default(),
                    media_type: media_type.flatten().unwrap_or_default(),
                })
            }
        }

        deserializer.deserialize_map(PartVisitor)
    }
}

/// A task's current state, with an optional message and the time it was set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TaskStatus {
    pub state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
}

/// The unit of work: status, output artifacts and the conversation so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    pub status: TaskStatus,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub artifacts: Vec<Artifact>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub history: Vec<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// A task output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct Artifact {
    #[serde(alias = "artifact_id")]
    pub artifact_id: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<String>,
}

/// A change of a task's status. 1.0 has no `final`: the stream ends when the
/// task is terminal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    #[serde(alias = "task_id")]
    pub task_id: String,
    #[serde(alias = "context_id")]
    pub context_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// An artifact generated or extended (`append`, `lastChunk`; no `index`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    #[serde(alias = "task_id")]
    pub task_id: String,
    #[serde(alias = "context_id")]
    pub context_id: String,
    pub artifact: Artifact,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub append: bool,
    #[serde(
        default,
        alias = "last_chunk",
        deserialize_with = "nullable",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub last_chunk: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// How the agent authenticates to a push webhook:
/// `Authorization: <scheme> <credentials>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct AuthenticationInfo {
    pub scheme: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub credentials: String,
}

/// A push config, flat in 1.0 (0.3 nested it under `pushNotificationConfig`).
/// Also the params of `CreateTaskPushNotificationConfig`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub id: String,
    #[serde(
        default,
        alias = "task_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub task_id: String,
    pub url: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationInfo>,
}

protojson_message!(
    Message,
    TaskStatus,
    Task,
    Artifact,
    TaskStatusUpdateEvent,
    TaskArtifactUpdateEvent,
    AuthenticationInfo,
    TaskPushNotificationConfig,
);

protojson_oneof! {
    /// The result of `SendMessage`: the task, or a direct message.
    pub enum SendMessageResponse {
        Task(Task) = "task",
        Message(Message) = "message",
    }
}

protojson_oneof! {
    /// One event of a stream (`SendStreamingMessage`, `SubscribeToTask`) and
    /// the body of a 1.0 push notification.
    pub enum StreamResponse {
        Task(Task) = "task",
        Message(Message) = "message",
        StatusUpdate(TaskStatusUpdateEvent) = "statusUpdate" | "status_update",
        ArtifactUpdate(TaskArtifactUpdateEvent) = "artifactUpdate" | "artifact_update",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::jsonrpc::parse_params;
    use serde_json::json;

    fn message_json() -> Value {
        json!({
            "messageId": "m-1",
            "contextId": "c-1",
            "role": "ROLE_USER",
            "parts": [
                {"text": "Why is order 4711 blocked?"},
                {"raw": "aGk=", "mediaType": "text/plain", "filename": "hi.txt"},
                {"url": "https://example.com/f.pdf", "mediaType": "application/pdf"},
                {"data": [1, "two", null]}
            ],
            "metadata": {"source": "test"},
            "referenceTaskIds": ["t-0"]
        })
    }

    #[test]
    fn a_message_reads_and_writes_protojson() {
        let message: Message = serde_json::from_value(message_json()).expect("reads");
        assert_eq!(message.role, Role::User);
        assert_eq!(message.task_id, "");
        assert_eq!(message.parts.len(), 4);
        assert_eq!(
            message.parts[1].content,
            PartContent::Raw(Base64::parse("aGk=").expect("base64"))
        );
        assert_eq!(message.parts[1].filename, "hi.txt");
        assert_eq!(
            message.parts[3].content,
            PartContent::Data(json!([1, "two", null]))
        );
        // Written back exactly: lowerCamelCase, enum names, defaults left out.
        assert_eq!(
            serde_json::to_value(&message).expect("writes"),
            message_json()
        );
    }

    #[test]
    fn snake_case_names_and_integer_enums_are_accepted() {
        let message: Message = serde_json::from_value(json!({
            "message_id": "m-1",
            "context_id": "c-1",
            "task_id": "t-1",
            "role": 2,
            "parts": [{"raw": "aGk", "media_type": "text/plain"}],
            "reference_task_ids": ["t-0"]
        }))
        .expect("reads");
        assert_eq!(message.message_id, "m-1");
        assert_eq!(message.task_id, "t-1");
        assert_eq!(message.role, Role::Agent);
        assert_eq!(message.parts[0].media_type, "text/plain");
        assert_eq!(message.reference_task_ids, ["t-0"]);
        let written = serde_json::to_value(&message).expect("writes");
        assert_eq!(written["messageId"], "m-1");
        assert_eq!(written["role"], "ROLE_AGENT");
        assert_eq!(written["parts"][0]["raw"], "aGk=");
    }

    #[test]
    fn unknown_fields_are_ignored_and_null_reads_as_default() {
        let message: Message = serde_json::from_value(json!({
            "messageId": "m-1",
            "kind": "message",
            "role": "ROLE_USER",
            "contextId": null,
            "extensions": null,
            "parts": [{"text": "hi", "kind": "text", "url": null}]
        }))
        .expect("reads");
        assert_eq!(message.context_id, "");
        assert!(message.extensions.is_empty());
        assert_eq!(message.parts[0].content, PartContent::Text("hi".into()));
    }

    #[test]
    fn arrays_are_refused_where_an_object_belongs() {
        let positional = json!(["m-1", "c-1", "t-1", "ROLE_USER", []]);
        let error = serde_json::from_value::<Message>(positional).expect_err("an array");
        assert!(error.to_string().contains("Message object"), "{error}");

        let nested = json!({"id": "t-1", "status": ["TASK_STATE_WORKING"]});
        let error = serde_json::from_value::<Task>(nested).expect_err("an array");
        assert!(error.to_string().contains("TaskStatus object"), "{error}");

        let part = json!({"messageId": "m", "role": "ROLE_USER", "parts": [["hi"]]});
        assert!(serde_json::from_value::<Message>(part).is_err());

        let event = json!({"statusUpdate": ["t", "c", {"state": 1}]});
        assert!(serde_json::from_value::<StreamResponse>(event).is_err());
        assert!(serde_json::from_value::<StreamResponse>(json!([{}])).is_err());
    }

    #[test]
    fn a_part_carries_exactly_one_content_member() {
        let error = serde_json::from_value::<Part>(json!({"text": "a", "url": "https://x"}))
            .expect_err("two members");
        assert!(error.to_string().contains("`text` and `url`"), "{error}");
        let error =
            serde_json::from_value::<Part>(json!({"mediaType": "text/plain"})).expect_err("none");
        assert!(error.to_string().contains("none was set"), "{error}");
        let error = serde_json::from_value::<Part>(json!({"raw": "not base64!"})).expect_err("b64");
        assert!(error.to_string().contains("base64"), "{error}");
        // `data: null` is a set `google.protobuf.Value`.
        let part: Part = serde_json::from_value(json!({"data": null})).expect("reads");
        assert_eq!(part.content, PartContent::Data(Value::Null));
        assert_eq!(
            serde_json::to_value(&part).expect("writes"),
            json!({"data": null})
        );
    }

    #[test]
    fn enums_refuse_unknown_names_and_numbers() {
        for state in [
            json!("completed"),
            json!("TASK_STATE_DONE"),
            json!(9),
            json!(-1),
        ] {
            let status = json!({"state": state});
            let error = serde_json::from_value::<TaskStatus>(status).expect_err("unknown");
            assert!(
                error.to_string().contains("TASK_STATE_COMPLETED"),
                "{error}"
            );
        }
        for state in TaskState::ALL {
            let written = serde_json::to_value(state).expect("writes");
            assert_eq!(written, json!(state.proto_name()));
            let by_number: TaskState =
                serde_json::from_value(json!(state.number())).expect("reads by number");
            assert_eq!(by_number, *state);
        }
    }

    #[test]
    fn errors_name_the_failing_field_by_path() {
        let error = parse_params::<Message>(Some(json!({
            "messageId": "m", "role": "ROLE_USER", "parts": [{"text": "a"}, {"raw": "%%"}]
        })))
        .expect_err("bad part");
        assert!(
            error.message.starts_with("params.parts[1].raw:"),
            "{}",
            error.message
        );
        let error = parse_params::<Task>(Some(json!({"id": "t", "status": {"state": "X"}})))
            .expect_err("bad state");
        assert!(
            error.message.starts_with("params.status.state:"),
            "{}",
            error.message
        );
        let error =
            parse_params::<Message>(Some(json!({"role": "ROLE_USER", "parts": []}))).expect_err("");
        assert!(error.message.contains("messageId"), "{}", error.message);
    }

    #[test]
    fn stream_responses_are_one_member_objects() {
        let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Working,
                message: None,
                timestamp: Some(Timestamp::parse("2026-12-01T08:00:00Z").expect("time")),
            },
            metadata: None,
        });
        let written = serde_json::to_value(&event).expect("writes");
        assert_eq!(
            written,
            json!({"statusUpdate": {"taskId": "t", "contextId": "c",
                "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-12-01T08:00:00Z"}}})
        );
        let read: StreamResponse = serde_json::from_value(written).expect("reads");
        assert_eq!(read, event);
        let snake: StreamResponse = serde_json::from_value(json!({
            "status_update": {"task_id": "t", "context_id": "c",
                "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-12-01T09:00:00+01:00"}},
            "kind": "status-update"
        }))
        .expect("reads snake_case");
        assert_eq!(snake, event);

        let two = json!({"task": {"id": "t", "status": {"state": 1}}, "message": {"messageId": "m", "role": 2, "parts": []}});
        let error = serde_json::from_value::<SendMessageResponse>(two).expect_err("two");
        // Members in the order they were read (a JSON object has none).
        let text = error.to_string();
        assert!(
            text.contains("`message` and `task` are members of one oneof")
                || text.contains("`task` and `message` are members of one oneof"),
            "{text}"
        );
        assert!(text.contains("exactly one of `task`, `message`"), "{text}");
        let error =
            serde_json::from_value::<SendMessageResponse>(json!({"task": null})).expect_err("none");
        assert!(error.to_string().contains("missing member"), "{error}");
    }

    #[test]
    fn artifact_updates_leave_false_flags_out() {
        let event = TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact {
                artifact_id: "a".into(),
                name: String::new(),
                description: String::new(),
                parts: vec![Part::text("x")],
                metadata: None,
                extensions: Vec::new(),
            },
            append: false,
            last_chunk: true,
            metadata: None,
        };
        assert_eq!(
            serde_json::to_value(&event).expect("writes"),
            json!({"taskId": "t", "contextId": "c",
                "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}, "lastChunk": true})
        );
    }
}
