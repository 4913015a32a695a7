//! How a flood of refused requests cannot flood the audit log: at most one
//! security event per reason and client address per window (a minute by
//! default); the refusals in between are counted and the next event of
//! that pair says how many it stands for. The pairs of one window are
//! bounded: past `max_keys`, a new address shares the pair `(reason, *)`,
//! so a caller who varies its address (or `X-Forwarded-For`) still writes
//! one event per reason per window. The clock is the caller's (`now`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The address of the shared pair once the window's pairs are used up.
pub const ANY_ADDRESS: &str = "*";

struct Pair {
    /// When its last event was written.
    written_at: Instant,
    /// Refusals since then, not yet in an event.
    held_back: u64,
}

pub struct SecurityGate {
    window: Duration,
    max_keys: usize,
    pairs: Mutex<HashMap<(&'static str, String), Pair>>,
}

/// An event to write: the address it is for and how many refusals it
/// stands for (this one and those held back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    pub address: String,
    pub refusals: u64,
}

impl SecurityGate {
    pub fn new(window: Duration, max_keys: usize) -> SecurityGate {
        SecurityGate {
            window,
            max_keys: max_keys.max(1),
            pairs: Mutex::new(HashMap::new()),
        }
    }

    /// The refusals held back in pairs whose window has passed, each as
    /// an event to write now (the pair starts a new window): a flood that
    /// stops is still reported whole. Called once a window.
    pub fn overdue(&self, now: Instant) -> Vec<(&'static str, Admitted)> {
        let mut pairs = self.pairs.lock().unwrap_or_else(|p| p.into_inner());
        let mut due = Vec::new();
        for ((reason, address), pair) in pairs.iter_mut() {
            if pair.held_back > 0 && now.duration_since(pair.written_at) >= self.window {
                due.push((
                    *reason,
                    Admitted {
                        address: address.clone(),
                        refusals: pair.held_back,
                    },
                ));
                pair.written_at = now;
                pair.held_back = 0;
            }
        }
        due
    }

    /// The window's length.
    pub fn window_length(&self) -> Duration {
        self.window
    }

    /// A refusal for `reason` from `address` at `now`: `Some` when an event
    /// is to be written, `None` when it is counted for the next one.
    pub fn admit(&self, reason: &'static str, address: &str, now: Instant) -> Option<Admitted> {
        let mut pairs = self.pairs.lock().unwrap_or_else(|p| p.into_inner());
        // Pairs whose window passed with nothing held back are forgotten.
        if pairs.len() >= self.max_keys {
            let window = self.window;
            pairs.retain(|_, pair| {
                pair.held_back > 0 || now.duration_since(pair.written_at) < window
            });
        }
        let mut key = (reason, address.to_string());
        if !pairs.contains_key(&key) && pairs.len() >= self.max_keys {
            key.1 = ANY_ADDRESS.to_string();
        }
        match pairs.get_mut(&key) {
            Some(pair) if now.duration_since(pair.written_at) < self.window => {
                pair.held_back += 1;
                None
            }
            Some(pair) => {
                let refusals = pair.held_back + 1;
                pair.written_at = now;
                pair.held_back = 0;
                Some(Admitted {
                    address: key.1,
                    refusals,
                })
            }
            None => {
                let address = key.1.clone();
                pairs.insert(
                    key,
                    Pair {
                        written_at: now,
                        held_back: 0,
                    },
                );
                Some(Admitted {
                    address,
                    refusals: 1,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_event_per_reason_and_address_per_window_with_the_count() {
        let gate = SecurityGate::new(Duration::from_secs(60), 2);
        let start = Instant::now();
        let first = gate.admit("invalid", "10.0.0.1", start).unwrap();
        assert_eq!(first.refusals, 1);
        for _ in 0..99 {
            assert!(gate.admit("invalid", "10.0.0.1", start).is_none());
        }
        assert!(
            gate.admit("missing", "10.0.0.1", start).is_some(),
            "another reason"
        );
        let later = start + Duration::from_secs(61);
        assert_eq!(
            gate.admit("invalid", "10.0.0.1", later).unwrap().refusals,
            100,
            "the held-back 99 and this one"
        );
        // Two pairs are the bound (the spent `missing` pair is forgotten):
        // a third address shares `*`.
        let own = gate.admit("invalid", "10.0.0.2", later).unwrap();
        assert_eq!(own.address, "10.0.0.2");
        let shared = gate.admit("invalid", "10.0.0.3", later).unwrap();
        assert_eq!(shared.address, ANY_ADDRESS);
        assert!(gate.admit("invalid", "10.0.0.4", later).is_none());
        // The one held back in `*` is reported once its window passes.
        assert!(gate.overdue(later).is_empty());
        let overdue = gate.overdue(later + Duration::from_secs(60));
        assert_eq!(
            overdue,
            [(
                "invalid",
                Admitted {
                    address: ANY_ADDRESS.into(),
                    refusals: 1
                }
            )]
        );
        assert!(gate.overdue(later + Duration::from_secs(120)).is_empty());
    }
}
