//! The mapping between the engine's model (the 0.3 types in
//! `crate::a2a::types`) and the 1.0 wire types: pure conversions, both ways.
//!
//! 0.3 → 1.0 (what the engine answers, to a 1.0 caller) never fails;
//! 1.0 → 0.3 (what a 1.0 caller sends, to the engine) fails only where the
//! 0.3 model has no value for it (`ROLE_UNSPECIFIED`), with the field's path.
//!
//! Lossless, both ways: ids, roles `USER`/`AGENT`, every task state
//! (0.3 `unknown` is `TASK_STATE_UNSPECIFIED`), text, file-bytes, file-URI
//! and object data parts with their metadata, file name and media type,
//! artifacts, metadata, extensions, reference task ids, push config
//! id/url/token and one authentication scheme.
//!
//! Where information is lost, on purpose:
//! - `kind` markers: 1.0 has none; they are constants and come back on 1.0 → 0.3.
//! - `final` of a 0.3 status update: 1.0 has none (a stream ends at a
//!   terminal state); 1.0 → 0.3 sets it for terminal and interrupted states,
//!   as our 0.3 streams do.
//! - Absent versus empty: 1.0 strings and lists have no presence, so 0.3
//!   `Some("")` / `Some([])` come back as `None`.
//! - Timestamps: 1.0 writes them in UTC with 0/3/6/9 fractional digits; a
//!   0.3 timestamp that is not RFC 3339 is dropped.
//! - 1.0 → 0.3 parts: `mediaType` and `filename` of text and data parts (0.3
//!   has no place for them); a `data` value that is not an object becomes
//!   `{"value": <it>}` (0.3 data is an object).
//! - 0.3 → 1.0 file parts: with both `bytes` and `uri`, `uri` is dropped;
//!   with neither, the part becomes empty `raw`; `bytes` that are not base64
//!   (the 0.3 wire does not check them) are passed on as they are.
//! - Push authentication: 0.3 lists `schemes`, 1.0 has one `scheme`; the
//!   first is kept (`""` when the list is empty).
//! - `tenant` (single-tenant agent) and the push config's `taskId` inside a
//!   `SendMessageConfiguration` are dropped on 1.0 → 0.3; the paging of
//!   `ListTaskPushNotificationConfigs` too (0.3 lists all of a task's).
//! - `blocking`: 1.0's `returnImmediately` becomes an explicit 0.3
//!   `blocking`, so 1.0 never gets 0.3's Joule default (a webhook without
//!   `blocking` answers at once); 0.3 `blocking: None` reads as blocking.

use super::error::A2aError;
use super::protojson::{Base64, Timestamp};
use super::requests::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, SendMessageConfiguration, SendMessageRequest,
    SubscribeToTaskRequest,
};
use super::types::{
    Artifact, AuthenticationInfo, Message, Part, PartContent, Role, SendMessageResponse,
    StreamResponse, Task, TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use crate::a2a::types as v03;
use serde::Serialize;
use serde_json::{Map, Value};

/// The member a non-object 1.0 `data` value is kept under in 0.3.
pub const WRAPPED_DATA_KEY: &str = "value";

/// A 1.0 value the 0.3 model cannot hold, with the path of the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ConversionError {
    /// Relative to the converted value, e.g. `history[1].role`.
    pub field: String,
    pub reason: String,
}

impl ConversionError {
    fn new(field: &str, reason: &str) -> ConversionError {
        ConversionError {
            field: field.to_string(),
            reason: reason.to_string(),
        }
    }

    /// The same error seen from the enclosing value: `role` in `message`
    /// becomes `message.role`, `[1].role` in `history` `history[1].role`.
    pub fn within(mut self, parent: &str) -> ConversionError {
        self.field = if self.field.is_empty() {
            parent.to_string()
        } else if self.field.starts_with('[') {
            format!("{parent}{}", self.field)
        } else {
            format!("{parent}.{}", self.field)
        };
        self
    }

    /// −32602 naming the field under `params`.
    pub fn to_a2a_error(&self) -> A2aError {
        A2aError::invalid_field(&self.field, &self.reason)
    }
}

fn some_if_not_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

fn some_if_any<T>(items: Vec<T>) -> Option<Vec<T>> {
    (!items.is_empty()).then_some(items)
}

fn convert_all<A, B>(
    items: Vec<A>,
    field: &str,
    convert: impl Fn(A) -> Result<B, ConversionError>,
) -> Result<Vec<B>, ConversionError> {
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            convert(item).map_err(|error| error.within(&format!("{field}[{index}]")))
        })
        .collect()
}

// ---- enums ----

impl From<v03::Role> for Role {
    fn from(role: v03::Role) -> Role {
        match role {
            v03::Role::User => Role::User,
            v03::Role::Agent => Role::Agent,
        }
    }
}

impl TryFrom<Role> for v03::Role {
    type Error = ConversionError;

