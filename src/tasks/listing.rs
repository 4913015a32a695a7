//! Listing tasks (A2A 1.0 `ListTasks`, but nothing here knows a protocol
//! version): the query every store answers — scoped to an owner or not,
//! filtered by context, state and the time of the last status change,
//! newest first, paged by an opaque cursor. The rules of the filter and the
//! order are written here once: the memory store applies them
//! (`memory.rs`), the SQL store's query follows them (`sql/listing.rs`).

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
    #[cfg(test)]
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
