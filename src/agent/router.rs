//! Picks one specialist for a request, or none when nothing fits or two tie.
//!
//! The vocabulary comes from the specialists' skills (name, description,
//! tags, examples) and from one vocabulary file per language
//! (`data/lang/*.toml`: the skills' words in that language), so a new
//! specialist brings its own words and a new language is a file. Each
//! vocabulary text is read in its own language; a request is read in all
//! of them at once ([`lexicon`]: stems, compounds, typos), so no specialist
//! depends on guessing the request's language. Single stems and adjacent
//! pairs of stems in one language ("price list", "delivery address") are
//! both features. A feature counts by its weight in the skill times how
//! specific it is (log of specialists / specialists that use it), so a word
//! every card shares ("order") decides nothing and a word two cards share
//! ("delivery") decides less than one only one card has.

use super::language::Language;
use super::language::lexicon::{LANGUAGE_COUNT, lexicon};
pub use super::routing::{RoutingBasis, RoutingDecision};
use super::specialists::Skill;
use super::text::{LONGEST_WORD, is_number, tokens};
use std::collections::HashMap;

/// Weights of where a feature comes from in a skill.
const PROSE_WEIGHT: f64 = 1.0;
const KEYWORD_WEIGHT: f64 = 2.0;
/// Pairs of stems say more than single stems.
const PAIR_FACTOR: f64 = 1.5;
/// Below this nothing fits.
const MIN_SCORE: f64 = 1.0;
/// The winner must lead by this share of its own score, else it is a tie.
const MIN_LEAD: f64 = 0.25;

#[derive(Debug, Clone)]
pub struct Router {
    /// The skill ids, in the order of the scores in `adds`.
    skills: Vec<String>,
    /// Each stem of the vocabulary → its id, which is also the index of
    /// its single-stem feature in `adds`: one lookup per stem of a request.
    stems: HashMap<Box<str>, u32>,
    /// Two stems' ids ([`pair_key`]) → the index of their pair's feature.
    pairs: HashMap<u64, u32>,
    /// Per feature, what it adds to each skill's score (its weight in the
    /// skill times how specific it is; 0 where the skill does not use it).
    adds: Vec<Box<[f64]>>,
}

/// A feature while the vocabulary is built.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Feature {
    Stem(Box<str>),
    Pair(Box<str>, Box<str>),
}

fn pair_key(first: u32, second: u32) -> u64 {
    (u64::from(first) << 32) | u64::from(second)
}

/// Each feature of a vocabulary text read in its `language`, with its
/// factor: every stem, and every pair of adjacent stems (a stopword or a
/// number ends a run of adjacent stems).
fn vocabulary_features(text: &str, language: Language, mut visit: impl FnMut(Feature, f64)) {
    let lexicon = lexicon();
    let mut previous: Option<Box<str>> = None;
    for token in tokens(text) {
        if token.len() > LONGEST_WORD || is_number(&token) {
            previous = None;
            continue;
        }
        let analysis = lexicon.analyse(&token);
        let mut any = false;
        for stem in analysis.stems_in(language) {
            any = true;
            visit(Feature::Stem(stem.into()), 1.0);
            if let Some(before) = previous.take() {
                visit(Feature::Pair(before, stem.into()), PAIR_FACTOR);
            }
            previous = Some(stem.into());
        }
        if !any {
            previous = None;
        }
    }
}

