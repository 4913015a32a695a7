//! Picks one specialist for a request, or none when nothing fits or two tie.
//!
//! The vocabulary comes from the specialists' skills only (name, description,
//! tags, examples and routing synonyms), so a new specialist brings its own
//! words. Text is stemmed; single stems and adjacent pairs ("price list",
//! "delivery address") are both features. A feature counts by its weight in
//! the skill times how specific it is (log of specialists / specialists that
//! use it), so a word every card shares ("order") decides nothing and a word
//! two cards share ("delivery") decides less than one only one card has.

use super::specialists::Skill;
use super::text::stem_runs;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Weights of where a feature comes from in a skill.
const PROSE_WEIGHT: f64 = 1.0;
const KEYWORD_WEIGHT: f64 = 2.0;
/// Pairs of stems say more than single stems.
const PAIR_FACTOR: f64 = 1.5;
/// Below this nothing fits.
const MIN_SCORE: f64 = 1.0;
/// The winner must lead by this share of its own score, else it is a tie.
const MIN_LEAD: f64 = 0.25;

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
}

/// Why a routing decision is what it is; on the wire (the `routing`
/// metadata, span attributes) as `text`, `tie`, `no-match`,
/// `order-block-note`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingBasis {
    /// The request's words picked the specialist.
    Text,
    /// Two or more specialists scored too close to pick one.
    Tie,
    /// Nothing scored enough.
    NoMatch,
    /// The order's own block note decided.
    OrderBlockNote,
}

impl RoutingBasis {
    pub fn as_str(self) -> &'static str {
        match self {
            RoutingBasis::Text => "text",
            RoutingBasis::Tie => "tie",
            RoutingBasis::NoMatch => "no-match",
            RoutingBasis::OrderBlockNote => "order-block-note",
        }
    }
}

impl std::fmt::Display for RoutingBasis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct Router {
    /// The skill ids, in the order of the scores in `features`.
    skills: Vec<String>,
    /// feature → what it adds to each skill's score: one lookup per word
    /// of a request.
    features: HashMap<String, Feature>,
}

#[derive(Debug, Clone)]
struct Feature {
    /// Its place among the features: a request counts each feature once.
    index: usize,
    /// For each skill, what the feature adds to that skill's score (its
    /// weight in the skill times how specific it is; 0 where the skill
    /// does not use it).
    adds: Vec<f64>,
}

/// Each of a text's features with its factor, in order: every stem, and
/// every pair of adjacent stems as "first second" (built in one buffer,
/// not a string each: the router reads every request this way).
fn each_feature(text: &str, mut visit: impl FnMut(&str, f64)) {
    let mut pair = String::new();
    for run in stem_runs(text) {
        for stem in &run {
            visit(stem, 1.0);
        }
        for adjacent in run.windows(2) {
            pair.clear();
            pair.push_str(&adjacent[0]);
            pair.push(' ');
            pair.push_str(&adjacent[1]);
            visit(&pair, PAIR_FACTOR);
        }
    }
}

impl Router {
    pub fn new(skills: &[&Skill]) -> Self {
        let mut vocabularies = Vec::new();
        for skill in skills {
            let mut vocabulary: HashMap<String, f64> = HashMap::new();
            let mut add = |text: &str, weight: f64| {
                each_feature(text, |feature, factor| {
                    let entry = vocabulary.entry(feature.to_string()).or_insert(0.0);
                    *entry = entry.max(weight * factor);
                });
            };
            add(skill.name, PROSE_WEIGHT);
            add(skill.description, PROSE_WEIGHT);
            skill.examples.iter().for_each(|t| add(t, PROSE_WEIGHT));
            skill.tags.iter().for_each(|t| add(t, KEYWORD_WEIGHT));
            skill.synonyms.iter().for_each(|t| add(t, KEYWORD_WEIGHT));
            vocabularies.push((skill.id.to_string(), vocabulary));
        }
        let mut users: HashMap<String, usize> = HashMap::new();
        for (_, vocabulary) in &vocabularies {
            for feature in vocabulary.keys() {
                *users.entry(feature.clone()).or_insert(0) += 1;
            }
        }
        let total = vocabularies.len() as f64;
        let features = users
            .into_iter()
            .enumerate()
            .map(|(index, (feature, count))| {
                let specificity = (total / count as f64).ln();
                let adds = vocabularies
                    .iter()
                    .map(|(_, vocabulary)| {
                        vocabulary
                            .get(&feature)
                            .map_or(0.0, |weight| weight * specificity)
                    })
                    .collect();
                (feature, Feature { index, adds })
            })
            .collect();
        Router {
            skills: vocabularies.into_iter().map(|(id, _)| id).collect(),
            features,
        }
    }

