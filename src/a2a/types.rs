//! Serde types of A2A 0.3.0 (field names as in `specification/json/a2a.json`).
//! Unknown members are ignored on input, as the protocol asks. Requests are
//! read by [`super::decode`], which also bounds the ids marked here.

use super::decode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub type Metadata = Map<String, Value>;

/// One-variant marker enums keep the required `kind` members exact on the wire.
macro_rules! kind_marker {
    ($name:ident, $value:literal) => {
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub enum $name {
            #[default]
            #[serde(rename = $value)]
            Value,
        }
    };
}

kind_marker!(MessageKind, "message");
kind_marker!(TaskKind, "task");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Agent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    #[serde(default)]
    pub kind: MessageKind,
    pub role: Role,
    pub parts: Vec<Part>,
    #[serde(deserialize_with = "decode::id")]
    pub message_id: String,
    #[serde(
        default,
        deserialize_with = "decode::optional_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_id: Option<String>,
    #[serde(
        default,
        deserialize_with = "decode::optional_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub context_id: Option<String>,
    #[serde(
        default,
        deserialize_with = "decode::optional_ids",
        skip_serializing_if = "Option::is_none"
    )]
    pub reference_task_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Message {
    /// An agent message with one text part.
    pub fn agent_text(text: impl Into<String>) -> Self {
        Message {
            kind: MessageKind::Value,
            role: Role::Agent,
            parts: vec![Part::text(text)],
            message_id: uuid::Uuid::new_v4().to_string(),
            task_id: None,
            context_id: None,
            reference_task_ids: None,
            extensions: None,
            metadata: None,
        }
    }

    /// The text parts joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|part| match part {
                Part::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The `data` objects of the data parts, in order.
    pub fn data(&self) -> Vec<Map<String, Value>> {
        self.parts
            .iter()
            .filter_map(|part| match part {
                Part::Data(data) => Some(data.data.clone()),
                _ => None,
            })
            .collect()
    }
}

/// Written with `kind` as the tag; read through [`WirePart`], a plain
/// struct, so a part is an object on the wire like every other (serde's
/// tagged enums would also take `["text", "…"]` by position).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", try_from = "WirePart")]
pub enum Part {
    Text(TextPart),
    File(FilePart),
    Data(DataPart),
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum PartKind {
    Text,
    File,
    Data,
}

/// A part as it arrives: the members of all three kinds, `kind` deciding.
#[derive(Deserialize)]
struct WirePart {
    kind: PartKind,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    file: Option<FileContent>,
    #[serde(default)]
    data: Option<Map<String, Value>>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

impl TryFrom<WirePart> for Part {
    type Error = &'static str;

    fn try_from(wire: WirePart) -> Result<Part, &'static str> {
        let metadata = wire.metadata;
        Ok(match wire.kind {
            PartKind::Text => Part::Text(TextPart {
                text: wire.text.ok_or("missing field `text`")?,
                metadata,
            }),
            PartKind::File => Part::File(FilePart {
                file: wire.file.ok_or("missing field `file`")?,
                metadata,
            }),
            PartKind::Data => Part::Data(DataPart {
                data: wire.data.ok_or("missing field `data`")?,
                metadata,
            }),
        })
    }
}

impl Part {
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(TextPart {
            text: text.into(),
            metadata: None,
        })
    }

    pub fn data(data: Map<String, Value>) -> Self {
        Part::Data(DataPart {
            data,
            metadata: None,
        })
    }

