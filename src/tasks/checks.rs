//! The checks a request passes before a turn runs, so that what one caller
//! sends cannot make the instance hold more than the settings allow: its
//! `historyLength`, the message (its size, role, parts and text), whether
//! the task it continues has room for it (whether the caller may open one
//! more task is asked where a task is first stored open: `open_bound`).

use super::error::EngineError;
use super::settings::TaskSettings;
use crate::a2a::{Message, Part, PushNotificationConfig, Role, Task};

/// `historyLength`: negative is an error; absent keeps everything.
pub(super) fn history_limit(value: Option<i64>, field: &str) -> Result<Option<u64>, EngineError> {
    match value {
        None => Ok(None),
        Some(n) if n < 0 => Err(EngineError::InvalidParams(format!(
            "{field} must not be negative (got {n})"
        ))),
        Some(n) => Ok(Some(n.unsigned_abs())),
    }
}

/// Empty-string ids count as absent (Joule sends `""` on a first turn).
pub(super) fn present(id: &Option<String>) -> Option<&str> {
    id.as_deref().filter(|id| !id.trim().is_empty())
}

/// `value`'s size as the compact JSON a store keeps (one encoding, linear
/// in its size; a value that does not encode counts as too large).
fn json_bytes<T: serde::Serialize>(value: &T) -> usize {
    super::store::task_json(value).map_or(usize::MAX, |json| json.len())
}

/// `v1_names`: the caller speaks 1.0, whose wire spells the role
/// `ROLE_USER`.
pub(super) fn check_message(
    message: &Message,
    settings: &TaskSettings,
    v1_names: bool,
) -> Result<(), EngineError> {
    let bytes = json_bytes(message);
    if bytes > settings.max_message_bytes {
        return Err(EngineError::InvalidParams(format!(
            "params.message is {} bytes as JSON, more than the {} one message may have \
             (tasks.max_message_bytes): ask about fewer orders at a time, in a shorter text",
            if bytes == usize::MAX {
                "too many".to_string()
            } else {
                bytes.to_string()
            },
            settings.max_message_bytes
        )));
    }
    if message.role != Role::User {
        let user = if v1_names { "ROLE_USER" } else { "user" };
        return Err(EngineError::InvalidParams(format!(
            "params.message.role must be \"{user}\""
        )));
    }
    if message.parts.is_empty() {
        return Err(EngineError::InvalidParams(
            "params.message.parts must not be empty".into(),
        ));
    }
    if message.message_id.trim().is_empty() {
        return Err(EngineError::InvalidParams(
            "params.message.messageId must not be empty".into(),
        ));
    }
    // Text and data parts are read (the agent knows some data fields);
    // files are not.
    for (index, part) in message.parts.iter().enumerate() {
        if matches!(part, Part::File(_)) {
            return Err(EngineError::ContentTypeNotSupported(format!(
                "params.message.parts[{index}]: {} parts are not supported; this agent takes text/plain and application/json (data parts)",
                part.media_type()
            )));
        }
    }
    let has_data = message
        .parts
        .iter()
        .any(|part| matches!(part, Part::Data(_)));
    if message.text().trim().is_empty() && !has_data {
        return Err(EngineError::InvalidParams(
            "params.message.parts: the message has no text".into(),
        ));
    }
    Ok(())
}

/// Whether `task` has room for `message` and the answer to it: at most
/// `tasks.max_task_messages` messages and `tasks.max_task_bytes` bytes,
/// its push configs (`configs`) counted. A full task is not continued
/// (nothing in it is lost); the caller starts a new conversation. The
/// bytes left for the task's push configs when it has room.
pub(super) fn check_room(
    task: &Task,
    message: &Message,
    configs: &[PushNotificationConfig],
    settings: &TaskSettings,
) -> Result<usize, EngineError> {
    let id = &task.id;
    // The history as it will be: the status message archived, the
    // follow-up added.
    let messages =
        task.history.as_ref().map_or(0, Vec::len) + usize::from(task.status.message.is_some()) + 1;
    if messages > settings.max_task_messages {
        return Err(EngineError::InvalidParams(format!(
            "task {id} holds {} messages, as many as one task may (tasks.max_task_messages): \
             start a new conversation (send the message without taskId)",
            messages - 1
        )));
    }
    let bytes = json_bytes(task).saturating_add(json_bytes(message));
    if bytes.saturating_add(json_bytes(&configs)) > settings.max_task_bytes {
        return Err(EngineError::InvalidParams(format!(
            "task {id} would hold more than the {} bytes one task may have, its push \
             notification configs counted (tasks.max_task_bytes): start a new conversation \
             (send the message without taskId)",
            settings.max_task_bytes
        )));
    }
    Ok(settings.max_task_bytes - bytes)
}

/// The bytes `tasks.max_task_bytes` leaves beside `task` for its push
/// configs.
pub(super) fn config_room(task: &Task, settings: &TaskSettings) -> usize {
    settings.max_task_bytes.saturating_sub(json_bytes(task))
}
