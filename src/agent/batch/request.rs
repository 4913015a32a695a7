//! Recognising a batch in the user's words: several order numbers named
//! as a list ("4711, 4723 and 4725", "orders 4711 4723"), or an ask for
//! blocked orders ("show me all blocked orders", "which orders of customer
//! 10023 are blocked?", "credit blocks of 10023", "which orders of
//! Nordwind are blocked?": a customer by name, [`super::customer_name`]). An ask for several
//! orders that is not about blocks ("list all sales orders from last
//! week") is no batch either: [`beyond_reach`] tells it apart, so the agent
//! says what it can do instead of answering with the blocked orders.
//! Anything else is not a batch and goes through the single-order path
//! unchanged. The words are every language's (the `[batch]` lists of
//! `data/lang/*.toml`): "zeige alle gesperrten Aufträge", "montre toutes
//! les commandes bloquées".

use super::customer_name::name_in;
use crate::agent::language::lexicon::{WordClass, lexicon};
use crate::agent::text::tokens;
use crate::backend::BlockKind;

/// What a batch request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchRequest {
    /// Orders named in the message: in the order named, each once.
    Named(Vec<String>),
    /// The source's blocked orders, of one customer and/or one kind.
    Blocked {
        customer: Option<CustomerRef>,
        kind: Option<BlockKind>,
    },
}

/// How an ask for blocked orders names the customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CustomerRef {
    /// By number ("of customer 10023").
    Number(String),
    /// By name, as typed ("of Nordwind"); `answer`: what the user answered
    /// when asked which of several customers they meant.
    Name {
        name: String,
        answer: Option<String>,
    },
}

/// Whether `word` is in any language's `[batch]` (or `[numbers]`) list
/// of `class` (`data/lang/*.toml`): "orders", "Aufträge", "commandes", …
fn is(word: &str, class: WordClass) -> bool {
    lexicon().is(word, class)
}

/// Whether `text` asks for several orders with no order number named and
/// nothing about blocks in it: neither the words ("blocked", "stuck", …) nor
/// the router's vocabulary (`kind_of`) — "list all sales orders from last
/// week". The agent reads blocked orders only, so it is no batch.
pub fn beyond_reach(text: &str, kind_of: impl Fn(&str) -> Option<BlockKind>) -> bool {
    let words = tokens(text);
    let asks = asks_for_orders(&words);
    asks && numbers(&words, asks).0.is_empty() && !about_blocks(&words, text, kind_of)
}

/// A plural with an ask: a question about several orders.
fn asks_for_orders(words: &[String]) -> bool {
    words.iter().any(|w| is(w, WordClass::Plural))
        && words
            .iter()
            .any(|w| is(w, WordClass::AboutBlocks) || is(w, WordClass::AsksForAny))
}

fn about_blocks(words: &[String], text: &str, kind_of: impl Fn(&str) -> Option<BlockKind>) -> bool {
    words.iter().any(|w| is(w, WordClass::AboutBlocks)) || kind_of(text).is_some()
}

fn is_number(word: &str) -> bool {
    (4..=10).contains(&word.len()) && word.chars().all(|c| c.is_ascii_digit())
}

/// A batch, if `text` asks for one. `kind_of` names the kind of block the
/// words are about (the router's vocabulary), if any.
pub fn recognise(text: &str, kind_of: impl Fn(&str) -> Option<BlockKind>) -> Option<BatchRequest> {
    let words = tokens(text);
    let plural = words.iter().any(|w| is(w, WordClass::Plural));
    let asks = asks_for_orders(&words);
    let (orders, customer) = numbers(&words, asks);
    // In the order named, each once (a set: linear in the numbers named).
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<String> = orders
        .iter()
        .filter(|(_, order)| seen.insert(order.as_str()))
        .map(|(_, order)| order.clone())
        .collect();
    if distinct.len() >= 2 {
        // Numbers named as a list, or "orders" said: several orders.
        let listed = orders.windows(2).any(|pair| {
            let between = &words[pair[0].0 + 1..pair[1].0];
            between.iter().all(|w| is(w, WordClass::ListJoiner))
        });
        return (listed || plural).then_some(BatchRequest::Named(distinct));
    }
    if distinct.is_empty() && asks {
        let kind = kind_of(text);
        let about_blocks = kind.is_some() || about_blocks(&words, text, |_| None);
        let customer = customer
            .map(CustomerRef::Number)
            .or_else(|| name_in(text).map(|name| CustomerRef::Name { name, answer: None }));
        return about_blocks.then_some(BatchRequest::Blocked { customer, kind });
    }
    None
}

