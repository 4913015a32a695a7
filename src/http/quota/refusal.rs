//! Why a request was refused for its rate, and how it is answered: the
//! JSON-RPC error every limit of the service uses (-32029 with
//! `data: {limit, max, retryAfterSeconds}`, as the open streams' bounds
//! answer) and the wait `Retry-After` carries, both from the same figure.

use crate::a2a::RpcError;
use std::time::Duration;

/// A quota a request met, with the wait until it would pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuotaRefused {
    #[error(
        "you sent more than {per_sec} requests a second (at most {burst} at once), the most a caller may (server.quota.caller_per_sec)"
    )]
    Caller {
        per_sec: u32,
        burst: u32,
        wait: Duration,
    },
    #[error(
        "your tenant sent more than {per_sec} requests a second (at most {burst} at once), the most a tenant may (server.quota.tenant_per_sec)"
    )]
    Tenant {
        per_sec: u32,
        burst: u32,
        wait: Duration,
    },
    #[error(
        "the instance was sent more than {per_sec} requests a second (at most {burst} at once), its most without authentication (server.quota.local_per_sec)"
    )]
    Instance {
        per_sec: u32,
        burst: u32,
        wait: Duration,
    },
    #[error(
        "the instance is keeping the request rates of {max_keys} callers or tenants, its most (server.quota.max_keys)"
    )]
    Full { max_keys: usize, wait: Duration },
}

impl QuotaRefused {
    /// The bound's label on `a2a.quota.refusals`.
    pub fn label(&self) -> &'static str {
        match self {
            QuotaRefused::Caller { .. } => "caller",
            QuotaRefused::Tenant { .. } => "tenant",
            QuotaRefused::Instance { .. } => "instance",
            QuotaRefused::Full { .. } => "max_keys",
        }
    }

    /// The setting that sets the bound, and the bound.
    fn setting(&self) -> (&'static str, u64) {
        match self {
            QuotaRefused::Caller { per_sec, .. } => {
                ("server.quota.caller_per_sec", u64::from(*per_sec))
            }
            QuotaRefused::Tenant { per_sec, .. } => {
                ("server.quota.tenant_per_sec", u64::from(*per_sec))
            }
            QuotaRefused::Instance { per_sec, .. } => {
                ("server.quota.local_per_sec", u64::from(*per_sec))
            }
            QuotaRefused::Full { max_keys, .. } => (
                "server.quota.max_keys",
                u64::try_from(*max_keys).unwrap_or(u64::MAX),
            ),
        }
    }

    /// Whole seconds until a retry would pass: rounded up, at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        let (QuotaRefused::Caller { wait, .. }
        | QuotaRefused::Tenant { wait, .. }
        | QuotaRefused::Instance { wait, .. }
        | QuotaRefused::Full { wait, .. }) = self;
        let whole = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        whole.max(1)
    }

    /// Answered with 503 rather than 429: the instance's table is full,
    /// which is no fault of this caller's rate.
    pub fn is_capacity(&self) -> bool {
        matches!(self, QuotaRefused::Full { .. })
    }

    /// The JSON-RPC error: -32029, the bound in words and the wait; in
    /// `data` the setting, its value and the wait in seconds.
    pub fn rpc_error(&self) -> RpcError {
        let (setting, max) = self.setting();
        let retry_after = self.retry_after_secs();
        RpcError::new(
            crate::rpc::LIMIT_REACHED,
            format!("{self}; retry after {retry_after} s"),
        )
        .with_data(serde_json::json!({
            "limit": setting,
            "max": max,
            "retryAfterSeconds": retry_after,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_whole_seconds_rounded_up_and_at_least_one() {
        let caller = |wait| QuotaRefused::Caller {
            per_sec: 2,
            burst: 20,
            wait,
        };
        assert_eq!(caller(Duration::from_millis(1)).retry_after_secs(), 1);
        assert_eq!(caller(Duration::ZERO).retry_after_secs(), 1);
        assert_eq!(caller(Duration::from_millis(2_001)).retry_after_secs(), 3);
        assert_eq!(caller(Duration::from_secs(2)).retry_after_secs(), 2);
    }

    #[test]
    fn the_error_names_the_setting_its_value_and_the_wait() {
        let error = QuotaRefused::Tenant {
            per_sec: 200,
            burst: 1000,
            wait: Duration::from_millis(1_500),
        }
        .rpc_error();
        assert_eq!(error.code, crate::rpc::LIMIT_REACHED);
        assert!(error.message.contains("server.quota.tenant_per_sec"));
        assert!(
            error.message.ends_with("retry after 2 s"),
            "{}",
            error.message
        );
        let data = error.data.expect("data");
        assert_eq!(data["limit"], "server.quota.tenant_per_sec");
        assert_eq!(data["max"], 200);
        assert_eq!(data["retryAfterSeconds"], 2);
    }
}
