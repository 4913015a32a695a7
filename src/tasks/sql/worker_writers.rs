//! PostgreSQL's task writers on the actix workers: a task write made on an
//! actix worker goes to a writer task on that worker's own runtime, with a
//! connection of its own, so the write, its batch, the round trip to
//! PostgreSQL and every answer stay on the worker's thread.
//!
//! Why: through the one writer on the multi-thread runtime
//! (`group_commit::start`) every write crossed to a runtime thread and its
//! answer crossed back; a third of those threads' time went to the
//! scheduler. With a writer per worker the service takes less CPU per
//! stored request and serves more requests, and the batches stay as large:
//! each worker's requests queue behind its own writer's commit (measured in
//! bench/README.md).
//!
//! Writes made elsewhere (turns running on the multi-thread runtime, the
//! maintenance) go to the shared writer, as do those of workers past the
//! limit: each writer keeps a connection of the pool, so at most half of
//! it (less the shared writer's) goes to per-worker writers. A worker's
//! writer ends with the worker's runtime; a write that finds its writer
//! gone takes the shared one.

use super::group_commit::{self, MAX_BATCH, OutcomeSender, Write, Writes};
use sqlx::AnyPool;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::mpsc;

/// Tells the stores apart in a thread's list of writers.
static NEXT_STORE: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The writers on this thread's runtime, by store.
    static WRITERS: RefCell<Vec<(u64, Writes)>> = const { RefCell::new(Vec::new()) };
}

/// A store's writers: one per actix worker (up to `limit`), and the shared
/// one.
pub(super) struct WorkerWriters {
    store: u64,
    pool: AnyPool,
    async_commit: bool,
    shared: Writes,
    /// Per-worker writers running now.
    running: Arc<AtomicUsize>,
    limit: usize,
}

impl WorkerWriters {
    /// Writers on `pool` beside `shared`; at most half the pool less one
    /// (the shared writer's connection) runs per worker.
    pub(super) fn new(pool: AnyPool, async_commit: bool, shared: Writes) -> Self {
        let pool_size = pool.options().get_max_connections() as usize;
        Self::with_limit(pool, async_commit, shared, pool_size.saturating_sub(1) / 2)
    }

    fn with_limit(pool: AnyPool, async_commit: bool, shared: Writes, limit: usize) -> Self {
        WorkerWriters {
            store: NEXT_STORE.fetch_add(1, Ordering::Relaxed),
            pool,
            async_commit,
            shared,
            running: Arc::new(AtomicUsize::new(0)),
            limit,
        }
    }

    /// Hand `write` to this worker's writer, else to the shared one; `Err`
    /// when no writer takes it (the runtime is shutting down).
    pub(super) async fn send(
        &self,
        write: Write,
        reply: OutcomeSender,
    ) -> Result<(), mpsc::error::SendError<(Write, OutcomeSender)>> {
        let mut item = (write, reply);
        if let Some(writes) = self.worker_writer() {
            match writes.send(item).await {
                Ok(()) => return Ok(()),
                // Its runtime ended between the look and the send.
                Err(mpsc::error::SendError(returned)) => item = returned,
            }
        }
        self.shared.send(item).await
    }

    /// The writer on this thread's runtime, started on first use; `None`
    /// on the multi-thread runtime (its tasks move between threads) and
    /// past the limit. A thread is taken to drive one current-thread
    /// runtime at a time, as an actix worker does for its life: a second
    /// one alive on the same thread would find the first one's writer.
    fn worker_writer(&self) -> Option<Writes> {
        let runtime = Handle::try_current().ok()?;
        if runtime.runtime_flavor() != RuntimeFlavor::CurrentThread {
            return None;
        }
        WRITERS.with(|writers| {
            let mut writers = writers.borrow_mut();
            // A writer whose runtime ended (a stopped worker, a test's
            // runtime before this one on the thread) is forgotten.
            writers.retain(|(_, writes)| !writes.is_closed());
            if let Some((_, writes)) = writers.iter().find(|(store, _)| *store == self.store) {
                return Some(writes.clone());
            }
            let slot = Slot::take(&self.running, self.limit)?;
            let (writes, queue) = mpsc::channel(4 * MAX_BATCH);
            let pool = self.pool.clone();
            let async_commit = self.async_commit;
            runtime.spawn(async move {
                let _slot = slot;
                group_commit::run_writer(pool, queue, false, async_commit).await;
            });
            writers.push((self.store, writes.clone()));
            Some(writes)
        })
    }

