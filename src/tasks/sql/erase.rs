//! `TaskStore::erase_owner` in SQL: one owner's tasks deleted by one
//! statement (atomic on its own, so no transaction around it), which
//! returns what it deleted so the counts are of exactly those rows: their
//! contexts and push configs (which live in the row) go with them. Run on
//! the pool like the retention's deletes, never through the task writer.

use super::{SqlTaskStore, decode_push_configs, unavailable};
use crate::tasks::store::{ErasedTasks, StoreError};
use sqlx::Row;
use std::collections::HashSet;

impl SqlTaskStore {
    /// Delete every task of `owner`; what went. Run twice, it deletes
    /// nothing the second time.
    pub(super) async fn erase(&self, owner: &str) -> Result<ErasedTasks, StoreError> {
        // `tasks_by_owner` finds the rows; how many there are is bounded by
        // the caller's caps (open tasks, finished tasks per caller).
        let rows = self
            .db
            .once_more(|| {
                sqlx::query("DELETE FROM tasks WHERE owner = $1 RETURNING context_id, push_configs")
                    .bind(owner)
                    .fetch_all(&self.db.pool)
            })
            .await
            .map_err(unavailable)?;
        let mut contexts = HashSet::new();
        let mut erased = ErasedTasks::default();
        for row in &rows {
            let context_id: String = row.try_get(0).map_err(unavailable)?;
            let push_configs: String = row.try_get(1).map_err(unavailable)?;
            erased.tasks += 1;
            // Configs that do not read back went all the same; the count
            // says what could be read.
            erased.push_configs += decode_push_configs(&push_configs).map_or(0, |c| c.len() as u64);
            contexts.insert(context_id);
        }
        erased.contexts = contexts.len() as u64;
        Ok(erased)
    }
}