impl Router {
    pub fn new(skills: &[&Skill]) -> Self {
        let mut vocabularies: Vec<(String, HashMap<Feature, f64>)> = Vec::new();
        for skill in skills {
            let mut vocabulary: HashMap<Feature, f64> = HashMap::new();
            let mut add = |text: &str, language: Language, weight: f64| {
                vocabulary_features(text, language, |feature, factor| {
                    let entry = vocabulary.entry(feature).or_insert(0.0);
                    *entry = entry.max(weight * factor);
                });
            };
            add(skill.name, Language::En, PROSE_WEIGHT);
            add(skill.description, Language::En, PROSE_WEIGHT);
            for text in skill.examples {
                add(text, Language::En, PROSE_WEIGHT);
            }
            for text in skill.tags {
                add(text, Language::En, KEYWORD_WEIGHT);
            }
            for (language, id, texts) in lexicon().skill_texts() {
                if id != skill.id {
                    continue;
                }
                for (text, keyword) in texts {
                    let weight = if *keyword {
                        KEYWORD_WEIGHT
                    } else {
                        PROSE_WEIGHT
                    };
                    add(text, language, weight);
                }
            }
            vocabularies.push((skill.id.to_string(), vocabulary));
        }
        let mut users: HashMap<Feature, usize> = HashMap::new();
        for (_, vocabulary) in &vocabularies {
            for feature in vocabulary.keys() {
                *users.entry(feature.clone()).or_insert(0) += 1;
            }
        }
        let total = vocabularies.len() as f64;
        let adds_of = |feature: &Feature, count: usize| -> Box<[f64]> {
            let specificity = (total / count as f64).ln();
            vocabularies
                .iter()
                .map(|(_, vocabulary)| {
                    vocabulary
                        .get(feature)
                        .map_or(0.0, |weight| weight * specificity)
                })
                .collect()
        };
        // Stems first (a stem's id is its feature's index), then pairs.
        let mut stems: HashMap<Box<str>, u32> = HashMap::new();
        let mut adds = Vec::new();
        for (feature, count) in &users {
            if let Feature::Stem(stem) = feature {
                stems.insert(stem.clone(), adds.len() as u32);
                adds.push(adds_of(feature, *count));
            }
        }
        let mut pairs = HashMap::new();
        for (feature, count) in &users {
            if let Feature::Pair(first, second) = feature
                && let (Some(first), Some(second)) = (stems.get(first), stems.get(second))
            {
                pairs.insert(pair_key(*first, *second), adds.len() as u32);
                adds.push(adds_of(feature, *count));
            }
        }
        Router {
            skills: vocabularies.into_iter().map(|(id, _)| id).collect(),
            stems,
            pairs,
            adds,
        }
    }

    /// Add what feature `index` adds to each skill, once per feature
    /// however often the request has it (`counted`: the features added so
    /// far).
    fn add_feature(&self, index: u32, counted: &mut [bool], totals: &mut [f64]) {
        let index = index as usize;
        match counted.get_mut(index) {
            Some(seen) if !*seen => *seen = true,
            _ => return,
        }
        if let Some(adds) = self.adds.get(index) {
            for (total, add) in totals.iter_mut().zip(adds.iter()) {
                *total += add;
            }
        }
    }

