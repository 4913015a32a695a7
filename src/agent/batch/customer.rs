//! A customer named by name, resolved to its number before its blocked
//! orders are listed ("which orders of Nordwind are blocked?" → 10023). The
//! source is asked for the customers whose name contains the name's
//! longest word (S/4HANA: `A_Customer`, as the calling user); each row
//! found must then have every word of the name, the legal form left out,
//! as a word, the start of one ("Nord"), or a typo of one within the edits
//! the lexicon forgives ([`typos`]). When the word finds nobody, its first
//! letters are asked for once more, for a typo past them. No customer, one,
//! or several (at most [`MAX_CANDIDATES`] listed): the agent says which.
//! A later answer (`pick`) narrows the candidates by a number or more of
//! the name.

use super::CustomerRef;
use super::customer_name::search_words;
use crate::agent::language::Language;
use crate::agent::language::catalog::{self, text as say};
use crate::agent::language::lexicon::fold;
use crate::agent::language::typos::{distance_within, edits_forgiven};
use crate::agent::{Outcome, Reply};
use crate::backend::{BackendError, Customer, OrderSource, Refusal};

/// At most this many candidates are listed for the user to pick from.
pub const MAX_CANDIDATES: usize = 5;
/// A search reads this many rows at most: more than are listed, since the
/// source matches one word and the agent all of them.
const SEARCH_ROWS: usize = 50;
/// A word's start that is looked for when the word finds nobody.
const RETRY_LETTERS: usize = 3;
/// A typed word this long or longer may stand for a word it starts.
const PREFIX_LETTERS: usize = 3;

/// Whom a name names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// No customer.
    Nobody,
    One(Customer),
    /// Several, in number order: the first [`MAX_CANDIDATES`]; `more`: more
    /// matched.
    Several {
        candidates: Vec<Customer>,
        more: bool,
    },
}

/// A name's words that find it, in lower case with accents folded, as
/// they are compared.
fn compared(name: &str) -> Vec<String> {
    search_words(name)
        .iter()
        .map(|word| fold(&word.to_lowercase()).into_owned())
        .collect()
}

/// Whether the typed word `typed` stands for the word `word` of a name.
fn word_matches(typed: &str, word: &str) -> bool {
    if typed == word {
        return true;
    }
    let typed: Vec<char> = typed.chars().collect();
    let word: Vec<char> = word.chars().collect();
    (typed.len() >= PREFIX_LETTERS && word.starts_with(&typed))
        || distance_within(&typed, &word, edits_forgiven(typed.len())).is_some()
}

/// Whether every typed word stands for a word of `name`.
fn name_matches(typed: &[String], name: &str) -> bool {
    let words = compared(name);
    typed
        .iter()
        .all(|typed| words.iter().any(|word| word_matches(typed, word)))
}

/// The customers `name` names.
pub async fn resolve(orders: &dyn OrderSource, name: &str) -> Result<Vec<Customer>, BackendError> {
    let typed = compared(name);
    let Some(longest) = search_words(name)
        .into_iter()
        .max_by_key(|word| word.chars().count())
    else {
        return Ok(Vec::new());
    };
    let start: String = longest.chars().take(RETRY_LETTERS).collect();
    let mut parts = vec![longest.clone()];
    if start != longest {
        parts.push(start);
    }
    for part in parts {
        let mut found: Vec<Customer> = orders
            .customers_named(&part, SEARCH_ROWS)
            .await?
            .into_iter()
            .filter(|customer| name_matches(&typed, &customer.customer_name))
            .collect();
        found.sort_by(|a, b| a.customer.cmp(&b.customer));
        found.dedup_by(|a, b| a.customer == b.customer);
        if !found.is_empty() {
            return Ok(found);
        }
    }
    Ok(Vec::new())
}

/// Of `found`, those a later answer names: by number, else those whose
/// name has the most of the answer's words; all of them when it names none.
pub fn narrow(found: Vec<Customer>, answer: &str) -> Vec<Customer> {
    let numbers: Vec<&str> = answer
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    let by_number: Vec<Customer> = found
        .iter()
        .filter(|customer| numbers.contains(&customer.customer.as_str()))
        .cloned()
        .collect();
    if !by_number.is_empty() {
        return by_number;
    }
    let typed = compared(answer);
    let score = |customer: &Customer| {
        let words = compared(&customer.customer_name);
        typed
            .iter()
            .filter(|typed| words.iter().any(|word| word_matches(typed, word)))
            .count()
    };
    let best = found.iter().map(score).max().unwrap_or(0);
    if best == 0 {
        return found;
    }
    found
        .into_iter()
        .filter(|customer| score(customer) == best)
        .collect()
}