    fn try_from(role: Role) -> Result<v03::Role, ConversionError> {
        match role {
            Role::User => Ok(v03::Role::User),
            Role::Agent => Ok(v03::Role::Agent),
            Role::Unspecified => Err(ConversionError::new(
                "role",
                "ROLE_UNSPECIFIED is not a sender: use ROLE_USER or ROLE_AGENT",
            )),
        }
    }
}

impl From<v03::TaskState> for TaskState {
    fn from(state: v03::TaskState) -> TaskState {
        match state {
            v03::TaskState::Submitted => TaskState::Submitted,
            v03::TaskState::Working => TaskState::Working,
            v03::TaskState::InputRequired => TaskState::InputRequired,
            v03::TaskState::Completed => TaskState::Completed,
            v03::TaskState::Canceled => TaskState::Canceled,
            v03::TaskState::Failed => TaskState::Failed,
            v03::TaskState::Rejected => TaskState::Rejected,
            v03::TaskState::AuthRequired => TaskState::AuthRequired,
            v03::TaskState::Unknown => TaskState::Unspecified,
        }
    }
}

impl From<TaskState> for v03::TaskState {
    fn from(state: TaskState) -> v03::TaskState {
        match state {
            TaskState::Submitted => v03::TaskState::Submitted,
            TaskState::Working => v03::TaskState::Working,
            TaskState::InputRequired => v03::TaskState::InputRequired,
            TaskState::Completed => v03::TaskState::Completed,
            TaskState::Canceled => v03::TaskState::Canceled,
            TaskState::Failed => v03::TaskState::Failed,
            TaskState::Rejected => v03::TaskState::Rejected,
            TaskState::AuthRequired => v03::TaskState::AuthRequired,
            TaskState::Unspecified => v03::TaskState::Unknown,
        }
    }
}

// ---- parts ----

impl From<v03::Part> for Part {
    fn from(part: v03::Part) -> Part {
        match part {
            v03::Part::Text(text) => Part {
                metadata: text.metadata,
                ..Part::new(PartContent::Text(text.text))
            },
            v03::Part::Data(data) => Part {
                metadata: data.metadata,
                ..Part::new(PartContent::Data(Value::Object(data.data)))
            },
            v03::Part::File(file) => {
                let v03::FileContent {
                    bytes,
                    uri,
                    name,
                    mime_type,
                } = file.file;
                let content = match (bytes, uri) {
                    (Some(bytes), _) => PartContent::Raw(
                        Base64::parse(&bytes).unwrap_or_else(|_| Base64::unchecked(bytes)),
                    ),
                    (None, Some(uri)) => PartContent::Url(uri),
                    (None, None) => PartContent::Raw(Base64::unchecked(String::new())),
                };
                Part {
                    content,
                    metadata: file.metadata,
                    filename: name.unwrap_or_default(),
                    media_type: mime_type.unwrap_or_default(),
                }
            }
        }
    }
}

impl From<Part> for v03::Part {
    fn from(part: Part) -> v03::Part {
        let Part {
            content,
            metadata,
            filename,
            media_type,
        } = part;
        let file = |bytes: Option<String>, uri: Option<String>| {
            v03::Part::File(v03::FilePart {
                file: v03::FileContent {
                    bytes,
                    uri,
                    name: some_if_not_empty(filename.clone()),
                    mime_type: some_if_not_empty(media_type.clone()),
                },
                metadata: metadata.clone(),
            })
        };
        match content {
            PartContent::Text(text) => v03::Part::Text(v03::TextPart {
                text,
                metadata: metadata.clone(),
            }),
            PartContent::Raw(raw) => file(Some(raw.into_string()), None),
            PartContent::Url(url) => file(None, Some(url)),
            PartContent::Data(data) => {
                let data = match data {
                    Value::Object(object) => object,
                    other => Map::from_iter([(WRAPPED_DATA_KEY.to_string(), other)]),
                };
                v03::Part::Data(v03::DataPart {
                    data,
                    metadata: metadata.clone(),
                })
            }
        }
    }
}

// ---- messages, status, artifacts, tasks ----

impl From<v03::Message> for Message {
    fn from(message: v03::Message) -> Message {
        Message {
            message_id: message.message_id,
            context_id: message.context_id.unwrap_or_default(),
            task_id: message.task_id.unwrap_or_default(),
            role: message.role.into(),
            parts: message.parts.into_iter().map(Part::from).collect(),
            metadata: message.metadata,
            extensions: message.extensions.unwrap_or_default(),
            reference_task_ids: message.reference_task_ids.unwrap_or_default(),
        }
    }
}

impl TryFrom<Message> for v03::Message {
    type Error = ConversionError;

    fn try_from(message: Message) -> Result<v03::Message, ConversionError> {
        Ok(v03::Message {
            kind: v03::MessageKind::Value,
            role: message.role.try_into()?,
            parts: message.parts.into_iter().map(v03::Part::from).collect(),
            message_id: message.message_id,
            task_id: some_if_not_empty(message.task_id),
            context_id: some_if_not_empty(message.context_id),
            reference_task_ids: some_if_any(message.reference_task_ids),
            extensions: some_if_any(message.extensions),
            metadata: message.metadata,
        })
    }
}