    #[cfg(test)]
    fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }
}

/// One of the `limit` per-worker writers; given back when its task ends or
/// is dropped with its runtime.
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(running: &Arc<AtomicUsize>, limit: usize) -> Option<Slot> {
        running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
                (now < limit).then_some(now + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(running)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{Database, test_support};
    use crate::tasks::sql::group_commit::WriteOutcome;
    use crate::tasks::sql::group_commit::test_writes::create;
    use tokio::runtime::Runtime;
    use tokio::sync::oneshot;

    /// A multi-thread runtime (as the service's) with a fresh PostgreSQL
    /// schema opened on it and the store's shared writer; `None` (said
    /// skipped) without PostgreSQL.
    fn service_runtime(test: &str) -> Option<(Runtime, Database, Writes)> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let db = runtime.block_on(test_support::postgres(test))?;
        let shared = runtime.block_on(async { group_commit::start(&db, true) });
        Some((runtime, db, shared))
    }

    /// A runtime like an actix worker's.
    fn worker_runtime() -> Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    async fn write(writers: &WorkerWriters, id: &str) -> WriteOutcome {
        let (reply, answer) = oneshot::channel();
        writers.send(create(id, "{}"), reply).await.unwrap();
        answer.await.unwrap().unwrap()
    }

    #[test]
    fn a_worker_runtime_gets_a_writer_of_its_own_and_the_next_one_a_new_one() {
        let Some((runtime, db, shared)) =
            service_runtime("a_worker_runtime_gets_a_writer_of_its_own_and_the_next_one_a_new_one")
        else {
            return;
        };
        let writers = WorkerWriters::with_limit(db.pool.clone(), true, shared, 1);
        worker_runtime().block_on(async {
            assert!(matches!(
                write(&writers, "w1").await,
                WriteOutcome::Created(true)
            ));
            assert_eq!(writers.running(), 1, "this runtime's writer runs");
            assert!(matches!(
                write(&writers, "w1").await,
                WriteOutcome::Created(false)
            ));
            assert_eq!(
                writers.running(),
                1,
                "the same writer took the second write"
            );
        });
        assert_eq!(writers.running(), 0, "the writer ended with its runtime");
        worker_runtime().block_on(async {
            assert!(matches!(
                write(&writers, "w2").await,
                WriteOutcome::Created(true)
            ));
            assert_eq!(writers.running(), 1, "a new writer on the new runtime");
        });
        let stored: i64 = runtime.block_on(async {
            sqlx::query_scalar("SELECT COUNT(*) FROM tasks WHERE id IN ('w1', 'w2')")
                .fetch_one(&db.pool)
                .await
                .unwrap()
        });
        assert_eq!(stored, 2);
    }

    #[test]
    fn past_the_limit_and_on_the_multi_thread_runtime_writes_take_the_shared_writer() {
        let Some((runtime, db, shared)) = service_runtime(
            "past_the_limit_and_on_the_multi_thread_runtime_writes_take_the_shared_writer",
        ) else {
            return;
        };
        let none_of_its_own = WorkerWriters::with_limit(db.pool.clone(), true, shared.clone(), 0);
        worker_runtime().block_on(async {
            assert!(matches!(
                write(&none_of_its_own, "s1").await,
                WriteOutcome::Created(true)
            ));
            assert_eq!(
                none_of_its_own.running(),
                0,
                "limit 0: the shared writer took it"
            );
        });
        let writers = Arc::new(WorkerWriters::with_limit(db.pool.clone(), true, shared, 4));
        let on_the_runtime = Arc::clone(&writers);
        let outcome = runtime.block_on(async move {
            tokio::spawn(async move { write(&on_the_runtime, "s2").await })
                .await
                .unwrap()
        });
        assert!(matches!(outcome, WriteOutcome::Created(true)));
        assert_eq!(
            writers.running(),
            0,
            "no writer of its own on the multi-thread runtime"
        );
    }
}
