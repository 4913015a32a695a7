//! One fetch at a time per key (single flight): concurrent misses for the
//! same key set wait for the first one's fetch instead of each asking the
//! identity service. A key's lock lives only while someone holds or waits
//! for it, so keys a caller makes up (a new `azp` on every forged token)
//! leave nothing behind.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, Weak};

type KeyLock = tokio::sync::Mutex<()>;

/// Above this many entries, an acquisition first sweeps out the locks
/// nobody holds (left by a waiter cancelled at the wrong moment).
const SWEEP_ABOVE: usize = 64;

pub struct FetchLocks<K> {
    locks: Mutex<HashMap<K, Weak<KeyLock>>>,
}

/// The right to fetch `key` now; dropping it lets the next waiter in and,
/// when nobody waits, removes the key's lock.
pub struct FetchTurn<'a, K: Hash + Eq> {
    locks: &'a FetchLocks<K>,
    key: K,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl<K: Hash + Eq + Clone> Default for FetchLocks<K> {
    fn default() -> Self {
        FetchLocks {
            locks: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq + Clone> FetchLocks<K> {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<K, Weak<KeyLock>>> {
        // Every change is one insert or remove: a poisoned map is still whole.
        self.locks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wait for `key`'s turn.
    pub async fn acquire(&self, key: &K) -> FetchTurn<'_, K> {
        let lock = {
            let mut locks = self.map();
            if locks.len() > SWEEP_ABOVE {
                locks.retain(|_, lock| lock.strong_count() > 0);
            }
            match locks.get(key).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(KeyLock::new(()));
                    locks.insert(key.clone(), Arc::downgrade(&lock));
                    lock
                }
            }
        };
        let mut turn = FetchTurn {
            locks: self,
            key: key.clone(),
            guard: None,
        };
        // If this wait is cancelled, `turn` is dropped and cleans up.
        turn.guard = Some(lock.lock_owned().await);
        turn
    }

    /// How many keys have a lock (held or waited for).
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.map().len()
    }
}

impl<K: Hash + Eq> Drop for FetchTurn<'_, K> {
    fn drop(&mut self) {
        // Release first, so the lock's count says whether anyone waits.
        self.guard.take();
        let mut locks = self
            .locks
            .locks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if locks
            .get(&self.key)
            .is_some_and(|lock| lock.strong_count() == 0)
        {
            locks.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test]
    async fn locks_of_distinct_keys_are_dropped_after_their_fetch() {
        let locks = Arc::new(FetchLocks::<String>::default());
        let tasks: Vec<_> = (0..200)
            .map(|n| {
                let locks = Arc::clone(&locks);
                tokio::spawn(async move {
                    let _turn = locks.acquire(&format!("azp-{n}")).await;
                    tokio::task::yield_now().await;
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(locks.held(), 0);
    }

    #[tokio::test]
    async fn one_key_is_fetched_by_one_at_a_time_and_its_lock_then_goes() {
        let locks = Arc::new(FetchLocks::<&str>::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let most_inside = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..20)
            .map(|_| {
                let (locks, inside, most_inside) = (
                    Arc::clone(&locks),
                    Arc::clone(&inside),
                    Arc::clone(&most_inside),
                );
                tokio::spawn(async move {
                    let _turn = locks.acquire(&"same").await;
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most_inside.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(most_inside.load(Ordering::SeqCst), 1);
        assert_eq!(locks.held(), 0);
    }

    #[tokio::test]
    async fn a_waiter_cancelled_while_waiting_leaves_nothing_behind() {
        let locks = FetchLocks::<&str>::default();
        let held = locks.acquire(&"key").await;
        let waiting = tokio::time::timeout(Duration::from_millis(10), locks.acquire(&"key")).await;
        assert!(waiting.is_err(), "the second waiter times out");
        drop(held);
        assert_eq!(locks.held(), 0);
    }
}