impl From<v03::TaskStatus> for TaskStatus {
    fn from(status: v03::TaskStatus) -> TaskStatus {
        TaskStatus {
            state: status.state.into(),
            message: status.message.map(Message::from),
            timestamp: status
                .timestamp
                .as_deref()
                .and_then(|text| Timestamp::parse(text).ok()),
        }
    }
}

impl TryFrom<TaskStatus> for v03::TaskStatus {
    type Error = ConversionError;

    fn try_from(status: TaskStatus) -> Result<v03::TaskStatus, ConversionError> {
        Ok(v03::TaskStatus {
            state: status.state.into(),
            message: status
                .message
                .map(v03::Message::try_from)
                .transpose()
                .map_err(|error| error.within("message"))?,
            timestamp: status.timestamp.map(|at| at.to_rfc3339()),
        })
    }
}

impl From<v03::Artifact> for Artifact {
    fn from(artifact: v03::Artifact) -> Artifact {
        Artifact {
            artifact_id: artifact.artifact_id,
            name: artifact.name.unwrap_or_default(),
            description: artifact.description.unwrap_or_default(),
            parts: artifact.parts.into_iter().map(Part::from).collect(),
            metadata: artifact.metadata,
            extensions: artifact.extensions.unwrap_or_default(),
        }
    }
}

impl From<Artifact> for v03::Artifact {
    fn from(artifact: Artifact) -> v03::Artifact {
        v03::Artifact {
            artifact_id: artifact.artifact_id,
            name: some_if_not_empty(artifact.name),
            description: some_if_not_empty(artifact.description),
            parts: artifact.parts.into_iter().map(v03::Part::from).collect(),
            metadata: artifact.metadata,
            extensions: some_if_any(artifact.extensions),
        }
    }
}

impl From<v03::Task> for Task {
    fn from(task: v03::Task) -> Task {
        Task {
            id: task.id,
            context_id: task.context_id,
            status: task.status.into(),
            artifacts: task
                .artifacts
                .unwrap_or_default()
                .into_iter()
                .map(Artifact::from)
                .collect(),
            history: task
                .history
                .unwrap_or_default()
                .into_iter()
                .map(Message::from)
                .collect(),
            metadata: task.metadata,
        }
    }
}

impl TryFrom<Task> for v03::Task {
    type Error = ConversionError;

    fn try_from(task: Task) -> Result<v03::Task, ConversionError> {
        Ok(v03::Task {
            kind: v03::TaskKind::Value,
            id: task.id,
            context_id: task.context_id,
            status: task
                .status
                .try_into()
                .map_err(|error: ConversionError| error.within("status"))?,
            history: some_if_any(convert_all(
                task.history,
                "history",
                v03::Message::try_from,
            )?),
            artifacts: some_if_any(
                task.artifacts
                    .into_iter()
                    .map(v03::Artifact::from)
                    .collect(),
            ),
            metadata: task.metadata,
        })
    }
}

// ---- results and stream events ----

impl From<v03::Task> for SendMessageResponse {
    fn from(task: v03::Task) -> SendMessageResponse {
        SendMessageResponse::Task(task.into())
    }
}

impl From<v03::Message> for SendMessageResponse {
    fn from(message: v03::Message) -> SendMessageResponse {
        SendMessageResponse::Message(message.into())
    }
}

impl From<v03::TaskStatusUpdateEvent> for TaskStatusUpdateEvent {
    fn from(event: v03::TaskStatusUpdateEvent) -> TaskStatusUpdateEvent {
        TaskStatusUpdateEvent {
            task_id: event.task_id,
            context_id: event.context_id,
            status: event.status.into(),
            metadata: event.metadata,
        }
    }
}

impl TryFrom<TaskStatusUpdateEvent> for v03::TaskStatusUpdateEvent {
    type Error = ConversionError;

    fn try_from(
        event: TaskStatusUpdateEvent,
    ) -> Result<v03::TaskStatusUpdateEvent, ConversionError> {
        let ends_stream = event.status.state.is_terminal() || event.status.state.is_interrupted();
        Ok(v03::TaskStatusUpdateEvent {
            kind: v03::StatusUpdateKind::Value,
            task_id: event.task_id,
            context_id: event.context_id,
            status: event
                .status
                .try_into()
                .map_err(|error: ConversionError| error.within("status"))?,
            is_final: ends_stream,
            metadata: event.metadata,
        })
    }
}

impl From<v03::TaskArtifactUpdateEvent> for TaskArtifactUpdateEvent {
    fn from(event: v03::TaskArtifactUpdateEvent) -> TaskArtifactUpdateEvent {
        TaskArtifactUpdateEvent {
            task_id: event.task_id,
            context_id: event.context_id,
            artifact: event.artifact.into(),
            append: event.append.unwrap_or(false),
            last_chunk: event.last_chunk.unwrap_or(false),
            metadata: event.metadata,
        }
    }
}