    /// Add what a feature of the request adds to each skill, once per
    /// feature however often the request has it (`counted`, by
    /// [`Feature::index`]: the features added so far).
    fn add_feature(&self, feature: &str, counted: &mut [bool], totals: &mut [f64]) {
        let Some(Feature { index, adds }) = self.features.get(feature) else {
            return;
        };
        match counted.get_mut(*index) {
            Some(seen) if !*seen => *seen = true,
            _ => return,
        }
        for (total, add) in totals.iter_mut().zip(adds) {
            *total += add;
        }
    }

    pub fn route(&self, text: &str) -> RoutingDecision {
        let mut totals = vec![0.0; self.skills.len()];
        let mut counted = vec![false; self.features.len()];
        each_feature(text, |feature, _| {
            self.add_feature(feature, &mut counted, &mut totals);
        });
        let mut ranked: Vec<(String, f64)> = self.skills.iter().cloned().zip(totals).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let scores = ranked
            .iter()
            // `+ 0.0` turns a rounded -0.0 into 0.0.
            .map(|(id, score)| (id.clone(), (score * 100.0).round() / 100.0 + 0.0))
            .collect();
        let top = ranked.first().map(|(_, s)| *s).unwrap_or(0.0);
        let second = ranked.get(1).map(|(_, s)| *s).unwrap_or(0.0);
        if top < MIN_SCORE {
            return RoutingDecision {
                specialist: None,
                scores,
                basis: RoutingBasis::NoMatch,
                tied: Vec::new(),
            };
        }
        if top - second < MIN_LEAD * top {
            let tied = ranked
                .iter()
                .filter(|(_, score)| top - score < MIN_LEAD * top)
                .map(|(id, _)| id.clone())
                .collect();
            return RoutingDecision {
                specialist: None,
                scores,
                basis: RoutingBasis::Tie,
                tied,
            };
        }
        RoutingDecision {
            specialist: ranked.first().map(|(id, _)| id.clone()),
            scores,
            basis: RoutingBasis::Text,
            tied: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::specialists;

    fn router() -> Router {
        let all = specialists::all();
        let skills: Vec<&Skill> = all.iter().map(|s| s.skill()).collect();
        Router::new(&skills)
    }

    fn check(cases: &[(&str, Option<&str>)]) {
        let router = router();
        let misses: Vec<String> = cases
            .iter()
            .filter_map(|(text, expected)| {
                let decision = router.route(text);
                (decision.specialist.as_deref() != *expected)
                    .then(|| format!("{text:?}: expected {expected:?}, got {decision:?}"))
            })
            .collect();
        assert!(misses.is_empty(), "{misses:#?}");
    }

    /// The twelve walkthrough cases, shipped as `data/routing_eval.json`.
    #[test]
    fn the_seed_evaluation_set() {
        #[derive(serde::Deserialize)]
        struct Case {
            text: String,
            expected: Option<String>,
        }
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../../data/routing_eval.json")).unwrap();
        assert_eq!(cases.len(), 12);
        let cases: Vec<(&str, Option<&str>)> = cases
            .iter()
            .map(|case| (case.text.as_str(), case.expected.as_deref()))
            .collect();
        check(&cases);
    }

    /// How clerks say the same things in their own words.
    #[test]
    fn paraphrases_and_synonyms() {
        check(&[
            ("4711 is on credit hold", Some("credit")),
            (
                "the customer exceeded their credit limit, order 4711",
                Some("credit"),
            ),
            (
                "customer has too many unpaid invoices, 4711 stuck",
                Some("credit"),
            ),
            ("open items are above the limit for 4711", Some("credit")),
            (
                "the client says we overcharged them on 4725",
                Some("pricing"),
            ),
            ("4725 was invoiced at the wrong price", Some("pricing")),
            (
                "customer claims a discount was agreed for 4725",
                Some("pricing"),
            ),
            ("the billed amount on 4725 is too high", Some("pricing")),
            ("zip code missing on 4723", Some("masterdata")),
            (
                "the ship-to address of 4723 has no street",
                Some("masterdata"),
            ),
            ("postal code is empty for order 4723", Some("masterdata")),
            ("order 4723 lacks mandatory fields", Some("masterdata")),
            ("can we postpone the delivery of 4740", Some("delivery")),
            ("customer asked to reschedule 4740", Some("delivery")),
            ("push back the shipping date for 4740", Some("delivery")),
            ("the customer wants 4740 shipped later", Some("delivery")),
            ("what's the weather like", None),
            ("hello", None),
            ("please order lunch for the team", None),
        ]);
    }

    #[test]
    fn a_shared_word_alone_decides_nothing() {
        let decision = router().route("order");
        assert_eq!(decision.specialist, None);
        assert_eq!(decision.basis.as_str(), "no-match");
    }

    #[test]
    fn a_feature_counts_once_however_often_it_is_said() {
        let router = router();
        let once = router.route("why is the credit limit blocking delivery");
        let repeated = "credit limit ".repeat(5_000) + "why is the credit limit blocking delivery";
        let many = router.route(&repeated);
        assert_eq!(many.scores, once.scores);
        assert_eq!(many.specialist, once.specialist);
        assert!(once.scores.values().any(|score| *score > 0.0));
    }
}
