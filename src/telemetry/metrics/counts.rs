//! The two lock-free shapes the figures are kept in: a row of counts
//! indexed by a label value's slot, and a table that gives run-time label
//! values (error codes, specialists) their slot on first use. No lock and
//! no allocation once a value has its slot.

use std::borrow::Borrow;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// One count per label value of a family.
pub(super) struct Counts<const N: usize>([AtomicU64; N]);

impl<const N: usize> Counts<N> {
    pub(super) const fn new() -> Self {
        Counts([const { AtomicU64::new(0) }; N])
    }

    pub(super) fn add(&self, index: usize, n: u64) {
        // Counters only grow and are read one by one: no ordering needed.
        self.0[index].fetch_add(n, Ordering::Relaxed);
    }

    /// Every value's count together.
    pub(super) fn total(&self) -> u64 {
        self.all().map(|(_, count)| count).sum()
    }

    /// (slot, count) of every value, those still at zero too.
    pub(super) fn all(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.0
            .iter()
            .map(|count| count.load(Ordering::Relaxed))
            .enumerate()
    }

    /// (slot, count) of the values counted at least once.
    pub(super) fn counted(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.0
            .iter()
            .map(|count| count.load(Ordering::Relaxed))
            .enumerate()
            .filter(|(_, count)| *count > 0)
    }
}

/// Label values only known at run time, each given its slot on first use
/// and keeping it. At most `N - 1` values; later ones share the last slot,
/// `other`, so a table never grows.
pub(super) struct Claimed<T, const N: usize>([OnceLock<T>; N]);

impl<T, const N: usize> Claimed<T, N> {
    pub(super) const fn new() -> Self {
        Claimed([const { OnceLock::new() }; N])
    }

    /// The slot of `value`, claiming the first free one if it has none.
    pub(super) fn index<Q>(&self, value: &Q) -> usize
    where
        Q: PartialEq + ToOwned<Owned = T> + ?Sized,
        T: Borrow<Q>,
    {
        let other = N - 1;
        // Slots fill in order and a slot is looked at before the next one
        // is claimed, so a value is found before any free slot, and two
        // threads claiming the same value at once meet in the same slot.
        self.0[..other]
            .iter()
            .position(|slot| slot.get_or_init(|| value.to_owned()).borrow() == value)
            .unwrap_or(other)
    }

    /// The value holding `slot`: `None` for the last slot (`other`), and for
    /// a slot not yet claimed.
    pub(super) fn value(&self, slot: usize) -> Option<&T> {
        if slot + 1 == N {
            None
        } else {
            self.0[slot].get()
        }
    }
}

/// A value's slot in a fixed set whose last entry (`other`) takes the rest.
pub(super) fn position(set: &[&str], value: &str) -> usize {
    set.iter()
        .position(|known| *known == value)
        .unwrap_or(set.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_full_table_counts_further_values_as_other() {
        let table: Claimed<String, 4> = Claimed::new();
        let slots: Vec<usize> = ["a", "b", "c", "d", "a", "e"]
            .iter()
            .map(|value| table.index(*value))
            .collect();
        assert_eq!(slots, [0, 1, 2, 3, 0, 3]);
        assert_eq!(table.value(2).map(String::as_str), Some("c"));
        assert_eq!(table.value(3), None, "the last slot is `other`");
    }

    #[test]
    fn threads_claiming_the_same_values_share_their_slots() {
        let table: Claimed<i64, 8> = Claimed::new();
        let slots: BTreeSet<usize> = std::thread::scope(|scope| {
            let claims: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| [table.index(&-32001), table.index(&-32002)]))
                .collect();
            claims
                .into_iter()
                .flat_map(|claim| claim.join().unwrap_or([usize::MAX; 2]))
                .collect()
        });
        assert_eq!(slots, BTreeSet::from([0, 1]));
        assert!(table.value(2).is_none(), "no third slot was taken");
    }

    #[test]
    fn a_value_outside_a_fixed_set_takes_its_last_entry() {
        let set = ["delivered", "failed", "other"];
        assert_eq!(position(&set, "failed"), 1);
        assert_eq!(position(&set, "anything else"), 2);
    }

    #[test]
    fn only_counted_values_are_listed() {
        let counts: Counts<3> = Counts::new();
        counts.add(2, 5);
        counts.add(2, 1);
        assert_eq!(counts.counted().collect::<Vec<_>>(), [(2, 6)]);
    }
}