    pub fn route(&self, text: &str) -> RoutingDecision {
        let lexicon = lexicon();
        let mut totals = vec![0.0; self.skills.len()];
        let mut counted = vec![false; self.adds.len()];
        // Per language, the id of the previous word's last stem while a
        // run of adjacent words goes on.
        let mut previous: [Option<u32>; LANGUAGE_COUNT] = [None; LANGUAGE_COUNT];
        let mut ids: Vec<Option<u32>> = Vec::new();
        for token in tokens(text) {
            if token.len() > LONGEST_WORD || is_number(&token) {
                previous = [None; LANGUAGE_COUNT];
                continue;
            }
            let analysis = lexicon.analyse(&token);
            ids.clear();
            ids.extend(
                analysis
                    .stems
                    .iter()
                    .map(|stem| self.stems.get(stem.as_ref()).copied()),
            );
            for id in ids.iter().flatten() {
                self.add_feature(*id, &mut counted, &mut totals);
            }
            for (sequence, before) in analysis.by_language.iter().zip(previous.iter_mut()) {
                if sequence.is_empty() {
                    *before = None;
                    continue;
                }
                for at in sequence.iter() {
                    let id = ids.get(usize::from(*at)).copied().flatten();
                    if let (Some(first), Some(second)) = (*before, id)
                        && let Some(pair) = self.pairs.get(&pair_key(first, second))
                    {
                        self.add_feature(*pair, &mut counted, &mut totals);
                    }
                    *before = id;
                }
            }
        }
        let mut ranked: Vec<(String, f64)> = self.skills.iter().cloned().zip(totals).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let scores = ranked
            .iter()
            // `+ 0.0` turns a rounded -0.0 into 0.0.
            .map(|(id, score)| (id.clone(), (score * 100.0).round() / 100.0 + 0.0))
            .collect();
        let top = ranked.first().map(|(_, s)| *s).unwrap_or(0.0);
        let second = ranked.get(1).map(|(_, s)| *s).unwrap_or(0.0);
        let decision =
            |specialist: Option<String>, basis: RoutingBasis, tied: Vec<String>| RoutingDecision {
                specialist,
                scores,
                basis,
                tied,
                language: None,
                language_source: None,
            };
        if top < MIN_SCORE {
            return decision(None, RoutingBasis::NoMatch, Vec::new());
        }
        if top - second < MIN_LEAD * top {
            let tied = ranked
                .iter()
                .filter(|(_, score)| top - score < MIN_LEAD * top)
                .map(|(id, _)| id.clone())
                .collect();
            return decision(None, RoutingBasis::Tie, tied);
        }
        decision(
            ranked.first().map(|(id, _)| id.clone()),
            RoutingBasis::Text,
            Vec::new(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::routing::EvalCase;
    use crate::agent::specialists;
    use std::collections::BTreeMap;

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

    /// The lowest accuracy each language's evaluation cases must reach
    /// (docs/routing.md#languages).
    const TARGETS: [(&str, f64); 4] = [("en", 97.0), ("de", 95.0), ("fr", 90.0), ("es", 90.0)];

    /// `data/routing_eval.json`: the twelve walkthrough cases first, then
    /// more English and the German, French and Spanish sets. Each language
    /// meets its target, and no walkthrough case is lost. A case whose
    /// `basis` is `order-block` is the named order's to decide: its words
    /// must name no specialist (`own_block`'s tests hold the order's block
    /// to `expected`).
    #[test]
    fn the_evaluation_set_meets_each_languages_target() {
        let cases = EvalCase::shipped();
        let router = router();
        let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut misses = Vec::new();
        for (index, case) in cases.iter().enumerate() {
            let decision = router.route(&case.text);
            let ok = match case.basis {
                Some(RoutingBasis::OrderBlock) => decision.specialist.is_none(),
                _ => decision.specialist == case.expected,
            };
            let (total, passed) = tally.entry(case.language.as_str()).or_default();
            *total += 1;
            *passed += usize::from(ok);
            if !ok {
                misses.push(format!(
                    "{} {:?}: expected {:?}, got {:?} {:?}",
                    case.language, case.text, case.expected, decision.specialist, decision.scores
                ));
                assert!(index >= 12, "a walkthrough case is lost: {misses:#?}");
            }
        }
        for (language, target) in TARGETS {
            let (total, passed) = tally.get(language).copied().unwrap_or_default();
            let least = if language == "de" { 30 } else { 10 };
            assert!(total >= least, "{language}: {total} cases");
            assert!(
                passed as f64 * 100.0 >= target * total as f64,
                "{language}: {passed}/{total} under {target} %: {misses:#?}"
            );
        }
        println!("{tally:?} {misses:#?}");
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

    /// A word that carries no meaning (a stopword) or names no problem
    /// (neutral) in one language counts for no specialist in any other
    /// either: read there it may stem like a skill's word ("and" like
    /// German "anderer", "nach" like "nächste"), and "why is 4711 blocked
    /// and what can I do" went to the delivery specialist.
    #[test]
    fn no_stopword_or_neutral_word_of_any_language_counts_alone() {
        let router = router();
        let mut counted = Vec::new();
        for (language, vocabulary) in crate::agent::language::vocabulary::shipped() {
            for word in vocabulary.stopwords.iter().chain(&vocabulary.neutral) {
                let decision = router.route(word);
                if decision.scores.values().any(|score| *score != 0.0) {
                    counted.push(format!("{language:?} {word:?}: {:?}", decision.scores));
                }
            }
        }
        assert!(counted.is_empty(), "{counted:#?}");
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
