//! What an approved action's attempt tells the user, kept as values and
//! written in the user's language only when it is read: the approver's
//! answer is in the turn's language, a result the retry job finds later in
//! the language of the task it follows. The ledger row keeps the detail
//! in English (`answer`, what `GET /actions` and the logs show), so a row
//! read back later is quoted as kept.

use crate::agent::language::Language;
use crate::agent::language::catalog::{self, text as say};
use crate::agent::language::locale;
use crate::backend::Subject;
use crate::backend::s4hana::writes::WriteError;

/// What S/4HANA now shows after an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The requested delivery date (ISO) is set; the delivery block is
    /// removed too where the settings say so.
    DeliveryDate {
        order: String,
        date: String,
        block_removed: bool,
    },
    /// A credit review note is on the order; its credit block is released
    /// where the approval carried that.
    CreditNote { order: String, released: bool },
    /// A note records the approved action; the action hook took it where
    /// one is set up (its answer as it gave it).
    Noted {
        order: String,
        action: String,
        hook_answer: Option<String>,
    },
}

impl Change {
    pub fn text(&self, language: Language) -> String {
        match self {
            Change::DeliveryDate {
                order,
                date,
                block_removed,
            } => say(
                language,
                "change-delivery-date",
                &[
                    ("order", order.as_str().into()),
                    ("date", locale::iso_date(language, date).into()),
                    ("block", yes_no(*block_removed).into()),
                ],
            ),
            Change::CreditNote { order, released } => say(
                language,
                "change-credit-note",
                &[
                    ("order", order.as_str().into()),
                    ("released", yes_no(*released).into()),
                ],
            ),
            Change::Noted {
                order,
                action,
                hook_answer,
            } => {
                let noted = say(
                    language,
                    "change-noted",
                    &[
                        ("order", order.as_str().into()),
                        ("action", action.as_str().into()),
                    ],
                );
                match hook_answer {
                    None => noted,
                    Some(answer) => say(
                        language,
                        "change-noted-hook",
                        &[("noted", noted.into()), ("answer", answer.as_str().into())],
                    ),
                }
            }
        }
    }
}

/// Why an attempt did not change anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The approval carries no date S/4HANA can take.
    NoValidDate {
        order: String,
    },
    NotFound {
        order: String,
    },
    /// A 412 the agent could not resolve: the order changed since it was
    /// read.
    Stale {
        order: String,
    },
    /// The order changed since it was explained: its delivery block is
    /// another one now.
    BlockChanged {
        order: String,
        block: String,
    },
    /// A 403 on `object`.
    Forbidden {
        object: Subject,
    },
    /// S/4HANA did not take the approver's identity (its words).
    Identity(String),
    /// No answer: a timeout, a connection failure, 429 or 5xx (what was
    /// seen, technical).
    NoAnswer(String),
    /// The other side's own words (S/4HANA's message, the action hook's
    /// answer), quoted as they came.
    Theirs(String),
}

impl Reason {
    pub fn text(&self, language: Language) -> String {
        let order_only = |id: &str, order: &str| say(language, id, &[("order", order.into())]);
        match self {
            Reason::NoValidDate { order } => order_only("reason-no-valid-date", order),
            Reason::NotFound { order } => order_only("reason-not-found", order),
            Reason::Stale { order } => order_only("reason-stale", order),
            Reason::BlockChanged { order, block } => say(
                language,
                "reason-block-changed",
                &[
                    ("order", order.as_str().into()),
                    ("block", block.as_str().into()),
                ],
            ),
            Reason::Forbidden { object } => say(
                language,
                "reason-forbidden",
                &[("object", catalog::subject(language, object).into())],
            ),
            Reason::Identity(detail) => say(
                language,
                "reason-identity",
                &[("detail", detail.as_str().into())],
            ),
            Reason::NoAnswer(detail) => say(
                language,
                "reason-no-answer",
                &[("detail", detail.as_str().into())],
            ),
            Reason::Theirs(words) => words.clone(),
        }
    }
}

impl From<&WriteError> for Reason {
    fn from(error: &WriteError) -> Reason {
        match error {
            WriteError::Stale(order) => Reason::Stale {
                order: order.clone(),
            },
            WriteError::Forbidden(object) => Reason::Forbidden {
                object: object.clone(),
            },
            WriteError::Refused(words) => Reason::Theirs(words.clone()),
            WriteError::Transient(detail) => Reason::NoAnswer(detail.clone()),
            WriteError::Identity(detail) => Reason::Identity(detail.clone()),
            WriteError::NotFound(order) => Reason::NotFound {
                order: order.clone(),
            },
        }
    }
}

/// What the user reads about one attempt, or about a row as it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// The ledger row is the action (the filing text says it all).
    Nothing,
    Done(Change),
    Refused(Reason),
    /// The note is on the order, but the action hook refused it.
    HookRefused {
        order: String,
        reason: String,
    },
    /// No answer after the last attempt.
    GaveUp {
        attempts: u32,
        reason: Reason,
    },
    /// No answer; the retry job tries again.
    TriedAgain,
    /// Someone holds the row, or it waits for the retry job.
    BeingCarriedOut,
    /// A row read back finished: its kept English detail, quoted.
    DoneAsKept(String),
    FailedAsKept(String),
    /// A newer request took the row's place (its kept detail).
    NotCarriedOut(String),
}

