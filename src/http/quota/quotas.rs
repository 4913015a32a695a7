//! The request-rate quotas of one instance: a bucket per caller and per
//! tenant with authentication on, one bucket for the whole instance with
//! it off. Checked once per JSON-RPC POST, after authentication and before
//! the body is read.
//!
//! A caller and its tenant are checked together under one short lock, and
//! a request either takes from both buckets or from neither: a caller
//! refused for its own rate does not spend its tenant's, nor a tenant's
//! refusal the caller's. The instance bucket is one atomic, no lock.
//!
//! The tables are bounded. Only verified callers reach them, yet a key
//! whose bucket is full again (idle) is dropped every
//! [`SWEEP_EVERY`]: it answers as no state would. With `max_keys` keys in
//! a table a new key first sweeps the idle ones (at most once a second);
//! if every key is still busy the new caller is refused (503) until the
//! first bucket refills, rather than evicting a busy key, which would hand
//! its owner a fresh burst (a flood of identities could reset anyone's
//! quota that way).

use super::gcra::Gcra;
use super::refusal::QuotaRefused;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How often idle keys are dropped (on the next check after it).
const SWEEP_EVERY: Duration = Duration::from_secs(10);

/// The least time between two sweeps a full table asks for.
const FULL_SWEEP_GAP: Duration = Duration::from_secs(1);

/// Whose request it is.
#[derive(Debug, Clone, Copy)]
pub enum Requester<'a> {
    /// Authentication off: every request shares the instance's bucket.
    Local,
    /// A verified caller (the owner key: `user:…`, `client:…`) and its
    /// tenant, when the token names one.
    Caller {
        caller: &'a str,
        tenant: Option<&'a str>,
    },
}

/// The rates (each `None`: no quota) and the bound on keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaLimits {
    pub caller: Option<Gcra>,
    pub tenant: Option<Gcra>,
    pub local: Option<Gcra>,
    pub max_keys: usize,
}

/// The buckets. Shared by every worker.
#[derive(Debug)]
pub struct Quotas {
    limits: QuotaLimits,
    /// The zero of the buckets' clock (nanoseconds since).
    epoch: Instant,
    local_tat: AtomicU64,
    tables: Mutex<Tables>,
}

#[derive(Debug, Default)]
struct Tables {
    callers: HashMap<String, u64>,
    tenants: HashMap<String, u64>,
    last_sweep: u64,
    /// The earliest TAT a sweep kept: when a full table frees a key.
    earliest_idle: u64,
}

/// A table's check: the TAT to store (`None`: no quota or no key), or the
/// nanoseconds to wait.
type Checked = Result<Option<u64>, u64>;

impl Quotas {
    pub fn new(limits: QuotaLimits) -> Quotas {
        Quotas {
            limits,
            epoch: Instant::now(),
            local_tat: AtomicU64::new(0),
            tables: Mutex::default(),
        }
    }

    /// Admit one request of `requester` at `now`, or say which quota it
    /// met and for how long.
    pub fn admit(&self, requester: Requester<'_>, now: Instant) -> Result<(), QuotaRefused> {
        let now =
            u64::try_from(now.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX);
        match requester {
            Requester::Local => self.admit_local(now),
            Requester::Caller { caller, tenant } => self.admit_caller(caller, tenant, now),
        }
    }

    fn admit_local(&self, now: u64) -> Result<(), QuotaRefused> {
        let Some(gcra) = self.limits.local else {
            return Ok(());
        };
        let mut tat = self.local_tat.load(Ordering::Relaxed);
        loop {
            let next = gcra
                .admit(tat, now)
                .map_err(|wait| QuotaRefused::Instance {
                    per_sec: gcra.per_sec(),
                    burst: gcra.burst(),
                    wait: Duration::from_nanos(wait),
                })?;
            match self.local_tat.compare_exchange_weak(
                tat,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(()),
                Err(current) => tat = current,
            }
        }
    }

