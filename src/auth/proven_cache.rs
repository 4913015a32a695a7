//! A bounded cache in two tiers, so that what anyone can make us fetch
//! never displaces what real callers use. A value fetched for a token that
//! has not verified (yet) waits on *probation*: a small tier, its oldest
//! entry evicted first. A value that verified a token is *proven*: it moves
//! to the large tier, evicted by least recent successful use. A flood of
//! forged tokens churns probation only; a legitimate caller's keys stay.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::Instant;

struct Proven<V> {
    value: V,
    last_used: Instant,
}

struct OnProbation<V> {
    value: V,
    /// Insertion order: the smallest is evicted first.
    since: u64,
}

pub struct ProvenCache<K, V> {
    proven: HashMap<K, Proven<V>>,
    probation: HashMap<K, OnProbation<V>>,
    proven_max: usize,
    probation_max: usize,
    inserted: u64,
}

impl<K: Hash + Eq + Clone, V> ProvenCache<K, V> {
    pub fn new(proven_max: usize, probation_max: usize) -> Self {
        ProvenCache {
            proven: HashMap::new(),
            probation: HashMap::new(),
            proven_max: proven_max.max(1),
            probation_max: probation_max.max(1),
            inserted: 0,
        }
    }

    /// The value for `key`, and whether it is proven.
    pub fn get_mut(&mut self, key: &K) -> Option<(&mut V, bool)> {
        if let Some(entry) = self.proven.get_mut(key) {
            return Some((&mut entry.value, true));
        }
        self.probation
            .get_mut(key)
            .map(|entry| (&mut entry.value, false))
    }

    /// Store a freshly fetched value: a proven key keeps its place (and
    /// its last use); any other goes on probation, evicting the oldest
    /// there when it is full — never a proven entry.
    pub fn insert(&mut self, key: K, value: V) {
        if let Some(entry) = self.proven.get_mut(&key) {
            entry.value = value;
            return;
        }
        if self.probation.len() >= self.probation_max && !self.probation.contains_key(&key) {
            let oldest = self
                .probation
                .iter()
                .min_by_key(|(_, entry)| entry.since)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                self.probation.remove(&oldest);
            }
        }
        self.inserted += 1;
        self.probation.insert(
            key,
            OnProbation {
                value,
                since: self.inserted,
            },
        );
    }

    /// `key`'s value verified a token at `now`: it is proven (moved from
    /// probation, or stored as `fallback()` when it was evicted meanwhile
    /// and there is one), and its last use is `now`. A full proven tier
    /// gives up its least recently used entry.
    pub fn prove(&mut self, key: &K, now: Instant, fallback: impl FnOnce() -> Option<V>) {
        if let Some(entry) = self.proven.get_mut(key) {
            entry.last_used = entry.last_used.max(now);
            return;
        }
        let Some(value) = self
            .probation
            .remove(key)
            .map(|entry| entry.value)
            .or_else(fallback)
        else {
            return;
        };
        if self.proven.len() >= self.proven_max {
            let least_used = self
                .proven
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(key, _)| key.clone());
            if let Some(least_used) = least_used {
                self.proven.remove(&least_used);
            }
        }
        self.proven.insert(
            key.clone(),
            Proven {
                value,
                last_used: now,
            },
        );
    }

    /// How many entries each tier holds: (proven, on probation).
    #[cfg(test)]
    pub fn sizes(&self) -> (usize, usize) {
        (self.proven.len(), self.probation.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_flood_on_probation_never_evicts_a_proven_entry() {
        let start = Instant::now();
        let mut cache = ProvenCache::new(2, 3);
        let user = "user".to_string();
        cache.insert(user.clone(), 1);
        cache.prove(&user, start, || None);
        for forged in 0..100 {
            cache.insert(format!("forged-{forged}"), forged);
        }
        assert_eq!(cache.sizes(), (1, 3));
        assert_eq!(
            cache.get_mut(&user).map(|(v, proven)| (*v, proven)),
            Some((1, true))
        );
        // The newest three forged entries are the ones left on probation.
        assert!(
            cache
                .get_mut(&"forged-99".to_string())
                .is_some_and(|(_, proven)| !proven)
        );
        assert!(cache.get_mut(&"forged-96".to_string()).is_none());
    }

    #[test]
    fn proven_entries_are_evicted_by_least_recent_use() {
        let start = Instant::now();
        let later = |secs| start + Duration::from_secs(secs);
        let mut cache = ProvenCache::new(2, 2);
        cache.insert("a", 1);
        cache.prove(&"a", later(1), || None);
        cache.insert("b", 2);
        cache.prove(&"b", later(2), || None);
        // `a` was fetched first but used last: `b` goes.
        cache.prove(&"a", later(3), || None);
        cache.insert("c", 3);
        cache.prove(&"c", later(4), || None);
        assert!(cache.get_mut(&"a").is_some());
        assert!(cache.get_mut(&"b").is_none());
        assert!(cache.get_mut(&"c").is_some());
        // A refetch of a proven key keeps it proven, with the new value.
        cache.insert("a", 10);
        assert_eq!(
            cache.get_mut(&"a").map(|(v, proven)| (*v, proven)),
            Some((10, true))
        );
        assert_eq!(cache.sizes(), (2, 0));
    }

    #[test]
    fn a_value_evicted_from_probation_before_it_verified_is_stored_from_the_fallback() {
        let mut cache = ProvenCache::new(2, 1);
        cache.insert("new-consumer", 7);
        cache.insert("forged", 0);
        cache.prove(&"new-consumer", Instant::now(), || Some(7));
        assert_eq!(
            cache
                .get_mut(&"new-consumer")
                .map(|(v, proven)| (*v, proven)),
            Some((7, true))
        );
    }
}
