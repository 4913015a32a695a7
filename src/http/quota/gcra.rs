//! One rate with a burst as GCRA (the generic cell rate algorithm, a token
//! bucket kept as one number): a bucket's state is its *theoretical
//! arrival time* (TAT), the moment it would be full again, in nanoseconds
//! on the limiter's own clock. A request at `now` is admitted while the
//! TAT it leaves behind is at most one window (`burst` requests' worth of
//! time) ahead of `now`; else it waits until it would be. A TAT at or
//! before `now` is a full bucket, the same as no state at all, so idle
//! keys can be dropped without changing any answer.

/// Nanoseconds in a second.
const NANOS: u64 = 1_000_000_000;

/// `per_sec` requests a second, `burst` at once after a quiet spell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gcra {
    per_sec: u32,
    burst: u32,
    /// The time one request takes from the bucket (1/rate), ≥ 1 ns.
    interval: u64,
    /// How far ahead of now a TAT may run: `burst` intervals.
    window: u64,
}

impl Gcra {
    /// The rate, or `None` (no quota) for a rate of 0. A burst under 1 is 1.
    pub fn new(per_sec: u32, burst: u32) -> Option<Gcra> {
        if per_sec == 0 {
            return None;
        }
        let burst = burst.max(1);
        let interval = (NANOS / u64::from(per_sec)).max(1);
        Some(Gcra {
            per_sec,
            burst,
            interval,
            window: interval.saturating_mul(u64::from(burst)),
        })
    }

    pub fn per_sec(&self) -> u32 {
        self.per_sec
    }

    pub fn burst(&self) -> u32 {
        self.burst
    }

    /// A request at `now` against a bucket at `tat` (0: never used): the
    /// bucket's new TAT if admitted, else how many nanoseconds until it
    /// would be.
    pub fn admit(&self, tat: u64, now: u64) -> Result<u64, u64> {
        let next = tat.max(now).saturating_add(self.interval);
        let ahead = next - now;
        if ahead <= self.window {
            Ok(next)
        } else {
            Err(ahead - self.window)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_admits_its_burst_then_one_request_per_interval() {
        let gcra = Gcra::new(2, 3).expect("a rate");
        let mut tat = 0;
        let now = 10 * NANOS;
        for _ in 0..3 {
            tat = gcra.admit(tat, now).expect("within the burst");
        }
        assert_eq!(gcra.admit(tat, now), Err(NANOS / 2));
        // Half a second later one request's worth has come back.
        let later = now + NANOS / 2;
        tat = gcra.admit(tat, later).expect("refilled by one");
        assert_eq!(gcra.admit(tat, later), Err(NANOS / 2));
        // After the whole window the bucket is full: its TAT is past.
        assert!(tat <= later + 3 * NANOS / 2);
    }

    #[test]
    fn a_rate_of_zero_is_no_quota_and_a_burst_of_zero_is_one() {
        assert_eq!(Gcra::new(0, 10), None);
        let gcra = Gcra::new(1, 0).expect("a rate");
        let tat = gcra.admit(0, NANOS).expect("the first");
        assert_eq!(gcra.admit(tat, NANOS), Err(NANOS));
    }
}
