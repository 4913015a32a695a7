//! Words and numbers out of free text: tokens, and the sales order number a
//! user means. How a word reads (stems, stopwords, compounds, typos) is the
//! lexicon's ([`super::language::lexicon`]).

use super::language::lexicon::{WordClass, lexicon};

/// Lower-case words and numbers, split at anything that is not a letter or digit.
pub fn tokens(text: &str) -> Vec<String> {
    word_spans(text)
        .map(|(_, token)| token.to_lowercase())
        .collect()
}

/// The words and numbers of `text` as typed, with the byte where each
/// starts: [`tokens`] before lower-casing, for a reader that must quote
/// or look around a word.
pub fn word_spans(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|token| !token.is_empty())
        .map(move |token| (token.as_ptr() as usize - text.as_ptr() as usize, token))
}

/// Longer than any word of any vocabulary (German compounds included), in
/// bytes: such a token is no candidate for matching. The stemmers' cost
/// grows with the square of a word's length, so a token this long is
/// skipped before it reaches them: every pass over a request's text
/// stays linear in its size (bench/text.sh measures it).
pub const LONGEST_WORD: usize = 64;

/// Whether a token is a number (it ends a run of words and is never a word).
pub fn is_number(token: &str) -> bool {
    token.chars().all(|c| c.is_ascii_digit())
}

/// The sales order number in `text`: 4 to 10 digits, preferably right after
/// "order" (in any language the agent speaks: "Auftrag", "commande",
/// "pedido"), never right after "customer" or before a currency.
pub fn find_sales_order(text: &str) -> Option<String> {
    let words = tokens(text);
    let lexicon = lexicon();
    let mut fallback = None;
    for (index, word) in words.iter().enumerate() {
        if !(4..=10).contains(&word.len()) || !is_number(word) {
            continue;
        }
        let before = index.checked_sub(1).map(|i| words[i].as_str());
        let after = words.get(index + 1).map(String::as_str);
        if before.is_some_and(|w| lexicon.is(w, WordClass::OrderBefore)) {
            return Some(word.clone());
        }
        let excluded = before.is_some_and(|w| lexicon.is(w, WordClass::NotOrderBefore))
            || after.is_some_and(|w| lexicon.is(w, WordClass::AmountAfter));
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

    #[test]
    fn finds_the_order_in_every_language() {
        for (text, order) in [
            (
                "Kunde 10023 hat bei Auftrag 4711 das Kreditlimit überschritten",
                "4711",
            ),
            ("Kunde 10023: warum ist 4711 gesperrt?", "4711"),
            (
                "le client 10023 dépasse sa limite sur la commande 4711",
                "4711",
            ),
            (
                "el cliente 10023 supera el límite en el pedido 4711",
                "4711",
            ),
        ] {
            assert_eq!(find_sales_order(text).as_deref(), Some(order), "{text}");
        }
    }
}
