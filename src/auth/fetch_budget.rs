//! How often an unproven key request may reach the identity service: a
//! token bucket. Every fetch for keys that have not yet verified a token
//! (a new `azp`, tenant or issuer; a forged token's made-up values) takes
//! one; a spent budget answers 503 until it refills. Keys that verified a
//! token are refetched (expiry, rotation) outside it, so a flood of forged
//! tokens never keeps a real caller's keys from being renewed. IAS allows
//! 1,000 requests a minute per tenant on its `/oauth2/*` endpoints
//! (`ias-tokens.md` §6); the default budget spends a few percent of that.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// New key requests at once (a cold start with every consumer calling).
pub const BURST: u32 = 30;
/// Then one more every this long: 30 a minute.
pub const REFILL_EVERY: Duration = Duration::from_secs(2);

struct Bucket {
    left: u32,
    /// When `left` was last refilled (whole intervals only).
    refilled_at: Instant,
}

pub struct FetchBudget {
    burst: u32,
    refill_every: Duration,
    bucket: Mutex<Bucket>,
}

impl FetchBudget {
    pub fn new(burst: u32, refill_every: Duration, now: Instant) -> Self {
        FetchBudget {
            burst,
            refill_every,
            bucket: Mutex::new(Bucket {
                left: burst,
                refilled_at: now,
            }),
        }
    }

    /// Take one fetch from the budget at `now`; `false` when it is spent.
    pub fn take(&self, now: Instant) -> bool {
        let mut bucket = self
            .bucket
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let elapsed = now.saturating_duration_since(bucket.refilled_at);
        let intervals = elapsed.as_nanos() / self.refill_every.as_nanos().max(1);
        let earned = u32::try_from(intervals).unwrap_or(u32::MAX);
        if earned > 0 {
            bucket.left = bucket.left.saturating_add(earned).min(self.burst);
            bucket.refilled_at = if bucket.left == self.burst {
                now
            } else {
                bucket.refilled_at + self.refill_every * earned
            };
        }
        if bucket.left == 0 {
            return false;
        }
        bucket.left -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_one_per_interval() {
        let start = Instant::now();
        let budget = FetchBudget::new(3, Duration::from_secs(2), start);
        assert_eq!((0..10).filter(|_| budget.take(start)).count(), 3);
        assert!(!budget.take(start + Duration::from_millis(1999)));
        assert!(budget.take(start + Duration::from_secs(2)));
        assert!(!budget.take(start + Duration::from_secs(3)));
        // A long quiet spell refills to the burst, not beyond.
        let later = start + Duration::from_secs(3600);
        assert_eq!((0..10).filter(|_| budget.take(later)).count(), 3);
    }
}
