//! What the task engine hands the agent for one turn ([`Turn`]): who asks
//! ([`Caller`]), what they said before and now ([`UserMessage`]), what the
//! task waits on, its language, and where the turn says how far it got
//! ([`Progress`]). Every part of the agent reads it, so it is a leaf.

use super::approval::PendingApproval;
use super::language::TurnLanguage;
use crate::roles::BusinessRole;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// Who is asking, as far as the rule book cares. Built from the validated
/// token (or, with authentication off, the local caller's stated roles).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Caller {
    /// The person's user id; `None` for a technical client.
    pub user_id: Option<String>,
    /// The person's key: issuer, tenant and user id, as their tasks are
    /// owned (the ledger files and lists their rows under it); `None` for
    /// a technical client, or the local caller with authentication off.
    pub approver_key: Option<String>,
    pub roles: BTreeSet<BusinessRole>,
    /// The person's own token, for reads as that person (principal
    /// propagation to S/4HANA); `None` for a technical client.
    pub user_token: Option<crate::secret::BearerToken>,
}

impl Caller {
    /// Only a person with a role may approve; a technical token never does.
    pub fn is_person(&self) -> bool {
        self.user_id.is_some()
    }

    /// Who the turn's reads are made as: the person's token and user id.
    pub fn reading(&self) -> crate::backend::ReadingUser<'_> {
        crate::backend::ReadingUser {
            token: self.user_token.as_ref(),
            user_id: self.user_id.as_deref(),
        }
    }
}

/// One user message as the agent reads it: the text of its text parts and
/// the `data` objects of its data parts (structured input from a calling
/// agent; [`DataFields`](super::input::DataFields) reads the fields the agent knows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserMessage {
    pub text: String,
    pub data: Vec<Map<String, Value>>,
}

/// What the user said in this task, oldest first; `text` and `data` are the
/// new message.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    pub earlier: Vec<UserMessage>,
    pub text: String,
    pub data: Vec<Map<String, Value>>,
    pub caller: Caller,
    pub task_id: String,
    pub context_id: String,
    /// What this task asked the user to approve, if it did: one proposal,
    /// or a batch's list.
    pub pending: Option<PendingApproval>,
    /// Where a long turn says how far it got (the engine shows it when the
    /// budget runs out before the answer).
    pub progress: Progress,
    /// The new message's id (the conformance agent reads its scenario from
    /// the prefix; the order agent has no use for it).
    #[cfg(feature = "conformance")]
    pub message_id: String,
    /// The language the user is answered in this turn, decided once by the
    /// task engine ([`decide`](super::language::decide)) and kept on the task.
    pub language: TurnLanguage,
}

/// How far a turn got, as one line for the user; the task engine reads the
/// latest when it must answer `working` before the turn ends.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<Mutex<Option<String>>>);

impl Progress {
    pub fn publish(&self, text: String) {
        if let Ok(mut latest) = self.0.lock() {
            *latest = Some(text);
        }
    }

    /// The latest line published, if any.
    pub fn latest(&self) -> Option<String> {
        self.0.lock().ok().and_then(|latest| latest.clone())
    }
}
