//! Key requests the identity service refused (its JWKS endpoint answering
//! 400: this token must not be accepted by this client), remembered for a
//! minute so that the same request is refused (401) without asking again
//! (`ias-tokens.md` §6: a 400 may be remembered ≤ 60 s). Bounded: when
//! full, the expired and then the oldest are forgotten first.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

/// How long a refusal is remembered.
pub const REMEMBERED_FOR: Duration = Duration::from_secs(60);

pub struct Refusals<K> {
    refused_at: HashMap<K, Instant>,
    max: usize,
}

impl<K: Hash + Eq + Clone> Refusals<K> {
    pub fn new(max: usize) -> Self {
        Refusals {
            refused_at: HashMap::new(),
            max: max.max(1),
        }
    }

    /// `key` was refused less than [`REMEMBERED_FOR`] before `now`.
    pub fn refused(&self, key: &K, now: Instant) -> bool {
        self.refused_at
            .get(key)
            .is_some_and(|at| now.saturating_duration_since(*at) < REMEMBERED_FOR)
    }

    pub fn remember(&mut self, key: K, now: Instant) {
        if self.refused_at.len() >= self.max && !self.refused_at.contains_key(&key) {
            self.refused_at
                .retain(|_, at| now.saturating_duration_since(*at) < REMEMBERED_FOR);
            if self.refused_at.len() >= self.max {
                let oldest = self
                    .refused_at
                    .iter()
                    .min_by_key(|(_, at)| **at)
                    .map(|(key, _)| key.clone());
                if let Some(oldest) = oldest {
                    self.refused_at.remove(&oldest);
                }
            }
        }
        self.refused_at.insert(key, now);
    }

    #[cfg(test)]
    pub fn count(&self) -> usize {
        self.refused_at.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_remembered_for_a_minute_within_the_bound() {
        let start = Instant::now();
        let mut refusals = Refusals::new(2);
        refusals.remember("a", start);
        assert!(refusals.refused(&"a", start + Duration::from_secs(59)));
        assert!(!refusals.refused(&"a", start + REMEMBERED_FOR));
        refusals.remember("b", start + Duration::from_secs(1));
        refusals.remember("c", start + Duration::from_secs(2));
        assert_eq!(refusals.count(), 2);
        assert!(
            !refusals.refused(&"a", start + Duration::from_secs(2)),
            "oldest forgotten"
        );
        assert!(refusals.refused(&"c", start + Duration::from_secs(2)));
    }
}
