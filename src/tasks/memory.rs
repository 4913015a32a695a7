//! The in-memory task store. Bounded: terminal tasks go after a retention
//! time or beyond a count cap per caller and the instance's (the flooding
//! caller's own oldest first, [`super::finished`]), so memory stays flat
//! under sustained load; open tasks stay, and past a hard cap a new task is
//! refused: one caller's load never drops another caller's task.

use super::finished::FinishedTasks;
use super::listing::{PageCursor, TaskPage, TaskQuery};
use super::settings::MemoryStoreLimits;
use super::store::{
    ErasedTasks, StoreError, StoredTask, TaskJson, TaskStore, Written, encode_task,
    opening_message_id, skipped_unreadable,
};
use crate::a2a::{PushNotificationConfig, Task, TaskState};
use async_trait::async_trait;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

struct Entry {
    /// The task as compact JSON: a third of the size of the live structs,
    /// and the same form the SQL stores keep (shared with the answer).
    json: TaskJson,
    version: u64,
    terminal: bool,
    /// Creation sequence number, the key in `open_by_age` while open.
    sequence: u64,
    finished_at: Option<Instant>,
    push_configs: Vec<PushNotificationConfig>,
    /// Who created the task, for lists scoped to an owner.
    owner: Option<String>,
    /// The last write (Unix ms), the order of lists.
    changed_ms: i64,
    context_id: String,
    state: TaskState,
    /// The `messageId` that opened the task, its key in `by_message`.
    opened_by: Option<String>,
}

/// A caller's message: its owner key and `messageId`.
type MessageKey = (Option<String>, String);

#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Entry>,
    /// The task each held task's opening message opened: one key per task
    /// in `by_id` at most, gone with it, so it is bounded as tasks are.
    by_message: HashMap<MessageKey, String>,
    /// Finished tasks in the order they finished and per owner (a task
    /// finishes once).
    finished: FinishedTasks,
    /// Open tasks, oldest first.
    open_by_age: BTreeMap<u64, String>,
    /// How many open tasks each owner has (`None`: authentication off).
    open_by_owner: HashMap<Option<String>, u64>,
    next_sequence: u64,
}

impl Tasks {
    /// Forget task `id`, and the message that opened it.
    fn remove(&mut self, id: &str) {
        if let Some(entry) = self.by_id.remove(id)
            && let Some(message_id) = entry.opened_by
        {
            let key = (entry.owner, message_id);
            if self.by_message.get(&key).is_some_and(|opened| opened == id) {
                self.by_message.remove(&key);
            }
        }
    }

    /// One more open task of `owner`, or one fewer.
    fn count_open(&mut self, owner: &Option<String>, opened: bool) {
        if opened {
            *self.open_by_owner.entry(owner.clone()).or_default() += 1;
        } else if let Some(count) = self.open_by_owner.get_mut(owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.open_by_owner.remove(owner);
            }
        }
    }
}

/// A thread panicked while it held the tasks.
#[derive(Debug, thiserror::Error)]
#[error("the in-memory task store's lock is poisoned")]
struct LockPoisoned;

pub struct InMemoryTaskStore {
    limits: MemoryStoreLimits,
    // A std mutex: every critical section is short and never awaits.
    tasks: Mutex<Tasks>,
}