    fn admit_caller(
        &self,
        caller: &str,
        tenant: Option<&str>,
        now: u64,
    ) -> Result<(), QuotaRefused> {
        let limits = self.limits;
        let tenant = tenant.filter(|_| limits.tenant.is_some());
        if limits.caller.is_none() && tenant.is_none() {
            return Ok(());
        }
        let mut tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        let full = |tables: &Tables| {
            (limits.caller.is_some()
                && tables.callers.len() >= limits.max_keys
                && !tables.callers.contains_key(caller))
                || tenant.is_some_and(|tenant| {
                    tables.tenants.len() >= limits.max_keys && !tables.tenants.contains_key(tenant)
                })
        };
        let since_sweep = now.saturating_sub(tables.last_sweep);
        if since_sweep >= nanos(SWEEP_EVERY)
            || (since_sweep >= nanos(FULL_SWEEP_GAP) && full(&tables))
        {
            tables.sweep(now);
        }
        if full(&tables) {
            return Err(QuotaRefused::Full {
                max_keys: limits.max_keys,
                wait: Duration::from_nanos(tables.earliest_idle.saturating_sub(now)),
            });
        }
        let caller_checked = check(limits.caller, &tables.callers, Some(caller), now);
        let tenant_checked = check(limits.tenant, &tables.tenants, tenant, now);
        let refused = |gcra: Option<Gcra>, wait: u64, tenant: bool| {
            let (per_sec, burst) = gcra.map_or((0, 0), |gcra| (gcra.per_sec(), gcra.burst()));
            let wait = Duration::from_nanos(wait);
            if tenant {
                QuotaRefused::Tenant {
                    per_sec,
                    burst,
                    wait,
                }
            } else {
                QuotaRefused::Caller {
                    per_sec,
                    burst,
                    wait,
                }
            }
        };
        match (caller_checked, tenant_checked) {
            (Ok(caller_tat), Ok(tenant_tat)) => {
                store(&mut tables.callers, caller, caller_tat);
                if let Some(tenant) = tenant {
                    store(&mut tables.tenants, tenant, tenant_tat);
                }
                Ok(())
            }
            // Both met: the longer wait is the one that counts.
            (Err(caller_wait), Err(tenant_wait)) if tenant_wait > caller_wait => {
                Err(refused(limits.tenant, tenant_wait, true))
            }
            (Err(wait), _) => Err(refused(limits.caller, wait, false)),
            (_, Err(wait)) => Err(refused(limits.tenant, wait, true)),
        }
    }

    /// Keys in the caller and tenant tables.
    #[cfg(test)]
    fn keys(&self) -> (usize, usize) {
        let tables = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
        (tables.callers.len(), tables.tenants.len())
    }
}

