//! A rate limit for a log line that a misbehaving caller can repeat at
//! will (a client with a bad token at 10 requests a second): at most one
//! line per key (a reason from a small fixed set) per interval; the lines
//! held back in between are counted and the next line that is written
//! says how many. The clock is the caller's (`now`), so tests drive it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One key's state: when its last line was written, and how many were
/// held back since.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: &'static str,
    written_at: Instant,
    held_back: u64,
}

/// At most one line per key per `interval`.
#[derive(Debug)]
pub struct Throttle {
    interval: Duration,
    /// A handful of keys (reasons): a list, searched in order.
    slots: Mutex<Vec<Slot>>,
}

impl Throttle {
    pub const fn new(interval: Duration) -> Self {
        Throttle {
            interval,
            slots: Mutex::new(Vec::new()),
        }
    }

    /// Whether a line for `key` may be written at `now`: `Some(n)` with the
    /// lines held back since the last one written (0 for the first), else
    /// `None` (the line is counted as held back).
    pub fn admit(&self, key: &'static str, now: Instant) -> Option<u64> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        match slots.iter_mut().find(|slot| slot.key == key) {
            None => {
                slots.push(Slot {
                    key,
                    written_at: now,
                    held_back: 0,
                });
                Some(0)
            }
            Some(slot) if now.saturating_duration_since(slot.written_at) >= self.interval => {
                let held_back = slot.held_back;
                slot.written_at = now;
                slot.held_back = 0;
                Some(held_back)
            }
            Some(slot) => {
                slot.held_back += 1;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_key_per_interval_and_the_next_says_how_many_were_held_back() {
        let throttle = Throttle::new(Duration::from_secs(10));
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        assert_eq!(throttle.admit("expired", at(0)), Some(0), "the first line");
        // A client at 10 requests a second: held back for the interval.
        for ms in (100..10_000).step_by(100) {
            assert_eq!(throttle.admit("expired", at(ms)), None, "{ms} ms");
        }
        assert_eq!(
            throttle.admit("bad_signature", at(500)),
            Some(0),
            "keys apart"
        );
        assert_eq!(
            throttle.admit("expired", at(10_000)),
            Some(99),
            "the next line counts the held-back ones"
        );
        assert_eq!(throttle.admit("expired", at(10_001)), None);
        assert_eq!(throttle.admit("expired", at(30_000)), Some(1));
        assert_eq!(throttle.admit("expired", at(30_001)), None);
    }

    #[test]
    fn a_clock_that_goes_back_holds_the_line_back() {
        let throttle = Throttle::new(Duration::from_secs(1));
        let now = Instant::now() + Duration::from_secs(5);
        assert_eq!(throttle.admit("malformed", now), Some(0));
        assert_eq!(
            throttle.admit("malformed", now - Duration::from_secs(3)),
            None
        );
    }
}
