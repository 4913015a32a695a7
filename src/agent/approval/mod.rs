//! Human-in-the-loop approval. A specialist's structured proposal is
//! checked against the rule book: offered for approval when the caller's
//! role may do it, explained (with who may decide) when not. The follow-up
//! answer files it in the ledger on "approve", closes on "reject", and asks
//! again on anything else. Reply text (a customer note, the user's words)
//! is never read for actions: only the stored proposal is filed.
//!
//! Here: the rule-book check and the single-order flow; `approvals` holds
//! the flow's state, `note` where an approval stands, `pending` what a
//! task waits on, `wording` how a proposal is worded; [`reply_parse`]
//! reads the user's answer, [`filing`] writes the ledger row, [`batch`]
//! offers and answers the proposals of several orders, [`quick_replies`]
//! gives a question its buttons.

mod approvals;
pub mod batch;
mod filing;
mod note;
mod pending;
pub mod quick_replies;
pub mod reply_parse;
mod wording;

pub use approvals::Approvals;
pub use note::{ApprovalNote, ApprovalStatus};
pub use pending::{PendingApproval, PendingOrder, PendingState};
use reply_parse::message_decision;
pub use reply_parse::{Decision, decision};
pub use wording::{question, summary};

use super::execution::approved;
use super::language::Language;
use super::language::catalog::{self, text as say};
use super::rulebook::Permission;
use super::{Caller, Outcome, Proposal, Reply, Turn};
use crate::roles::BusinessRole;
use filing::NotFiled;
use wording::answering;

/// "credit_manager or head_of_finance", or "no role".
fn role_list(roles: &[BusinessRole], language: Language) -> String {
    if roles.is_empty() {
        return say(language, "no-role", &[]);
    }
    roles
        .iter()
        .map(|role| role.as_str().to_string())
        .reduce(|left, right| {
            say(
                language,
                "or-pair",
                &[("left", left.into()), ("right", right.into())],
            )
        })
        .unwrap_or_default()
}

/// `role ar_clerk`, `roles ar_clerk, viewer` or `a caller without a role`.
fn describe_roles(caller: &Caller, language: Language) -> String {
    let names: Vec<&str> = caller.roles.iter().map(|role| role.as_str()).collect();
    say(
        language,
        "caller-roles",
        &[
            ("count", names.len().into()),
            ("roles", names.join(", ").into()),
        ],
    )
}

/// Why the rule book does not let a caller approve a proposal.
#[derive(Debug, Clone)]
enum Refusal {
    /// A technical client never approves; `roles` may decide.
    Technical { roles: Vec<BusinessRole> },
    /// The specialist may not propose the action at all.
    NotProposable,
    /// The caller's roles may not; `roles` may decide.
    Denied { roles: Vec<BusinessRole> },
}

impl Refusal {
    /// What the user reads: when offered (`filing` false) or when the
    /// approval came and nothing is filed.
    fn text(
        &self,
        proposal: &Proposal,
        caller: &Caller,
        language: Language,
        filing: bool,
    ) -> String {
        let filing = if filing { "yes" } else { "no" };
        match self {
            Refusal::Technical { roles } => say(
                language,
                "refused-technical",
                &[
                    ("filing", filing.into()),
                    ("roles", role_list(roles, language).into()),
                ],
            ),
            Refusal::NotProposable => say(
                language,
                "refused-not-proposable",
                &[
                    ("specialist", proposal.specialist.as_str().into()),
                    ("action", proposal.action.as_str().into()),
                ],
            ),
            Refusal::Denied { roles } => say(
                language,
                "refused-denied",
                &[
                    ("filing", filing.into()),
                    ("caller", describe_roles(caller, language).into()),
                    ("action", proposal.action.as_str().into()),
                    ("roles", role_list(roles, language).into()),
                ],
            ),
        }
    }
}

impl Approvals {
    fn note(&self, status: ApprovalStatus, proposal: &Proposal, caller: &Caller) -> ApprovalNote {
        ApprovalNote {
            status,
            action: proposal.action,
            sales_order: proposal.sales_order.clone(),
            roles: caller.roles.iter().copied().collect(),
            may_decide: Vec::new(),
            entry: None,
        }
    }

