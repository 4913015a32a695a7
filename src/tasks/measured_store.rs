//! The task store as the engine sees it: every call timed into
//! `a2a.store.duration{operation,outcome}` and every failure that is not a
//! lost race counted in `a2a.store.errors{error.type}`, whatever the store
//! behind it (memory, SQLite, PostgreSQL). A store that slows down or
//! fails shows there before turns fail.

use super::listing::{TaskPage, TaskQuery};
use super::settings::FinishedCaps;
use super::store::{ErasedTasks, PushConfigSet, StoreError, StoredTask, TaskStore, Written};
use crate::a2a::{PushNotificationConfig, Task};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Instant;

/// `store`, measured.
pub(super) struct MeasuredStore(pub(super) Arc<dyn TaskStore>);

/// Time `call` as `operation` and count its failure.
async fn measured<T>(
    operation: &'static str,
    call: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let started = Instant::now();
    let result = call.await;
    let error_type = match &result {
        Err(error) if !error.is_race() => Some(error.kind()),
        _ => None,
    };
    crate::telemetry::metrics::store_call(operation, error_type, started.elapsed().as_secs_f64());
    result
}

#[async_trait]
impl TaskStore for MeasuredStore {
    async fn get(&self, task_id: &str) -> Result<Option<StoredTask>, StoreError> {
        measured("get", self.0.get(task_id)).await
    }

    async fn create(
        &self,
        task: &Task,
        push_configs: &[PushNotificationConfig],
        owner: Option<&str>,
    ) -> Result<Written, StoreError> {
        measured("create", self.0.create(task, push_configs, owner)).await
    }

    async fn opened_by(
        &self,
        owner: Option<&str>,
        message_id: &str,
    ) -> Result<Option<String>, StoreError> {
        measured("opened_by", self.0.opened_by(owner, message_id)).await
    }

    async fn context_held_by_another(
        &self,
        context_id: &str,
        owner: &str,
    ) -> Result<bool, StoreError> {
        measured(
            "context_held_by_another",
            self.0.context_held_by_another(context_id, owner),
        )
        .await
    }

    async fn open_tasks_of(&self, owner: Option<&str>, at_most: u64) -> Result<u64, StoreError> {
        measured("open_tasks_of", self.0.open_tasks_of(owner, at_most)).await
    }

    async fn waiting_since(&self, before_ms: i64, at_most: u64) -> Result<Vec<String>, StoreError> {
        measured("waiting_since", self.0.waiting_since(before_ms, at_most)).await
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        measured("list", self.0.list(query)).await
    }

    async fn update(&self, task: &Task, expected_version: u64) -> Result<Written, StoreError> {
        measured("update", self.0.update(task, expected_version)).await
    }

    async fn set_push_config(
        &self,
        task_id: &str,
        config: &PushNotificationConfig,
        most: usize,
    ) -> Result<PushConfigSet, StoreError> {
        measured(
            "set_push_config",
            self.0.set_push_config(task_id, config, most),
        )
        .await
    }

    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, StoreError> {
        measured("push_configs", self.0.push_configs(task_id)).await
    }

    async fn delete_push_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError> {
        measured(
            "delete_push_config",
            self.0.delete_push_config(task_id, config_id),
        )
        .await
    }

    async fn erase_owner(&self, owner: &str) -> Result<ErasedTasks, StoreError> {
        measured("erase_owner", self.0.erase_owner(owner)).await
    }

    fn out_of_space(&self) -> bool {
        self.0.out_of_space()
    }

    fn database_down(&self) -> bool {
        self.0.database_down()
    }

    async fn renew_leases(&self, task_ids: &[String]) -> Result<(), StoreError> {
        measured("renew_leases", self.0.renew_leases(task_ids)).await
    }

    async fn expired_leases(&self) -> Result<Vec<String>, StoreError> {
        measured("expired_leases", self.0.expired_leases()).await
    }

    async fn purge_finished(&self, before_ms: i64) -> Result<u64, StoreError> {
        measured("purge_finished", self.0.purge_finished(before_ms)).await
    }

    async fn trim_finished(&self, caps: FinishedCaps) -> Result<u64, StoreError> {
        measured("trim_finished", self.0.trim_finished(caps)).await
    }

    async fn count_open(&self) -> Result<Option<u64>, StoreError> {
        measured("count_open", self.0.count_open()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::TaskState;
    use crate::tasks::InMemoryTaskStore;
    use crate::tasks::contract::task;
    use crate::tasks::settings::MemoryStoreLimits;

    fn errors_of(kind: &str) -> u64 {
        let series = format!("a2a_store_errors_total{{error_type=\"{kind}\"}} ");
        crate::telemetry::metrics::render()
            .lines()
            .find_map(|line| line.strip_prefix(&series)?.parse().ok())
            .unwrap_or(0)
    }

    #[tokio::test]
    async fn a_failed_call_is_counted_by_its_type_and_a_lost_race_is_not() {
        let store = MeasuredStore(Arc::new(InMemoryTaskStore::new(MemoryStoreLimits {
            max_open: 1,
            ..MemoryStoreLimits::default()
        })));
        let (full_before, timed_before) = (errors_of("full"), errors_of("unavailable"));
        let written = store
            .create(&task("m-1", TaskState::Working), &[], None)
            .await
            .unwrap();
        let refused = store
            .create(&task("m-2", TaskState::Working), &[], None)
            .await
            .unwrap_err();
        assert_eq!(refused.kind(), "full");
        assert_eq!(errors_of("full"), full_before + 1);
        // A stale version: another writer won, the store is fine.
        let stale = store
            .update(&task("m-1", TaskState::Completed), written.version + 7)
            .await
            .unwrap_err();
        assert!(stale.is_race(), "{stale}");
        assert_eq!(errors_of("unavailable"), timed_before);
        let text = crate::telemetry::metrics::render();
        assert!(
            text.contains(
                "a2a_store_duration_seconds_count{operation=\"create\",outcome=\"error\"}"
            ),
            "{text}"
        );
        assert!(
            text.contains("a2a_store_errors_total{error_type=\"disk_full\"} "),
            "zeros too"
        );
    }
}
