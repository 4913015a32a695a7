//! Push notifications: configs per task (kept with the task in the task
//! store, so any instance can deliver), the webhook guard, and delivery of
//! task changes (A2A format: the Task JSON) with retries, in event order per
//! task, never blocking a turn.

pub mod guard;

use crate::a2a::{PushNotificationConfig, Task, TaskPushNotificationConfig};
use crate::btp::{DestinationClient, DestinationError};
use crate::tasks::{CallContext, PushConfigError, TaskObserver, TaskStore};
use async_trait::async_trait;
use guard::{GuardSettings, WebhookRefused};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

#[derive(Debug, Clone)]
pub struct PushSettings {
    pub guard: GuardSettings,
    /// Tries per notification (the first included).
    pub max_attempts: u32,
    /// First retry after about this long, doubling, with jitter.
    pub retry_base: Duration,
    pub timeout: Duration,
    /// While a task works, a `working` notification this often.
    pub heartbeat: Duration,
    /// Host patterns whose callbacks get Joule's format.
    pub joule_hosts: Vec<String>,
}

/// Why a Joule callback got no token.
#[derive(Debug, thiserror::Error)]
enum JouleTokenError {
    #[error("no Destination service is configured (push.destination or a `destination` binding)")]
    NoDestinationService,
    #[error("the original call carried no user token to exchange")]
    NoUserToken,
    #[error(transparent)]
    Destination(#[from] DestinationError),
}

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

impl PushService {
    pub fn new(
        settings: PushSettings,
        http: reqwest::Client,
        destination: Option<DestinationClient>,
        store: Arc<dyn TaskStore>,
    ) -> Arc<Self> {
        Arc::new(PushService {
            settings,
            http,
            destination,
            store,
            tasks: Mutex::new(HashMap::new()),
            workers: Mutex::new(HashMap::new()),
        })
    }

