//! The push room's settings (`push.*`, `AGENT__PUSH__…`), and what they
//! mean at run time: the guard they describe, durations, the attempt bound.

use super::guard::{self, GuardSettings};
use crate::btp::DestinationSettings;
use crate::cloud_foundry::{TestsOnlyRefused, refuse_tests_only};
use serde::{Deserialize, Serialize};
use std::time::Duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct PushSettings {
    pub enabled: bool,
    /// Webhook host patterns (`*.domain` = any subdomain); comma-separated in the environment.
    pub allowed_hosts: Vec<String>,
    /// TESTING ONLY: plain http to loopback hosts. Refused on Cloud Foundry.
    pub allow_loopback_http: bool,
    /// TESTING ONLY: private, loopback and link-local targets. Refused on Cloud Foundry.
    pub allow_private_addresses: bool,
    pub max_attempts: u32,
    pub retry_base_ms: u64,
    pub timeout_ms: u64,
    /// A `working` notification this often while a task works (0 = none).
    pub heartbeat_ms: u64,
    /// Push configs one task may have (a set with a new id past it is
    /// refused; replacing a config by its id is not a new one). Bounds what
    /// one caller can make one state change send.
    pub max_configs_per_task: usize,
    /// Callback hosts that get Joule's format (envelope, correlation headers,
    /// Destination-service token); comma-separated in the environment.
    pub joule_hosts: Vec<String>,
    pub destination: DestinationSettings,
    /// The outbound action hook (approved actions handed to the customer's
    /// own process).
    pub action_hook: super::action_hook::ActionHookSettings,
}

impl Default for PushSettings {
    fn default() -> Self {
        PushSettings {
            enabled: true,
            allowed_hosts: vec!["*.sapdas.cloud.sap".into()],
            allow_loopback_http: false,
            allow_private_addresses: false,
            max_attempts: 5,
            retry_base_ms: 500,
            timeout_ms: 10_000,
            heartbeat_ms: 30_000,
            max_configs_per_task: 10,
            joule_hosts: vec!["*.sapdas.cloud.sap".into()],
            destination: DestinationSettings::default(),
            action_hook: Default::default(),
        }
    }
}

impl PushSettings {
    /// The webhook guard these settings describe.
    pub fn guard(&self) -> GuardSettings {
        GuardSettings {
            allowed_hosts: self.allowed_hosts.clone(),
            allow_loopback_http: self.allow_loopback_http,
            allow_private_addresses: self.allow_private_addresses,
        }
    }

    /// The TESTING-only allowances, refused on Cloud Foundry.
    pub fn refuse_test_targets(&self, on_cloud_foundry: bool) -> Result<(), TestsOnlyRefused> {
        refuse_tests_only(
            on_cloud_foundry,
            &[
                ("push.allow_loopback_http", self.allow_loopback_http),
                ("push.allow_private_addresses", self.allow_private_addresses),
            ],
        )
    }

    /// Tries per notification, the first included; at least one.
    pub fn attempts(&self) -> u32 {
        self.max_attempts.max(1)
    }

    /// The first retry comes after about this long, doubling, with jitter.
    pub fn retry_base(&self) -> Duration {
        Duration::from_millis(self.retry_base_ms)
    }

    /// How long one delivery may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// A `working` notification this often while a task works; zero: none.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis(self.heartbeat_ms)
    }

    /// Push configs one task may have; at least one (a task with push on
    /// can always be given a webhook).
    pub fn configs_per_task(&self) -> usize {
        self.max_configs_per_task.max(1)
    }

    /// Whether callbacks to `host` (a judged webhook host) get Joule's format.
    pub fn is_joule_host(&self, host: &str) -> bool {
        self.joule_hosts
            .iter()
            .any(|pattern| guard::host_matches(pattern, host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_clamps_live_on_the_settings() {
        let settings = PushSettings {
            max_attempts: 0,
            retry_base_ms: 50,
            heartbeat_ms: 0,
            max_configs_per_task: 0,
            ..PushSettings::default()
        };
        assert_eq!(settings.configs_per_task(), 1, "at least one config");
        assert_eq!(settings.attempts(), 1, "at least one try");
        assert_eq!(settings.retry_base(), Duration::from_millis(50));
        assert!(settings.heartbeat().is_zero());
        assert!(settings.is_joule_host("sapdas.eu10.sapdas.cloud.sap"));
        assert!(!settings.is_joule_host("hooks.example.com"));
        assert!(settings.refuse_test_targets(true).is_ok());
        let guard = settings.guard();
        assert_eq!(guard.allowed_hosts, settings.allowed_hosts);
    }
}
