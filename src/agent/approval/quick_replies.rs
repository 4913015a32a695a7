//! The buttons of an approval question, in the user's language: where a
//! client shows buttons (Joule's quick replies), the user taps "Approve"
//! or "Alle genehmigen" instead of typing it. Each button sends its own
//! text, which [`super::reply_parse`] reads as it reads a typed answer, so
//! a tap follows exactly the rules of a typed reply and a client without
//! buttons loses nothing. The words are data (`[quick_replies]` of each
//! `data/lang/<code>.toml`).
//!
//! Always exactly two buttons, approve and reject (a batch: all of its
//! orders still waiting): Joule's dialog function (`joule/`) writes the
//! message out with two buttons, the form SAP's guides show, because its
//! expressions can fill the leaves of a fixed list but not build a list.
//! One order of a batch is decided by typing ("approve 4725"), as the
//! question says.

use super::batch::{PendingApproval, PendingState};
use crate::agent::language::Language;
use crate::agent::language::vocabulary::{self, QuickReplyWords};
use serde::Serialize;
use std::sync::LazyLock;

/// The buttons' words of every shipped language.
static WORDS: LazyLock<Vec<(Language, QuickReplyWords)>> = LazyLock::new(|| {
    vocabulary::shipped()
        .into_iter()
        .map(|(language, vocabulary)| (language, vocabulary.quick_replies))
        .collect()
});

/// One button: what it shows and the text it sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuickReply {
    pub title: String,
    pub value: String,
}

/// The content of Joule's `quickReplies` message: a title and its two
/// buttons, approve first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuickReplies {
    pub title: String,
    pub buttons: [QuickReply; 2],
}

fn button(text: String) -> QuickReply {
    QuickReply {
        value: text.clone(),
        title: text,
    }
}

/// The buttons for what a task waits on, in `language` (English where the
/// language's file lacks them); `None` when nothing waits for a decision.
pub fn for_pending(pending: &PendingApproval, language: Language) -> Option<QuickReplies> {
    let words = [language, Language::En].into_iter().find_map(|wanted| {
        WORDS
            .iter()
            .find(|(of, words)| *of == wanted && !words.approve.is_empty())
            .map(|(_, words)| words)
    })?;
    let (approve, reject) = match pending {
        PendingApproval::One(_) => (&words.approve, &words.reject),
        PendingApproval::Batch(orders) => {
            if !orders
                .iter()
                .any(|order| order.state == PendingState::Pending)
            {
                return None;
            }
            (&words.approve_all, &words.reject_all)
        }
    };
    Some(QuickReplies {
        title: words.title.clone(),
        buttons: [button(approve.clone()), button(reject.clone())],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::approval::batch::PendingOrder;
    use crate::agent::approval::reply_parse::{BatchDecision, Decision, batch_decision, decision};
    use crate::agent::{Action, Proposal};

    fn proposal(order: &str) -> Proposal {
        Proposal {
            action: Action::RequestCreditReview,
            sales_order: order.into(),
            specialist: "credit".into(),
            summary: String::new(),
            details: Default::default(),
        }
    }

    fn batch(orders: &[(&str, PendingState)]) -> PendingApproval {
        PendingApproval::Batch(
            orders
                .iter()
                .map(|(order, state)| PendingOrder {
                    proposal: proposal(order),
                    state: *state,
                })
                .collect(),
        )
    }

    fn values(replies: &QuickReplies) -> Vec<&str> {
        replies.buttons.iter().map(|b| b.value.as_str()).collect()
    }

    #[test]
    fn one_proposal_gets_approve_and_reject_in_the_users_language() {
        let one = PendingApproval::One(proposal("4711"));
        let german = for_pending(&one, Language::De).expect("buttons");
        assert_eq!(german.title, "Genehmigen oder ablehnen?");
        assert_eq!(values(&german), ["Genehmigen", "Ablehnen"]);
        let english = for_pending(&one, Language::En).expect("buttons");
        assert_eq!(values(&english), ["Approve", "Reject"]);
    }

    #[test]
    fn a_batch_gets_approve_all_and_reject_all_while_an_order_waits() {
        let pending = batch(&[
            ("4711", PendingState::Pending),
            ("4725", PendingState::Filed),
            ("4740", PendingState::Pending),
        ]);
        let german = for_pending(&pending, Language::De).expect("buttons");
        assert_eq!(values(&german), ["Alle genehmigen", "Alle ablehnen"]);
        let decided = batch(&[("4711", PendingState::Declined)]);
        assert_eq!(for_pending(&decided, Language::En), None);
        let many: Vec<(String, PendingState)> = (0..20)
            .map(|n| (format!("{}", 5000 + n), PendingState::Pending))
            .collect();
        let many: Vec<(&str, PendingState)> = many.iter().map(|(o, s)| (o.as_str(), *s)).collect();
        let french = for_pending(&batch(&many), Language::Fr).expect("buttons");
        assert_eq!(values(&french), ["Tout approuver", "Tout rejeter"]);
    }

    /// Every button of every language answers as it says, by the same
    /// rules as a typed answer, and fits Joule's 20 characters.
    #[test]
    fn every_button_is_an_answer_that_decides_as_it_says() {
        for language in Language::ALL {
            let one =
                for_pending(&PendingApproval::One(proposal("4711")), language).expect("buttons");
            assert_eq!(decision(&one.buttons[0].value), Decision::Approve);
            assert_eq!(decision(&one.buttons[1].value), Decision::Reject);
            let pending = batch(&[
                ("4711", PendingState::Pending),
                ("4725", PendingState::Pending),
            ]);
            let several = for_pending(&pending, language).expect("buttons");
            let decisions: Vec<BatchDecision> = several
                .buttons
                .iter()
                .map(|b| batch_decision(&b.value))
                .collect();
            assert_eq!(
                decisions,
                [
                    BatchDecision::All(Decision::Approve),
                    BatchDecision::All(Decision::Reject),
                ],
                "{language:?}"
            );
            for button in one.buttons.iter().chain(&several.buttons) {
                assert!(button.title.chars().count() <= 20, "{}", button.title);
            }
        }
    }
}