    /// The media type the part carries, for content-type checks.
    pub fn media_type(&self) -> &str {
        match self {
            Part::Text(_) => "text/plain",
            Part::Data(_) => "application/json",
            Part::File(file) => file
                .file
                .mime_type
                .as_deref()
                .unwrap_or("application/octet-stream"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextPart {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilePart {
    pub file: FileContent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// `FileWithBytes` or `FileWithUri`; exactly one of `bytes` and `uri` is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileContent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataPart {
    pub data: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    Submitted,
    Working,
    InputRequired,
    Completed,
    Canceled,
    Failed,
    Rejected,
    AuthRequired,
    Unknown,
}

impl TaskState {
    /// Terminal tasks never change again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Canceled | TaskState::Failed | TaskState::Rejected
        )
    }

    /// The task waits for the client (a follow-up message continues it).
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::Completed => "completed",
            TaskState::Canceled => "canceled",
            TaskState::Failed => "failed",
            TaskState::Rejected => "rejected",
            TaskState::AuthRequired => "auth-required",
            TaskState::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    pub state: TaskState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// ISO-8601 (RFC 3339) time of the last status change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    pub artifact_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    #[serde(default)]
    pub kind: TaskKind,
    pub id: String,
    pub context_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Task {
    /// A copy carrying at most the last `history_length` history messages;
    /// `Some(0)` omits the member, `None` keeps everything.
    pub fn with_history_limit(self, history_length: Option<u64>) -> Task {
        let mut task = self;
        match history_length {
            None => {}
            Some(0) => task.history = None,
            Some(limit) => {
                if let Some(history) = task.history.as_mut() {
                    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
                    let excess = history.len().saturating_sub(limit);
                    history.drain(..excess);
                }
            }
        }
        task
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationAuthenticationInfo {
    pub schemes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationConfig {
    #[serde(
        default,
        deserialize_with = "decode::optional_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<String>,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
    /// The protocol version the config was set with, whose payloads its
    /// notifications carry. Not a 0.3 field, so never on the 0.3 wire: a
    /// 0.3 answer does not show it and a 0.3 request's `payloadVersion` is
    /// an unknown member like any other (ignored); every config a 0.3 client
    /// sets is 0.3. The 1.0 conversion sets it; the stores keep it.
    #[serde(skip)]
    pub payload_version: PushPayload,
}

/// Which version's payload a push notification carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PushPayload {
    /// The Task with its `kind` (or Joule's format for Joule's hosts).
    #[default]
    #[serde(rename = "0.3")]
    V0_3,
    /// A 1.0 `StreamResponse`: `{"task": …}` in ProtoJSON.
    #[serde(rename = "1.0")]
    V1_0,
}

impl PushPayload {
    pub fn is_v0_3(&self) -> bool {
        *self == PushPayload::V0_3
    }
}

/// Where a push config arrives in a request; errors about it name its
/// fields below this path, the same way for both. These are the 0.3 paths;
/// 1.0 names the same places its own way (`a2a::v1::push_config_url_field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushConfigPlace {
    /// Inline, `configuration.pushNotificationConfig` of `message/send` or
    /// `message/stream`.
    SendConfiguration,
    /// `pushNotificationConfig` of `tasks/pushNotificationConfig/set`.
    SetParams,
    /// 1.0: inline, `configuration.taskPushNotificationConfig` of
    /// `SendMessage` or `SendStreamingMessage`.
    V1SendConfiguration,
    /// 1.0: the params of `CreateTaskPushNotificationConfig` (flat).
    V1CreateParams,
}

impl PushConfigPlace {
    /// An inline config of a send, as the caller's version names it.
    pub fn send(v1: bool) -> Self {
        if v1 {
            PushConfigPlace::V1SendConfiguration
        } else {
            PushConfigPlace::SendConfiguration
        }
    }

    /// The config of a set (0.3) or create (1.0) method.
    pub fn set(v1: bool) -> Self {
        if v1 {
            PushConfigPlace::V1CreateParams
        } else {
            PushConfigPlace::SetParams
        }
    }

    /// Whether the place is a 1.0 request's.
    pub fn is_v1(self) -> bool {
        matches!(
            self,
            PushConfigPlace::V1SendConfiguration | PushConfigPlace::V1CreateParams
        )
    }

    pub fn path(self) -> &'static str {
        match self {
            PushConfigPlace::SendConfiguration => "params.configuration.pushNotificationConfig",
            PushConfigPlace::SetParams => "params.pushNotificationConfig",
            PushConfigPlace::V1SendConfiguration => {
                "params.configuration.taskPushNotificationConfig"
            }
            PushConfigPlace::V1CreateParams => "params",
        }
    }

    /// The path of `field` (`token`, `authentication.credentials`) of the
    /// config here.
    pub fn field(self, field: &str) -> String {
        format!("{}.{field}", self.path())
    }

    /// The message for a webhook URL the guard refused: the field, then why.
    pub fn refused_url(self, reason: &str) -> String {
        format!("{}.url: {reason}", self.path())
    }
}

impl PushNotificationConfig {
    /// Without an id, the task id names the config (as the reference SDK does).
    pub fn named_after(mut self, task_id: &str) -> Self {
        if self.id.as_deref().is_none_or(str::is_empty) {
            self.id = Some(task_id.to_string());
        }
        self
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_output_modes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendParams {
    pub message: Message,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQueryParams {
    #[serde(deserialize_with = "decode::id")]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    #[serde(deserialize_with = "decode::id")]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

kind_marker!(StatusUpdateKind, "status-update");
kind_marker!(ArtifactUpdateKind, "artifact-update");

/// A streamed change of a task's status; `final` ends the stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    #[serde(default)]
    pub kind: StatusUpdateKind,
    pub task_id: String,
    pub context_id: String,
    pub status: TaskStatus,
    #[serde(rename = "final")]
    pub is_final: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A streamed artifact (whole, in one chunk).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    #[serde(default)]
    pub kind: ArtifactUpdateKind,
    pub task_id: String,
    pub context_id: String,
    pub artifact: Artifact,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_chunk: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    #[serde(deserialize_with = "decode::id")]
    pub task_id: String,
    pub push_notification_config: PushNotificationConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPushNotificationConfigParams {
    #[serde(deserialize_with = "decode::id")]
    pub id: String,
    #[serde(
        default,
        deserialize_with = "decode::optional_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub push_notification_config_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteTaskPushNotificationConfigParams {
    #[serde(deserialize_with = "decode::id")]
    pub id: String,
    #[serde(deserialize_with = "decode::id")]
    pub push_notification_config_id: String,
}