impl Said {
    /// The text in `language`; empty for [`Said::Nothing`].
    pub fn text(&self, language: Language) -> String {
        match self {
            Said::Nothing => String::new(),
            Said::Done(change) => say(
                language,
                "action-done",
                &[("what", change.text(language).into())],
            ),
            Said::Refused(reason) => say(
                language,
                "action-refused",
                &[("reason", reason.text(language).into())],
            ),
            Said::HookRefused { order, reason } => say(
                language,
                "action-hook-refused",
                &[
                    ("order", order.as_str().into()),
                    ("reason", reason.as_str().into()),
                ],
            ),
            Said::GaveUp { attempts, reason } => say(
                language,
                "action-gave-up",
                &[
                    ("attempts", (*attempts).into()),
                    ("reason", reason.text(language).into()),
                ],
            ),
            Said::TriedAgain => say(language, "action-tried-again", &[]),
            Said::BeingCarriedOut => say(language, "action-being-carried-out", &[]),
            Said::DoneAsKept(kept) => say(
                language,
                "action-done-as-kept",
                &[("kept", kept.as_str().into())],
            ),
            Said::FailedAsKept(kept) => say(
                language,
                "action-refused-as-kept",
                &[("kept", kept.as_str().into())],
            ),
            Said::NotCarriedOut(kept) => say(
                language,
                "action-not-carried-out",
                &[("kept", kept.as_str().into())],
            ),
        }
    }

    pub fn is_nothing(&self) -> bool {
        matches!(self, Said::Nothing)
    }
}

fn yes_no(yes: bool) -> &'static str {
    if yes { "yes" } else { "no" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_said() -> Vec<Said> {
        let change = Change::DeliveryDate {
            order: "4740".into(),
            date: "2026-12-18".into(),
            block_removed: true,
        };
        vec![
            Said::Done(change),
            Said::Done(Change::CreditNote {
                order: "4711".into(),
                released: false,
            }),
            Said::Done(Change::Noted {
                order: "4725".into(),
                action: "open_dispute_case".into(),
                hook_answer: Some("case 17".into()),
            }),
            Said::Refused(Reason::BlockChanged {
                order: "4740".into(),
                block: "02".into(),
            }),
            Said::Refused(Reason::Forbidden {
                object: Subject::SalesOrder("4740".into()),
            }),
            Said::HookRefused {
                order: "4725".into(),
                reason: "no".into(),
            },
            Said::GaveUp {
                attempts: 3,
                reason: Reason::NoAnswer("HTTP 503".into()),
            },
            Said::TriedAgain,
            Said::BeingCarriedOut,
            Said::DoneAsKept("the requested delivery date of 4740 is now 2026-12-18".into()),
            Said::FailedAsKept("you may not change sales order 4740 (403)".into()),
            Said::NotCarriedOut("superseded by a newer request".into()),
        ]
    }

    #[test]
    fn the_english_texts_are_the_ones_the_ledger_and_clients_know() {
        let said = |said: Said| said.text(Language::En);
        assert_eq!(
            said(Said::Done(Change::DeliveryDate {
                order: "4740".into(),
                date: "2026-12-18".into(),
                block_removed: true,
            })),
            "Done in S/4HANA: the requested delivery date of 4740 is now 2026-12-18 and its delivery block is removed."
        );
        assert_eq!(
            said(Said::Refused(Reason::Forbidden {
                object: Subject::SalesOrder("4740".into())
            })),
            "Recorded, but S/4HANA refused it: you may not change sales order 4740 (403). Nothing was changed."
        );
        assert_eq!(
            said(Said::GaveUp {
                attempts: 2,
                reason: Reason::Theirs("HTTP 503".into())
            }),
            "Recorded, but S/4HANA did not answer after 2 attempts (HTTP 503). Nothing was changed."
        );
        assert_eq!(
            said(Said::DoneAsKept(
                "a credit review note is on sales order 4711".into()
            )),
            "Done in S/4HANA: a credit review note is on sales order 4711."
        );
        assert_eq!(Said::Nothing.text(Language::En), "");
    }

    #[test]
    fn german_is_german_with_german_dates_and_the_kept_detail_quoted() {
        let done = Said::Done(Change::DeliveryDate {
            order: "4740".into(),
            date: "2026-12-18".into(),
            block_removed: false,
        })
        .text(Language::De);
        assert!(done.contains("18.12.2026"), "{done}");
        assert!(done.contains("4740"), "{done}");
        assert!(!done.contains("Done"), "{done}");
        let kept = Said::DoneAsKept("the requested delivery date of 4740 is now 2026-12-18".into())
            .text(Language::De);
        assert!(
            kept.contains("„the requested delivery date of 4740 is now 2026-12-18“"),
            "{kept}"
        );
        for said in every_said() {
            let (english, german) = (said.text(Language::En), said.text(Language::De));
            assert!(!german.is_empty(), "{said:?}");
            assert_ne!(english, german, "{said:?} is not German");
        }
    }
}