/// An answer to the question which of several customers was meant: when
/// the latest earlier ask for several orders (`earlier`, oldest first) was
/// one for blocked orders of a customer named by name, `text` (no batch of
/// its own) says which customer, and the ask is made again with it.
pub fn answers_which_customer<'a>(
    earlier: impl DoubleEndedIterator<Item = &'a str>,
    text: &str,
    kind_of: impl Fn(&str) -> Option<BlockKind>,
) -> Option<BatchRequest> {
    let asked = earlier.rev().find_map(|said| recognise(said, &kind_of))?;
    match asked {
        BatchRequest::Blocked {
            customer: Some(CustomerRef::Name { name, .. }),
            kind,
        } => Some(BatchRequest::Blocked {
            customer: Some(CustomerRef::Name {
                name,
                answer: Some(text.to_string()),
            }),
            kind,
        }),
        _ => None,
    }
}

/// The order numbers among `words` (with their positions) and the first
/// customer number; `asks`: the words ask for several orders, so "of
/// 10023" names a customer.
fn numbers(words: &[String], asks: bool) -> (Vec<(usize, String)>, Option<String>) {
    let mut orders: Vec<(usize, String)> = Vec::new();
    let mut customer = None;
    for (index, word) in words.iter().enumerate() {
        if !is_number(word) {
            continue;
        }
        let before = index.checked_sub(1).map(|i| words[i].as_str());
        let after = words.get(index + 1).map(String::as_str);
        let owner = before.is_some_and(|w| is(w, WordClass::CustomerBefore))
            || (asks && before.is_some_and(|w| is(w, WordClass::OwnerBefore)));
        if owner {
            customer.get_or_insert_with(|| word.clone());
            continue;
        }
        let excluded = before.is_some_and(|w| is(w, WordClass::BatchNotAnOrderBefore))
            || after.is_some_and(|w| is(w, WordClass::AmountAfter));
        if !excluded {
            orders.push((index, word.clone()));
        }
    }
    (orders, customer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(text: &str) -> Option<BatchRequest> {
        recognise(text, |_| None)
    }

    fn orders(numbers: &[&str]) -> Option<BatchRequest> {
        Some(BatchRequest::Named(
            numbers.iter().map(|n| n.to_string()).collect(),
        ))
    }

    #[test]
    fn several_numbers_named_as_a_list() {
        assert_eq!(
            named("why are 4711, 4723 and 4725 stuck?"),
            orders(&["4711", "4723", "4725"])
        );
        assert_eq!(named("orders 4725 4711"), orders(&["4725", "4711"]));
        assert_eq!(
            named("order 4711 and order 4725"),
            orders(&["4711", "4725"])
        );
        assert_eq!(
            named("4711, 4725, 4711 please"),
            orders(&["4711", "4725"]),
            "duplicates count once"
        );
    }

    #[test]
    fn single_order_requests_are_no_batch() {
        let eval: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../../data/routing_eval.json")).unwrap();
        for case in eval {
            let text = case["text"].as_str().unwrap();
            assert_eq!(named(text), None, "{text}");
        }
        for text in [
            "4725 was invoiced at 3900 instead of 3500",
            "customer 10023 is over the credit limit on 4711",
            "why is 4711 blocked",
            "4711 and 4711",
            "the price list of 4725 says 1800 EUR",
        ] {
            assert_eq!(named(text), None, "{text}");
        }
    }

    #[test]
    fn asks_for_blocked_orders() {
        let credit = |text: &str| {
            recognise(text, |t| {
                t.to_lowercase()
                    .contains("credit")
                    .then_some(BlockKind::Credit)
            })
        };
        assert_eq!(
            credit("show me all blocked orders"),
            Some(BatchRequest::Blocked {
                customer: None,
                kind: None
            })
        );
        assert_eq!(
            credit("which orders of customer 10023 are blocked?"),
            Some(BatchRequest::Blocked {
                customer: Some(CustomerRef::Number("10023".into())),
                kind: None
            })
        );
        assert_eq!(
            credit("credit blocks of ACME"),
            Some(BatchRequest::Blocked {
                customer: Some(CustomerRef::Name {
                    name: "ACME".into(),
                    answer: None
                }),
                kind: Some(BlockKind::Credit)
            })
        );
        for text in ["credit blocks of 10023", "credit blocks of customer 10023"] {
            assert_eq!(
                credit(text),
                Some(BatchRequest::Blocked {
                    customer: Some(CustomerRef::Number("10023".into())),
                    kind: Some(BlockKind::Credit)
                }),
                "{text}"
            );
        }
        assert_eq!(credit("book a meeting room for tomorrow"), None);
    }

    #[test]
    fn an_ask_for_orders_that_is_not_about_blocks_is_beyond_reach() {
        let credit = |text: &str| {
            text.to_lowercase()
                .contains("credit")
                .then_some(BlockKind::Credit)
        };
        for text in [
            "list all sales orders from last week",
            "show me all orders of customer 10023",
            "which orders were created yesterday?",
        ] {
            assert_eq!(recognise(text, credit), None, "{text}");
            assert!(beyond_reach(text, credit), "{text}");
        }
        for text in [
            "show me all blocked orders",
            "which orders are stuck?",
            "list the incomplete orders",
            "which orders have credit problems?",
            "credit blocks of 10023",
        ] {
            assert!(recognise(text, credit).is_some(), "{text}");
            assert!(!beyond_reach(text, credit), "{text}");
        }
        // One order, or orders named, are never beyond reach.
        for text in [
            "book a meeting room for tomorrow",
            "why is 4711 blocked",
            "list orders 4711 and 4723",
        ] {
            assert!(!beyond_reach(text, credit), "{text}");
        }
    }

    #[test]
    fn an_answer_to_which_customer_repeats_the_ask_with_it() {
        let earlier = ["hello", "credit blocks of Nordwind", "what?"];
        assert_eq!(
            answers_which_customer(earlier.into_iter(), "10023", |text| {
                text.contains("credit").then_some(BlockKind::Credit)
            }),
            Some(BatchRequest::Blocked {
                customer: Some(CustomerRef::Name {
                    name: "Nordwind".into(),
                    answer: Some("10023".into())
                }),
                kind: Some(BlockKind::Credit)
            })
        );
        for earlier in [
            vec!["which orders of customer 10023 are blocked?"],
            vec!["why is 4711 blocked"],
            vec!["credit blocks of Nordwind", "show me all blocked orders"],
        ] {
            assert_eq!(
                answers_which_customer(earlier.into_iter(), "10023", |_| None),
                None
            );
        }
    }

    #[test]
    fn batches_in_every_language() {
        let blocked = |customer: Option<&str>| {
            Some(BatchRequest::Blocked {
                customer: customer.map(|number| CustomerRef::Number(number.into())),
                kind: None,
            })
        };
        let of_name = |name: &str| {
            Some(BatchRequest::Blocked {
                customer: Some(CustomerRef::Name {
                    name: name.into(),
                    answer: None,
                }),
                kind: None,
            })
        };
        for (text, name) in [
            ("which orders of ACME are blocked?", "ACME"),
            ("welche Aufträge von Nordwind sind gesperrt?", "Nordwind"),
            ("quelles commandes de Nordwind sont bloquées ?", "Nordwind"),
            ("¿qué pedidos de Nordwind están bloqueados?", "Nordwind"),
        ] {
            assert_eq!(named(text), of_name(name), "{text}");
        }
        assert_eq!(named("zeige alle gesperrten Aufträge"), blocked(None));
        assert_eq!(
            named("Welche Aufträge von Kunde 10023 sind gesperrt?"),
            blocked(Some("10023"))
        );
        assert_eq!(named("montre toutes les commandes bloquées"), blocked(None));
        assert_eq!(
            named("muéstrame todos los pedidos bloqueados"),
            blocked(None)
        );
        assert_eq!(
            named("warum hängen 4711, 4723 und 4725?"),
            orders(&["4711", "4723", "4725"])
        );
        assert_eq!(named("Aufträge 4725 4711"), orders(&["4725", "4711"]));
        assert_eq!(
            named("les commandes 4711 et 4725"),
            orders(&["4711", "4725"])
        );
        for text in [
            "Warum ist der Auftrag 4711 wegen des Kreditlimits gesperrt?",
            "Kunde 10023 hat bei 4711 das Kreditlimit überschritten",
            "Le client conteste le prix facturé sur 4725",
            "El cliente 10023 supera el límite de crédito en 4711",
        ] {
            assert_eq!(named(text), None, "{text}");
        }
        // An ask for orders that is not about blocks is beyond reach.
        assert!(beyond_reach(
            "zeige alle Aufträge von letzter Woche",
            |_| None
        ));
        assert!(!beyond_reach("zeige alle gesperrten Aufträge", |_| None));
    }
}
