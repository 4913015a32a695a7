//! Compounds split by the vocabulary: a German word the vocabulary does
//! not list ("Kreditlimitsperre", "Lieferadressdaten") is read as the
//! words it does list that make it up, with linking letters ("-s-", "-en-")
//! between them. The parts are the vocabulary's words and stems of at least
//! [`MIN_PART_BYTES`] bytes, kept in a trie: a split walks the word once
//! from each position, so its cost is bounded by the word's length (capped
//! at [`MAX_WORD_BYTES`]) times the longest part.

use std::collections::HashMap;

/// Shorter parts would split too much ("war" + "ten").
pub const MIN_PART_BYTES: usize = 4;
/// Longer words are not split.
pub const MAX_WORD_BYTES: usize = 48;

#[derive(Debug, Default)]
struct Node {
    next: HashMap<u8, usize>,
    /// The stem a part ending here stands for.
    part: Option<usize>,
}

/// The parts compounds are split into, and the links between them.
#[derive(Debug)]
pub struct Parts {
    nodes: Vec<Node>,
    stems: Vec<Box<str>>,
    links: Vec<Box<str>>,
}

impl Parts {
    /// `parts`: each form a part may take (a word or its stem) with the
    /// stem it stands for.
    pub fn new<'a>(
        parts: impl IntoIterator<Item = (&'a str, &'a str)>,
        links: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut trie = Parts {
            nodes: vec![Node::default()],
            stems: Vec::new(),
            links: links
                .into_iter()
                .filter(|link| !link.is_empty())
                .map(Box::from)
                .collect(),
        };
        for (form, stem) in parts {
            if form.len() < MIN_PART_BYTES || stem.is_empty() {
                continue;
            }
            let mut at = 0;
            for byte in form.bytes() {
                at = match trie.nodes[at].next.get(&byte) {
                    Some(next) => *next,
                    None => {
                        trie.nodes.push(Node::default());
                        let next = trie.nodes.len() - 1;
                        trie.nodes[at].next.insert(byte, next);
                        next
                    }
                };
            }
            if trie.nodes[at].part.is_none() {
                trie.stems.push(stem.into());
                trie.nodes[at].part = Some(trie.stems.len() - 1);
            }
        }
        trie
    }

    /// The stems of the fewest parts that make up `word` (two or more),
    /// or `None` when the vocabulary's words do not cover it.
    pub fn split(&self, word: &str) -> Option<Vec<&str>> {
        let bytes = word.as_bytes();
        let n = bytes.len();
        if !(2 * MIN_PART_BYTES..=MAX_WORD_BYTES).contains(&n) {
            return None;
        }
        // ends[k]: the fewest parts covering word[..k] with a part ending
        // at k, the part's start and stem. starts[j]: the part end a part
        // starting at j follows (itself, or one before a link).
        let mut ends: Vec<Option<(usize, usize, usize)>> = vec![None; n + 1];
        let mut starts: Vec<Option<usize>> = vec![None; n + 1];
        starts[0] = Some(0);
        for j in 0..n {
            let Some(follows) = starts[j] else { continue };
            let count = if j == 0 {
                0
            } else {
                ends[follows].map_or(usize::MAX, |(count, _, _)| count)
            };
            let mut at = 0;
            for (k, byte) in bytes.iter().enumerate().skip(j) {
                let Some(next) = self.nodes[at].next.get(byte) else {
                    break;
                };
                at = *next;
                if let Some(part) = self.nodes[at].part
                    && ends[k + 1].is_none_or(|(best, _, _)| count + 1 < best)
                {
                    ends[k + 1] = Some((count + 1, j, part));
                    if starts[k + 1].is_none() {
                        starts[k + 1] = Some(k + 1);
                    }
                    for link in &self.links {
                        let after = k + 1 + link.len();
                        if after < n && bytes[k + 1..].starts_with(link.as_bytes()) {
                            starts[after].get_or_insert(k + 1);
                        }
                    }
                }
            }
        }
        let (count, _, _) = ends[n]?;
        if count < 2 {
            return None;
        }
        let mut parts = Vec::with_capacity(count);
        let mut end = n;
        loop {
            let (_, start, part) = ends[end]?;
            parts.push(self.stems[part].as_ref());
            if start == 0 {
                break;
            }
            end = starts[start]?;
        }
        parts.reverse();
        Some(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn german() -> Parts {
        Parts::new(
            [
                ("kredit", "kredit"),
                ("limit", "limit"),
                ("sperr", "sperr"),
                ("sperre", "sperr"),
                ("liefer", "liefer"),
                ("lieferung", "liefer"),
                ("adress", "adress"),
                ("preis", "preis"),
                ("differenz", "differenz"),
                ("wunsch", "wunsch"),
                ("termin", "termin"),
                ("waren", "war"),
                ("empfang", "empfang"),
                ("dat", "dat"),
            ],
            ["s", "es", "n", "en", "e"],
        )
    }

    #[test]
    fn compounds_split_into_the_vocabularys_words() {
        let parts = german();
        assert_eq!(parts.split("kreditsperr"), Some(vec!["kredit", "sperr"]));
        assert_eq!(parts.split("kreditlimit"), Some(vec!["kredit", "limit"]));
        assert_eq!(
            parts.split("kreditlimitsperr"),
            Some(vec!["kredit", "limit", "sperr"])
        );
        assert_eq!(
            parts.split("wunschliefertermin"),
            Some(vec!["wunsch", "liefer", "termin"])
        );
        assert_eq!(parts.split("warenempfang"), Some(vec!["war", "empfang"]));
        assert_eq!(
            parts.split("lieferungsadress"),
            Some(vec!["liefer", "adress"]),
            "with a linking s"
        );
        assert_eq!(
            parts.split("preisdifferenz"),
            Some(vec!["preis", "differenz"])
        );
    }

    #[test]
    fn what_the_vocabulary_does_not_cover_is_not_split() {
        let parts = german();
        // One part only, an unknown tail, a part shorter than four letters,
        // a link at the end, too long.
        assert_eq!(parts.split("kredit"), None);
        assert_eq!(parts.split("lieferwagen"), None);
        assert_eq!(parts.split("stammdat"), None);
        assert_eq!(parts.split("kreditsperrs"), None);
        assert_eq!(parts.split(&"kredit".repeat(9)), None);
        assert_eq!(parts.split(&"kredit".repeat(8)), Some(vec!["kredit"; 8]));
    }
}
