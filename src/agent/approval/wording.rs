//! How the approval flow words a proposal: the language its texts are in,
//! the verb of an action, the question that offers one proposal and the
//! summary it files. Used by the single-order flow (`mod.rs`), the batch
//! flow (`batch`) and filing (`filing`), so it sits below all three.

use crate::agent::Turn;
use crate::agent::language::Language;
use crate::agent::language::catalog::{self, text as say};
use crate::agent::language::locale;
use crate::agent::proposal::{Action, Proposal};

/// The language a turn's approval texts are in: the user's, where its
/// catalog is complete.
pub(super) fn answering(turn: &Turn) -> Language {
    catalog::answering(turn.language.language)
}

/// What filing `action` means, in `language` ("Request a credit review").
pub fn verb(language: Language, action: Action) -> String {
    say(
        language,
        "action-verb",
        &[("action", action.as_str().into())],
    )
}

/// The approval question of one proposal: "Request a credit review for
/// order 4711? Reply approve or reject." (with the delivery date, in the
/// language's way of writing dates, once the user gave it).
pub fn question(proposal: &Proposal, language: Language) -> String {
    let verb = verb(language, proposal.action);
    let order = proposal.sales_order.as_str();
    match proposal
        .details
        .get("requestedDeliveryDate")
        .and_then(serde_json::Value::as_str)
    {
        Some(date) => say(
            language,
            "approval-question-dated",
            &[
                ("verb", verb.into()),
                ("date", locale::iso_date(language, date).into()),
                ("order", order.into()),
            ],
        ),
        None => say(
            language,
            "approval-question",
            &[("verb", verb.into()), ("order", order.into())],
        ),
    }
}

/// What a proposal files, in `language`: its own summary in English (the
/// words the ledger keeps), else the action and the order.
pub fn summary(proposal: &Proposal, language: Language) -> String {
    if language == Language::En {
        return proposal.summary.clone();
    }
    say(
        language,
        "proposal-summary",
        &[
            ("verb", verb(language, proposal.action).into()),
            ("order", proposal.sales_order.as_str().into()),
        ],
    )
}
