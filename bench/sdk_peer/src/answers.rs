//! The service's answers to the four walkthrough requests, captured from the
//! service itself over A2A 1.0 (`capture.sh` writes `answers.json`, embedded
//! at build time), so that the peer sends the bytes the service sends and the
//! benchmark compares the stacks, not the answers. A request is matched on
//! the order number in its text, as a whole number (4711 is not 47110).

use std::collections::HashMap;

use a2a::{Artifact, Part};
use serde::Deserialize;
use serde_json::Value;

/// One captured answer: what the service put in the completed task.
#[derive(Debug, Deserialize)]
pub struct Answer {
    /// The sales order number the request's text names.
    pub order: String,
    /// The status message's parts and metadata (the answer text, routing).
    pub message: AnswerMessage,
    /// The answer and proposal artifacts (ids replaced per task).
    pub artifacts: Vec<Artifact>,
    /// The task's metadata (the answer's language).
    pub metadata: Option<HashMap<String, Value>>,
}

/// The agent message of a captured answer, without its ids.
#[derive(Debug, Deserialize)]
pub struct AnswerMessage {
    pub parts: Vec<Part>,
    pub metadata: Option<HashMap<String, Value>>,
}

/// Every captured answer, looked up by the order number in a request's text.
#[derive(Debug)]
pub struct Answers(Vec<Answer>);

impl Answers {
    /// The answers of `answers.json`, compiled into the binary.
    pub fn embedded() -> Result<Self, serde_json::Error> {
        serde_json::from_str(include_str!("../answers.json")).map(Answers)
    }

    /// The answer whose order number appears in `text` as a whole number.
    pub fn for_text(&self, text: &str) -> Option<&Answer> {
        let mut numbers = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|run| !run.is_empty());
        numbers.find_map(|number| self.0.iter().find(|answer| answer.order == number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_walkthrough_text_finds_its_own_order() {
        let answers = Answers::embedded().expect("answers.json parses");
        for (text, order) in [
            ("why is order 4711 blocked by credit", "4711"),
            ("Order 4725: Pricing: customer disputes the price.", "4725"),
            (
                "Order 4723: Incomplete: delivery address data missing.",
                "4723",
            ),
            ("customer wants a later delivery date on 4740", "4740"),
        ] {
            let answer = answers.for_text(text).expect("an answer");
            assert_eq!(answer.order, order);
            assert_eq!(answer.artifacts.len(), 2, "answer and proposal for {order}");
        }
    }

    #[test]
    fn a_longer_number_is_not_an_order_it_contains() {
        let answers = Answers::embedded().expect("answers.json parses");
        assert!(answers.for_text("why is order 47110 blocked").is_none());
        assert!(answers.for_text("no number at all").is_none());
    }
}
