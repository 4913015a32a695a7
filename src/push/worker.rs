//! The ordered delivery worker: one per task with push configs, so a
//! task's notifications arrive in the order of its events, never blocking
//! the turn; the heartbeat, a `working` notification every
//! `push.heartbeat_ms` while the task works; and, at shutdown, the wait
//! for what is queued (the queue is in memory: what is not out when the
//! process ends is lost, and said so in the log).

use super::service::{Notification, PushService, lock};
use crate::a2a::{Task, TaskState};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::mpsc;

/// How often the shutdown looks whether the queue is empty.
const FLUSH_LOOK_EVERY: Duration = Duration::from_millis(20);

impl PushService {
    pub(super) fn enqueue(self: &Arc<Self>, task: Arc<Task>) {
        let mut workers = lock(&self.workers);
        let sender = workers.entry(task.id.clone()).or_insert_with(|| {
            let (sender, receiver) = mpsc::unbounded_channel::<Notification>();
            let service = Arc::clone(self);
            let task_id = task.id.clone();
            self.spawn(async move { service.work(task_id, receiver).await });
            sender
        });
        // The span that caused the notification (the turn) parents its
        // deliveries.
        self.undelivered.fetch_add(1, Ordering::SeqCst);
        if sender.send((task, tracing::Span::current())).is_err() {
            self.undelivered.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!("push worker gone; notification dropped");
        }
    }

    /// Run `job` on the service's home runtime (else the current one).
    fn spawn(&self, job: impl std::future::Future<Output = ()> + Send + 'static) {
        match &self.home {
            Some(home) => drop(home.spawn(job)),
            None => drop(tokio::spawn(job)),
        }
    }

    /// Wait until every notification queued is delivered or given up, at
    /// most until `deadline`; how many were left.
    pub(crate) async fn flush(&self, deadline: tokio::time::Instant) -> usize {
        loop {
            let left = self.undelivered.load(Ordering::SeqCst);
            if left == 0 || tokio::time::Instant::now() >= deadline {
                return left;
            }
            tokio::time::sleep(FLUSH_LOOK_EVERY).await;
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
            self.undelivered.fetch_sub(1, Ordering::SeqCst);
            if task.status.state.is_terminal() {
                break;
            }
        }
        lock(&self.workers).remove(&task_id);
        // Queued after the terminal state (a late heartbeat): not sent.
        queue.close();
        while queue.try_recv().is_ok() {
            self.undelivered.fetch_sub(1, Ordering::SeqCst);
        }
        // A finished task needs no snapshot or caller token any more; its
        // configs stay listable in the task store.
        lock(&self.tasks).remove(&task_id);
    }

    /// Send `working` notifications while the task works.
    pub(super) fn start_heartbeat(self: &Arc<Self>, task_id: String) {
        let service = Arc::clone(self);
        self.spawn(async move {
            loop {
                tokio::time::sleep(service.settings.heartbeat()).await;
                let beat = {
                    let mut tasks = lock(&service.tasks);
                    let Some(push) = tasks.get_mut(&task_id) else {
                        break;
                    };
                    match &push.last {
                        Some(task) if task.status.state == TaskState::Working => {
                            let mut beat = (**task).clone();
                            beat.status.message = Some(crate::tasks::working_note(
                                &beat,
                                crate::tasks::ResultPath::Push,
                                None,
                            ));
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
