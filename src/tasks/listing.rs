//! Listing tasks (A2A 1.0 `ListTasks`, but nothing here knows a protocol
//! version): the query every store answers — scoped to an owner or not,
//! filtered by context, state and the time of the last status change,
//! newest first, paged by an opaque cursor — and the engine's entry point.
//! The memory store's filter lives here too, so the rules are written once
//! beside the SQL that the SQL store runs.

use super::engine::TaskEngine;
use super::error::EngineError;
use crate::a2a::{Task, TaskState};
use base64::Engine as _;

/// Whose tasks a call may see and touch, and so whose a list shows: every
/// read or write of a task on a caller's behalf is scoped by it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum OwnerScope {
    /// Every task: authentication off (one local caller), or the service's
    /// own work (a later result, an operator on the instance).
    #[default]
    Everyone,
    /// Only tasks this owner created; the key names the kind of caller
    /// ([`OwnerScope::user`], [`OwnerScope::client`]).
    Owner(String),
}

impl OwnerScope {
    /// A person, by the token's user id.
    pub fn user(user_id: &str) -> OwnerScope {
        OwnerScope::Owner(format!("user:{user_id}"))
    }

    /// An application calling with its own token, by its client id: two
    /// technical clients do not share their tasks.
    pub fn client(client_id: &str) -> OwnerScope {
        OwnerScope::Owner(format!("client:{client_id}"))
    }

    /// Whether a task created by `owner` is in scope.
    pub fn admits(&self, owner: Option<&str>) -> bool {
        match self {
            OwnerScope::Everyone => true,
            OwnerScope::Owner(wanted) => owner == Some(wanted.as_str()),
        }
    }

    /// The owner a task created in this scope gets (`None` for everyone's).
    pub fn owner(&self) -> Option<&str> {
        match self {
            OwnerScope::Everyone => None,
            OwnerScope::Owner(key) => Some(key),
        }
    }
}

/// Where the previous page ended: the last task's change time and id (the
/// order is change time, then id, both descending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageCursor {
    pub changed_ms: i64,
    pub id: String,
}

impl PageCursor {
    /// The opaque page token a client sends back.
    pub fn to_token(&self) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(format!("{}:{}", self.changed_ms, self.id))
    }

    /// `None` when the token is not one of ours.
    pub fn from_token(token: &str) -> Option<PageCursor> {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token)
            .ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let (changed, id) = text.split_once(':')?;
        Some(PageCursor {
            changed_ms: changed.parse().ok()?,
            id: id.to_string(),
        })
    }

    /// Whether a task at (`changed_ms`, `id`) comes after this cursor.
    pub fn precedes(&self, changed_ms: i64, id: &str) -> bool {
        changed_ms < self.changed_ms || (changed_ms == self.changed_ms && id < self.id.as_str())
    }
}

/// What to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskQuery {
    pub scope: OwnerScope,
    pub context_id: Option<String>,
    pub state: Option<TaskState>,
    /// Only tasks whose last change is at or after this (Unix ms).
    pub changed_since_ms: Option<i64>,
    /// At least 1.
    pub page_size: usize,
    pub after: Option<PageCursor>,
}

impl TaskQuery {
    /// Everything, unscoped, one page of `page_size`.
    pub fn everything(page_size: usize) -> TaskQuery {
        TaskQuery {
            scope: OwnerScope::Everyone,
            context_id: None,
            state: None,
            changed_since_ms: None,
            page_size,
            after: None,
        }
    }

    /// The filters, without the cursor (what `total` counts).
    pub fn matches(
        &self,
        owner: Option<&str>,
        context_id: &str,
        state: TaskState,
        changed_ms: i64,
    ) -> bool {
        self.scope.admits(owner)
            && self.context_id.as_deref().is_none_or(|c| c == context_id)
            && self.state.is_none_or(|s| s == state)
            && self
                .changed_since_ms
                .is_none_or(|since| changed_ms >= since)
    }
}

