//! The in-memory store's finished tasks, in the order they finished and per
//! owner, so that what is purged is the flooding caller's: past its own cap
//! (`tasks.max_finished_per_caller`) a caller's oldest finished task goes;
//! past the instance's cap (`tasks.max_finished`) the oldest of the owner
//! holding the most goes. A caller within its share of the instance's cap
//! never loses a task to another caller's load. With authentication off
//! (owner `None`, one local caller) the caller's cap is the instance's.

use super::settings::MemoryStoreLimits;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Instant;

type Owner = Option<String>;

struct FinishedTask {
    at: Instant,
    id: String,
    owner: Owner,
}

/// Finished tasks by finishing order, and each owner's.
#[derive(Default)]
pub(super) struct FinishedTasks {
    /// Every finished task by its finishing number (oldest first).
    in_order: BTreeMap<u64, FinishedTask>,
    /// Each owner's finishing numbers, oldest first.
    by_owner: HashMap<Owner, VecDeque<u64>>,
    next: u64,
}

impl FinishedTasks {
    /// `id` of `owner` finished `at`; the ids this purges (the owner's
    /// oldest past its cap, then the largest holder's past the instance's).
    pub(super) fn add(
        &mut self,
        at: Instant,
        id: String,
        owner: Owner,
        limits: &MemoryStoreLimits,
    ) -> Vec<String> {
        let number = self.next;
        self.next += 1;
        self.by_owner
            .entry(owner.clone())
            .or_default()
            .push_back(number);
        let cap = match owner {
            Some(_) => limits.max_terminal_per_owner,
            None => limits.max_terminal,
        };
        self.in_order.insert(
            number,
            FinishedTask {
                at,
                id,
                owner: owner.clone(),
            },
        );
        let mut purged = Vec::new();
        while self.count_of(&owner) > cap {
            purged.extend(self.pop_oldest_of(&owner));
        }
        while self.in_order.len() > limits.max_terminal {
            let Some(largest) = self.largest_holder() else {
                break;
            };
            purged.extend(self.pop_oldest_of(&largest));
        }
        purged
    }

    /// The ids of tasks finished longer than `limits.retention` before `now`.
    pub(super) fn expire(&mut self, now: Instant, limits: &MemoryStoreLimits) -> Vec<String> {
        let mut expired = Vec::new();
        while let Some((_, oldest)) = self.in_order.first_key_value() {
            if now.duration_since(oldest.at) <= limits.retention {
                break;
            }
            let owner = oldest.owner.clone();
            // The oldest of all is its owner's oldest.
            expired.extend(self.pop_oldest_of(&owner));
        }
        expired
    }

    /// Forget every finished task of `owner` (its tasks were erased).
    pub(super) fn forget(&mut self, owner: &Owner) {
        for number in self.by_owner.remove(owner).into_iter().flatten() {
            self.in_order.remove(&number);
        }
    }

    fn count_of(&self, owner: &Owner) -> usize {
        self.by_owner.get(owner).map_or(0, VecDeque::len)
    }

    /// The owner with the most finished tasks (of equals, the one whose
    /// oldest finished first).
    fn largest_holder(&self) -> Option<Owner> {
        self.by_owner
            .iter()
            .max_by(|(_, a), (_, b)| a.len().cmp(&b.len()).then(b.front().cmp(&a.front())))
            .map(|(owner, _)| owner.clone())
    }

    fn pop_oldest_of(&mut self, owner: &Owner) -> Option<String> {
        let numbers = self.by_owner.get_mut(owner)?;
        let number = numbers.pop_front();
        if numbers.is_empty() {
            self.by_owner.remove(owner);
        }
        self.in_order.remove(&number?).map(|task| task.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_owner: usize, instance: usize) -> MemoryStoreLimits {
        MemoryStoreLimits {
            max_terminal_per_owner: per_owner,
            max_terminal: instance,
            ..MemoryStoreLimits::default()
        }
    }

    fn add(
        tasks: &mut FinishedTasks,
        id: &str,
        owner: &str,
        limits: &MemoryStoreLimits,
    ) -> Vec<String> {
        tasks.add(Instant::now(), id.into(), Some(owner.into()), limits)
    }

    #[test]
    fn a_caller_past_its_cap_loses_its_own_oldest() {
        let limits = limits(2, 100);
        let mut tasks = FinishedTasks::default();
        assert!(add(&mut tasks, "hers", "alice", &limits).is_empty());
        add(&mut tasks, "b1", "bob", &limits);
        add(&mut tasks, "b2", "bob", &limits);
        assert_eq!(add(&mut tasks, "b3", "bob", &limits), ["b1"]);
        assert_eq!(add(&mut tasks, "b4", "bob", &limits), ["b2"]);
        assert_eq!(tasks.count_of(&Some("alice".into())), 1);
    }

    #[test]
    fn past_the_instance_cap_the_largest_holder_loses_its_oldest() {
        let limits = limits(10, 4);
        let mut tasks = FinishedTasks::default();
        add(&mut tasks, "a1", "alice", &limits);
        for n in 1..=3 {
            add(&mut tasks, &format!("b{n}"), "bob", &limits);
        }
        assert_eq!(add(&mut tasks, "c1", "carol", &limits), ["b1"]);
        // Two each of alice and bob: alice's oldest finished first.
        assert_eq!(add(&mut tasks, "a2", "alice", &limits), ["a1"]);
        assert_eq!(add(&mut tasks, "c2", "carol", &limits), ["b2"]);
    }

    #[test]
    fn a_forgotten_owner_holds_nothing_and_others_keep_theirs() {
        let limits = limits(10, 3);
        let mut tasks = FinishedTasks::default();
        add(&mut tasks, "a1", "alice", &limits);
        add(&mut tasks, "b1", "bob", &limits);
        add(&mut tasks, "a2", "alice", &limits);
        tasks.forget(&Some("alice".into()));
        assert_eq!(tasks.count_of(&Some("alice".into())), 0);
        assert_eq!(tasks.count_of(&Some("bob".into())), 1);
        // Alice's two places are free: two more fit before bob's goes.
        assert!(add(&mut tasks, "c1", "carol", &limits).is_empty());
        assert!(add(&mut tasks, "c2", "carol", &limits).is_empty());
        assert_eq!(add(&mut tasks, "c3", "carol", &limits), ["c1"]);
    }

    #[test]
    fn without_an_owner_the_cap_is_the_instances() {
        let limits = limits(1, 3);
        let mut tasks = FinishedTasks::default();
        for n in 0..3 {
            assert!(
                tasks
                    .add(Instant::now(), format!("t{n}"), None, &limits)
                    .is_empty()
            );
        }
        assert_eq!(
            tasks.add(Instant::now(), "t3".into(), None, &limits),
            ["t0"]
        );
    }
}
