//! Push notifications: configs per task (`configs`: judged, kept with the
//! task in the task store so any instance can deliver, reached through the
//! engine), the webhook guard (`guard`), the ordered delivery worker and the
//! heartbeat (`worker`), HTTP delivery with retries (`delivery`), Joule's
//! callback format and token (`joule`), and the settings (`settings`).
//! Deliveries keep the event order per task and never block a turn.

pub mod action_hook;
mod configs;
mod delivery;
pub mod guard;
mod joule;
mod settings;
mod worker;

pub use configs::PushObserver;
pub use settings::PushSettings;

use crate::a2a::{PushNotificationConfig, Task};
use crate::btp::DestinationClient;
use crate::tasks::{CallContext, TaskStore};
use guard::GuardSettings;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Delivery state of a task that has push configs, while it is open.
struct TaskPush {
    configs: Vec<PushNotificationConfig>,
    /// For the Joule callback format (correlation headers, token exchange).
    call: CallContext,
    /// The latest state seen, for heartbeats.
    last: Option<Arc<Task>>,
    beating: bool,
}

/// A task snapshot to push and the span (the turn) that caused it.
type Notification = (Arc<Task>, tracing::Span);

pub struct PushService {
    settings: PushSettings,
    /// The webhook guard of these settings.
    guard: GuardSettings,
    http: reqwest::Client,
    /// Mints the bearer token for Joule callbacks; `None` without a binding.
    destination: Option<DestinationClient>,
    store: Arc<dyn TaskStore>,
    tasks: Mutex<HashMap<String, TaskPush>>,
    /// One delivery worker per task keeps the order of events.
    workers: Mutex<HashMap<String, mpsc::UnboundedSender<Notification>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why push could not start.
#[derive(Debug, thiserror::Error)]
pub enum PushSetupError {
    #[error(transparent)]
    TestsOnly(#[from] crate::cloud_foundry::TestsOnlyRefused),
    #[error("cannot build an HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
}

impl PushService {
    /// Push as the settings ask for it, the Destination service from
    /// `push.destination` or the `destination` binding; `None` when
    /// `push.enabled` is off. The settings meant for tests are refused on
    /// Cloud Foundry.
    pub fn for_settings(
        settings: &PushSettings,
        cloud_foundry: &crate::cloud_foundry::CloudFoundry,
        store: Arc<dyn TaskStore>,
    ) -> Result<Option<Arc<Self>>, PushSetupError> {
        if !settings.enabled {
            return Ok(None);
        }
        settings.refuse_test_targets(cloud_foundry.on_cloud_foundry())?;
        let binding = cloud_foundry
            .services
            .credentials("destination")
            .unwrap_or(&serde_json::Value::Null);
        Ok(Some(Self::from_settings(settings, binding, store)?))
    }

    /// The push room the settings describe: the guard, its delivery client
    /// (resolving through the guard), and the Destination service client of
    /// `push.destination` or the `destination` binding's `credentials`
    /// (`Null` without one) for Joule callbacks.
    pub fn from_settings(
        settings: &PushSettings,
        destination_binding: &serde_json::Value,
        store: Arc<dyn TaskStore>,
    ) -> Result<Arc<Self>, reqwest::Error> {
        let guard = settings.guard();
        // Webhooks: resolved through the guard, connected to only where it
        // allows. The Destination service (an operator's binding) gets a
        // client of its own.
        let http = guard::delivery_client(&guard)?;
        let destination =
            DestinationClient::from_settings(&settings.destination, destination_binding)?;
        Ok(Arc::new(PushService {
            settings: settings.clone(),
            guard,
            http,
            destination,
            store,
            tasks: Mutex::new(HashMap::new()),
            workers: Mutex::new(HashMap::new()),
        }))
    }
}
