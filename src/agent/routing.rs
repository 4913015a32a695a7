//! What the router decided and why ([`RoutingDecision`], [`RoutingBasis`]):
//! what a reply carries and clients read back, in a leaf of its own
//! because the router (`router.rs`) reads the lexicon, which reads the
//! specialists, whose replies carry the decision.

use super::language::{Language, LanguageSource};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Also what clients read back from the `routing` metadata of the agent's
/// status message (the CLI's `ask`, `triage` and `eval`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingDecision {
    /// The chosen specialist's skill id; `None` means ask the user.
    pub specialist: Option<String>,
    /// Every specialist's score, rounded to two places.
    pub scores: BTreeMap<String, f64>,
    /// Why the router chose (or did not).
    pub basis: RoutingBasis,
    /// Specialists that tied for first place (empty unless `basis` is `Tie`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tied: Vec<String>,
    /// The language the turn is answered in (the agent adds it: the router
    /// reads every language alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// Where that language came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language_source: Option<LanguageSource>,
}

/// Why a routing decision is what it is; on the wire (the `routing`
/// metadata, span attributes) as `text`, `tie`, `no-match`,
/// `order-block`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingBasis {
    /// The request's words picked the specialist.
    Text,
    /// Two or more specialists scored too close to pick one.
    Tie,
    /// Nothing scored enough.
    NoMatch,
    /// The words named no kind of block, and the one order they name
    /// did: its block status, else its block note (`own_block`).
    OrderBlock,
}

impl RoutingBasis {
    pub fn as_str(self) -> &'static str {
        match self {
            RoutingBasis::Text => "text",
            RoutingBasis::Tie => "tie",
            RoutingBasis::NoMatch => "no-match",
            RoutingBasis::OrderBlock => "order-block",
        }
    }
}

impl std::fmt::Display for RoutingBasis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A case of the shipped routing evaluation (`data/routing_eval.json`), as
/// the router's and `own_block`'s tests read it.
#[cfg(test)]
#[derive(Debug, Deserialize)]
pub struct EvalCase {
    pub text: String,
    pub expected: Option<String>,
    pub language: String,
    pub basis: Option<RoutingBasis>,
}

#[cfg(test)]
impl EvalCase {
    /// Every case of the shipped set, in its order.
    pub fn shipped() -> Vec<EvalCase> {
        serde_json::from_str(include_str!("../../data/routing_eval.json"))
            .expect("data/routing_eval.json parses")
    }
}
