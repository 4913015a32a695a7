//! The agent's own settings: how a batch of several orders is fanned out
//! to the specialists (`batch.*`), and the TESTS ONLY conformance agent
//! (`conformance.*`; read in every build, so a binary built without the
//! `conformance` feature can refuse it by name).

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Several orders in one request (docs/routing.md#several-orders-in-one-request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BatchSettings {
    /// One order's reads (the order, then its specialist's) may take this
    /// long; past it the order is reported `timed_out`. Keep it below the
    /// turn's budget (`tasks.budget_ms`, 55 s).
    pub item_timeout_ms: u64,
    /// At most this many orders are read at the same time.
    pub max_in_flight: usize,
    /// At most this many orders per request; the rest are counted and the
    /// answer says how to narrow the question.
    pub max_orders: usize,
}

impl Default for BatchSettings {
    fn default() -> Self {
        BatchSettings {
            item_timeout_ms: 20_000,
            max_in_flight: 20,
            max_orders: 20,
        }
    }
}

impl BatchSettings {
    pub fn item_timeout(&self) -> Duration {
        Duration::from_millis(self.item_timeout_ms.max(1))
    }

    /// At least one in flight, whatever the setting says.
    pub fn in_flight(&self) -> usize {
        self.max_in_flight.max(1)
    }

    /// At least one order per request.
    pub fn bound(&self) -> usize {
        self.max_orders.max(1)
    }
}

/// `conformance.*` settings: TESTS ONLY, the agent that acts out the A2A
/// 1.0 conformance suite's scenarios (built with the `conformance` cargo
/// feature only; refused on Cloud Foundry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConformanceSettings {
    /// TESTS ONLY: run the conformance agent instead of the order agent.
    pub tck_scenarios: bool,
    /// How long `test-resubscribe-message-id` stays working; unset: 2 ×
    /// the suite's `TCK_STREAMING_TIMEOUT` (seconds, 2.0 when unset or not
    /// a positive number), as `SUT_REQUIREMENTS.md` asks.
    pub resubscribe_delay_ms: Option<u64>,
}
