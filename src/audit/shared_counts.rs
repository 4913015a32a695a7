//! The outbox's counts as the worker last took them, for `/health`,
//! which answers from memory only (no query per health check).

use super::outbox::OutboxCounts;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Debug, Default)]
pub struct SharedCounts {
    queued: AtomicU64,
    kept_aside: AtomicU64,
}

impl SharedCounts {
    pub fn set(&self, counts: OutboxCounts) {
        self.queued.store(counts.queued, Relaxed);
        self.kept_aside.store(counts.kept_aside, Relaxed);
    }

    /// One more queued, until the worker counts again.
    pub fn queued_one(&self) {
        self.queued.fetch_add(1, Relaxed);
    }

    pub fn get(&self) -> OutboxCounts {
        OutboxCounts {
            queued: self.queued.load(Relaxed),
            kept_aside: self.kept_aside.load(Relaxed),
        }
    }
}
