//! Filing an approved proposal: the order must still exist, then one row
//! in the action ledger on its key (order, action, the order's version when
//! it was proposed, the requested date: `approved::key`).
//! [`Approvals::record`] is the one step that writes the decision; whatever
//! carries the action out (an executor) follows it.

use super::{ApprovalStatus, Approvals};
use crate::agent::Proposal;
use crate::agent::Turn;
use crate::agent::execution::{Said, approved};
use crate::agent::language::Language;
use crate::agent::language::catalog::text as say;
use crate::agent::language::locale;
use crate::agent::ledger::{Filing, LedgerEntry, LedgerError};
use crate::roles::BusinessRole;
use std::sync::Arc;

/// Why an approved proposal was not filed.
#[derive(Debug, thiserror::Error)]
pub enum NotFiled {
    #[error("sales order {0} not found")]
    UnknownOrder(String),
    /// The order could not be read; approving again may work.
    #[error("the order data could not be read ({0})")]
    Unreadable(crate::backend::BackendError),
    /// The ledger is down; approving again may work.
    #[error("the action could not be filed right now ({0})")]
    Ledger(LedgerError),
    /// An earlier request for the order and action is being carried out
    /// right now; approving again once it is finished files this one.
    #[error(
        "an earlier {} for order {} (approved on {} by {}) is being carried out right now",
        .0.key.action, .0.key.sales_order, .0.approved_at, .0.approved_by
    )]
    EarlierOpen(Box<LedgerEntry>),
}

impl NotFiled {
    /// Why, in `language`, before "; nothing was filed" (the `Display`
    /// text is the log's English).
    pub(super) fn for_the_user(&self, language: Language) -> String {
        match self {
            NotFiled::UnknownOrder(_) | NotFiled::Unreadable(_) => self.to_string(),
            NotFiled::Ledger(error) => say(
                language,
                "not-filed-ledger",
                &[("error", error.to_string().into())],
            ),
            NotFiled::EarlierOpen(open) => say(
                language,
                "not-filed-earlier-open",
                &[
                    ("action", open.key.action.as_str().into()),
                    ("order", open.key.sales_order.as_str().into()),
                    ("at", locale::timestamp(language, &open.approved_at).into()),
                    ("user", open.approved_by.as_str().into()),
                ],
            ),
        }
    }
}

impl Approvals {
    /// Check that the order exists, then file `proposal`, approved by the
    /// turn's caller acting as `role`.
    pub(super) async fn file_approved(
        &self,
        proposal: &Proposal,
        role: BusinessRole,
        turn: &Turn,
    ) -> Result<Filing, NotFiled> {
        let orders = Arc::clone(&self.orders).as_user(turn.caller.reading());
        match orders.sales_order(&proposal.sales_order).await {
            Ok(Some(_)) => {}
            Ok(None) => return Err(NotFiled::UnknownOrder(proposal.sales_order.clone())),
            Err(error) => return Err(NotFiled::Unreadable(error)),
        }
        match self.record(proposal, role, turn).await {
            Ok(Filing::EarlierOpen(open)) => Err(NotFiled::EarlierOpen(Box::new(open))),
            Ok(filing) => Ok(filing),
            Err(error) => Err(NotFiled::Ledger(error)),
        }
    }

    /// Write the approved action into the ledger, exactly once per key: a
    /// second approval of the same request finds the first row.
    pub(super) async fn record(
        &self,
        proposal: &Proposal,
        role: BusinessRole,
        turn: &Turn,
    ) -> Result<Filing, LedgerError> {
        let entry = LedgerEntry {
            key: approved::key(proposal),
            specialist: proposal.specialist.clone(),
            summary: proposal.summary.clone(),
            approved_by: turn.caller.user_id.clone().unwrap_or_default(),
            approver_key: turn.caller.approver_key.clone(),
            approver_role: role.as_str().to_string(),
            approved_at: crate::clock::now_rfc3339(),
            task_id: turn.task_id.clone(),
            context_id: turn.context_id.clone(),
            parameters: approved::parameters(proposal, role, &self.rules),
            // A later attempt links its trace to this approval's and logs
            // under its correlation id.
            trace_parent: crate::telemetry::propagation::traceparent(&tracing::Span::current()),
            correlation_id: crate::telemetry::outbound::callers_correlation_id(),
            ..LedgerEntry::default()
        };
        let span = tracing::info_span!(
            "ledger.write",
            otel.name = "ledger.write",
            ledger.action = entry.key.action.as_str(),
            ledger.outcome = tracing::field::Empty,
        );
        // With the ledger-only executor the row is filed done: nothing
        // claims or finishes it after.
        let entry = self.executions.filed_done(entry);
        let filed = tracing::Instrument::instrument(self.ledger.file(entry), span.clone()).await;
        if let Ok(Filing::Filed(entry)) = &filed {
            self.executions.count_filed_done(entry);
        }
        span.record(
            "ledger.outcome",
            match &filed {
                Ok(Filing::Filed(_)) => "filed",
                Ok(Filing::AlreadyFiled(_)) => "already_filed",
                Ok(Filing::EarlierOpen(_)) => "earlier_open",
                Err(_) => "error",
            },
        );
        if let Err(error) = &filed {
            tracing::error!(%error, sales_order = %proposal.sales_order, "filing failed");
        }
        filed
    }

    /// Hand a recorded row to the executor (a row the ledger-only one
    /// filed is done already): the row as execution left it, and what the user
    /// reads about it ([`Said::Nothing`] when there is nothing to add). A
    /// row that is no longer open (done or failed before) is not run again.
    pub(super) async fn carry_out(&self, entry: LedgerEntry, turn: &Turn) -> (LedgerEntry, Said) {
        if !entry.state.is_open() {
            return (entry, Said::Nothing);
        }
        let report = self
            .executions
            .run(&entry, turn.caller.user_token.as_ref())
            .await;
        (report.entry.unwrap_or(entry), report.said)
    }
}

/// What the user reads about a filing, in `language`, and its status.
pub(super) fn describe(filing: &Filing, language: Language) -> (ApprovalStatus, String) {
    match filing {
        Filing::Filed(entry) => (
            ApprovalStatus::Filed,
            say(
                language,
                "filed",
                &[
                    ("summary", filed_summary(entry, language).into()),
                    ("order", entry.key.sales_order.as_str().into()),
                    ("action", entry.key.action.as_str().into()),
                    ("user", entry.approved_by.as_str().into()),
                    ("role", entry.approver_role.as_str().into()),
                ],
            ),
        ),
        // `file_approved` never hands this on; said like a repeat if it did.
        Filing::AlreadyFiled(entry) | Filing::EarlierOpen(entry) => (
            ApprovalStatus::AlreadyFiled,
            say(
                language,
                "already-filed",
                &[
                    ("action", entry.key.action.as_str().into()),
                    ("order", entry.key.sales_order.as_str().into()),
                    ("at", locale::timestamp(language, &entry.approved_at).into()),
                    ("user", entry.approved_by.as_str().into()),
                    ("role", entry.approver_role.as_str().into()),
                ],
            ),
        ),
    }
}

/// The filed row's summary: as kept (English), or the action and order in
/// another language.
fn filed_summary(entry: &LedgerEntry, language: Language) -> String {
    let action = match entry.key.action.parse::<crate::agent::Action>() {
        Ok(action) if language != Language::En => action,
        _ => return entry.summary.clone(),
    };
    say(
        language,
        "proposal-summary",
        &[
            ("verb", super::wording::verb(language, action).into()),
            ("order", entry.key.sales_order.as_str().into()),
        ],
    )
}
