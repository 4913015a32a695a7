//! `TaskStore::list` in SQL (SQLite and PostgreSQL, one statement each):
//! the filters of a [`TaskQuery`] as a WHERE clause, newest change first
//! (`updated_ms`, then `id`, both descending), keyset paging from the
//! cursor, and the count of all matching rows.

use super::{SqlTaskStore, decode, unavailable};
use crate::tasks::listing::{OwnerScope, PageCursor, TaskPage, TaskQuery};
use crate::tasks::store::{StoreError, skipped_unreadable};
use sqlx::Row;

/// A value a condition binds, in placeholder order.
enum Bound {
    Text(String),
    Number(i64),
}

/// The WHERE clause of the filters (without the cursor) and its values.
fn filters(query: &TaskQuery, bound: &mut Vec<Bound>) -> Vec<String> {
    let mut conditions = Vec::new();
    let mut push = |condition: &str, value: Bound, bound: &mut Vec<Bound>| {
        bound.push(value);
        conditions.push(condition.replace('?', &format!("${}", bound.len())));
    };
    if let OwnerScope::Owner(owner) = &query.scope {
        push("owner = ?", Bound::Text(owner.clone()), bound);
    }
    if let Some(context_id) = &query.context_id {
        push("context_id = ?", Bound::Text(context_id.clone()), bound);
    }
    if let Some(state) = query.state {
        push("state = ?", Bound::Text(state.as_str().to_string()), bound);
    }
    if let Some(since) = query.changed_since_ms {
        push("updated_ms >= ?", Bound::Number(since), bound);
    }
    conditions
}

fn where_clause(conditions: &[String]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}

fn bind_all<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    bound: &'q [Bound],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for value in bound {
        query = match value {
            Bound::Text(text) => query.bind(text.as_str()),
            Bound::Number(number) => query.bind(*number),
        };
    }
    query
}

impl SqlTaskStore {
    pub(super) async fn list_page(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let mut count_bound = Vec::new();
        let count_conditions = filters(query, &mut count_bound);
        let count_sql = format!(
            "SELECT COUNT(*) FROM tasks{}",
            where_clause(&count_conditions)
        );
        let total: i64 = self
            .db
            .once_more(|| bind_all(sqlx::query(&count_sql), &count_bound).fetch_one(&self.db.pool))
            .await
            .map_err(unavailable)?
            .try_get(0)
            .map_err(unavailable)?;

        let mut bound = Vec::new();
        let mut conditions = filters(query, &mut bound);
        if let Some(cursor) = &query.after {
            bound.push(Bound::Number(cursor.changed_ms));
            let at = bound.len();
            bound.push(Bound::Text(cursor.id.clone()));
            let id = bound.len();
            conditions.push(format!(
                "(updated_ms < ${at} OR (updated_ms = ${at} AND id < ${id}))"
            ));
        }
        let limit = i64::try_from(query.page_size.saturating_add(1)).unwrap_or(i64::MAX);
        bound.push(Bound::Number(limit));
        let sql = format!(
            "SELECT id, updated_ms, body FROM tasks{} ORDER BY updated_ms DESC, id DESC LIMIT ${}",
            where_clause(&conditions),
            bound.len()
        );
        let rows = self
            .db
            .once_more(|| bind_all(sqlx::query(&sql), &bound).fetch_all(&self.db.pool))
            .await
            .map_err(unavailable)?;
        let more = rows.len() > query.page_size;
        let mut tasks = Vec::with_capacity(rows.len().min(query.page_size));
        let mut last = None;
        for row in rows.iter().take(query.page_size) {
            let id: String = row.try_get(0).map_err(unavailable)?;
            let changed_ms: i64 = row.try_get(1).map_err(unavailable)?;
            let what = format!("task {id}");
            // A row that does not read back is skipped (and logged), not
            // the page failed: one broken task must not take listing away
            // from its owner, or from anyone else.
            match super::packed_body::body_json(row, 2, &what).and_then(|body| decode(&body, &what))
            {
                Ok(task) => tasks.push(task),
                Err(error) => skipped_unreadable(&id, &error),
            }
            last = Some(PageCursor { changed_ms, id });
        }
        Ok(TaskPage {
            tasks,
            next: if more { last } else { None },
            total: total.max(0).unsigned_abs(),
        })
    }
}