/// One page: the tasks, where the next page starts (`None` on the last),
/// and how many tasks match the filters in all.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPage {
    pub tasks: Vec<Task>,
    pub next: Option<PageCursor>,
    pub total: u64,
}

/// One task as the memory store holds it, for [`page_of`].
pub(super) struct Listed<'a> {
    pub owner: Option<&'a str>,
    pub changed_ms: i64,
    pub id: &'a str,
    pub json: &'a str,
}

/// The page `query` asks for from all of a store's tasks (decoded only
/// when they are on the page).
pub(super) fn page_of<'a>(
    query: &TaskQuery,
    candidates: impl Iterator<Item = (Listed<'a>, String, TaskState)>,
) -> Result<TaskPage, super::store::StoreError> {
    let mut matching: Vec<Listed<'a>> = candidates
        .filter(|(listed, context_id, state)| {
            query.matches(listed.owner, context_id, *state, listed.changed_ms)
        })
        .map(|(listed, _, _)| listed)
        .collect();
    let total = matching.len() as u64;
    matching.sort_by(|a, b| b.changed_ms.cmp(&a.changed_ms).then(b.id.cmp(a.id)));
    let mut rest = matching
        .into_iter()
        .filter(|listed| {
            query
                .after
                .as_ref()
                .is_none_or(|cursor| cursor.precedes(listed.changed_ms, listed.id))
        })
        .take(query.page_size + 1)
        .collect::<Vec<_>>();
    let more = rest.len() > query.page_size;
    rest.truncate(query.page_size);
    let next = more.then(|| rest.last()).flatten().map(|last| PageCursor {
        changed_ms: last.changed_ms,
        id: last.id.to_string(),
    });
    let tasks = rest
        .iter()
        .filter_map(|listed| match serde_json::from_str::<Task>(listed.json) {
            Ok(task) => Some(task),
            Err(error) => {
                let error = super::store::StoreError::corrupt(format!("task {}", listed.id), error);
                skipped_unreadable(listed.id, &error);
                None
            }
        })
        .collect();
    Ok(TaskPage { tasks, next, total })
}

/// A listing met a task that does not read back: it leaves it out of the
/// page (the rest of the page is still the caller's) and says so in the log.
pub(super) fn skipped_unreadable(task_id: &str, error: &super::store::StoreError) {
    tracing::error!(
        a2a.task.id = %task_id,
        %error,
        "a listing skipped a task that does not read back"
    );
}

impl TaskEngine {
    /// List tasks as `query` says (the caller's scope is in it).
    pub async fn list_tasks(&self, query: &TaskQuery) -> Result<TaskPage, EngineError> {
        Ok(self.inner.store.list(query).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_survives_its_token_and_refuses_strangers() {
        let cursor = PageCursor {
            changed_ms: 1_796_115_410_123,
            id: "a:b".into(),
        };
        assert_eq!(PageCursor::from_token(&cursor.to_token()), Some(cursor));
        assert_eq!(PageCursor::from_token("not a token"), None);
        assert_eq!(PageCursor::from_token(""), None);
    }

    #[test]
    fn scopes_admit_their_owner_only() {
        assert!(OwnerScope::Everyone.admits(None));
        assert!(OwnerScope::Everyone.admits(Some("user:u")));
        let user = OwnerScope::user("u");
        assert!(user.admits(Some("user:u")));
        assert!(!user.admits(Some("user:v")));
        assert!(!user.admits(None));
        // A client named like a user is not that user, nor the other way round.
        assert!(!OwnerScope::client("u").admits(Some("user:u")));
        assert!(!user.admits(OwnerScope::client("u").owner()));
        assert!(!OwnerScope::client("a").admits(OwnerScope::client("b").owner()));
        assert_eq!(OwnerScope::Everyone.owner(), None);
        assert_eq!(user.owner(), Some("user:u"));
    }
}
