//! How many event streams are open: in all, per caller and per task, and
//! the refusal past a bound. A stream keeps its connection for as long as
//! it runs (a 1.0 subscription to a waiting task: up to a day), so without
//! bounds one caller could hold every connection of the instance and leave
//! none for other callers' short calls or for `GET /health`. A slot is
//! taken after the call is decoded and before it runs (a refused stream
//! starts no task and follows none), and given back when its stream is
//! dropped: at its end, or when the client goes.

use crate::a2a::RpcError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The JSON-RPC code of a refusal past a bound: cap-js/agents' code for
/// its quotas (answered with HTTP 429 too). A2A lets servers define codes
/// in -32000…-32099 and uses -32001…-32009 itself.
pub const LIMIT_REACHED: i64 = -32029;

/// The wait a refused caller is told (`Retry-After`): streams end with
/// their tasks' turns, a few seconds on the usual questions.
pub const RETRY_AFTER_SECS: u64 = 5;

/// The bounds on open streams (`server.max_streams`,
/// `server.streams_per_caller`, `server.streams_per_task`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    pub open: usize,
    pub per_caller: usize,
    pub per_task: usize,
}

/// The open streams, counted. Cheap to clone: the counts are shared.
#[derive(Debug, Clone)]
pub struct StreamSlots {
    limits: StreamLimits,
    counts: Arc<Mutex<Counts>>,
}

#[derive(Debug, Default)]
struct Counts {
    open: usize,
    callers: HashMap<String, usize>,
    tasks: HashMap<String, usize>,
}

/// One open stream's place in the counts, given back on drop.
#[derive(Debug)]
pub struct StreamSlot {
    counts: Arc<Mutex<Counts>>,
    caller: Option<String>,
    task: Option<String>,
}

/// Which bound a refused stream met.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamLimitReached {
    #[error("the instance has {0} event streams open, its most (server.max_streams)")]
    Instance(usize),
    #[error("you have {0} event streams open, the most a caller may (server.streams_per_caller)")]
    Caller(usize),
    #[error(
        "task {task_id} has {limit} event streams open, the most a task may (server.streams_per_task)"
    )]
    Task { task_id: String, limit: usize },
}

impl StreamSlots {
    pub fn new(limits: StreamLimits) -> StreamSlots {
        StreamSlots {
            limits,
            counts: Arc::default(),
        }
    }

    /// A slot for a stream of `caller` (`None`: one caller for the whole
    /// instance, authentication off, where only the instance bound counts
    /// for callers) on `task` (`None`: a task the stream creates), or the
    /// bound it would pass.
    pub fn take(
        &self,
        caller: Option<&str>,
        task: Option<&str>,
    ) -> Result<StreamSlot, StreamLimitReached> {
        let limits = self.limits;
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if counts.open >= limits.open {
            return Err(StreamLimitReached::Instance(limits.open));
        }
        let held = |map: &HashMap<String, usize>, key: Option<&str>| {
            key.and_then(|key| map.get(key)).copied().unwrap_or(0)
        };
        if caller.is_some() && held(&counts.callers, caller) >= limits.per_caller {
            return Err(StreamLimitReached::Caller(limits.per_caller));
        }
        if let Some(task_id) = task
            && held(&counts.tasks, task) >= limits.per_task
        {
            return Err(StreamLimitReached::Task {
                task_id: task_id.to_string(),
                limit: limits.per_task,
            });
        }
        let Counts {
            open,
            callers,
            tasks,
        } = &mut *counts;
        *open += 1;
        for (map, key) in [(callers, caller), (tasks, task)] {
            if let Some(key) = key {
                *map.entry(key.to_string()).or_default() += 1;
            }
        }
        Ok(StreamSlot {
            counts: self.counts.clone(),
            caller: caller.map(str::to_string),
            task: task.map(str::to_string),
        })
    }

    /// Streams open now, and the most there may be.
    pub fn open(&self) -> (usize, usize) {
        let open = self
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .open;
        (open, self.limits.open)
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts.open = counts.open.saturating_sub(1);
        let Counts { callers, tasks, .. } = &mut *counts;
        for (map, key) in [(callers, &self.caller), (tasks, &self.task)] {
            if let Some(key) = key
                && let Some(count) = map.get_mut(key)
            {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    map.remove(key);
                }
            }
        }
    }
}

impl StreamLimitReached {
    /// The bound's label on `a2a.limit.refusals`.
    pub fn label(&self) -> &'static str {
        match self {
            StreamLimitReached::Instance(_) => "streams",
            StreamLimitReached::Caller(_) => "streams_per_caller",
            StreamLimitReached::Task { .. } => "streams_per_task",
        }
    }

    /// The JSON-RPC error: the code, the bound in words, and in `data` the
    /// setting that sets it and the wait (as `Retry-After` says).
    pub fn rpc_error(&self) -> RpcError {
        let (setting, limit) = match self {
            StreamLimitReached::Instance(limit) => ("server.max_streams", limit),
            StreamLimitReached::Caller(limit) => ("server.streams_per_caller", limit),
            StreamLimitReached::Task { limit, .. } => ("server.streams_per_task", limit),
        };
        RpcError::new(
            LIMIT_REACHED,
            format!("{self}; close one or retry after {RETRY_AFTER_SECS} s"),
        )
        .with_data(serde_json::json!({
            "limit": setting,
            "max": limit,
            "retryAfterSeconds": RETRY_AFTER_SECS,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots() -> StreamSlots {
        StreamSlots::new(StreamLimits {
            open: 4,
            per_caller: 2,
            per_task: 1,
        })
    }

    #[test]
    fn each_bound_refuses_the_stream_past_it_and_a_dropped_slot_frees_its_place() {
        let slots = slots();
        let first = slots.take(Some("user:a"), Some("t-1")).expect("a slot");
        assert_eq!(
            slots.take(Some("user:b"), Some("t-1")).unwrap_err(),
            StreamLimitReached::Task {
                task_id: "t-1".into(),
                limit: 1
            }
        );
        let _second = slots.take(Some("user:a"), None).expect("a slot");
        assert_eq!(
            slots.take(Some("user:a"), None).unwrap_err(),
            StreamLimitReached::Caller(2)
        );
        let _local = [slots.take(None, None), slots.take(None, None)];
        assert_eq!(slots.open(), (4, 4));
        assert_eq!(
            slots.take(Some("user:c"), None).unwrap_err(),
            StreamLimitReached::Instance(4)
        );
        drop(first);
        assert_eq!(slots.open(), (3, 4));
        let again = slots.take(Some("user:b"), Some("t-1")).expect("freed");
        assert_eq!(again.task.as_deref(), Some("t-1"));
    }

    #[test]
    fn the_error_names_the_setting_and_the_wait() {
        let error = StreamLimitReached::Caller(8).rpc_error();
        assert_eq!(error.code, LIMIT_REACHED);
        assert!(error.message.contains("server.streams_per_caller"));
        let data = error.data.expect("data");
        assert_eq!(data["limit"], "server.streams_per_caller");
        assert_eq!(data["max"], 8);
        assert_eq!(data["retryAfterSeconds"], RETRY_AFTER_SECS);
    }
}