impl From<TaskArtifactUpdateEvent> for v03::TaskArtifactUpdateEvent {
    fn from(event: TaskArtifactUpdateEvent) -> v03::TaskArtifactUpdateEvent {
        v03::TaskArtifactUpdateEvent {
            kind: v03::ArtifactUpdateKind::Value,
            task_id: event.task_id,
            context_id: event.context_id,
            artifact: event.artifact.into(),
            append: Some(event.append),
            last_chunk: Some(event.last_chunk),
            metadata: event.metadata,
        }
    }
}

/// One 0.3 stream event (the `result` of a `message/stream` response, or a
/// 0.3 push body), written as the 0.3 object with its `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum V03StreamEvent {
    Task(v03::Task),
    Message(v03::Message),
    StatusUpdate(v03::TaskStatusUpdateEvent),
    ArtifactUpdate(v03::TaskArtifactUpdateEvent),
}

impl From<V03StreamEvent> for StreamResponse {
    fn from(event: V03StreamEvent) -> StreamResponse {
        match event {
            V03StreamEvent::Task(task) => StreamResponse::Task(task.into()),
            V03StreamEvent::Message(message) => StreamResponse::Message(message.into()),
            V03StreamEvent::StatusUpdate(update) => StreamResponse::StatusUpdate(update.into()),
            V03StreamEvent::ArtifactUpdate(update) => StreamResponse::ArtifactUpdate(update.into()),
        }
    }
}

impl TryFrom<StreamResponse> for V03StreamEvent {
    type Error = ConversionError;

    fn try_from(event: StreamResponse) -> Result<V03StreamEvent, ConversionError> {
        Ok(match event {
            StreamResponse::Task(task) => V03StreamEvent::Task(
                task.try_into()
                    .map_err(|e: ConversionError| e.within("task"))?,
            ),
            StreamResponse::Message(message) => V03StreamEvent::Message(
                message
                    .try_into()
                    .map_err(|e: ConversionError| e.within("message"))?,
            ),
            StreamResponse::StatusUpdate(update) => V03StreamEvent::StatusUpdate(
                update
                    .try_into()
                    .map_err(|e: ConversionError| e.within("statusUpdate"))?,
            ),
            StreamResponse::ArtifactUpdate(update) => V03StreamEvent::ArtifactUpdate(update.into()),
        })
    }
}

// ---- push configs ----

impl From<v03::PushNotificationAuthenticationInfo> for AuthenticationInfo {
    fn from(info: v03::PushNotificationAuthenticationInfo) -> AuthenticationInfo {
        AuthenticationInfo {
            scheme: info.schemes.into_iter().next().unwrap_or_default(),
            credentials: info.credentials.unwrap_or_default(),
        }
    }
}

impl From<AuthenticationInfo> for v03::PushNotificationAuthenticationInfo {
    fn from(info: AuthenticationInfo) -> v03::PushNotificationAuthenticationInfo {
        v03::PushNotificationAuthenticationInfo {
            schemes: some_if_not_empty(info.scheme).into_iter().collect(),
            credentials: some_if_not_empty(info.credentials),
        }
    }
}

/// A 0.3 push config of `task_id` in the flat 1.0 shape.
pub fn push_config_from_v03(
    task_id: &str,
    config: v03::PushNotificationConfig,
) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        tenant: String::new(),
        id: config.id.unwrap_or_default(),
        task_id: task_id.to_string(),
        url: config.url,
        token: config.token.unwrap_or_default(),
        authentication: config.authentication.map(AuthenticationInfo::from),
    }
}

impl From<v03::TaskPushNotificationConfig> for TaskPushNotificationConfig {
    fn from(config: v03::TaskPushNotificationConfig) -> TaskPushNotificationConfig {
        push_config_from_v03(&config.task_id, config.push_notification_config)
    }
}

/// The config alone (its task comes from elsewhere: the `SendMessage` that
/// carries it). `taskId` and `tenant` are dropped.
impl From<TaskPushNotificationConfig> for v03::PushNotificationConfig {
    fn from(config: TaskPushNotificationConfig) -> v03::PushNotificationConfig {
        v03::PushNotificationConfig {
            id: some_if_not_empty(config.id),
            url: config.url,
            token: some_if_not_empty(config.token),
            authentication: config
                .authentication
                .map(v03::PushNotificationAuthenticationInfo::from),
            // Set over 1.0: its notifications are 1.0 payloads.
            payload_version: v03::PushPayload::V1_0,
        }
    }
}

impl From<TaskPushNotificationConfig> for v03::TaskPushNotificationConfig {
    fn from(config: TaskPushNotificationConfig) -> v03::TaskPushNotificationConfig {
        v03::TaskPushNotificationConfig {
            task_id: config.task_id.clone(),
            push_notification_config: config.into(),
        }
    }
}

/// The result of `ListTaskPushNotificationConfigs` from the 0.3 list (one page).
pub fn list_push_configs_response(
    configs: Vec<v03::TaskPushNotificationConfig>,
) -> ListTaskPushNotificationConfigsResponse {
    ListTaskPushNotificationConfigsResponse {
        configs: configs
            .into_iter()
            .map(TaskPushNotificationConfig::from)
            .collect(),
        next_page_token: String::new(),
    }
}

