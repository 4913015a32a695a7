//! A customer named by name in an ask for blocked orders: "which orders of
//! ACME are blocked?", "welche Aufträge von Nordwind sind gesperrt?",
//! "quelles commandes de Nordwind sont bloquées ?", "¿qué pedidos del
//! cliente Alpen Logistik están bloqueados?". The name is the run of words
//! right after a customer word ("customer", "Kunde", "client", "cliente")
//! or an owner word ("of", "von", "de", "del"; `data/lang/*.toml`,
//! `[batch]`) that no language knows: an ordinary word (a stopword, a word
//! of the vocabularies, a typo of one, a month) ends it, and so does a
//! number or punctuation other than `' - & .` between two words. After an
//! owner word a name starts with a capital letter, so "orders from last
//! week" names nobody; after a customer word a lower-case name counts
//! ("customer acme"). The name is bounded ([`MAX_NAME_CHARS`],
//! [`MAX_NAME_WORDS`]) and kept as typed (case and accents), for the
//! answer to quote.

use crate::agent::language::lexicon::{WordClass, lexicon};
use crate::agent::text::{LONGEST_WORD, is_number, word_spans};
use crate::backend::MAX_NAME_PART;

/// The longest name taken from a text, in characters: no customer's name
/// is longer (S/4HANA's `CustomerName`).
pub const MAX_NAME_CHARS: usize = MAX_NAME_PART;
/// At most this many words of a name are taken.
pub const MAX_NAME_WORDS: usize = 6;

/// A word of the text: where it is, and in lower case.
struct Word<'a> {
    start: usize,
    end: usize,
    typed: &'a str,
    lower: String,
}

/// The words of `text` as `text::tokens` splits them, with their places.
fn words(text: &str) -> Vec<Word<'_>> {
    word_spans(text)
        .map(|(start, typed)| Word {
            start,
            end: start + typed.len(),
            typed,
            lower: typed.to_lowercase(),
        })
        .collect()
}

/// Whether a word could be (part of) a name: no number, not too long, and
/// no language knows it.
fn unknown(word: &Word<'_>) -> bool {
    let lexicon = lexicon();
    !is_number(&word.lower)
        && word.lower.len() <= LONGEST_WORD
        && !lexicon.analyse(&word.lower).known
        && lexicon.month_named(&word.lower).is_none()
}

fn capitalised(word: &Word<'_>) -> bool {
    word.typed.chars().next().is_some_and(char::is_uppercase)
}

/// Whether only spaces and the punctuation names have (`O'Neil`,
/// `Müller & Söhne`, `Co.`) stand between two words.
fn joins(between: &str) -> bool {
    between
        .chars()
        .all(|c| c.is_whitespace() || matches!(c, '\'' | '’' | '-' | '&' | '.'))
}

/// The customer's name `text` names, as typed, if it names one.
pub fn name_in(text: &str) -> Option<String> {
    let words = words(text);
    let lexicon = lexicon();
    for (index, anchor) in words.iter().enumerate() {
        let after_customer = lexicon.is(&anchor.lower, WordClass::CustomerBefore);
        if !after_customer && !lexicon.is(&anchor.lower, WordClass::OwnerBefore) {
            continue;
        }
        let Some(first) = words.get(index + 1) else {
            continue;
        };
        // An elided letter ("O'Neil", "L'Oréal") reads with the word after it.
        let mut at = index + 1;
        if first.typed.chars().count() == 1
            && text[first.end..].starts_with(['\'', '’'])
            && words
                .get(index + 2)
                .is_some_and(|next| next.start - first.end <= '’'.len_utf8())
        {
            at += 1;
        }
        let Some(head) = words.get(at) else {
            continue;
        };
        let lower_case_name = !capitalised(first);
        if !unknown(head) || (lower_case_name && !after_customer) {
            continue;
        }
        let mut last = head;
        for next in words[at + 1..].iter().take(MAX_NAME_WORDS - 1) {
            let legal_form = lexicon.is(&next.lower, WordClass::LegalForm);
            let fits = legal_form || (unknown(next) && (lower_case_name || capitalised(next)));
            if !fits
                || !joins(&text[last.end..next.start])
                || text[first.start..next.end].chars().count() > MAX_NAME_CHARS
            {
                break;
            }
            last = next;
        }
        let name = &text[first.start..last.end];
        if name.chars().count() <= MAX_NAME_CHARS {
            return Some(name.to_string());
        }
    }
    None
}

/// The words of a name that find it: its words but the legal forms, as
/// typed ("Nordwind Handels GmbH" → Nordwind, Handels).
pub fn search_words(name: &str) -> Vec<String> {
    words(name)
        .into_iter()
        .filter(|word| !lexicon().is(&word.lower, WordClass::LegalForm))
        .map(|word| word.typed.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_after_of_or_customer_in_every_language() {
        for (text, name) in [
            ("which orders of ACME are blocked?", "ACME"),
            (
                "which orders of Nordwind Handels GmbH are blocked?",
                "Nordwind Handels GmbH",
            ),
            ("credit blocks of customer acme", "acme"),
            (
                "show the blocked orders of Smith & Sons Ltd.",
                "Smith & Sons Ltd",
            ),
            ("blocked orders of D'Arcy-Whyte please", "D'Arcy-Whyte"),
            ("commandes bloquées de L'Oréal", "L'Oréal"),
            ("welche Aufträge von Nordwind sind gesperrt?", "Nordwind"),
            (
                "Welche Aufträge des Kunden Alpen Logistik sind gesperrt?",
                "Alpen Logistik",
            ),
            ("quelles commandes de Nordwind sont bloquées ?", "Nordwind"),
            ("¿qué pedidos de Nordwind están bloqueados?", "Nordwind"),
            (
                "¿qué pedidos del cliente Rhein Elektro KG están bloqueados?",
                "Rhein Elektro KG",
            ),
        ] {
            assert_eq!(name_in(text).as_deref(), Some(name), "{text}");
        }
    }

    #[test]
    fn ordinary_words_are_no_name() {
        for text in [
            "show me all blocked orders",
            "which orders of customer 10023 are blocked?",
            "show me all blocked orders from last week",
            "credit blocks of the customer",
            "zeige alle gesperrten Aufträge der letzten Woche",
            "welche Aufträge von Kunden sind gesperrt?",
            "montre toutes les commandes bloquées de la semaine dernière",
            "muéstrame todos los pedidos bloqueados de la semana pasada",
            "blocked orders of March",
            "which orders of Credit are blocked?",
        ] {
            assert_eq!(name_in(text), None, "{text}");
        }
    }

    #[test]
    fn a_name_is_bounded() {
        let long = format!("which orders of {} are blocked?", "Nordwind ".repeat(50));
        let name = name_in(&long).unwrap_or_default();
        assert_eq!(name.split(' ').count(), MAX_NAME_WORDS, "{name}");
        let one_long_word = format!("which orders of N{} are blocked?", "o".repeat(200));
        assert_eq!(name_in(&one_long_word), None);
        let wide = format!(
            "which orders of {} are blocked?",
            "Nordwindhandel ".repeat(6)
        );
        assert!(name_in(&wide).is_some_and(|name| name.chars().count() <= MAX_NAME_CHARS));
    }

    #[test]
    fn the_search_leaves_the_legal_form_out() {
        assert_eq!(
            search_words("Nordwind Handels GmbH"),
            ["Nordwind", "Handels"]
        );
        assert_eq!(search_words("Smith & Sons LTD"), ["Smith", "Sons"]);
    }
}