    /// Why this caller may not approve, or the role they approve as.
    fn permission(
        &self,
        proposal: &Proposal,
        caller: &Caller,
    ) -> Result<BusinessRole, Box<(ApprovalNote, Refusal)>> {
        let span = tracing::info_span!(
            "rulebook.decision",
            otel.name = "rulebook.decision",
            rules.specialist = proposal.specialist.as_str(),
            rules.action = proposal.action.as_str(),
            rules.decision = tracing::field::Empty,
            rules.role = tracing::field::Empty,
        );
        let _entered = span.enter();
        let decided = self.decide(proposal, caller);
        span.record(
            "rules.decision",
            match &decided {
                Ok(_) => "granted",
                Err(refusal) => match refusal.0.status {
                    ApprovalStatus::NotProposable => "not_proposable",
                    _ => "denied",
                },
            },
        );
        if let Ok(role) = &decided {
            span.record("rules.role", role.as_str());
        }
        decided
    }

    fn decide(
        &self,
        proposal: &Proposal,
        caller: &Caller,
    ) -> Result<BusinessRole, Box<(ApprovalNote, Refusal)>> {
        let proposable = self
            .rules
            .may_propose(&proposal.specialist, proposal.action);
        if proposable && !caller.is_person() {
            let may_decide = self.rules.roles_for(proposal.action);
            let mut note = self.note(ApprovalStatus::NotPermitted, proposal, caller);
            note.may_decide = may_decide.clone();
            return Err(Box::new((note, Refusal::Technical { roles: may_decide })));
        }
        match self
            .rules
            .decide(&proposal.specialist, proposal.action, &caller.roles)
        {
            Permission::NotProposable => Err(Box::new((
                self.note(ApprovalStatus::NotProposable, proposal, caller),
                Refusal::NotProposable,
            ))),
            Permission::Denied { may_decide } => {
                let mut note = self.note(ApprovalStatus::NotPermitted, proposal, caller);
                note.may_decide = may_decide.clone();
                Err(Box::new((note, Refusal::Denied { roles: may_decide })))
            }
            Permission::Granted(role) => Ok(role),
        }
    }

    /// A specialist answered: offer its proposal for approval when the
    /// caller may do it, or say who may.
    pub fn offer(&self, mut reply: Reply, caller: &Caller, language: Language) -> Reply {
        let Some(proposal) = &reply.proposal else {
            return reply;
        };
        if reply.outcome != Outcome::Completed {
            return reply;
        }
        match self.permission(proposal, caller) {
            Ok(_) => {
                let ask = if self.executions.needs_delivery_date() && approved::needs_date(proposal)
                {
                    say(language, "date-question", &[])
                } else {
                    question(proposal, language)
                };
                reply.approval = Some(self.note(ApprovalStatus::Pending, proposal, caller));
                reply.outcome = Outcome::InputRequired;
                reply.text.push_str("\n\n");
                reply.text.push_str(&ask);
            }
            Err(refusal) => {
                let (note, refusal) = *refusal;
                let reason = refusal.text(proposal, caller, language, false);
                if note.status == ApprovalStatus::NotProposable {
                    tracing::warn!(
                        specialist = %proposal.specialist,
                        action = %proposal.action,
                        "proposal dropped: the rule book does not let this specialist propose it"
                    );
                    reply.proposal = None;
                }
                reply.text.push_str("\n\n");
                reply.text.push_str(&reason);
                reply.approval = Some(note);
            }
        }
        reply
    }

    /// The user answered the approval question of `pending`.
    #[tracing::instrument(name = "approval", skip_all, fields(otel.name = "approval", approval.action = pending.action.as_str(), approval.decision = tracing::field::debug(message_decision(&turn.text, &turn.data)), sap.sales_order = pending.sales_order.as_str()))]
    pub async fn answer(&self, pending: Proposal, turn: &Turn) -> Reply {
        let caller = &turn.caller;
        let language = answering(turn);
        let decided = message_decision(&turn.text, &turn.data);
        if self.executions.needs_delivery_date()
            && approved::needs_date(&pending)
            && decided != Decision::Reject
        {
            return match approved::with_date(pending.clone(), &turn.text, turn.language.language) {
                Ok(dated) => Reply {
                    proposal: Some(dated.clone()),
                    approval: Some(self.note(ApprovalStatus::Pending, &dated, caller)),
                    ..Reply::new(Outcome::InputRequired, question(&dated, language))
                },
                Err(error) => Reply {
                    approval: Some(self.note(ApprovalStatus::Pending, &pending, caller)),
                    ..Reply::new(
                        Outcome::InputRequired,
                        format!(
                            "{}. {}",
                            error.for_the_user(language),
                            say(language, "date-question", &[])
                        ),
                    )
                },
            };
        }
        match decided {
            Decision::Reject => Reply {
                approval: Some(self.note(ApprovalStatus::Declined, &pending, caller)),
                ..Reply::new(
                    Outcome::Completed,
                    say(
                        language,
                        "declined",
                        &[("summary", summary(&pending, language).into())],
                    ),
                )
            },
            Decision::Unclear => self.ask_again(
                pending,
                caller,
                say(language, "approve-or-reject", &[]),
                language,
            ),
            Decision::Approve => self.file(pending, turn, language).await,
        }
    }