// ---- requests: 1.0 params as the 0.3 params the engine takes ----

impl From<SendMessageConfiguration> for v03::MessageSendConfiguration {
    fn from(configuration: SendMessageConfiguration) -> v03::MessageSendConfiguration {
        v03::MessageSendConfiguration {
            accepted_output_modes: some_if_any(configuration.accepted_output_modes),
            history_length: configuration.history_length.map(i64::from),
            push_notification_config: configuration
                .task_push_notification_config
                .map(v03::PushNotificationConfig::from),
            blocking: Some(!configuration.return_immediately),
        }
    }
}

impl From<v03::MessageSendConfiguration> for SendMessageConfiguration {
    fn from(configuration: v03::MessageSendConfiguration) -> SendMessageConfiguration {
        SendMessageConfiguration {
            accepted_output_modes: configuration.accepted_output_modes.unwrap_or_default(),
            task_push_notification_config: configuration
                .push_notification_config
                .map(|config| push_config_from_v03("", config)),
            // Out of range for int32 means "no limit" rather than a wrapped number.
            history_length: configuration
                .history_length
                .and_then(|length| i32::try_from(length).ok()),
            return_immediately: configuration.blocking == Some(false),
        }
    }
}

impl TryFrom<SendMessageRequest> for v03::MessageSendParams {
    type Error = ConversionError;

    fn try_from(request: SendMessageRequest) -> Result<v03::MessageSendParams, ConversionError> {
        // A 1.0 send is blocking unless it says otherwise, so the 0.3 config
        // is always there to carry an explicit `blocking`.
        let configuration = request.configuration.unwrap_or_default();
        Ok(v03::MessageSendParams {
            message: request
                .message
                .try_into()
                .map_err(|error: ConversionError| error.within("message"))?,
            configuration: Some(configuration.into()),
            metadata: request.metadata,
        })
    }
}

impl From<v03::MessageSendParams> for SendMessageRequest {
    fn from(params: v03::MessageSendParams) -> SendMessageRequest {
        SendMessageRequest {
            tenant: String::new(),
            message: params.message.into(),
            configuration: params.configuration.map(SendMessageConfiguration::from),
            metadata: params.metadata,
        }
    }
}

impl From<GetTaskRequest> for v03::TaskQueryParams {
    fn from(request: GetTaskRequest) -> v03::TaskQueryParams {
        v03::TaskQueryParams {
            id: request.id,
            history_length: request.history_length.map(i64::from),
            metadata: None,
        }
    }
}

impl From<CancelTaskRequest> for v03::TaskIdParams {
    fn from(request: CancelTaskRequest) -> v03::TaskIdParams {
        v03::TaskIdParams {
            id: request.id,
            metadata: request.metadata,
        }
    }
}

impl From<SubscribeToTaskRequest> for v03::TaskIdParams {
    fn from(request: SubscribeToTaskRequest) -> v03::TaskIdParams {
        v03::TaskIdParams {
            id: request.id,
            metadata: None,
        }
    }
}

impl From<GetTaskPushNotificationConfigRequest> for v03::GetTaskPushNotificationConfigParams {
    fn from(request: GetTaskPushNotificationConfigRequest) -> Self {
        v03::GetTaskPushNotificationConfigParams {
            id: request.task_id,
            push_notification_config_id: some_if_not_empty(request.id),
        }
    }
}

impl From<DeleteTaskPushNotificationConfigRequest> for v03::DeleteTaskPushNotificationConfigParams {
    fn from(request: DeleteTaskPushNotificationConfigRequest) -> Self {
        v03::DeleteTaskPushNotificationConfigParams {
            id: request.task_id,
            push_notification_config_id: request.id,
        }
    }
}

