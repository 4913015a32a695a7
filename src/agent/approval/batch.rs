//! Approvals for a batch: the proposals the caller's role may approve are
//! offered together in one question; the answer may approve some and
//! reject others ("approve 4725, reject 4740"). Each is checked against
//! the rule book again and filed exactly once on its own ledger key; the
//! task keeps every offered proposal (with its state) in
//! `metadata.pendingApproval` until none is left undecided, so a second
//! "approve all" reports what was filed before as already filed.

use super::filing::{self, NotFiled};
pub use super::pending::{PendingApproval, PendingOrder, PendingState};
use super::reply_parse::{BatchDecision, Decision, message_batch_decision};
use super::{ApprovalStatus, Approvals};
use crate::agent::batch::BatchReport;
use crate::agent::execution::approved;
use crate::agent::language::Language;
use crate::agent::language::catalog::text as say;
use crate::agent::{Outcome, Proposal, Reply, Turn};
use fluent_bundle::FluentValue;

/// "Approve: 4725 open a dispute case, 4740 request a delivery date
/// change? Reply approve all, approve 4725, or reject."
pub fn batch_question(pending: &[PendingOrder], language: Language) -> String {
    let open: Vec<&Proposal> = pending
        .iter()
        .filter(|order| order.state == PendingState::Pending)
        .map(|order| &order.proposal)
        .collect();
    let offers: Vec<String> = open
        .iter()
        .map(|p| {
            say(
                language,
                "batch-offer",
                &[
                    ("order", p.sales_order.as_str().into()),
                    (
                        "verb",
                        say(
                            language,
                            "action-inline",
                            &[("action", p.action.as_str().into())],
                        )
                        .into(),
                    ),
                ],
            )
        })
        .collect();
    let example = open
        .first()
        .map(|p| p.sales_order.as_str())
        .unwrap_or_default();
    say(
        language,
        "batch-question",
        &[
            ("offers", offers.join(", ").into()),
            ("example", example.into()),
        ],
    )
}

/// The lines of a batch approval's answer as the user reads them, and the
/// first in English: the `approvals` data artifact's `summary`, the same
/// whatever the user's language.
#[derive(Default)]
struct Lines {
    said: Vec<String>,
    first_in_english: Option<String>,
}

