//! Fault injection for the doubles: added latency for every request, and
//! rules that match a request by a substring of `"<METHOD> <decoded path and
//! query>"` and answer it with a scripted sequence of steps (each matching
//! request takes the next step; when the script is used up the request is
//! served normally) or always with one step. The first matching rule wins.

use std::collections::VecDeque;
use std::time::Duration;

/// What happens to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Served normally.
    Pass,
    /// Answered with this status (429 and 503 carry `Retry-After: 1`).
    Status(u16),
    /// Answered with this status and `Retry-After: <seconds>`.
    StatusRetryAfter(u16, u32),
    /// Served normally after this extra delay.
    Delay(Duration),
    /// Never answered (the connection stays open until the client gives up).
    Hang,
}

#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    script: VecDeque<Step>,
    always: Option<Step>,
}

#[derive(Debug, Clone, Default)]
pub struct Faults {
    pub latency: Duration,
    rules: Vec<Rule>,
}

impl Faults {
    /// Matching requests take `steps` in turn, then pass.
    pub fn script(&mut self, pattern: &str, steps: Vec<Step>) {
        self.rules.push(Rule {
            pattern: pattern.into(),
            script: steps.into(),
            always: None,
        });
    }

    /// Matching requests always take `step`.
    pub fn always(&mut self, pattern: &str, step: Step) {
        self.rules.push(Rule {
            pattern: pattern.into(),
            script: VecDeque::new(),
            always: Some(step),
        });
    }

    pub fn clear(&mut self) {
        self.rules.clear();
        self.latency = Duration::ZERO;
    }

    /// The step for a request described as `"<METHOD> <target>"`.
    pub fn next(&mut self, request: &str) -> Step {
        self.rules
            .retain(|rule| rule.always.is_some() || !rule.script.is_empty());
        for rule in &mut self.rules {
            if !request.contains(&rule.pattern) {
                continue;
            }
            if let Some(step) = rule.script.pop_front() {
                return step;
            }
            if let Some(step) = &rule.always {
                return step.clone();
            }
        }
        Step::Pass
    }
}

/// The `Retry-After` value a step's status carries, if any.
pub fn retry_after(step: &Step) -> Option<u32> {
    match step {
        Step::Status(429 | 503) => Some(1),
        Step::StatusRetryAfter(_, seconds) => Some(*seconds),
        _ => None,
    }
}

/// How long a hanging request waits (longer than any test).
pub const HANG: Duration = Duration::from_secs(3600);
