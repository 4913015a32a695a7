//! Typos forgiven: a word no language knows is taken for the known stem
//! it is closest to, by edit distance (insertions, deletions, substitutions
//! and swaps of neighbours), when it is long enough for that to be safe.
//! Order numbers, roles and approval words never come here: numbers and
//! words with digits are not corrected, and approval answers are compared
//! exactly (`approval::reply_parse`).

use std::collections::HashMap;

/// Words of fewer letters are never corrected: "rice" is not "price".
pub const MIN_LETTERS: usize = 5;
/// From this many letters on two edits are forgiven, below one.
pub const TWO_EDITS_FROM: usize = 9;
/// Longer words are not corrected: the work per word stays bounded.
pub const MAX_LETTERS: usize = 24;
/// A known stem shorter than this is no correction.
const MIN_TARGET_LETTERS: usize = 4;

/// How many edits a word of `letters` letters may be away from the stem
/// it is taken for.
pub fn edits_forgiven(letters: usize) -> usize {
    match letters {
        n if !(MIN_LETTERS..=MAX_LETTERS).contains(&n) => 0,
        n if n >= TWO_EDITS_FROM => 2,
        _ => 1,
    }
}

/// One language's known words and stems, by first letter (a typo rarely
/// hits the first letter, and comparing only those keeps a lookup to a few
/// dozen words), each with the stem it stands for.
#[derive(Debug, Default)]
pub struct Corrections {
    by_first: HashMap<char, Vec<Known>>,
}

/// A form a typo may be of, and the stem it stands for.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Known {
    letters: Box<[char]>,
    stem: Box<str>,
}

impl Corrections {
    /// `known`: each form (a word as the vocabulary has it, or a stem)
    /// with its stem.
    pub fn new<'a>(known: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut by_first: HashMap<char, Vec<Known>> = HashMap::new();
        for (form, stem) in known {
            let letters: Box<[char]> = form.chars().collect();
            if letters.len() < MIN_TARGET_LETTERS || !letters.iter().all(|c| c.is_alphabetic()) {
                continue;
            }
            by_first.entry(letters[0]).or_default().push(Known {
                letters,
                stem: stem.into(),
            });
        }
        for forms in by_first.values_mut() {
            forms.sort();
            forms.dedup();
        }
        Corrections { by_first }
    }

    /// The one known stem that one of `forms` (a word as typed, its stem)
    /// is a typo of: the closest within the edits the form's length
    /// forgives, if no other stem is as close.
    pub fn correct<'a>(&self, forms: impl IntoIterator<Item = &'a str>) -> Option<&str> {
        let mut best: Option<(usize, &str)> = None;
        let mut tied = false;
        for form in forms {
            let letters: Vec<char> = form.chars().take(MAX_LETTERS + 1).collect();
            let most = edits_forgiven(letters.len());
            if most == 0 || !letters.iter().all(|c| c.is_alphabetic()) {
                continue;
            }
            let Some(candidates) = self.by_first.get(&letters[0]) else {
                continue;
            };
            for Known {
                letters: known,
                stem,
            } in candidates
            {
                if known.len().abs_diff(letters.len()) > most {
                    continue;
                }
                let Some(distance) = distance_within(&letters, known, most) else {
                    continue;
                };
                match best {
                    Some((closest, _)) if distance > closest => {}
                    Some((closest, chosen)) if distance == closest => {
                        tied |= chosen != stem.as_ref();
                    }
                    _ => {
                        best = Some((distance, stem));
                        tied = false;
                    }
                }
            }
        }
        best.filter(|_| !tied)
            .filter(|(distance, _)| *distance > 0)
            .map(|(_, stem)| stem)
    }
}

/// The edit distance of `a` and `b` (optimal string alignment: a swap of
/// neighbours is one edit), if it is at most `most`. Only a band of width
/// `2 * most + 1` is computed, so the cost is linear in the length.
pub fn distance_within(a: &[char], b: &[char], most: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    let big = most + 1;
    let width = b.len() + 1;
    // Three rows: the one before the previous (for swaps), the previous, this.
    let mut before = vec![big; width];
    let mut previous: Vec<usize> = (0..width).map(|j| j.min(big)).collect();
    let mut current = vec![big; width];
    for i in 1..=a.len() {
        current.fill(big);
        if i <= most {
            current[0] = i;
        }
        let from = i.saturating_sub(most).max(1);
        let to = (i + most).min(b.len());
        let mut row_best = current[0];
        for j in from..=to {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut value = (previous[j - 1] + cost)
                .min(previous[j] + 1)
                .min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                value = value.min(before[j - 2] + 1);
            }
            current[j] = value.min(big);
            row_best = row_best.min(current[j]);
        }
        if row_best > most {
            return None;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[b.len()];
    (distance <= most).then_some(distance)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str, most: usize) -> Option<usize> {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        distance_within(&a, &b, most)
    }

    #[test]
    fn edits_are_counted_within_the_band() {
        assert_eq!(distance("credt", "credit", 1), Some(1));
        assert_eq!(
            distance("credti", "credit", 1),
            Some(1),
            "a swap is one edit"
        );
        assert_eq!(distance("blockd", "block", 1), Some(1));
        assert_eq!(distance("kredtlimt", "kreditlimit", 2), Some(2));
        assert_eq!(distance("kredtlimt", "kreditlimit", 1), None);
        assert_eq!(distance("price", "price", 1), Some(0));
        assert_eq!(distance("price", "slice", 1), None);
        assert_eq!(distance("", "ab", 2), Some(2));
        assert_eq!(distance("empfaeng", "empfang", 1), Some(1));
    }

    #[test]
    fn the_thresholds() {
        assert_eq!(edits_forgiven(4), 0, "rice is not price");
        assert_eq!(edits_forgiven(5), 1);
        assert_eq!(edits_forgiven(8), 1);
        assert_eq!(edits_forgiven(9), 2);
        assert_eq!(edits_forgiven(24), 2);
        assert_eq!(edits_forgiven(25), 0, "longer words are not corrected");
    }

    #[test]
    fn a_word_is_taken_for_the_one_closest_stem() {
        let known = Corrections::new([
            ("credit", "credit"),
            ("block", "block"),
            ("blocked", "block"),
            ("kreditlimit", "kreditlimit"),
            ("price", "price"),
            ("pricing", "price"),
            ("prize", "prize"),
            ("limit", "limit"),
        ]);
        let correct = |word: &str| known.correct([word]);
        assert_eq!(correct("credt"), Some("credit"));
        assert_eq!(correct("blockd"), Some("block"));
        assert_eq!(correct("kredtlimt"), Some("kreditlimit"));
        assert_eq!(
            correct("pricng"),
            Some("price"),
            "a typo of an inflected word"
        );
        // Too short, a different first letter, a number, a tie, itself.
        assert_eq!(correct("limt"), None);
        assert_eq!(correct("vredit"), None);
        assert_eq!(correct("cred1t"), None);
        assert_eq!(correct("prixe"), None, "price and prize are as close");
        assert_eq!(correct("credit"), None);
        // A long word costs a bounded band, and past the cap nothing.
        let long = "c".repeat(10_000);
        assert_eq!(correct(&long), None);
    }
}