/// Nobody, one, or the first candidates of several.
pub fn decide(mut found: Vec<Customer>) -> Resolved {
    match found.len() {
        0 => Resolved::Nobody,
        1 => Resolved::One(found.remove(0)),
        count => {
            found.truncate(MAX_CANDIDATES);
            Resolved::Several {
                candidates: found,
                more: count > MAX_CANDIDATES,
            }
        }
    }
}

/// The customer an ask for blocked orders is about: its number, and how
/// the answer names it ("Nordwind Handels GmbH (10023)").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub number: String,
    pub shown: String,
}

/// The customer `customer` names, read as the caller (`orders`); else the
/// answer that says it names nobody (`completed`), or several, listed for
/// the user to pick from (`input-required`), in `language`. A failed read
/// is answered as any failed read.
pub async fn settle(
    orders: &dyn OrderSource,
    customer: CustomerRef,
    language: Language,
) -> Result<Settled, Reply> {
    let (name, answer) = match customer {
        CustomerRef::Number(number) => {
            return Ok(Settled {
                shown: number.clone(),
                number,
            });
        }
        CustomerRef::Name { name, answer } => (name, answer),
    };
    let found = match resolve(orders, &name).await {
        Ok(found) => found,
        Err(error) => {
            tracing::warn!(%error, "the customers could not be looked up by name");
            let (refusal, text) = catalog::backend_error(&error, language);
            let outcome = match refusal {
                Refusal::Rejected => Outcome::Rejected,
                Refusal::Failed => Outcome::Failed,
            };
            return Err(Reply::new(outcome, text));
        }
    };
    let found = match answer {
        Some(answer) => narrow(found, &answer),
        None => found,
    };
    let shown = |customer: &Customer| {
        say(
            language,
            "customer-named",
            &[
                ("name", customer.customer_name.as_str().into()),
                ("customer", customer.customer.as_str().into()),
            ],
        )
    };
    match decide(found) {
        Resolved::One(customer) => Ok(Settled {
            shown: shown(&customer),
            number: customer.customer,
        }),
        Resolved::Nobody => Err(Reply::new(
            Outcome::Completed,
            say(
                language,
                "customer-name-unknown",
                &[("name", name.as_str().into())],
            ),
        )),
        Resolved::Several { candidates, more } => {
            let listed: Vec<String> = candidates.iter().map(shown).collect();
            let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
            Err(Reply::new(
                Outcome::InputRequired,
                say(
                    language,
                    "customer-name-several",
                    &[
                        ("more", if more { "yes" } else { "no" }.into()),
                        ("count", candidates.len().into()),
                        ("name", name.as_str().into()),
                        ("candidates", catalog::and_list(language, &listed).into()),
                    ],
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(name: &str) -> Vec<String> {
        compared(name)
    }

    #[test]
    fn a_name_matches_in_any_case_without_its_legal_form_and_with_a_typo() {
        let nordwind = "Nordwind Handels GmbH";
        for name in [
            "Nordwind",
            "nordwind",
            "NORDWIND HANDELS",
            "Nordwind AG",
            "Nord",
            "Nordwnd",
            "Handels Nordwind",
        ] {
            assert!(name_matches(&typed(name), nordwind), "{name}");
        }
        for name in ["ACME", "Nordwind Logistik", "No", "Alpen"] {
            assert!(!name_matches(&typed(name), nordwind), "{name}");
        }
    }

    fn customer(number: &str, name: &str) -> Customer {
        Customer {
            customer: number.into(),
            customer_name: name.into(),
        }
    }

    #[test]
    fn an_answer_narrows_by_number_or_name() {
        let found = vec![
            customer("10023", "Nordwind Handels GmbH"),
            customer("10099", "Nordwind Logistik AG"),
        ];
        assert_eq!(narrow(found.clone(), "10099"), [found[1].clone()]);
        assert_eq!(
            narrow(found.clone(), "the Logistik one"),
            [found[1].clone()]
        );
        assert_eq!(
            narrow(found.clone(), "Nordwind Logistik"),
            [found[1].clone()]
        );
        assert_eq!(narrow(found.clone(), "hmm"), found);
        assert_eq!(narrow(found.clone(), "Nordwind"), found);
    }

    #[test]
    fn several_are_listed_up_to_the_bound() {
        let many: Vec<Customer> = (0..MAX_CANDIDATES + 2)
            .map(|n| customer(&format!("1000{n}"), "Nordwind"))
            .collect();
        let Resolved::Several { candidates, more } = decide(many) else {
            panic!("several");
        };
        assert_eq!(candidates.len(), MAX_CANDIDATES);
        assert!(more);
        assert_eq!(decide(Vec::new()), Resolved::Nobody);
    }
}
