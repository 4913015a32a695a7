//! The one scripted agent, for tests about the task lifecycle rather than
//! the specialists: it knows no rule book and no protocol, and does what the
//! test scripts — take its time, ask back on a task's first turn, panic on a
//! word — then answers `done: <text>`.

use super::{Agent, Outcome, Reply, Skill, Turn};
use async_trait::async_trait;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub struct ScriptedAgent {
    delay: Duration,
    asks_first: bool,
    panics_on: Option<&'static str>,
    /// Turns that got to the end (not stopped, not panicked).
    pub finished: AtomicUsize,
}

impl ScriptedAgent {
    /// Answers `done: <text>` after `delay` (zero: at once).
    pub fn answering_after(delay: Duration) -> ScriptedAgent {
        ScriptedAgent {
            delay,
            asks_first: false,
            panics_on: None,
            finished: AtomicUsize::new(0),
        }
    }

    /// The common case, shared: `done: <text>` after `delay_ms`.
    pub fn slow(delay_ms: u64) -> Arc<ScriptedAgent> {
        ScriptedAgent::answering_after(Duration::from_millis(delay_ms)).shared()
    }

    /// The first turn of a task asks back (`input-required`, "Which one?");
    /// the follow-ups answer.
    pub fn asking_first(self) -> ScriptedAgent {
        ScriptedAgent {
            asks_first: true,
            ..self
        }
    }

    /// A turn whose text contains `word` panics (after the delay).
    pub fn panicking_on(self, word: &'static str) -> ScriptedAgent {
        ScriptedAgent {
            panics_on: Some(word),
            ..self
        }
    }

    pub fn shared(self) -> Arc<ScriptedAgent> {
        Arc::new(self)
    }
}

#[async_trait]
impl Agent for ScriptedAgent {
    fn skills(&self) -> Vec<&'static Skill> {
        Vec::new()
    }

    async fn respond(&self, turn: Turn) -> Reply {
        tokio::time::sleep(self.delay).await;
        if self.panics_on.is_some_and(|word| turn.text.contains(word)) {
            panic!("scripted failure");
        }
        let reply = if self.asks_first && turn.earlier.is_empty() {
            Reply::new(Outcome::InputRequired, "Which one?")
        } else {
            Reply::new(Outcome::Completed, format!("done: {}", turn.text))
        };
        self.finished.fetch_add(1, Ordering::SeqCst);
        reply
    }
}
