//! The audit room's settings (`audit.*`): how many messages the outbox
//! holds, how security events are aggregated, how the worker retries, how
//! many data accesses one request records.
//! The binding itself is `VCAP_SERVICES.auditlog` (binding.rs), never a
//! setting.

use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AuditSettings {
    /// Messages the outbox holds at most (queued and kept aside together);
    /// a message past it is dropped, logged (throttled) and counted in
    /// `a2a.audit.messages{outcome="dropped"}`.
    pub max_queued: u64,
    /// One security event per reason and client address in this window;
    /// the refusals held back are counted in the next one.
    pub security_event_window_secs: u64,
    /// Reason-and-address pairs remembered in one window; past it, new
    /// addresses share one pair per reason (address `*`).
    pub max_security_event_keys: usize,
    /// The longest wait between two attempts of one message.
    pub retry_max_secs: u64,
    /// How often the worker looks for due messages when idle.
    pub poll_interval_ms: u64,
    /// Data accesses one request records at most (one per business partner
    /// and kind of data read); past it a read is not recorded but logged
    /// as an error and counted `dropped`.
    pub max_data_accesses_per_request: usize,
}

impl Default for AuditSettings {
    fn default() -> Self {
        AuditSettings {
            max_queued: 10_000,
            security_event_window_secs: 60,
            max_security_event_keys: 1_000,
            retry_max_secs: 300,
            poll_interval_ms: 1_000,
            max_data_accesses_per_request: 500,
        }
    }
}

impl AuditSettings {
    pub fn window(&self) -> Duration {
        Duration::from_secs(self.security_event_window_secs.max(1))
    }

    pub fn retry_max(&self) -> Duration {
        Duration::from_secs(self.retry_max_secs.max(1))
    }

    pub fn poll_interval(&self) -> Duration {
        Duration::from_millis(self.poll_interval_ms.clamp(10, 60_000))
    }
}