    /// `tasks/pushNotificationConfig/set` (the engine checked the task).
    pub async fn set(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, PushConfigError> {
        let config = self
            .judged(config)
            .map_err(|refused| PushConfigError::Refused(Box::new(refused)))?;
        let config = config.named_after(task_id);
        self.store.set_push_config(task_id, &config).await?;
        // A task already being delivered for picks it up at once.
        if let Some(push) = lock(&self.tasks).get_mut(task_id) {
            push.configs.retain(|c| c.id != config.id);
            push.configs.push(config.clone());
            if call.bearer_token.is_some() {
                push.call = call.clone();
            }
        }
        Ok(TaskPushNotificationConfig {
            task_id: task_id.to_string(),
            push_notification_config: config,
        })
    }

    /// The config with its URL as the guard parsed and judged it: what is
    /// stored is what deliveries go to.
    fn judged(
        &self,
        config: PushNotificationConfig,
    ) -> Result<PushNotificationConfig, WebhookRefused> {
        let webhook = self.settings.guard.check(&config.url)?;
        Ok(PushNotificationConfig {
            url: webhook.url.into(),
            ..config
        })
    }

    pub async fn list(
        &self,
        task_id: &str,
    ) -> Result<Vec<TaskPushNotificationConfig>, PushConfigError> {
        Ok(self
            .store
            .push_configs(task_id)
            .await?
            .into_iter()
            .map(|config| TaskPushNotificationConfig {
                task_id: task_id.to_string(),
                push_notification_config: config,
            })
            .collect())
    }

    pub async fn get(
        &self,
        task_id: &str,
        config_id: Option<&str>,
    ) -> Result<TaskPushNotificationConfig, PushConfigError> {
        let all = self.list(task_id).await?;
        let found = match config_id {
            Some(id) => all
                .into_iter()
                .find(|c| c.push_notification_config.id.as_deref() == Some(id)),
            None => all.into_iter().next(),
        };
        found.ok_or_else(|| PushConfigError::NotFound {
            task: task_id.to_string(),
            config: config_id.unwrap_or("(any)").to_string(),
        })
    }

    pub async fn delete(&self, task_id: &str, config_id: &str) -> Result<(), PushConfigError> {
        if !self.store.delete_push_config(task_id, config_id).await? {
            return Err(PushConfigError::NotFound {
                task: task_id.to_string(),
                config: config_id.to_string(),
            });
        }
        if let Some(push) = lock(&self.tasks).get_mut(task_id) {
            push.configs.retain(|c| c.id.as_deref() != Some(config_id));
        }
        Ok(())
    }

    fn enqueue(self: &Arc<Self>, task: Arc<Task>) {
        let mut workers = lock(&self.workers);
        let sender = workers.entry(task.id.clone()).or_insert_with(|| {
            let (sender, receiver) = mpsc::unbounded_channel::<Notification>();
            let service = Arc::clone(self);
            let task_id = task.id.clone();
            tokio::spawn(async move { service.work(task_id, receiver).await });
            sender
        });
        // The span that caused the notification (the turn) parents its
        // deliveries.
        if sender.send((task, tracing::Span::current())).is_err() {
            tracing::warn!("push worker gone; notification dropped");
        }
    }

    /// Deliver one task's notifications in order; ends after a terminal state.
    async fn work(
        self: Arc<Self>,
        task_id: String,
        mut queue: mpsc::UnboundedReceiver<Notification>,
    ) {
        while let Some((task, cause)) = queue.recv().await {
            let (configs, call) = lock(&self.tasks)
                .get(&task_id)
                .map(|push| (push.configs.clone(), push.call.clone()))
                .unwrap_or_default();
            for config in &configs {
                self.deliver(config, &task, &call, &cause).await;
            }
            if task.status.state.is_terminal() {
                break;
            }
        }
        lock(&self.workers).remove(&task_id);
        // A finished task needs no snapshot or caller token any more; its
        // configs stay listable in the task store.
        lock(&self.tasks).remove(&task_id);
    }

    async fn deliver(
        &self,
        config: &PushNotificationConfig,
        task: &Task,
        call: &CallContext,
        cause: &tracing::Span,
    ) {
        // Judged again (the settings may have changed since it was stored);
        // host names are judged by the client's resolver as it connects.
        let webhook = match self.settings.guard.check(&config.url) {
            Ok(webhook) => webhook,
            Err(reason) => {
                tracing::warn!(task.id = %task.id, %reason, "push refused");
                crate::telemetry::metrics::push("refused");
                return;
            }
        };
        let joule = self
            .settings
            .joule_hosts
            .iter()
            .any(|pattern| guard::host_matches(pattern, &webhook.host));
        // Joule: a JSON-RPC envelope whose id is the original correlation id.
        let encoded = if joule {
            let id = call
                .correlation_id
                .clone()
                .unwrap_or_else(|| task.id.clone());
            serde_json::to_vec(&serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": task }))
        } else {
            serde_json::to_vec(task)
        };
        let body = match encoded {
            Ok(body) => body,
            Err(error) => {
                tracing::error!(task.id = %task.id, %error, "push body could not be encoded");
                return;
            }
        };
        let joule_authorization = if joule {
            match self.joule_authorization(call).await {
                Ok(header) => Some(header),
                Err(reason) => {
                    tracing::warn!(task.id = %task.id, %reason, "Joule callback token not available; push given up");
                    crate::telemetry::metrics::push("refused");
                    return;
                }
            }
        } else {
            None
        };
        for attempt in 1..=self.settings.max_attempts.max(1) {
            let span = tracing::info_span!(
                parent: cause,
                "push.delivery",
                otel.name = "push.delivery",
                otel.kind = "client",
                a2a.task.id = task.id.as_str(),
                a2a.task.state = task.status.state.as_str(),
                push.attempt = i64::from(attempt),
                push.format = if joule { "joule" } else { "a2a" },
                http.response.status_code = tracing::field::Empty,
            );
            let mut request = self
                .http
                .post(webhook.url.clone())
                .timeout(self.settings.timeout)
                .header("Content-Type", "application/json")
                .body(body.clone());
            if let Some(token) = &config.token {
                request = request.header("X-A2A-Notification-Token", token);
            }
            if let Some(header) = &joule_authorization {
                request = request.header("Authorization", header);
                for (name, value) in [
                    ("conversationid", &call.conversation_id),
                    ("x-correlationid", &call.correlation_id),
                ] {
                    if let Some(value) = value {
                        request = request.header(name, value);
                    }
                }
            } else if let Some(auth) = &config.authentication
                && let (Some(scheme), Some(credentials)) = (auth.schemes.first(), &auth.credentials)
            {
                request = request.header("Authorization", format!("{scheme} {credentials}"));
            }
            let request = crate::telemetry::propagation::inject_span(request, &span);
            let outcome = tracing::Instrument::instrument(request.send(), span.clone()).await;
            if let Err(error) = &outcome
                && let Some(refused) = guard::refused_resolution(error)
            {
                // Not a failure to retry: the resolver will refuse again.
                let _entered = span.enter();
                tracing::warn!(task.id = %task.id, reason = %refused, "push refused at delivery");
                crate::telemetry::metrics::push("refused");
                return;
            }
            let status = outcome.as_ref().map(|r| r.status().as_u16()).ok();
            // Integers, as OpenTelemetry's conventions have them; no status
            // code when no answer came.
            if let Some(status) = status {
                span.record("http.response.status_code", i64::from(status));
            }
            let delivered = status.is_some_and(|s| (200..300).contains(&s));
            crate::telemetry::metrics::push(if delivered { "delivered" } else { "failed" });
            let _entered = span.enter();
            tracing::info!(
                task.id = %task.id,
                a2a.task.state = task.status.state.as_str(),
                push.attempt = i64::from(attempt),
                push.status = i64::from(status.unwrap_or(0)),
                push.format = if joule { "joule" } else { "a2a" },
                "push delivery"
            );
            drop(_entered);
            if delivered {
                return;
            }
            if attempt < self.settings.max_attempts {
                let backoff = self.settings.retry_base * 2u32.saturating_pow(attempt - 1);
                // Jitter: up to half the backoff, from the clock's low bits.
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.subsec_nanos())
                    .unwrap_or(0);
                let jitter = backoff.mul_f64(f64::from(nanos % 1000) / 2000.0);
                tokio::time::sleep(backoff + jitter).await;
            }
        }
        tracing::warn!(task.id = %task.id, url = %config.url, "push delivery given up");
    }
}

impl PushService {
    /// `Authorization` for a Joule callback: a Joule-API token minted by the
    /// Destination service from the caller's user token.
    async fn joule_authorization(&self, call: &CallContext) -> Result<String, JouleTokenError> {
        let destination = self
            .destination
            .as_ref()
            .ok_or(JouleTokenError::NoDestinationService)?;
        let user_token = call
            .bearer_token
            .as_ref()
            .map(crate::auth::BearerToken::expose)
            .ok_or(JouleTokenError::NoUserToken)?;
        Ok(destination.authorization(user_token).await?)
    }

