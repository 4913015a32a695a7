//! The quota settings (`server.quota.*`): requests a second and the burst
//! per caller, per tenant and (authentication off) for the instance, and
//! how many callers and tenants the instance keeps rates of. The defaults
//! and why are in docs/api.md ("Request rates").

use super::gcra::Gcra;
use super::quotas::{QuotaLimits, Quotas};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuotaSettings {
    /// Requests a second one caller (a person, or a technical client by
    /// its client id) may send on average; 0: no quota.
    pub caller_per_sec: u32,
    /// Requests one caller may send at once after a quiet spell.
    pub caller_burst: u32,
    /// Requests a second all callers of one tenant (`app_tid`, XSUAA
    /// `zid`) may send together; 0: no quota.
    pub tenant_per_sec: u32,
    pub tenant_burst: u32,
    /// With authentication off: requests a second for the whole instance;
    /// 0: no quota.
    pub local_per_sec: u32,
    pub local_burst: u32,
    /// Callers, and tenants, whose rates the instance keeps at most (each);
    /// a new one past it while every bucket is busy gets 503.
    pub max_keys: usize,
}

impl Default for QuotaSettings {
    fn default() -> Self {
        QuotaSettings {
            caller_per_sec: 10,
            caller_burst: 100,
            tenant_per_sec: 200,
            tenant_burst: 1_000,
            local_per_sec: 100_000,
            local_burst: 100_000,
            max_keys: 100_000,
        }
    }
}

impl QuotaSettings {
    /// Empty buckets of these rates, for one instance.
    pub fn quotas(&self) -> Quotas {
        Quotas::new(self.limits())
    }

    /// The limits the buckets enforce (a rate of 0: none; at least one key).
    fn limits(&self) -> QuotaLimits {
        QuotaLimits {
            caller: Gcra::new(self.caller_per_sec, self.caller_burst),
            tenant: Gcra::new(self.tenant_per_sec, self.tenant_burst),
            local: Gcra::new(self.local_per_sec, self.local_burst),
            max_keys: self.max_keys.max(1),
        }
    }
}