    fn ask_again(
        &self,
        pending: Proposal,
        caller: &Caller,
        preface: String,
        language: Language,
    ) -> Reply {
        Reply {
            approval: Some(self.note(ApprovalStatus::Pending, &pending, caller)),
            ..Reply::new(
                Outcome::InputRequired,
                format!("{preface} {}", question(&pending, language)),
            )
        }
    }

    async fn file(&self, pending: Proposal, turn: &Turn, language: Language) -> Reply {
        let caller = &turn.caller;
        // Checked again now: the approver may not be who was asked.
        let role = match self.permission(&pending, caller) {
            Ok(role) => role,
            Err(refusal) => {
                let (note, refusal) = *refusal;
                let reason = refusal.text(&pending, caller, language, true);
                return Reply {
                    approval: Some(note),
                    ..Reply::new(Outcome::Completed, reason)
                };
            }
        };
        let filing = match self.file_approved(&pending, role, turn).await {
            Ok(filing) => filing,
            Err(NotFiled::UnknownOrder(order)) => {
                return Reply::new(
                    Outcome::Failed,
                    say(
                        language,
                        "not-found-nothing-filed",
                        &[("order", order.as_str().into())],
                    ),
                );
            }
            Err(NotFiled::Unreadable(error)) => {
                // The same answer as on the first turn: S/4HANA's 403 is
                // the user's refusal, a timeout or 5xx a failure.
                tracing::warn!(%error, sales_order = %pending.sales_order, "backend read failed before filing");
                let (refusal, text) = catalog::backend_error(&error, language);
                let outcome = match refusal {
                    crate::backend::Refusal::Rejected => Outcome::Rejected,
                    crate::backend::Refusal::Failed => Outcome::Failed,
                };
                return Reply::new(
                    outcome,
                    format!("{text} {}", say(language, "nothing-was-filed", &[])),
                );
            }
            Err(error) => {
                let preface = say(
                    language,
                    "filing-failed",
                    &[("error", capitalised(&error.for_the_user(language)).into())],
                );
                return self.ask_again(pending, caller, preface, language);
            }
        };
        let (status, text) = filing::describe(&filing, language);
        // After the ledger row is recorded, the executor carries it out.
        let (entry, said) = self.carry_out(filing.into_entry(), turn).await;
        let text = match said.is_nothing() {
            true => text,
            false => format!("{text}\n\n{}", said.text(language)),
        };
        let mut note = self.note(status, &pending, caller);
        note.entry = Some(entry);
        Reply {
            approval: Some(note),
            ..Reply::new(Outcome::Completed, text)
        }
    }
}

