//! Push notification configs: judged by the guard, kept with their task in
//! the task store (so any instance can deliver), reached only through the
//! engine (which checks the task first); and the engine's view of the push
//! room ([`PushObserver`]), which also hears every task change.

use super::config_size::{configs_bytes, sizes_fit};
use super::service::{PushService, TaskPush, lock};
use crate::a2a::{PushNotificationConfig, Task, TaskPushNotificationConfig};
use crate::tasks::{CallContext, ConfigField, PushConfigError, PushConfigSet, TaskObserver};
use async_trait::async_trait;
use std::sync::Arc;

impl PushService {
    /// `tasks/pushNotificationConfig/set` (the engine checked the task);
    /// the task's configs together take at most `room` bytes.
    pub(super) async fn set(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
        room: usize,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, PushConfigError> {
        let config = self.judged(config)?.named_after(task_id);
        let kept = self.store.push_configs(task_id).await?;
        let others = kept.iter().filter(|kept| kept.id != config.id);
        if configs_bytes(others.chain([&config])) > room {
            return Err(PushConfigError::TaskFull {
                task: task_id.to_string(),
                room,
            });
        }
        let most = self.settings.configs_per_task();
        if self.store.set_push_config(task_id, &config, most).await? == PushConfigSet::Full {
            return Err(PushConfigError::TooMany {
                task: task_id.to_string(),
                most,
            });
        }
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
    /// stored is what deliveries go to. Every value is first held to its
    /// size bound ([`sizes_fit`]); the values it puts into headers (token,
    /// authentication scheme and credentials) are judged too: one that no
    /// header can carry would make every delivery fail.
    pub(super) fn judged(
        &self,
        config: PushNotificationConfig,
    ) -> Result<PushNotificationConfig, PushConfigError> {
        sizes_fit(&config)?;
        let webhook = self
            .guard
            .check(&config.url)
            .map_err(|refused| PushConfigError::Refused(Box::new(refused)))?;
        header_values_fit(&config)?;
        Ok(PushNotificationConfig {
            url: webhook.url.into(),
            ..config
        })
    }

    pub(super) async fn list(
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

    pub(super) async fn get(
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

    pub(super) async fn delete(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<(), PushConfigError> {
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
}

/// Every value of `config` that a delivery sends as a header value is one a
/// header can carry: no control character (CR and LF would end the header;
/// the HTTP client refuses them, and every delivery would fail). The error
/// names the field, never its value (a token or a credential).
fn header_values_fit(config: &PushNotificationConfig) -> Result<(), PushConfigError> {
    let fits = |value: &str| !value.chars().any(char::is_control);
    let refused = |field| Err(PushConfigError::BadHeaderValue { field });
    if config.token.as_deref().is_some_and(|token| !fits(token)) {
        return refused(ConfigField::Token);
    }
    if let Some(auth) = &config.authentication {
        if let Some(index) = auth.schemes.iter().position(|scheme| !fits(scheme)) {
            return refused(ConfigField::Scheme(index));
        }
        if auth.credentials.as_deref().is_some_and(|c| !fits(c)) {
            return refused(ConfigField::Credentials);
        }
    }
    Ok(())
}

/// The engine's view: judge inline configs, keep configs, hear changes.
pub struct PushObserver(pub Arc<PushService>);

#[async_trait]
impl TaskObserver for PushObserver {
    fn check(
        &self,
        config: &PushNotificationConfig,
    ) -> Result<PushNotificationConfig, PushConfigError> {
        self.0.judged(config.clone())
    }

    async fn set_config(
        &self,
        task_id: &str,
        config: PushNotificationConfig,
        room: usize,
        call: &CallContext,
    ) -> Result<TaskPushNotificationConfig, PushConfigError> {
        self.0.set(task_id, config, room, call).await
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

    async fn flush(&self, deadline: tokio::time::Instant) -> usize {
        self.0.flush(deadline).await
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
                && !self.0.settings.heartbeat().is_zero();
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
