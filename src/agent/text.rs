//! Words and numbers out of free text: tokens, stems, and the sales order
//! number a user means.

use rust_stemmers::{Algorithm, Stemmer};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// At most this many words' stems are remembered per thread (a few hundred
/// kB at most); past it the memory starts over.
const REMEMBERED_WORDS: usize = 2048;

thread_local! {
    /// The stems of words this thread has seen (`None`: a stopword), by
    /// lower-case word. Stemming a word costs thousands of instructions and
    /// requests keep using the same few hundred words: without this,
    /// stemming was a twentieth of a request's time (bench/README.md).
    static STEMS: RefCell<HashMap<String, Option<String>>> = RefCell::new(HashMap::new());
}

/// Words that carry no meaning for routing.
const STOPWORDS: &[&str] = &[
    "a", "about", "again", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "did", "do", "does", "for", "from", "get", "got", "had", "has", "have",
    "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let",
    "me", "my", "of", "on", "or", "our", "please", "she", "so", "some", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "us", "was", "we",
    "were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
    "hi", "hello", "thanks", "tell", "too", "not", "no", "much", "very", "also", "still", "want",
    "wants", "need", "needs", "says", "said",
];

/// Lower-case words and numbers, split at anything that is not a letter or digit.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|token| !token.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The stems of the meaningful words (no stopwords, no numbers).
pub fn stems(text: &str) -> Vec<String> {
    stem_runs(text).into_iter().flatten().collect()
}

/// Stems in runs of adjacent meaningful words: a stopword or a number ends a
/// run, so "order 4711 blocked" gives two runs and no pair "order block".
pub fn stem_runs(text: &str) -> Vec<Vec<String>> {
    let mut runs = vec![Vec::new()];
    for token in tokens(text) {
        match meaningful_stem(&token) {
            None => {
                if runs.last().is_some_and(|run| !run.is_empty()) {
                    runs.push(Vec::new());
                }
            }
            Some(stem) => {
                if let Some(run) = runs.last_mut() {
                    run.push(stem);
                }
            }
        }
    }
    runs.retain(|run| !run.is_empty());
    runs
}

/// Longer than any word of any vocabulary (German compounds included), in
/// bytes: such a token is no candidate for matching. The stemmer's cost
/// grows with the square of a word's length, so a token this long is
/// skipped before it reaches the stemmer: every pass over a request's text
/// stays linear in its size (bench/text.sh measures it).
pub const LONGEST_WORD: usize = 64;

/// The stem of a lower-case `token`; `None` for a number, a stopword or a
/// token longer than [`LONGEST_WORD`]. Numbers are not remembered (every
/// request has its own).
fn meaningful_stem(token: &str) -> Option<String> {
    if token.len() > LONGEST_WORD || token.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    STEMS.with(|remembered| {
        let mut remembered = remembered.borrow_mut();
        if let Some(stem) = remembered.get(token) {
            return stem.clone();
        }
        let stem = (!STOPWORDS.contains(&token)).then(|| STEMMER.stem(token).into_owned());
        if remembered.len() >= REMEMBERED_WORDS {
            remembered.clear();
        }
        remembered.insert(token.to_string(), stem.clone());
        stem
    })
}

/// Words before a number that say it is not a sales order.
const NOT_AN_ORDER_BEFORE: &[&str] = &[
    "customer",
    "customers",
    "partner",
    "party",
    "account",
    "at",
    "eur",
    "usd",
    "material",
    "item",
    "limit",
];
/// Words after a number that say it is an amount.
const AMOUNT_AFTER: &[&str] = &["eur", "euro", "euros", "usd", "percent"];
/// Words before a number that say it is one.
const ORDER_BEFORE: &[&str] = &["order", "orders", "so", "auftrag", "no", "number"];

/// The sales order number in `text`: 4 to 10 digits, preferably right after
/// "order", never right after "customer" or before a currency.
pub fn find_sales_order(text: &str) -> Option<String> {
    let words = tokens(text);
    let mut fallback = None;
    for (index, word) in words.iter().enumerate() {
        if !(4..=10).contains(&word.len()) || !word.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let before = index.checked_sub(1).map(|i| words[i].as_str());
        let after = words.get(index + 1).map(String::as_str);
        if before.is_some_and(|w| ORDER_BEFORE.contains(&w)) {
            return Some(word.clone());
        }
        let excluded = before.is_some_and(|w| NOT_AN_ORDER_BEFORE.contains(&w))
            || after.is_some_and(|w| AMOUNT_AFTER.contains(&w));
        if !excluded && fallback.is_none() {
            fallback = Some(word.clone());
        }
    }
    fallback
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_order_not_the_customer() {
        assert_eq!(
            find_sales_order("customer 10023 is over the credit limit on 4711").as_deref(),
            Some("4711")
        );
        assert_eq!(
            find_sales_order("Order 4723: Incomplete").as_deref(),
            Some("4723")
        );
        assert_eq!(
            find_sales_order("price agreed at 3500 for 4725").as_deref(),
            Some("4725")
        );
        assert_eq!(find_sales_order("why is it blocked by credit"), None);
        assert_eq!(find_sales_order("it costs 3500 EUR"), None);
    }

    /// A remembered stem is the stemmer's, also once the memory started
    /// over (more distinct words than it keeps).
    #[test]
    fn remembered_stems_are_the_stemmers() {
        for round in 0..2 {
            assert_eq!(
                stems("blocked deliveries"),
                ["block", "deliveri"],
                "{round}"
            );
        }
        for i in 0..REMEMBERED_WORDS + 10 {
            let word = format!("word{}x", "y".repeat(i % 7)) + &i.to_string();
            assert_eq!(stems(&word), [STEMMER.stem(&word).into_owned()]);
        }
        assert_eq!(stems("the blocked deliveries"), ["block", "deliveri"]);
    }

    /// A word longer than any vocabulary word is no feature, and it ends
    /// the run it interrupts (it never reaches the stemmer).
    #[test]
    fn a_huge_word_is_no_stem() {
        let huge = "a".repeat(LONGEST_WORD + 1);
        assert_eq!(
            stem_runs(&format!("credit {huge} limit")),
            [vec!["credit"], vec!["limit"]]
        );
        let longest = "b".repeat(LONGEST_WORD);
        assert_eq!(stems(&longest), [STEMMER.stem(&longest).into_owned()]);
    }

    #[test]
    fn stems_drop_stopwords_and_numbers() {
        assert_eq!(stems("Why is order 4711 blocked?"), ["order", "block"]);
        assert_eq!(
            stem_runs("order 4711 blocked by the credit limit"),
            [vec!["order"], vec!["block"], vec!["credit", "limit"]]
        );
    }
}