impl Lines {
    fn push_in(&mut self, language: Language, render: impl Fn(Language) -> String) {
        if self.first_in_english.is_none() {
            self.first_in_english = Some(render(Language::En));
        }
        self.said.push(render(language));
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

impl Approvals {
    /// The user answered a batch's approval question.
    #[tracing::instrument(name = "approval", skip_all, fields(otel.name = "approval", approval.batch = pending.len()))]
    pub async fn answer_batch(&self, mut pending: Vec<PendingOrder>, turn: &Turn) -> Reply {
        let caller = &turn.caller;
        let language = super::wording::answering(turn);
        let wanted: Vec<(usize, Decision)> = match message_batch_decision(&turn.text, &turn.data) {
            BatchDecision::Unclear => {
                return self.ask_batch_again(language, "batch-answer-unclear", Vec::new(), pending);
            }
            BatchDecision::All(Decision::Approve) => (0..pending.len())
                .filter(|i| pending[*i].state != PendingState::Declined)
                .map(|i| (i, Decision::Approve))
                .collect(),
            BatchDecision::All(_) => (0..pending.len())
                .filter(|i| pending[*i].state == PendingState::Pending)
                .map(|i| (i, Decision::Reject))
                .collect(),
            BatchDecision::Orders(named) => {
                let mut wanted = Vec::new();
                let mut unknown = Vec::new();
                for (order, decision) in named {
                    match pending.iter().position(|p| p.proposal.sales_order == order) {
                        Some(index) => wanted.push((index, decision)),
                        None => unknown.push(order),
                    }
                }
                if !unknown.is_empty() {
                    let orders = ("orders", unknown.join(", ").into());
                    return self.ask_batch_again(
                        language,
                        "batch-not-offered",
                        vec![orders],
                        pending,
                    );
                }
                wanted
            }
        };
        let mut lines = Lines::default();
        let mut notes = Vec::new();
        for (index, decision) in wanted {
            let proposal = pending[index].proposal.clone();
            let order = proposal.sales_order.clone();
            if decision == Decision::Reject {
                if pending[index].state == PendingState::Filed {
                    lines.push_in(language, |language: Language| {
                        say(
                            language,
                            "batch-line-filed-before",
                            &[("order", order.as_str().into())],
                        )
                    });
                    continue;
                }
                pending[index].state = PendingState::Declined;
                notes.push(self.note(ApprovalStatus::Declined, &proposal, caller));
                lines.push_in(language, |language: Language| {
                    say(
                        language,
                        "batch-line-declined",
                        &[
                            ("order", order.as_str().into()),
                            (
                                "summary",
                                super::wording::summary(&proposal, language).into(),
                            ),
                        ],
                    )
                });
                continue;
            }
            // Checked again now: the approver may not be who was asked.
            let role = match self.permission(&proposal, caller) {
                Ok(role) => role,
                Err(refusal) => {
                    let (note, refusal) = *refusal;
                    notes.push(note);
                    lines.push_in(language, |language: Language| {
                        format!(
                            "{order}: {}",
                            refusal.text(&proposal, caller, language, true)
                        )
                    });
                    continue;
                }
            };
            match self.file_approved(&proposal, role, turn).await {
                Ok(filing) => {
                    let (status, _) = filing::describe(&filing, language);
                    let texts = [language, Language::En].map(|l| filing::describe(&filing, l).1);
                    let (entry, said) = self.carry_out(filing.into_entry(), turn).await;
                    let mut note = self.note(status, &proposal, caller);
                    note.entry = Some(entry);
                    notes.push(note);
                    pending[index].state = PendingState::Filed;
                    lines.push_in(language, |l: Language| {
                        let text = if l == language { &texts[0] } else { &texts[1] };
                        let text = match said.is_nothing() {
                            true => text.clone(),
                            false => format!("{text} {}", said.text(l)),
                        };
                        say(
                            l,
                            "order-line",
                            &[("order", order.as_str().into()), ("text", text.into())],
                        )
                    });
                }
                Err(NotFiled::UnknownOrder(_)) => {
                    pending[index].state = PendingState::Declined;
                    lines.push_in(language, |language: Language| {
                        say(
                            language,
                            "batch-line-not-found",
                            &[("order", order.as_str().into())],
                        )
                    });
                }
                Err(NotFiled::Unreadable(error)) => {
                    // As for one order: S/4HANA's 403 is the user's
                    // refusal, a timeout or 5xx a failure; neither is
                    // offered again.
                    tracing::warn!(%error, sales_order = %order, "backend read failed before filing");
                    pending[index].state = PendingState::Declined;
                    lines.push_in(language, |language: Language| {
                        let (_, text) =
                            crate::agent::language::catalog::backend_error(&error, language);
                        format!(
                            "{order}: {text} {}",
                            say(language, "nothing-was-filed", &[])
                        )
                    });
                }
                Err(error) => {
                    notes.push(self.note(ApprovalStatus::Pending, &proposal, caller));
                    lines.push_in(language, |language: Language| {
                        say(
                            language,
                            "batch-line-failed",
                            &[
                                ("order", order.as_str().into()),
                                ("error", error.for_the_user(language).into()),
                            ],
                        )
                    });
                }
            }
        }
        let summary = lines.first_in_english.take();
        let mut report_text = lines.said.join("\n");
        let waiting = pending.iter().any(|p| p.state == PendingState::Pending);
        let outcome = if waiting {
            report_text = format!("{report_text}\n\n{}", batch_question(&pending, language));
            Outcome::InputRequired
        } else {
            Outcome::Completed
        };
        let text = report_text.trim().to_string();
        let summary = summary.unwrap_or_else(|| first_line(&text));
        self.batch_reply(outcome, text, summary, notes, pending)
    }

    /// The batch's question again, after the catalog message `id` (with
    /// `args` and the question) that says why: in `language` for the user,
    /// its first line in English as the summary. Nothing is decided.
    fn ask_batch_again(
        &self,
        language: Language,
        id: &str,
        args: Vec<(&str, FluentValue<'static>)>,
        pending: Vec<PendingOrder>,
    ) -> Reply {
        let said = |language: Language| {
            let mut args = args.clone();
            args.push(("question", batch_question(&pending, language).into()));
            say(language, id, &args)
        };
        let summary = first_line(&said(Language::En));
        let text = said(language);
        self.batch_reply(Outcome::InputRequired, text, summary, Vec::new(), pending)
    }

    fn batch_reply(
        &self,
        outcome: Outcome,
        text: String,
        summary: String,
        approvals: Vec<super::ApprovalNote>,
        pending: Vec<PendingOrder>,
    ) -> Reply {
        Reply {
            batch: Some(BatchReport {
                summary,
                orders: Vec::new(),
                not_listed: 0,
                approvals,
                pending,
            }),
            ..Reply::new(outcome, text)
        }
    }
}

/// What the rule book says about one batch item's proposal.
pub enum Offer {
    /// The caller may approve it: it joins the batch's question.
    Offered(super::ApprovalNote),
    /// Not for this caller (who may decide is in the note), or the
    /// specialist may not propose it at all (`dropped`).
    Refused {
        note: super::ApprovalNote,
        reason: String,
        dropped: bool,
    },
    /// The caller may approve it, but the executor needs a detail the
    /// batch question cannot ask for (the customer's delivery date): the
    /// line says to ask about that order on its own.
    NeedsOwnQuestion(String),
}

impl Approvals {
    /// Check one batch item's proposal for this caller.
    pub fn offer_item(
        &self,
        proposal: &Proposal,
        caller: &crate::agent::Caller,
        language: Language,
    ) -> Offer {
        match self.permission(proposal, caller) {
            Ok(_) if self.executions.needs_delivery_date() && approved::needs_date(proposal) => {
                Offer::NeedsOwnQuestion(say(
                    language,
                    "needs-own-question",
                    &[("order", proposal.sales_order.as_str().into())],
                ))
            }
            Ok(_) => Offer::Offered(self.note(ApprovalStatus::Pending, proposal, caller)),
            Err(refusal) => {
                let (note, refusal) = *refusal;
                let reason = refusal.text(proposal, caller, language, false);
                let dropped = note.status == ApprovalStatus::NotProposable;
                if dropped {
                    tracing::warn!(
                        specialist = %proposal.specialist,
                        action = %proposal.action,
                        "proposal dropped: the rule book does not let this specialist propose it"
                    );
                }
                Offer::Refused {
                    note,
                    reason,
                    dropped,
                }
            }
        }
    }
}
