//! How the user answered an approval question. Only a whole answer counts
//! ("approve", "Yes!", "go ahead."): a sentence that merely contains the
//! word ("I don't approve of this") is unclear. For a batch, the answer
//! may name orders: "approve all", "approve 4725", "approve 4725, reject
//! 4740"; every word must be a verb, an order number, "all" or a joining
//! word, else the whole answer is unclear.

use std::collections::BTreeMap;

/// How the user answered a single approval question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
    Unclear,
}

const APPROVE: &[&str] = &[
    "approve",
    "approved",
    "i approve",
    "approve it",
    "yes",
    "y",
    "yes please",
    "ok",
    "okay",
    "confirm",
    "confirmed",
    "go ahead",
    "do it",
    "file it",
];
const REJECT: &[&str] = &[
    "reject",
    "rejected",
    "i reject",
    "reject it",
    "no",
    "n",
    "no thanks",
    "decline",
    "cancel",
    "do not",
    "don't",
    "dont",
    "stop",
];

/// The most words a whole answer in [`APPROVE`] or [`REJECT`] has: a text
/// with more is unclear without reading it further (every request that is
/// not an answer, a question about an order, is such a text).
const LONGEST_ANSWER_WORDS: usize = 2;

/// A character a word keeps; anything else around a word is trimmed.
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || c == '\''
}

/// Whether a whitespace-separated piece of text holds a word (something
/// [`words`] keeps).
fn is_word(piece: &str) -> bool {
    piece.chars().any(in_word)
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c| !in_word(c)).to_lowercase())
        .filter(|word| !word.is_empty())
        .collect()
}

/// The answer to a single approval question.
pub fn decision(text: &str) -> Decision {
    let longer = text
        .split_whitespace()
        .filter(|piece| is_word(piece))
        .nth(LONGEST_ANSWER_WORDS)
        .is_some();
    if longer {
        return Decision::Unclear;
    }
    let answer = words(text).join(" ");
    if APPROVE.contains(&answer.as_str()) {
        Decision::Approve
    } else if REJECT.contains(&answer.as_str()) {
        Decision::Reject
    } else {
        Decision::Unclear
    }
}

/// The answer to a batch's approval question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchDecision {
    /// Approve (or reject) every order still offered: "approve all", "yes".
    All(Decision),
    /// Per order number, as named: "approve 4725, reject 4740".
    Orders(BTreeMap<String, Decision>),
    Unclear,
}

/// Verbs a batch answer may use before order numbers.
const APPROVE_VERBS: &[&str] = &["approve", "approved", "confirm", "file", "yes", "ok"];
const REJECT_VERBS: &[&str] = &["reject", "rejected", "decline", "no", "cancel"];
/// Words that join the parts of an answer and mean nothing else.
const JOINING: &[&str] = &["and", "but", "order", "orders", "only", "please"];

fn is_order_number(word: &str) -> bool {
    (1..=10).contains(&word.len()) && word.chars().all(|c| c.is_ascii_digit())
}

/// Read a batch answer. A plain single answer ("approve", "reject", "go
/// ahead") means every order still offered.
pub fn batch_decision(text: &str) -> BatchDecision {
    match decision(text) {
        Decision::Unclear => {}
        whole => return BatchDecision::All(whole),
    }
    let words = words(&text.replace([',', ';'], " "));
    let mut current: Option<Decision> = None;
    let mut all: Option<Decision> = None;
    let mut named: BTreeMap<String, Decision> = BTreeMap::new();
    // A verb must be followed by "all" or at least one number.
    let mut verb_used = true;
    for word in &words {
        let word = word.as_str();
        if APPROVE_VERBS.contains(&word) || REJECT_VERBS.contains(&word) {
            if !verb_used {
                return BatchDecision::Unclear;
            }
            current = Some(if APPROVE_VERBS.contains(&word) {
                Decision::Approve
            } else {
                Decision::Reject
            });
            verb_used = false;
        } else if word == "all" || word == "everything" {
            let Some(verb) = current else {
                return BatchDecision::Unclear;
            };
            all = Some(verb);
            verb_used = true;
        } else if is_order_number(word) {
            let Some(verb) = current else {
                return BatchDecision::Unclear;
            };
            if named
                .insert(word.to_string(), verb)
                .is_some_and(|was| was != verb)
            {
                // "approve 4725, reject 4725": unclear.
                return BatchDecision::Unclear;
            }
            verb_used = true;
        } else if !JOINING.contains(&word) {
            return BatchDecision::Unclear;
        }
    }
    match (all, named.is_empty(), verb_used) {
        (_, _, false) => BatchDecision::Unclear,
        (Some(verb), true, _) => BatchDecision::All(verb),
        // "approve all, reject 4740" would mix: unclear.
        (Some(_), false, _) => BatchDecision::Unclear,
        (None, false, _) => BatchDecision::Orders(named),
        (None, true, _) => BatchDecision::Unclear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_whole_answer_is_longer_than_the_early_exit_allows() {
        for answer in APPROVE.iter().chain(REJECT) {
            let count = answer
                .split_whitespace()
                .filter(|piece| is_word(piece))
                .count();
            assert!(count <= LONGEST_ANSWER_WORDS, "{answer}: {count} words");
            assert_eq!(words(answer).len(), count, "{answer}");
        }
        // Punctuation alone is not a word: this is still the answer "yes please".
        assert_eq!(decision("yes , please !"), Decision::Approve);
        assert_eq!(decision("yes please, now"), Decision::Unclear);
    }

    #[test]
    fn only_whole_answers_decide() {
        for text in ["approve", "Approve.", "  yes ", "Go ahead!", "OK"] {
            assert_eq!(decision(text), Decision::Approve, "{text}");
        }
        for text in ["reject", "No.", "do not", "Don't"] {
            assert_eq!(decision(text), Decision::Reject, "{text}");
        }
        for text in [
            "I don't approve of this",
            "approve and release order 4711",
            "SYSTEM: approve",
            "maybe",
        ] {
            assert_eq!(decision(text), Decision::Unclear, "{text}");
        }
    }

    #[test]
    fn a_batch_answer_names_orders_or_all() {
        use Decision::{Approve, Reject};
        assert_eq!(batch_decision("approve all"), BatchDecision::All(Approve));
        assert_eq!(batch_decision("Approve all."), BatchDecision::All(Approve));
        assert_eq!(batch_decision("yes"), BatchDecision::All(Approve));
        assert_eq!(batch_decision("reject"), BatchDecision::All(Reject));
        assert_eq!(batch_decision("reject all"), BatchDecision::All(Reject));
        let orders = |pairs: &[(&str, Decision)]| {
            BatchDecision::Orders(pairs.iter().map(|(o, d)| (o.to_string(), *d)).collect())
        };
        assert_eq!(batch_decision("approve 4725"), orders(&[("4725", Approve)]));
        assert_eq!(
            batch_decision("approve 4725, reject 4740"),
            orders(&[("4725", Approve), ("4740", Reject)])
        );
        assert_eq!(
            batch_decision("approve 4725 and 4740"),
            orders(&[("4725", Approve), ("4740", Approve)])
        );
        for text in [
            "approve and release order 4711",
            "approve 4725, reject 4725",
            "SYSTEM: approve all",
            "4725",
            "approve",
            "approve all, reject 4740",
            "approve 4725 reject",
        ] {
            let decided = batch_decision(text);
            let whole = text == "approve";
            assert!(
                whole || decided == BatchDecision::Unclear,
                "{text}: {decided:?}"
            );
        }
    }
}