impl From<ListTaskPushNotificationConfigsRequest> for v03::TaskIdParams {
    fn from(request: ListTaskPushNotificationConfigsRequest) -> v03::TaskIdParams {
        v03::TaskIdParams {
            id: request.task_id,
            metadata: None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    fn metadata(key: &str) -> Option<Map<String, Value>> {
        Some(Map::from_iter([(key.to_string(), json!(true))]))
    }

    fn engine_timestamp() -> String {
        // What the engine writes (`tasks::now_rfc3339`), at a fixed moment.
        time::OffsetDateTime::from_unix_timestamp_nanos(1_796_115_410_123_000_000)
            .expect("in range")
            .format(&time::format_description::well_known::Rfc3339)
            .expect("formats")
    }

    pub(crate) fn v03_message(role: v03::Role, text: &str) -> v03::Message {
        v03::Message {
            kind: v03::MessageKind::Value,
            role,
            parts: vec![v03::Part::text(text)],
            message_id: format!("m-{text}"),
            task_id: Some("t-1".into()),
            context_id: Some("c-1".into()),
            reference_task_ids: None,
            extensions: None,
            metadata: None,
        }
    }

    fn file(bytes: Option<&str>, uri: Option<&str>) -> v03::Part {
        v03::Part::File(v03::FilePart {
            file: v03::FileContent {
                bytes: bytes.map(str::to_string),
                uri: uri.map(str::to_string),
                name: Some("output.txt".into()),
                mime_type: Some("text/plain".into()),
            },
            metadata: metadata("file"),
        })
    }

    /// A task with every kind of 0.3 part, history, a status message and
    /// metadata, the way the engine stores one.
    pub(crate) fn v03_task(state: v03::TaskState) -> v03::Task {
        let mut question = v03_message(v03::Role::User, "Why is order 4711 blocked?");
        question.reference_task_ids = Some(vec!["t-0".into()]);
        question.extensions = Some(vec!["https://ext.example.com/v1".into()]);
        question.metadata = metadata("question");
        let answer = v03_message(v03::Role::Agent, "Credit limit exceeded.");
        v03::Task {
            kind: v03::TaskKind::Value,
            id: "t-1".into(),
            context_id: "c-1".into(),
            status: v03::TaskStatus {
                state,
                message: Some(answer.clone()),
                timestamp: Some(engine_timestamp()),
            },
            history: Some(vec![question, answer]),
            artifacts: Some(vec![
                v03::Artifact {
                    artifact_id: "a-text".into(),
                    name: Some("answer".into()),
                    description: Some("The explanation".into()),
                    parts: vec![v03::Part::Text(v03::TextPart {
                        text: "Credit limit exceeded.".into(),
                        metadata: metadata("text"),
                    })],
                    metadata: metadata("artifact"),
                    extensions: Some(vec!["https://ext.example.com/v1".into()]),
                },
                v03::Artifact {
                    artifact_id: "a-files".into(),
                    name: None,
                    description: None,
                    parts: vec![
                        file(Some("SGVsbG8gVENL"), None),
                        file(None, Some("https://files.example.com/output.txt")),
                    ],
                    metadata: None,
                    extensions: None,
                },
                v03::Artifact {
                    artifact_id: "a-data".into(),
                    name: Some("proposal".into()),
                    description: None,
                    parts: vec![v03::Part::Data(v03::DataPart {
                        data: Map::from_iter([
                            ("key".to_string(), json!("value")),
                            ("count".to_string(), json!(42)),
                        ]),
                        metadata: metadata("data"),
                    })],
                    metadata: None,
                    extensions: None,
                },
            ]),
            metadata: metadata("task"),
        }
    }

    #[test]
    fn a_0_3_task_round_trips_through_1_0() {
        for state in [
            v03::TaskState::Submitted,
            v03::TaskState::Working,
            v03::TaskState::InputRequired,
            v03::TaskState::Completed,
            v03::TaskState::Canceled,
            v03::TaskState::Failed,
            v03::TaskState::Rejected,
            v03::TaskState::AuthRequired,
            v03::TaskState::Unknown,
        ] {
            let original = v03_task(state);
            let v1 = Task::from(original.clone());
            let back = v03::Task::try_from(v1).expect("converts back");
            assert_eq!(back, original, "{state:?}");
        }
    }

    #[test]
    fn the_1_0_task_has_the_1_0_shape() {
        let task = Task::from(v03_task(v03::TaskState::Completed));
        let written = serde_json::to_value(&task).expect("writes");
        assert_eq!(written["status"]["state"], "TASK_STATE_COMPLETED");
        assert_eq!(written["status"]["timestamp"], "2026-12-01T08:56:50.123Z");
        assert_eq!(written["history"][0]["role"], "ROLE_USER");
        assert!(written.get("kind").is_none());
        assert!(written["history"][0].get("kind").is_none());
        assert_eq!(
            written["artifacts"][1]["parts"],
            json!([
                {"raw": "SGVsbG8gVENL", "metadata": {"file": true}, "filename": "output.txt", "mediaType": "text/plain"},
                {"url": "https://files.example.com/output.txt", "metadata": {"file": true}, "filename": "output.txt", "mediaType": "text/plain"}
            ])
        );
        assert_eq!(
            written["artifacts"][2]["parts"][0],
            json!({"data": {"key": "value", "count": 42}, "metadata": {"data": true}})
        );
    }

    #[test]
    fn a_1_0_message_round_trips_through_0_3() {
        let message: Message = serde_json::from_value(json!({
            "messageId": "m-1", "contextId": "c-1", "taskId": "t-1", "role": "ROLE_USER",
            "parts": [
                {"text": "hi"},
                {"raw": "aGk=", "filename": "hi.txt", "mediaType": "text/plain"},
                {"url": "https://files.example.com/x", "mediaType": "application/pdf"},
                {"data": {"a": [1, 2]}, "metadata": {"m": 1}}
            ],
            "metadata": {"k": "v"}, "extensions": ["e"], "referenceTaskIds": ["t-0"]
        }))
        .expect("reads");
        let v03_message = v03::Message::try_from(message.clone()).expect("converts");
        assert_eq!(Message::from(v03_message), message);
    }

    #[test]
    fn what_0_3_cannot_hold_is_lost_as_documented() {
        let mut text = Part::text("# Title");
        text.media_type = "text/markdown".into();
        text.filename = "notes.md".into();
        assert_eq!(Part::from(v03::Part::from(text)), Part::text("# Title"));

        let array = Part::new(PartContent::Data(json!([1, 2])));
        let v03::Part::Data(data) = v03::Part::from(array) else {
            panic!("a data part");
        };
        assert_eq!(Value::Object(data.data), json!({"value": [1, 2]}));

        let both = Part::from(file(Some("aGk="), Some("https://x")));
        assert_eq!(
            both.content,
            PartContent::Raw(Base64::parse("aGk=").expect("b64"))
        );
        let neither = Part::from(file(None, None));
        assert_eq!(
            neither.content,
            PartContent::Raw(Base64::parse("").expect("b64"))
        );
        let unpadded = Part::from(file(Some("aGk"), None));
        assert_eq!(
            unpadded.content,
            PartContent::Raw(Base64::parse("aGk=").expect("b64"))
        );

        let mut status = v03_task(v03::TaskState::Working).status;
        status.timestamp = Some("yesterday".into());
        assert_eq!(TaskStatus::from(status).timestamp, None);

        let mut message = v03_message(v03::Role::User, "x");
        message.task_id = Some(String::new());
        message.extensions = Some(Vec::new());
        let back = v03::Message::try_from(Message::from(message)).expect("converts");
        assert_eq!((back.task_id, back.extensions), (None, None));
    }

    #[test]
    fn role_unspecified_is_refused_with_its_path() {
        let mut task = Task::from(v03_task(v03::TaskState::Completed));
        task.history[1].role = Role::Unspecified;
        let error = v03::Task::try_from(task.clone()).expect_err("unspecified");
        assert_eq!(error.field, "history[1].role");
        task.history[1].role = Role::Agent;
        task.status.message.as_mut().expect("message").role = Role::Unspecified;
        let error = v03::Task::try_from(task).expect_err("unspecified");
        assert_eq!(error.field, "status.message.role");

        let request: SendMessageRequest = serde_json::from_value(json!({
            "message": {"messageId": "m", "role": "ROLE_UNSPECIFIED", "parts": [{"text": "x"}]}
        }))
        .expect("reads");
        let error = v03::MessageSendParams::try_from(request).expect_err("unspecified");
        let rpc = error.to_a2a_error().to_rpc_error();
        assert_eq!(rpc.code, -32602);
        assert!(
            rpc.message.starts_with("params.message.role: "),
            "{}",
            rpc.message
        );
    }

    #[test]
    fn stream_events_map_both_ways_and_final_follows_the_state() {
        let task = v03_task(v03::TaskState::Working);
        let status_update = |state: v03::TaskState, is_final: bool| v03::TaskStatusUpdateEvent {
            kind: v03::StatusUpdateKind::Value,
            task_id: "t-1".into(),
            context_id: "c-1".into(),
            status: v03::TaskStatus {
                state,
                message: None,
                timestamp: Some("2026-12-01T08:56:50Z".into()),
            },
            is_final,
            metadata: None,
        };
        let artifact = task.artifacts.clone().expect("artifacts").remove(0);
        let events = [
            V03StreamEvent::Task(task.clone()),
            V03StreamEvent::StatusUpdate(status_update(v03::TaskState::Working, false)),
            V03StreamEvent::ArtifactUpdate(v03::TaskArtifactUpdateEvent {
                kind: v03::ArtifactUpdateKind::Value,
                task_id: "t-1".into(),
                context_id: "c-1".into(),
                artifact,
                append: Some(false),
                last_chunk: Some(true),
                metadata: None,
            }),
            V03StreamEvent::StatusUpdate(status_update(v03::TaskState::InputRequired, true)),
            V03StreamEvent::StatusUpdate(status_update(v03::TaskState::Completed, true)),
            V03StreamEvent::Message(v03_message(v03::Role::Agent, "done")),
        ];
        for event in events {
            let v1 = StreamResponse::from(event.clone());
            let written = serde_json::to_value(&v1).expect("writes");
            assert!(
                written
                    .get("statusUpdate")
                    .is_none_or(|u| u.get("final").is_none()),
                "no `final` in 1.0: {written}"
            );
            assert_eq!(V03StreamEvent::try_from(v1).expect("back"), event);
        }
        let kinds: Vec<Value> = [
            V03StreamEvent::Task(task.clone()),
            V03StreamEvent::StatusUpdate(status_update(v03::TaskState::Working, false)),
        ]
        .iter()
        .map(|event| serde_json::to_value(event).expect("writes")["kind"].clone())
        .collect();
        assert_eq!(kinds, [json!("task"), json!("status-update")]);
    }

    #[test]
    fn push_configs_map_between_nested_and_flat() {
        let v03_config = v03::TaskPushNotificationConfig {
            task_id: "t-1".into(),
            push_notification_config: v03::PushNotificationConfig {
                id: Some("p-1".into()),
                url: "https://hooks.example.com/a2a".into(),
                token: Some("tok".into()),
                authentication: Some(v03::PushNotificationAuthenticationInfo {
                    schemes: vec!["Bearer".into()],
                    credentials: Some("secret".into()),
                }),
                payload_version: v03::PushPayload::V0_3,
            },
        };
        let flat = TaskPushNotificationConfig::from(v03_config.clone());
        assert_eq!(
            serde_json::to_value(&flat).expect("writes"),
            json!({"id": "p-1", "taskId": "t-1", "url": "https://hooks.example.com/a2a",
                "token": "tok", "authentication": {"scheme": "Bearer", "credentials": "secret"}})
        );
        // Back in the engine's model it is the same config, marked as set over 1.0.
        let mut set_over_1_0 = v03_config.clone();
        set_over_1_0.push_notification_config.payload_version = v03::PushPayload::V1_0;
        assert_eq!(v03::TaskPushNotificationConfig::from(flat), set_over_1_0);

        let mut two_schemes = v03_config.clone();
        if let Some(auth) = two_schemes.push_notification_config.authentication.as_mut() {
            auth.schemes.push("Basic".into());
        }
        let flat = TaskPushNotificationConfig::from(two_schemes);
        assert_eq!(flat.authentication.expect("auth").scheme, "Bearer");

        let list = list_push_configs_response(vec![v03_config]);
        assert_eq!(list.configs[0].id, "p-1");
        assert_eq!(list.next_page_token, "");
    }

    #[test]
    fn a_1_0_send_is_blocking_unless_it_returns_immediately() {
        let request = |configuration: Value| -> SendMessageRequest {
            let mut params = json!({
                "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}
            });
            if !configuration.is_null() {
                params["configuration"] = configuration;
            }
            serde_json::from_value(params).expect("reads")
        };
        let blocking = |request: SendMessageRequest| {
            v03::MessageSendParams::try_from(request)
                .expect("converts")
                .configuration
                .expect("configuration")
                .blocking
        };
        assert_eq!(blocking(request(Value::Null)), Some(true));
        // With a webhook, still blocking: 0.3's Joule default is not 1.0's.
        let with_webhook = request(json!({"taskPushNotificationConfig": {"url": "https://h"}}));
        assert_eq!(blocking(with_webhook), Some(true));
        assert_eq!(
            blocking(request(json!({"returnImmediately": true}))),
            Some(false)
        );

        let params = v03::MessageSendParams::try_from(request(json!({
            "acceptedOutputModes": ["text/plain"], "historyLength": 2,
            "taskPushNotificationConfig": {"taskId": "ignored", "id": "p", "url": "https://h"}
        })))
        .expect("converts");
        let configuration = params.configuration.expect("configuration");
        assert_eq!(configuration.history_length, Some(2));
        assert_eq!(
            configuration.accepted_output_modes,
            Some(vec!["text/plain".to_string()])
        );
        let push = configuration.push_notification_config.expect("push");
        assert_eq!(
            (push.id.as_deref(), push.url.as_str()),
            (Some("p"), "https://h")
        );
        assert_eq!(params.message.task_id, None);
    }

    #[test]
    fn request_params_map_onto_the_0_3_params() {
        let get = v03::TaskQueryParams::from(GetTaskRequest {
            tenant: String::new(),
            id: "t".into(),
            history_length: Some(0),
        });
        assert_eq!((get.id.as_str(), get.history_length), ("t", Some(0)));
        let get =
            v03::GetTaskPushNotificationConfigParams::from(GetTaskPushNotificationConfigRequest {
                tenant: String::new(),
                task_id: "t".into(),
                id: "p".into(),
            });
        assert_eq!(get.push_notification_config_id.as_deref(), Some("p"));
        let delete = v03::DeleteTaskPushNotificationConfigParams::from(
            DeleteTaskPushNotificationConfigRequest {
                tenant: String::new(),
                task_id: "t".into(),
                id: "p".into(),
            },
        );
        assert_eq!(
            (
                delete.id.as_str(),
                delete.push_notification_config_id.as_str()
            ),
            ("t", "p")
        );
        let cancel = v03::TaskIdParams::from(CancelTaskRequest {
            tenant: String::new(),
            id: "t".into(),
            metadata: metadata("why"),
        });
        assert_eq!(cancel.metadata, metadata("why"));
    }

    #[test]
    fn a_0_3_send_maps_to_1_0_and_back() {
        let params = v03::MessageSendParams {
            message: v03_message(v03::Role::User, "hi"),
            configuration: Some(v03::MessageSendConfiguration {
                accepted_output_modes: Some(vec!["text/plain".into()]),
                history_length: Some(3),
                push_notification_config: None,
                blocking: Some(true),
            }),
            metadata: metadata("send"),
        };
        let request = SendMessageRequest::from(params.clone());
        assert!(
            !request
                .configuration
                .as_ref()
                .expect("cfg")
                .return_immediately
        );
        assert_eq!(
            v03::MessageSendParams::try_from(request).expect("back"),
            params
        );
    }
}