impl Tables {
    /// Drop every idle key (a full bucket), and note when the first busy
    /// one will be idle.
    fn sweep(&mut self, now: u64) {
        let mut earliest = u64::MAX;
        for table in [&mut self.callers, &mut self.tenants] {
            table.retain(|_, tat| {
                let busy = *tat > now;
                if busy {
                    earliest = earliest.min(*tat);
                }
                busy
            });
        }
        self.last_sweep = now;
        self.earliest_idle = if earliest == u64::MAX { now } else { earliest };
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// `key`'s bucket in `table` checked at `now`: `Ok(None)` with no quota or
/// no key, else the new TAT, or the wait.
fn check(gcra: Option<Gcra>, table: &HashMap<String, u64>, key: Option<&str>, now: u64) -> Checked {
    let (Some(gcra), Some(key)) = (gcra, key) else {
        return Ok(None);
    };
    gcra.admit(table.get(key).copied().unwrap_or(0), now)
        .map(Some)
}

/// Keep `tat` as `key`'s (the key's string is made only for a new key).
fn store(table: &mut HashMap<String, u64>, key: &str, tat: Option<u64>) {
    let Some(tat) = tat else { return };
    match table.get_mut(key) {
        Some(held) => *held = tat,
        None => {
            table.insert(key.to_string(), tat);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quotas(max_keys: usize) -> Quotas {
        Quotas::new(QuotaLimits {
            caller: Gcra::new(1, 2),
            tenant: Gcra::new(1, 3),
            local: Gcra::new(1, 2),
            max_keys,
        })
    }

    fn caller<'a>(caller: &'a str, tenant: &'a str) -> Requester<'a> {
        Requester::Caller {
            caller,
            tenant: Some(tenant),
        }
    }

    #[test]
    fn a_caller_past_its_burst_is_refused_and_spends_none_of_its_tenants_quota() {
        let quotas = quotas(10);
        let now = Instant::now();
        quotas.admit(caller("user:a", "t"), now).expect("1st");
        quotas.admit(caller("user:a", "t"), now).expect("2nd");
        let refused = quotas.admit(caller("user:a", "t"), now).unwrap_err();
        assert!(
            matches!(
                refused,
                QuotaRefused::Caller {
                    per_sec: 1,
                    burst: 2,
                    ..
                }
            ),
            "{refused:?}"
        );
        assert_eq!(refused.retry_after_secs(), 1);
        // The tenant (burst 3) has one left for another caller: the refusal took none.
        quotas.admit(caller("user:b", "t"), now).expect("b's first");
        let refused = quotas.admit(caller("user:c", "t"), now).unwrap_err();
        assert!(
            matches!(refused, QuotaRefused::Tenant { .. }),
            "{refused:?}"
        );
        // ... and the tenant's refusal took nothing from c.
        quotas
            .admit(caller("user:c", "t2"), now)
            .expect("c in another tenant");
        quotas
            .admit(caller("user:c", "t2"), now)
            .expect("c's second: the refused one was not counted");
    }

    #[test]
    fn without_authentication_every_request_shares_one_bucket() {
        let quotas = quotas(10);
        let now = Instant::now();
        quotas.admit(Requester::Local, now).expect("1st");
        quotas.admit(Requester::Local, now).expect("2nd");
        assert!(matches!(
            quotas.admit(Requester::Local, now),
            Err(QuotaRefused::Instance { .. })
        ));
        quotas
            .admit(Requester::Local, now + Duration::from_secs(1))
            .expect("a second later");
    }

    #[test]
    fn idle_keys_are_swept_and_a_full_table_refuses_new_callers_until_one_is_idle() {
        let quotas = quotas(2);
        let start = Instant::now();
        quotas.admit(caller("user:a", "t"), start).expect("a");
        quotas.admit(caller("user:b", "t"), start).expect("b");
        let refused = quotas.admit(caller("user:c", "t"), start).unwrap_err();
        assert!(
            matches!(refused, QuotaRefused::Full { max_keys: 2, .. }),
            "{refused:?}"
        );
        assert!(refused.is_capacity());
        // Both buckets are full again after a second; a new key sweeps them.
        let later = start + Duration::from_secs(2);
        quotas
            .admit(caller("user:c", "t"), later)
            .expect("c, after the sweep");
        assert_eq!(quotas.keys(), (1, 1));
        // Idle keys go with the periodic sweep too.
        quotas
            .admit(caller("user:d", "t"), later + SWEEP_EVERY * 2)
            .expect("d");
        assert_eq!(quotas.keys(), (1, 1), "c was swept");
    }

    #[test]
    fn a_caller_without_tenant_meets_only_its_own_quota() {
        let quotas = quotas(10);
        let now = Instant::now();
        for _ in 0..2 {
            quotas
                .admit(
                    Requester::Caller {
                        caller: "client:x",
                        tenant: None,
                    },
                    now,
                )
                .expect("within the burst");
        }
        assert_eq!(quotas.keys(), (1, 0));
    }
}
