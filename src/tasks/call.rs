//! Who calls and under which rules: what the inbound call carried that the
//! engine and a later callback need, and the task rules the request handler
//! chose for it. Every part of the engine reads it; it knows nothing of them.

use super::listing::OwnerScope;
use crate::agent::Caller;
use crate::auth::BearerToken;

/// What the inbound call carried that a later callback needs (Joule echoes
/// the correlation headers and exchanges the user token). Never logged;
/// its `Debug` shows no token.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub conversation_id: Option<String>,
    pub correlation_id: Option<String>,
    /// The caller's token as the HTTP edge parsed it.
    pub bearer_token: Option<BearerToken>,
    /// Who called, for the rule book.
    pub caller: Caller,
    /// Which task rules the request handler chose for this call.
    pub rules: CallRules,
    /// Whose tasks this call may see and touch (the HTTP edge sets it from
    /// the token; the default, everyone's, is for the service's own work).
    pub scope: OwnerScope,
    /// The caller's `Accept-Language` header: the language the user is
    /// answered in when the message does not say
    /// (docs/routing.md#languages).
    pub accept_language: Option<String>,
    /// The tenant and user the turn's span carries, as the request's does.
    pub tags: crate::telemetry::CallerTags,
}

impl CallContext {
    /// Who a task this call creates belongs to.
    pub fn owner(&self) -> Option<&str> {
        self.scope.owner()
    }
}

/// Task rules a request handler can make stricter for a call than the
/// settings' defaults (the request handler knows why; the engine does not
/// need to). The defaults are the Joule-friendly ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallRules {
    /// A message naming an unknown task, a finished one, or a task of
    /// another context is refused instead of starting a new task.
    pub strict_task_ids: bool,
    /// A blocking send waits until the task ends or pauses, however long:
    /// when the budget runs out the task is stored (so it can be read and
    /// listed) and the wait goes on.
    pub wait_past_budget: bool,
    /// Errors name fields as A2A 1.0 spells them (a 1.0 push config is
    /// flat in its params, and inline under `taskPushNotificationConfig`).
    pub v1_field_names: bool,
}