/// "the order data …" → "The order data …".
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Action;
    use crate::agent::ledger::{ActionLedger, MemoryLedger};
    use crate::agent::rulebook::{RuleBook, RulesSettings};
    use crate::backend::EmbeddedOrders;
    use std::collections::BTreeSet;
    use std::sync::Arc;

    fn approvals() -> (Approvals, Arc<MemoryLedger>) {
        let ledger = Arc::new(MemoryLedger::default());
        let rules = RuleBook::new(
            &crate::agent::specialists::registry(),
            &RulesSettings::default(),
        )
        .expect("seed rules");
        let orders = Arc::new(EmbeddedOrders::demo().expect("demo data"));
        (
            Approvals::new(rules, ledger.clone() as Arc<dyn ActionLedger>, orders),
            ledger,
        )
    }

    fn dispute(order: &str) -> Proposal {
        Proposal {
            action: Action::OpenDisputeCase,
            sales_order: order.into(),
            specialist: "pricing".into(),
            summary: format!("Open a dispute case for order {order}"),
            details: Default::default(),
        }
    }

    fn turn(text: &str, roles: &[BusinessRole]) -> Turn {
        Turn {
            text: text.into(),
            caller: Caller {
                user_id: Some("u1".into()),
                approver_key: Some("ias:t:user:u1".into()),
                roles: roles.iter().copied().collect::<BTreeSet<_>>(),
                user_token: None,
            },
            task_id: "t1".into(),
            context_id: "c1".into(),
            ..Turn::default()
        }
    }

    #[tokio::test]
    async fn a_proposal_for_an_unknown_order_files_nothing() {
        let (approvals, ledger) = approvals();
        let reply = approvals
            .answer(dispute("9999"), &turn("approve", &[BusinessRole::ArClerk]))
            .await;
        assert_eq!(reply.outcome, Outcome::Failed);
        assert_eq!(reply.text, "Sales order 9999 not found; nothing was filed.");
        assert!(ledger.list().await.expect("list").is_empty());
    }

    /// An earlier request for 4725 (another version of the order) that an
    /// executor holds right now: the new one files nothing and is asked
    /// again; once the earlier one is finished it files.
    #[tokio::test]
    async fn a_new_request_waits_while_an_earlier_one_is_being_carried_out() {
        use crate::agent::ledger::{Claim, ExecutionState, Finish, contract};
        let (approvals, ledger) = approvals();
        // Filed as the store records it (at the time of filing).
        let earlier = ledger
            .file(contract::entry("4725", "u0"))
            .await
            .expect("file")
            .into_entry();
        let claim = Claim {
            owner: "busy".into(),
            lease_ms: 60_000,
            due_only: false,
            stale_ms: 0,
        };
        ledger
            .claim(&earlier.key, &claim)
            .await
            .expect("claim")
            .expect("claimed");
        let reply = approvals
            .answer(dispute("4725"), &turn("approve", &[BusinessRole::ArClerk]))
            .await;
        assert_eq!(reply.outcome, Outcome::InputRequired);
        assert_eq!(
            reply.approval.as_ref().map(|note| note.status),
            Some(ApprovalStatus::Pending)
        );
        let expected = format!(
            "An earlier open_dispute_case for order 4725 (approved on {} by u0) is being carried out right now; nothing was filed. Reply approve to try again.",
            earlier.approved_at
        );
        assert!(reply.text.starts_with(&expected), "{}", reply.text);
        assert_eq!(ledger.list().await.expect("list").len(), 1);

        let done = Finish {
            state: ExecutionState::Done,
            answer: Some("204".into()),
            retry_in_ms: None,
            audit: Default::default(),
        };
        ledger
            .finish(&earlier.key, "busy", &done)
            .await
            .expect("finish")
            .expect("finished");
        let reply = approvals
            .answer(dispute("4725"), &turn("approve", &[BusinessRole::ArClerk]))
            .await;
        assert_eq!(
            reply.approval.map(|note| note.status),
            Some(ApprovalStatus::Filed)
        );
        assert_eq!(ledger.list().await.expect("list").len(), 2);
    }

    #[tokio::test]
    async fn the_approver_is_checked_again_when_the_approval_arrives() {
        let (approvals, ledger) = approvals();
        let reply = approvals
            .answer(dispute("4725"), &turn("approve", &[BusinessRole::Viewer]))
            .await;
        assert_eq!(reply.outcome, Outcome::Completed);
        assert_eq!(
            reply.approval.map(|note| note.status),
            Some(ApprovalStatus::NotPermitted)
        );
        assert!(
            reply
                .text
                .starts_with("Not filed: role viewer may not do open_dispute_case"),
            "{}",
            reply.text
        );
        assert!(ledger.list().await.expect("list").is_empty());
        // The same proposal, approved by an ar_clerk, files once.
        let reply = approvals
            .answer(dispute("4725"), &turn("ok", &[BusinessRole::ArClerk]))
            .await;
        assert_eq!(
            reply.approval.map(|note| note.status),
            Some(ApprovalStatus::Filed)
        );
        assert_eq!(ledger.list().await.expect("list").len(), 1);
    }
}
