//! The push service itself: its settings, guard, clients and the delivery
//! state of every task with push configs, and how it is built from the
//! settings. The files that judge configs (`configs`), run the workers
//! (`worker`) and deliver (`delivery`, `joule`) add its methods; they sit
//! beside it rather than under `mod.rs`, which re-exports them.

use super::guard::{self, GuardSettings};
use super::settings::PushSettings;
use crate::a2a::{PushNotificationConfig, Task};
use crate::btp::DestinationClient;
use crate::tasks::{CallContext, TaskStore};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// Delivery state of a task that has push configs, while it is open.
pub(super) struct TaskPush {
    pub(super) configs: Vec<PushNotificationConfig>,
    /// For the Joule callback format (correlation headers, token exchange).
    pub(super) call: CallContext,
    /// The latest state seen, for heartbeats.
    pub(super) last: Option<Arc<Task>>,
    pub(super) beating: bool,
}

/// A task snapshot to push and the span (the turn) that caused it.
pub(super) type Notification = (Arc<Task>, tracing::Span);

pub struct PushService {
    pub(super) settings: PushSettings,
    /// The webhook guard of these settings.
    pub(super) guard: GuardSettings,
    pub(super) http: reqwest::Client,
    /// Mints the bearer token for Joule callbacks; `None` without a binding.
    pub(super) destination: Option<DestinationClient>,
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) tasks: Mutex<HashMap<String, TaskPush>>,
    /// One delivery worker per task keeps the order of events.
    pub(super) workers: Mutex<HashMap<String, mpsc::UnboundedSender<Notification>>>,
    /// Notifications queued and not yet delivered or given up, what the
    /// shutdown waits for (`worker::flush`).
    pub(super) undelivered: std::sync::atomic::AtomicUsize,
    /// The runtime the service was made on (the process's own), where the
    /// workers and heartbeats run: a worker spawned on a server worker's
    /// runtime would die when the server stops, its queue with it.
    pub(super) home: Option<tokio::runtime::Handle>,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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
            undelivered: std::sync::atomic::AtomicUsize::new(0),
            home: tokio::runtime::Handle::try_current().ok(),
        }))
    }
}