impl InMemoryTaskStore {
    pub fn new(limits: MemoryStoreLimits) -> Self {
        InMemoryTaskStore {
            limits,
            tasks: Mutex::new(Tasks::default()),
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Tasks>, StoreError> {
        self.tasks
            .lock()
            .map_err(|_| StoreError::unavailable(LockPoisoned))
    }

    /// How many tasks are held (finished and open).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().map(|tasks| tasks.by_id.len()).unwrap_or(0)
    }

    fn expired(&self, entry: &Entry, now: Instant) -> bool {
        entry
            .finished_at
            .is_some_and(|finished| now.duration_since(finished) > self.limits.retention)
    }

    /// `id` of `owner` finished `now`: it is counted, and what that or the
    /// retention purges goes.
    fn finish(&self, tasks: &mut Tasks, id: String, owner: Option<String>, now: Instant) {
        let purged = tasks.finished.add(now, id, owner, &self.limits);
        let expired = tasks.finished.expire(now, &self.limits);
        for id in purged.into_iter().chain(expired) {
            tasks.remove(&id);
        }
    }

    fn expire(&self, tasks: &mut Tasks, now: Instant) {
        for id in tasks.finished.expire(now, &self.limits) {
            tasks.remove(&id);
        }
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn get(&self, task_id: &str) -> Result<Option<StoredTask>, StoreError> {
        // Copy the JSON out under the lock; decode after releasing it.
        let found = {
            let tasks = self.lock()?;
            let now = Instant::now();
            tasks
                .by_id
                .get(task_id)
                .filter(|entry| !self.expired(entry, now))
                .map(|entry| (entry.json.clone(), entry.version, entry.owner.clone()))
        };
        let Some((json, version, owner)) = found else {
            return Ok(None);
        };
        let task = match serde_json::from_str(&json) {
            Ok(task) => task,
            Err(error) => return Err(super::store::unreadable_task(task_id, owner, error)),
        };
        Ok(Some(StoredTask {
            task,
            version,
            owner,
        }))
    }

    async fn create(
        &self,
        task: &Task,
        push_configs: &[PushNotificationConfig],
        owner: Option<&str>,
    ) -> Result<Written, StoreError> {
        let json = encode_task(task)?;
        let mut tasks = self.lock()?;
        if tasks.by_id.contains_key(&task.id) {
            return Err(StoreError::AlreadyExists(task.id.clone()));
        }
        let now = Instant::now();
        let terminal = task.status.state.is_terminal();
        if !terminal && tasks.open_by_age.len() >= self.limits.max_open {
            return Err(StoreError::Full(self.limits.max_open));
        }
        let sequence = tasks.next_sequence;
        tasks.next_sequence += 1;
        let owner = owner.map(str::to_string);
        let opened_by = opening_message_id(task).map(str::to_string);
        if let Some(message_id) = &opened_by {
            tasks
                .by_message
                .insert((owner.clone(), message_id.clone()), task.id.clone());
        }
        if !terminal {
            tasks.open_by_age.insert(sequence, task.id.clone());
            tasks.count_open(&owner, true);
        }
        tasks.by_id.insert(
            task.id.clone(),
            Entry {
                json: TaskJson::clone(&json),
                version: 1,
                terminal,
                sequence,
                finished_at: terminal.then_some(now),
                push_configs: push_configs.to_vec(),
                owner: owner.clone(),
                changed_ms: crate::db::now_ms(),
                context_id: task.context_id.clone(),
                state: task.status.state,
                opened_by,
            },
        );
        if terminal {
            self.finish(&mut tasks, task.id.clone(), owner, now);
        } else {
            self.expire(&mut tasks, now);
        }
        Ok(Written {
            version: 1,
            push_configs: push_configs.to_vec(),
            json,
        })
    }

    async fn update(&self, task: &Task, expected_version: u64) -> Result<Written, StoreError> {
        let json = encode_task(task)?;
        let mut tasks = self.lock()?;
        let now = Instant::now();
        let id = task.id.clone();
        let entry = tasks
            .by_id
            .get_mut(&id)
            .filter(|entry| !self.expired(entry, now))
            .ok_or_else(|| StoreError::NotFound(id.clone()))?;
        if entry.terminal {
            return Err(StoreError::Terminal(id));
        }
        if entry.version != expected_version {
            return Err(StoreError::Conflict(id));
        }
        let finishing = task.status.state.is_terminal();
        entry.json = TaskJson::clone(&json);
        entry.version = expected_version + 1;
        entry.terminal = finishing;
        entry.changed_ms = crate::db::now_ms();
        entry.state = task.status.state;
        let sequence = entry.sequence;
        let push_configs = entry.push_configs.clone();
        if finishing {
            entry.finished_at = Some(now);
            let owner = entry.owner.clone();
            tasks.open_by_age.remove(&sequence);
            tasks.count_open(&owner, false);
            self.finish(&mut tasks, id, owner, now);
        } else {
            self.expire(&mut tasks, now);
        }
        Ok(Written {
            version: expected_version + 1,
            push_configs,
            json,
        })
    }

    async fn list(&self, query: &TaskQuery) -> Result<TaskPage, StoreError> {
        let tasks = self.lock()?;
        let now = Instant::now();
        page_of(
            query,
            tasks
                .by_id
                .iter()
                .filter(|(_, entry)| !self.expired(entry, now))
                .map(|(id, entry)| {
                    (
                        Listed {
                            owner: entry.owner.as_deref(),
                            changed_ms: entry.changed_ms,
                            id,
                            json: &entry.json,
                        },
                        entry.context_id.clone(),
                        entry.state,
                    )
                }),
        )
    }

    async fn open_tasks_of(&self, owner: Option<&str>, at_most: u64) -> Result<u64, StoreError> {
        let tasks = self.lock()?;
        let key = owner.map(str::to_string);
        Ok(tasks
            .open_by_owner
            .get(&key)
            .copied()
            .unwrap_or(0)
            .min(at_most))
    }

    async fn count_open(&self) -> Result<Option<u64>, StoreError> {
        Ok(Some(self.lock()?.open_by_age.len() as u64))
    }

    async fn waiting_since(&self, before_ms: i64, at_most: u64) -> Result<Vec<String>, StoreError> {
        let tasks = self.lock()?;
        let mut waiting: Vec<(i64, &String)> = tasks
            .open_by_age
            .values()
            .filter_map(|id| tasks.by_id.get(id).map(|entry| (id, entry)))
            .filter(|(_, entry)| {
                entry.state == TaskState::InputRequired && entry.changed_ms < before_ms
            })
            .map(|(id, entry)| (entry.changed_ms, id))
            .collect();
        waiting.sort();
        Ok(waiting
            .into_iter()
            .take(usize::try_from(at_most).unwrap_or(usize::MAX))
            .map(|(_, id)| id.clone())
            .collect())
    }

    async fn opened_by(
        &self,
        owner: Option<&str>,
        message_id: &str,
    ) -> Result<Option<String>, StoreError> {
        let tasks = self.lock()?;
        let now = Instant::now();
        let key = (owner.map(str::to_string), message_id.to_string());
        Ok(tasks
            .by_message
            .get(&key)
            .filter(|id| {
                tasks
                    .by_id
                    .get(id.as_str())
                    .is_some_and(|entry| !self.expired(entry, now))
            })
            .cloned())
    }

    async fn context_held_by_another(
        &self,
        context_id: &str,
        owner: &str,
    ) -> Result<bool, StoreError> {
        // A scan, like `list`: the store holds at most its caps of tasks.
        let tasks = self.lock()?;
        let now = Instant::now();
        Ok(tasks.by_id.values().any(|entry| {
            entry.context_id == context_id
                && entry.owner.as_deref() != Some(owner)
                && !self.expired(entry, now)
        }))
    }

    async fn set_push_config(
        &self,
        task_id: &str,
        config: &PushNotificationConfig,
        most: usize,
    ) -> Result<super::store::PushConfigSet, StoreError> {
        let mut tasks = self.lock()?;
        let now = Instant::now();
        let entry = tasks
            .by_id
            .get_mut(task_id)
            .filter(|entry| !self.expired(entry, now))
            .ok_or_else(|| StoreError::NotFound(task_id.to_string()))?;
        Ok(super::store::add_push_config(
            &mut entry.push_configs,
            config,
            most,
        ))
    }

    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushNotificationConfig>, StoreError> {
        let tasks = self.lock()?;
        let now = Instant::now();
        Ok(tasks
            .by_id
            .get(task_id)
            .filter(|entry| !self.expired(entry, now))
            .map(|entry| entry.push_configs.clone())
            .unwrap_or_default())
    }

    async fn erase_owner(&self, owner: &str) -> Result<ErasedTasks, StoreError> {
        // One critical section: no write sees half of it.
        let mut tasks = self.lock()?;
        let ids: Vec<String> = tasks
            .by_id
            .iter()
            .filter(|(_, entry)| entry.owner.as_deref() == Some(owner))
            .map(|(id, _)| id.clone())
            .collect();
        let mut contexts = HashSet::new();
        let mut erased = ErasedTasks::default();
        for id in ids {
            let Some(entry) = tasks.by_id.remove(&id) else {
                continue;
            };
            if let Some(message_id) = &entry.opened_by {
                tasks
                    .by_message
                    .remove(&(entry.owner.clone(), message_id.clone()));
            }
            if !entry.terminal {
                tasks.open_by_age.remove(&entry.sequence);
            }
            erased.tasks += 1;
            erased.push_configs += entry.push_configs.len() as u64;
            contexts.insert(entry.context_id);
        }
        let owner = Some(owner.to_string());
        tasks.open_by_owner.remove(&owner);
        tasks.finished.forget(&owner);
        erased.contexts = contexts.len() as u64;
        Ok(erased)
    }

    async fn delete_push_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError> {
        let mut tasks = self.lock()?;
        let Some(entry) = tasks.by_id.get_mut(task_id) else {
            return Ok(false);
        };
        let before = entry.push_configs.len();
        entry
            .push_configs
            .retain(|c| c.id.as_deref() != Some(config_id));
        Ok(entry.push_configs.len() != before)
    }
}

/// One task as the memory store holds it, for [`page_of`].
struct Listed<'a> {
    pub owner: Option<&'a str>,
    pub changed_ms: i64,
    pub id: &'a str,
    pub json: &'a str,
}

/// The page `query` asks for from all of the store's tasks (decoded only
/// when they are on the page), by the rules of [`TaskQuery`] and
/// [`PageCursor`].
fn page_of<'a>(
    query: &TaskQuery,
    candidates: impl Iterator<Item = (Listed<'a>, String, TaskState)>,
) -> Result<TaskPage, StoreError> {
    let mut matching: Vec<Listed<'a>> = candidates
        .filter(|(listed, context_id, state)| {
            query.matches(listed.owner, context_id, *state, listed.changed_ms)
        })
        .map(|(listed, _, _)| listed)
        .collect();
    let total = matching.len() as u64;
    matching.sort_by(|a, b| b.changed_ms.cmp(&a.changed_ms).then(b.id.cmp(a.id)));
    let mut rest = matching
        .into_iter()
        .filter(|listed| {
            query
                .after
                .as_ref()
                .is_none_or(|cursor| cursor.precedes(listed.changed_ms, listed.id))
        })
        .take(query.page_size + 1)
        .collect::<Vec<_>>();
    let more = rest.len() > query.page_size;
    rest.truncate(query.page_size);
    let next = more.then(|| rest.last()).flatten().map(|last| PageCursor {
        changed_ms: last.changed_ms,
        id: last.id.to_string(),
    });
    let tasks = rest
        .iter()
        .filter_map(|listed| match serde_json::from_str::<Task>(listed.json) {
            Ok(task) => Some(task),
            Err(error) => {
                let error = StoreError::corrupt(format!("task {}", listed.id), error);
                skipped_unreadable(listed.id, &error);
                None
            }
        })
        .collect();
    Ok(TaskPage { tasks, next, total })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::TaskState;
    use crate::tasks::contract::{
        Expect, behaves_like_a_task_store, bounds_like_a_task_store, erases_like_a_task_store,
        lists_like_a_task_store, task, trims_like_a_task_store,
    };
    use crate::tasks::settings::FinishedCaps;
    use std::time::Duration;

    #[tokio::test]
    async fn memory_behaves_like_a_task_store() {
        let store = InMemoryTaskStore::new(MemoryStoreLimits::default());
        behaves_like_a_task_store(&store, Expect::in_process()).await;
        lists_like_a_task_store(&store).await;
        bounds_like_a_task_store(&InMemoryTaskStore::new(MemoryStoreLimits::default())).await;
        let limits = MemoryStoreLimits {
            max_terminal_per_owner: 2,
            ..MemoryStoreLimits::default()
        };
        let caps = FinishedCaps {
            per_caller: 2,
            without_owner: limits.max_terminal,
        };
        trims_like_a_task_store(&InMemoryTaskStore::new(limits), caps).await;
        erases_like_a_task_store(&InMemoryTaskStore::new(MemoryStoreLimits::default())).await;
    }

    #[tokio::test]
    async fn finished_tasks_beyond_the_cap_are_evicted_open_ones_kept() {
        let limits = MemoryStoreLimits {
            max_terminal: 3,
            ..MemoryStoreLimits::default()
        };
        let store = InMemoryTaskStore::new(limits);
        store
            .create(&task("open", TaskState::InputRequired), &[], None)
            .await
            .unwrap();
        for i in 0..10 {
            store
                .create(&task(&format!("done-{i}"), TaskState::Completed), &[], None)
                .await
                .unwrap();
        }
        assert_eq!(store.len(), 4);
        assert!(store.get("open").await.unwrap().is_some());
        assert!(store.get("done-0").await.unwrap().is_none());
        assert!(store.get("done-9").await.unwrap().is_some());
    }

    /// The messages that opened tasks are remembered as long as their tasks
    /// are: one evicted past the cap takes its message with it, so the map
    /// is bounded as the tasks are; a repeat of a kept one still finds it.
    #[tokio::test]
    async fn an_evicted_task_takes_the_message_that_opened_it_along() {
        let limits = MemoryStoreLimits {
            max_terminal: 3,
            ..MemoryStoreLimits::default()
        };
        let store = InMemoryTaskStore::new(limits);
        for i in 0..10 {
            let mut opened = task(&format!("done-{i}"), TaskState::Completed);
            let mut message = crate::a2a::Message::agent_text("hello");
            message.role = crate::a2a::Role::User;
            message.message_id = format!("m-{i}");
            opened.history = Some(vec![message]);
            store.create(&opened, &[], Some("alice")).await.unwrap();
        }
        assert_eq!(store.opened_by(Some("alice"), "m-0").await, Ok(None));
        assert_eq!(
            store.opened_by(Some("alice"), "m-9").await,
            Ok(Some("done-9".into()))
        );
        let held = store.lock().map(|tasks| tasks.by_message.len()).unwrap();
        assert_eq!(held, 3, "one remembered message per task held");
    }

    #[tokio::test]
    async fn finished_tasks_expire_after_the_retention() {
        let limits = MemoryStoreLimits {
            retention: Duration::from_millis(0),
            ..MemoryStoreLimits::default()
        };
        let store = InMemoryTaskStore::new(limits);
        store
            .create(&task("done", TaskState::Completed), &[], None)
            .await
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert!(store.get("done").await.unwrap().is_none());
    }

    /// At the hard cap a new open task is refused; no open task (another
    /// caller's waiting approval) is dropped for it, and finished ones are
    /// still taken.
    #[tokio::test]
    async fn the_hard_cap_refuses_a_new_open_task_and_drops_none() {
        let limits = MemoryStoreLimits {
            max_open: 2,
            ..MemoryStoreLimits::default()
        };
        let store = InMemoryTaskStore::new(limits);
        store
            .create(
                &task("hers", TaskState::InputRequired),
                &[],
                Some("user:alice"),
            )
            .await
            .unwrap();
        store
            .create(
                &task("his", TaskState::InputRequired),
                &[],
                Some("user:bob"),
            )
            .await
            .unwrap();
        let refused = store
            .create(
                &task("more", TaskState::InputRequired),
                &[],
                Some("user:bob"),
            )
            .await
            .expect_err("the store is full");
        assert_eq!(refused, StoreError::Full(2));
        assert!(store.get("hers").await.unwrap().is_some());
        assert!(store.get("more").await.unwrap().is_none());
        store
            .create(&task("done", TaskState::Completed), &[], Some("user:bob"))
            .await
            .expect("a finished task is not open");
    }
}