    /// Send `working` notifications while the task works.
    fn start_heartbeat(self: &Arc<Self>, task_id: String) {
        let service = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(service.settings.heartbeat).await;
                let beat = {
                    let mut tasks = lock(&service.tasks);
                    let Some(push) = tasks.get_mut(&task_id) else {
                        break;
                    };
                    match &push.last {
                        Some(task) if task.status.state == crate::a2a::TaskState::Working => {
                            let mut beat = (**task).clone();
                            beat.status.message = Some(crate::tasks::working_note(&beat));
                            Some(Arc::new(beat))
                        }
                        _ => {
                            push.beating = false;
                            None
                        }
                    }
                };
                match beat {
                    Some(beat) => service.enqueue(beat),
                    None => break,
                }
            }
        });
    }
}

/// The engine's view: judge inline configs, keep configs, hear changes.
pub struct PushObserver(pub Arc<PushService>);

#[async_trait]
impl TaskObserver for PushObserver {
    fn check(
        &self,
        config: &PushNotificationConfig,
    ) -> Result<PushNotificationConfig, PushConfigError> {
        self.0
            .judged(config.clone())
            .map_err(|refused| PushConfigError::Refused(Box::new(refused)))
    }

    async fn set_config(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, PushConfigError> {
        self.0.set(task_id, config, call).await
    }

    async fn config(
        &self,
        task_id: &str,
        config_id: Option<&str>,
    ) -> Result<TaskPushNotificationConfig, PushConfigError> {
        self.0.get(task_id, config_id).await
    }

    async fn configs(
        &self,
        task_id: &str,
    ) -> Result<Vec<TaskPushNotificationConfig>, PushConfigError> {
        self.0.list(task_id).await
    }

    async fn delete_config(&self, task_id: &str, config_id: &str) -> Result<(), PushConfigError> {
        self.0.delete(task_id, config_id).await
    }

    fn changed(&self, task: &Task, configs: &[PushNotificationConfig], call: &CallContext) {
        let state = task.status.state;
        let snapshot;
        let start_beating = {
            let mut tasks = lock(&self.0.tasks);
            // Most tasks have no push config: no copy for them.
            if configs.is_empty() && !tasks.contains_key(&task.id) {
                return;
            }
            let push = tasks.entry(task.id.clone()).or_insert_with(|| TaskPush {
                configs: Vec::new(),
                call: call.clone(),
                last: None,
                beating: false,
            });
            // The stored configs are the truth (another instance may have
            // set them); the newest caller token wins.
            push.configs = configs.to_vec();
            if call.bearer_token.is_some() {
                push.call = call.clone();
            }
            snapshot = Arc::new(task.clone());
            push.last = Some(Arc::clone(&snapshot));
            let start = state == crate::a2a::TaskState::Working
                && !push.beating
                && !self.0.settings.heartbeat.is_zero();
            push.beating |= start;
            start
        };
        if start_beating {
            self.0.start_heartbeat(task.id.clone());
        }
        if state.is_terminal() || state.is_interrupted() {
            self.0.enqueue(snapshot);
        }
    }
}
