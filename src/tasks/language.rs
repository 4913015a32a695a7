//! The language of a turn as the task engine finds it: the `locale` or
//! `language` the message's or the request's metadata names, the caller's
//! `Accept-Language`, the text, and the language the task (or the finished
//! task a new one follows) was answered in; the agent's
//! [`crate::agent::language::decide`] weighs them. The decided language is
//! kept in the task's metadata (`language`), where the next turn finds the
//! conversation's language and clients can read it.

use super::call::CallContext;
use crate::a2a::{Message, Metadata, Task};
use crate::agent::language::{self, Language, LanguageCues, TurnLanguage};
use serde_json::{Value, json};

/// The metadata keys that may name the user's language, the first found wins.
const HINT_KEYS: [&str; 2] = ["locale", "language"];

/// Where a task keeps the language of its latest turn. Task metadata:
/// clients can read it but never write it.
const TASK_LANGUAGE: &str = "language";

/// What a new task's turn knows besides its message.
#[derive(Debug, Clone, Default)]
pub(super) struct TurnCues {
    /// The finished or unknown task the message named; the new task refers to it.
    pub stale_task_id: Option<String>,
    /// The language the finished task it follows was answered in.
    pub conversation: Option<Language>,
    /// `locale`/`language` of the request's metadata.
    pub request_hint: Option<String>,
}

/// The language `metadata` names, as written (a tag such as `de-DE`).
pub(super) fn hint(metadata: Option<&Metadata>) -> Option<&str> {
    let metadata = metadata?;
    HINT_KEYS
        .iter()
        .find_map(|key| metadata.get(*key).and_then(Value::as_str))
}

/// The language `task`'s latest turn was answered in.
pub(super) fn of_task(task: &Task) -> Option<Language> {
    task.metadata
        .as_ref()?
        .get(TASK_LANGUAGE)?
        .as_str()
        .and_then(Language::from_tag)
}

/// Keep the turn's language on the task.
pub(super) fn keep(task: &mut Task, language: Language) {
    task.metadata
        .get_or_insert_with(Default::default)
        .insert(TASK_LANGUAGE.into(), json!(language.code()));
}

/// The language of the turn `message` starts.
pub(super) fn decide(
    message: &Message,
    text: &str,
    request_hint: Option<&str>,
    call: &CallContext,
    conversation: Option<Language>,
) -> TurnLanguage {
    language::decide(&LanguageCues {
        message_hint: hint(message.metadata.as_ref()),
        request_hint,
        accept_language: call.accept_language.as_deref(),
        text,
        conversation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{TaskKind, TaskState, TaskStatus};

    fn task(metadata: Option<Metadata>) -> Task {
        Task {
            kind: TaskKind::Value,
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Working,
                message: None,
                timestamp: None,
            },
            history: None,
            artifacts: None,
            metadata,
        }
    }

    #[test]
    fn hints_come_from_locale_or_language() {
        let metadata = |value: Value| value.as_object().cloned();
        assert_eq!(
            hint(metadata(json!({"locale": "de-DE"})).as_ref()),
            Some("de-DE")
        );
        assert_eq!(
            hint(metadata(json!({"language": "fr", "locale": "es"})).as_ref()),
            Some("es"),
            "locale first"
        );
        assert_eq!(
            hint(metadata(json!({"locale": 7, "language": "fr"})).as_ref()),
            Some("fr")
        );
        assert_eq!(hint(metadata(json!({"other": "de"})).as_ref()), None);
        assert_eq!(hint(None), None);
    }

    #[test]
    fn the_language_is_kept_on_the_task() {
        let mut kept = task(None);
        assert_eq!(of_task(&kept), None);
        keep(&mut kept, Language::De);
        assert_eq!(of_task(&kept), Some(Language::De));
        assert_eq!(
            kept.metadata.as_ref().map(|m| m["language"].clone()),
            Some(json!("de"))
        );
        keep(&mut kept, Language::Fr);
        assert_eq!(of_task(&kept), Some(Language::Fr));
        let odd = task(json!({"language": 3}).as_object().cloned());
        assert_eq!(of_task(&odd), None);
    }
}
