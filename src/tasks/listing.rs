//! Listing tasks (A2A 1.0 `ListTasks`, but nothing here knows a protocol
//! version): the query every store answers — scoped to an owner or not,
//! filtered by context, state and the time of the last status change,
//! newest first, paged by an opaque cursor. The rules of the filter and the
//! order are written here once: the memory store applies them
//! (`memory.rs`), the SQL store's query follows them (`sql/listing.rs`).

use super::owner_realm::IdentityRealm;
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
    /// Only tasks this owner created; the key names the caller's realm
    /// (issuer and tenant) and kind ([`OwnerScope::user`],
    /// [`OwnerScope::client`], `owner_realm.rs`).
    Owner(String),
}

impl OwnerScope {
    /// A person, by the token's user id in its realm.
    pub fn user(realm: &IdentityRealm, user_id: &str) -> OwnerScope {
        OwnerScope::Owner(realm.key("user", user_id))
    }

    /// An application calling with its own token, by its client id in its
    /// realm: two technical clients do not share their tasks.
    pub fn client(realm: &IdentityRealm, client_id: &str) -> OwnerScope {
        OwnerScope::Owner(realm.key("client", client_id))
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
        assert!(OwnerScope::Everyone.admits(Some("ias:t:user:u")));
        let realm = IdentityRealm::new("ias", "t");
        let user = OwnerScope::user(&realm, "u");
        assert!(user.admits(Some("ias:t:user:u")));
        assert!(!user.admits(Some("ias:t:user:v")));
        assert!(!user.admits(None));
        // A client named like a user is not that user, nor the other way round.
        assert!(!OwnerScope::client(&realm, "u").admits(Some("ias:t:user:u")));
        assert!(!user.admits(OwnerScope::client(&realm, "u").owner()));
        assert!(!OwnerScope::client(&realm, "a").admits(OwnerScope::client(&realm, "b").owner()));
        // The same id of another issuer or tenant is someone else.
        assert!(!user.admits(OwnerScope::user(&IdentityRealm::new("xsuaa", "t"), "u").owner()));
        assert!(!user.admits(OwnerScope::user(&IdentityRealm::new("ias", "t2"), "u").owner()));
        assert_eq!(OwnerScope::Everyone.owner(), None);
        assert_eq!(user.owner(), Some("ias:t:user:u"));
    }

    fn key(scope: &OwnerScope) -> String {
        scope.owner().expect("an owner").to_string()
    }

    #[test]
    fn issuers_tenants_and_kinds_give_distinct_keys() {
        let realms = [
            IdentityRealm::new("ias", "t-1"),
            IdentityRealm::new("ias", "t-2"),
            IdentityRealm::new("xsuaa", "t-1"),
            IdentityRealm::new("ias", ""),
        ];
        let mut keys = std::collections::BTreeSet::new();
        for realm in &realms {
            for id in ["alice", "bob"] {
                assert!(keys.insert(key(&OwnerScope::user(realm, id))));
                assert!(keys.insert(key(&OwnerScope::client(realm, id))));
            }
        }
        assert_eq!(keys.len(), 16);
        assert_eq!(
            key(&OwnerScope::user(&realms[0], "alice")),
            "ias:t-1:user:alice"
        );
    }

    /// Separators in any part do not let one triple pass for another.
    #[test]
    fn no_part_collides_through_the_separator() {
        let cases = [
            (IdentityRealm::new("ias", "t"), "user:x"),
            (IdentityRealm::new("ias", "t:user"), "x"),
            (IdentityRealm::new("ias:t", "user"), "x"),
            (IdentityRealm::new("ias", "t%3Auser"), "x"),
            (IdentityRealm::new("ias", "t:user:x"), ""),
        ];
        let keys: std::collections::BTreeSet<_> = cases
            .iter()
            .map(|(realm, id)| key(&OwnerScope::user(realm, id)))
            .collect();
        assert_eq!(keys.len(), cases.len(), "{keys:?}");
        // The first three `:` split a key back into its parts.
        let tricky = key(&OwnerScope::user(&IdentityRealm::new("ias", "a:b"), "c:d"));
        let parts: Vec<_> = tricky.splitn(4, ':').collect();
        assert_eq!(parts, ["ias", "a%3Ab", "user", "c:d"]);
    }

    #[test]
    fn a_legacy_key_adopted_is_the_realm_s_key() {
        let realm = IdentityRealm::new("ias", "t-1");
        assert_eq!(
            realm.adopt("user:alice"),
            key(&OwnerScope::user(&realm, "alice"))
        );
        assert_eq!(
            realm.adopt("client:reporting"),
            key(&OwnerScope::client(&realm, "reporting"))
        );
        for issuer in ["ias", "xsuaa"] {
            let adopted = IdentityRealm::new(issuer, "user").adopt("user:a");
            assert!(!adopted.starts_with("user:") && !adopted.starts_with("client:"));
        }
    }
}
