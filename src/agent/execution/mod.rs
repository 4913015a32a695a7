//! Carrying approved actions out, exactly once. The ledger row filed first
//! decides whether an action happens; an [`ActionExecutor`] then does it
//! (the ledger-only default does nothing more; `s4`: in S/4HANA as the
//! approver) under a claim on the row, and the outcome moves the row to
//! `done`, `failed` (a permanent refusal, with the reason) or `retrying`
//! (a transient one, tried again by [`Executions::run_due`] with backoff, at
//! most `actions.max_attempts` times). Before any write the executor checks
//! whether S/4HANA already shows the change, so a crash between the ledger
//! and S/4HANA, a retried turn or a second instance never executes twice.
//!
//! On-call sees every attempt: counted by action, outcome and error type,
//! an `action.execute` span (ERROR when the action failed for good, with a
//! warning naming action, ledger key and task); a later attempt of the
//! retry job is a trace of its own, linked to the approval's trace kept
//! with the row and logged under the approval's correlation id, so "I
//! approved it in task X" can be followed past the first attempt.
//!
//! Auditors see every write: an attempt's writes are data modifications
//! (`modifications`), stored with the row's outcome in one transaction
//! where the ledger and the audit outbox share the SQL database.

pub mod approved;
pub mod date;
pub mod hook;
pub mod modifications;
pub mod s4;
pub mod said;
mod settings;

pub use modifications::Modifications;
pub use said::{Change, Reason, Said};
pub use settings::{ActionSettings, ExecutorKind, NoteTextIdError};

use super::language::Language;
use super::ledger::{ActionKey, ActionLedger, Claim, ExecutionState, Finish, LedgerEntry};
use crate::secret::BearerToken;
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What one attempt did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Executed {
    /// Nothing to carry out: the ledger row is the action.
    LedgerOnly,
    /// Carried out now: what S/4HANA shows.
    Done(Change),
    /// S/4HANA already showed the change; treated as done.
    AlreadyDone(Change),
    /// Refused for good: the class of the refusal (`forbidden`, `stale`,
    /// `not_found`, `identity`, `refused`: `error.type` on the span and the
    /// metric) and why.
    Refused(&'static str, Reason),
    /// No answer (timeout, 429, 5xx): its class (`transient`,
    /// `hook_unavailable`) and why; worth another attempt.
    Transient(&'static str, Reason),
    /// The note is on the order, but the action hook refused it for good.
    HookRefused(String),
}

/// Carries out one approved action; the seam the backend's writes sit behind.
#[async_trait]
pub trait ActionExecutor: Send + Sync {
    /// Whether the delivery date change needs the customer's date (asked
    /// before the approval question).
    fn needs_delivery_date(&self) -> bool {
        false
    }

    /// Whether an attempt needs the approver's own token (principal
    /// propagation): then a retry runs only where the token is known.
    fn needs_user(&self) -> bool {
        false
    }

    /// Whether the ledger row is all there is to it: then an approval is
    /// filed `done` at once, with no claim, attempt or finish after it.
    fn records_only(&self) -> bool {
        false
    }

    /// One attempt; every write it makes in S/4HANA goes into `made`.
    async fn execute(
        &self,
        entry: &LedgerEntry,
        user: Option<&BearerToken>,
        made: &Modifications,
    ) -> Executed;
}

/// Where a result that arrives after the answer goes (a push notification
/// to the approver's client); wired by `startup.rs` to the task engine.
#[async_trait]
pub trait ResultNotifier: Send + Sync {
    /// `said` is written in the language of the task `entry` names.
    async fn later(&self, entry: &LedgerEntry, said: &Said, user: Option<&BearerToken>);
}

/// Today's behaviour: the ledger row is all.
pub struct LedgerOnly;

/// The answer a row carried out by the ledger alone keeps.
pub const LEDGER_ONLY: &str = "ledger only";

#[async_trait]
impl ActionExecutor for LedgerOnly {
    fn records_only(&self) -> bool {
        true
    }

    async fn execute(
        &self,
        _entry: &LedgerEntry,
        _user: Option<&BearerToken>,
        _made: &Modifications,
    ) -> Executed {
        Executed::LedgerOnly
    }
}

/// The outcome, and what the user reads about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub state: ExecutionState,
    /// Nothing for the ledger only (the filing text says it all).
    pub said: Said,
    /// The row as the attempt left it (`None`: it could not be read back).
    pub entry: Option<LedgerEntry>,
}

/// The executor with the ledger it moves, and the tokens of approvers whose
/// actions wait for a retry (in this process only; never stored).
pub struct Executions {
    ledger: Arc<dyn ActionLedger>,
    executor: Arc<dyn ActionExecutor>,
    settings: ActionSettings,
    instance: String,
    tokens: Mutex<HashMap<ActionKey, BearerToken>>,
    notifier: std::sync::OnceLock<Arc<dyn ResultNotifier>>,
    /// Where the writes' data modifications go.
    audit: crate::audit::Audit,
}

impl Executions {
    pub fn new(
        ledger: Arc<dyn ActionLedger>,
        executor: Arc<dyn ActionExecutor>,
        settings: ActionSettings,
    ) -> Self {
        Executions {
            ledger,
            executor,
            settings,
            instance: uuid::Uuid::new_v4().simple().to_string(),
            tokens: Mutex::new(HashMap::new()),
            notifier: std::sync::OnceLock::new(),
            audit: crate::audit::Audit::default(),
        }
    }

    /// Report the writes of approved actions to `audit` (without: as
    /// `type: audit` log lines).
    pub fn with_audit(mut self, audit: crate::audit::Audit) -> Self {
        self.audit = audit;
        self
    }

    /// Send results that arrive after the answer here (set once).
    pub fn set_notifier(&self, notifier: Arc<dyn ResultNotifier>) {
        let _ = self.notifier.set(notifier);
    }

    /// The ledger only (the default, and the embedded backend).
    pub fn ledger_only(ledger: Arc<dyn ActionLedger>) -> Self {
        Self::new(ledger, Arc::new(LedgerOnly), ActionSettings::default())
    }

    pub fn needs_delivery_date(&self) -> bool {
        self.executor.needs_delivery_date()
    }

    /// Whether an approval is filed `done` at once (the ledger-only
    /// executor): the row as it is filed then, `entry` marked done, so
    /// that filing it is the whole of carrying it out (one statement
    /// instead of an insert, a claim and a finish with their reads).
    pub fn filed_done(&self, mut entry: LedgerEntry) -> LedgerEntry {
        if self.executor.records_only() {
            entry.state = ExecutionState::Done;
            entry.answer = Some(LEDGER_ONLY.to_string());
        }
        entry
    }

    /// A row filed `done` at once counts as an attempt that was done, as
    /// one carried out after its filing would.
    pub fn count_filed_done(&self, entry: &LedgerEntry) {
        if self.executor.records_only() && entry.state == ExecutionState::Done {
            crate::telemetry::metrics::action_executed(&entry.key.action, "done", None);
        }
    }

    fn claim(&self, due_only: bool) -> Claim {
        Claim {
            owner: format!("{}-{}", self.instance, uuid::Uuid::new_v4().simple()),
            lease_ms: self.settings.lease_ms,
            due_only,
            stale_ms: self.settings.lease_ms,
        }
    }

    /// Carry `entry` out now (right after filing, or when it is approved
    /// again while still open).
    pub async fn run(&self, entry: &LedgerEntry, user: Option<&BearerToken>) -> Report {
        self.attempt(entry, user, false).await
    }

    async fn attempt(
        &self,
        entry: &LedgerEntry,
        user: Option<&BearerToken>,
        due_only: bool,
    ) -> Report {
        let claim = self.claim(due_only);
        let claimed = match self.ledger.claim(&entry.key, &claim).await {
            Ok(Some(claimed)) => claimed,
            Ok(None) => return self.as_it_stands(entry).await,
            Err(error) => {
                tracing::error!(%error, sales_order = %entry.key.sales_order, "claiming the ledger row failed");
                return Report {
                    state: entry.state,
                    said: Said::TriedAgain,
                    entry: None,
                };
            }
        };
        let ledger_key = claimed.key.idempotency_key();
        let span = tracing::info_span!(
            "action.execute",
            otel.name = "action.execute",
            action.name = claimed.key.action.as_str(),
            sap.sales_order = claimed.key.sales_order.as_str(),
            ledger.key = ledger_key.as_str(),
            a2a.task.id = claimed.task_id.as_str(),
            action.outcome = tracing::field::Empty,
            action.attempts = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
        );
        let made = Modifications::of(&claimed);
        let executed = tracing::Instrument::instrument(
            self.executor.execute(&claimed, user, &made),
            span.clone(),
        )
        .await;
        let attempts = claimed.attempts + 1;
        let (mut finish, report, error_type) = self.outcome(&claimed, executed, attempts);
        // The writes' messages go with the outcome, in its transaction.
        let messages = crate::audit::ChangeMessages::new(&self.audit, made.take());
        finish.audit = messages.rows();
        span.record("action.outcome", finish.state.as_str());
        span.record("action.attempts", i64::from(attempts));
        crate::telemetry::metrics::action_executed(
            &claimed.key.action,
            finish.state.as_str(),
            error_type,
        );
        match (finish.state, error_type) {
            (ExecutionState::Failed, Some(error_type)) => {
                let reason = finish.answer.as_deref().unwrap_or_default();
                // S/4HANA's or the hook's own words stay in the log line.
                let theirs = matches!(error_type, "refused" | "identity" | "hook_refused");
                let description = if theirs && !crate::telemetry::content::in_spans() {
                    "the approved action was refused"
                } else {
                    reason
                };
                crate::telemetry::status::failed(&span, error_type, description);
                tracing::warn!(
                    parent: &span,
                    action.name = claimed.key.action.as_str(),
                    sap.sales_order = claimed.key.sales_order.as_str(),
                    ledger.key = ledger_key.as_str(),
                    a2a.task.id = claimed.task_id.as_str(),
                    a2a.context.id = claimed.context_id.as_str(),
                    error.type = error_type,
                    action.attempts = i64::from(attempts),
                    reason,
                    telemetry.content = tracing::field::Empty,
                    "an approved action failed"
                );
            }
            // Not failed (yet): why this attempt will be made again.
            (_, Some(error_type)) => {
                span.record("error.type", error_type);
            }
            (_, None) => {}
        }
        self.keep_token(&claimed.key, finish.state, user);
        match self
            .ledger
            .finish(&claimed.key, &claim.owner, &finish)
            .await
        {
            Ok(entry) => {
                messages.settle(entry.is_some());
                Report { entry, ..report }
            }
            Err(error) => {
                messages.settle(false);
                tracing::error!(%error, sales_order = %claimed.key.sales_order, "recording the outcome failed");
                report
            }
        }
    }

    /// Keep the approver's token for a row the retry job will try again;
    /// forget it once the row is finished.
    fn keep_token(&self, key: &ActionKey, state: ExecutionState, user: Option<&BearerToken>) {
        let mut tokens = self.tokens_lock();
        // One row per order and action is open: the tokens kept for the
        // others (superseded ones) are of no more use.
        tokens.retain(|kept, _| {
            kept == key || kept.sales_order != key.sales_order || kept.action != key.action
        });
        match (state, user) {
            (ExecutionState::Retrying, Some(user)) => {
                tokens.insert(key.clone(), user.clone());
            }
            (ExecutionState::Retrying, None) => {}
            _ => {
                tokens.remove(key);
            }
        }
    }

    fn tokens_lock(&self) -> std::sync::MutexGuard<'_, HashMap<ActionKey, BearerToken>> {
        self.tokens
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The row's new state, what the user reads, and the failure's class
    /// (`None` when it was done). The row keeps the detail in English.
    fn outcome(
        &self,
        entry: &LedgerEntry,
        executed: Executed,
        attempts: u32,
    ) -> (Finish, Report, Option<&'static str>) {
        let finish = |state, answer: String, retry_in_ms| Finish {
            state,
            answer: Some(answer),
            retry_in_ms,
            audit: Default::default(),
        };
        let report = |state, said| Report {
            state,
            said,
            entry: None,
        };
        match executed {
            Executed::LedgerOnly => (
                finish(ExecutionState::Done, LEDGER_ONLY.into(), None),
                report(ExecutionState::Done, Said::Nothing),
                None,
            ),
            Executed::Done(change) | Executed::AlreadyDone(change) => (
                finish(ExecutionState::Done, change.text(Language::En), None),
                report(ExecutionState::Done, Said::Done(change)),
                None,
            ),
            Executed::Refused(error_type, reason) => (
                finish(ExecutionState::Failed, reason.text(Language::En), None),
                report(ExecutionState::Failed, Said::Refused(reason)),
                Some(error_type),
            ),
            Executed::HookRefused(reason) => {
                let said = Said::HookRefused {
                    order: entry.key.sales_order.clone(),
                    reason: reason.clone(),
                };
                (
                    finish(ExecutionState::Failed, reason, None),
                    report(ExecutionState::Failed, said),
                    Some("hook_refused"),
                )
            }
            Executed::Transient(_, reason) if attempts >= self.settings.max_attempts.max(1) => {
                let kept = format!(
                    "S/4HANA did not answer after {attempts} attempts ({})",
                    reason.text(Language::En)
                );
                (
                    finish(ExecutionState::Failed, kept, None),
                    report(ExecutionState::Failed, Said::GaveUp { attempts, reason }),
                    Some("retries_exhausted"),
                )
            }
            Executed::Transient(error_type, reason) => {
                let wait = self
                    .settings
                    .retry_base_ms
                    .saturating_mul(1 << attempts.saturating_sub(1).min(10));
                (
                    finish(
                        ExecutionState::Retrying,
                        reason.text(Language::En),
                        Some(wait),
                    ),
                    report(ExecutionState::Retrying, Said::TriedAgain),
                    Some(error_type),
                )
            }
        }
    }

    /// A row someone else holds or that is finished: say how it stands
    /// (its detail as the ledger keeps it).
    async fn as_it_stands(&self, entry: &LedgerEntry) -> Report {
        let now = self
            .ledger
            .get(&entry.key)
            .await
            .ok()
            .flatten()
            .unwrap_or_else(|| entry.clone());
        let answer = now.answer.clone().unwrap_or_default();
        let said = match now.state {
            ExecutionState::Done if answer.starts_with(LEDGER_ONLY) => Said::Nothing,
            ExecutionState::Done => Said::DoneAsKept(answer),
            ExecutionState::Failed => Said::FailedAsKept(answer),
            ExecutionState::Superseded => Said::NotCarriedOut(answer),
            ExecutionState::Retrying | ExecutionState::Recorded => Said::BeingCarriedOut,
        };
        Report {
            state: now.state,
            said,
            entry: Some(now),
        }
    }

    /// One pass of the retry job: every due row this process may carry out
    /// (with the approver's token when the executor needs one).
    pub async fn run_due(&self) -> usize {
        let due = match self.ledger.due(self.settings.lease_ms, 20).await {
            Ok(due) => due,
            Err(error) => {
                tracing::warn!(%error, "the retry job could not read the ledger");
                return 0;
            }
        };
        let mut ran = 0;
        for entry in due {
            let token = self.tokens_lock().get(&entry.key).cloned();
            if token.is_none() && self.executor.needs_user() {
                continue;
            }
            // A trace of its own, linked to the approval's, with the
            // approval's correlation id on its log lines and its calls.
            let (span, correlation) = later_attempt_span(&entry);
            let attempt = async {
                let report = self.attempt(&entry, token.as_ref(), true).await;
                let now = report.entry.as_ref().unwrap_or(&entry);
                tracing::info!(
                    action.name = now.key.action.as_str(),
                    ledger.key = now.key.idempotency_key().as_str(),
                    a2a.task.id = now.task_id.as_str(),
                    action.outcome = report.state.as_str(),
                    action.attempts = i64::from(now.attempts),
                    "approved action tried again"
                );
                let finished =
                    matches!(report.state, ExecutionState::Done | ExecutionState::Failed);
                // The later result's push is caused by this attempt: its
                // deliveries are children of this span.
                if let (true, false, Some(notifier)) =
                    (finished, report.said.is_nothing(), self.notifier.get())
                {
                    let entry = report.entry.clone().unwrap_or_else(|| entry.clone());
                    notifier.later(&entry, &report.said, token.as_ref()).await;
                }
            };
            crate::telemetry::outbound::correlation_scope(
                correlation,
                tracing::Instrument::instrument(attempt, span),
            )
            .await;
            ran += 1;
        }
        ran
    }

    /// Count the ledger's rows by state for the `a2a.actions.ledger` gauge.
    pub async fn count_ledger(&self) {
        match self.ledger.count_by_state().await {
            Ok(counted) => {
                for (state, rows) in counted {
                    crate::telemetry::metrics::ledger_rows(state.as_str(), rows);
                }
            }
            Err(error) => tracing::warn!(%error, "the action ledger could not be counted"),
        }
    }

    /// Count the ledger at once and then every `every`, until the process
    /// ends (every instance counts every instance's rows).
    pub fn spawn_ledger_count(self: &Arc<Self>, every: std::time::Duration) {
        let executions = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                executions.count_ledger().await;
                tokio::time::sleep(every).await;
            }
        });
    }

    /// The retry job, until the process ends.
    pub fn spawn_retry_job(self: &Arc<Self>) {
        if self.settings.executor == ExecutorKind::Ledger {
            return;
        }
        let executions = Arc::clone(self);
        let every = std::time::Duration::from_millis(self.settings.retry_interval_ms.max(10));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                executions.run_due().await;
            }
        });
    }
}

/// The root span of a later attempt (the retry job's, maybe on another
/// instance, maybe days after the approval): a trace of its own, linked
/// to the approval's trace, named by the approval's task and the ledger
/// key; and the correlation id its log lines, its calls and the push of
/// its result carry: the approving caller's, else the approval's trace id
/// (what the approval's own lines carried).
fn later_attempt_span(entry: &LedgerEntry) -> (tracing::Span, Option<String>) {
    let span = tracing::info_span!(
        parent: None,
        "action.retry",
        otel.name = "action.retry",
        a2a.task.id = entry.task_id.as_str(),
        a2a.context.id = entry.context_id.as_str(),
        ledger.key = entry.key.idempotency_key().as_str(),
        action.name = entry.key.action.as_str(),
        sap.sales_order = entry.key.sales_order.as_str(),
        correlation_id = tracing::field::Empty,
        sap.correlation_id = tracing::field::Empty,
    );
    let approval_trace = entry
        .trace_parent
        .as_deref()
        .and_then(|traceparent| crate::telemetry::propagation::link(&span, traceparent));
    if let Some(callers) = &entry.correlation_id {
        span.record("sap.correlation_id", callers.as_str());
    }
    let correlation = entry.correlation_id.clone().or(approval_trace);
    if let Some(correlation) = &correlation {
        span.record("correlation_id", correlation.as_str());
    }
    (span, correlation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::ledger::{Filing, MemoryLedger};
    use std::sync::atomic::{AtomicU32, Ordering};

    /// Answers from a script, then `Done`; counts its calls.
    struct Scripted {
        script: Mutex<Vec<Executed>>,
        calls: AtomicU32,
    }

    #[async_trait]
    impl ActionExecutor for Scripted {
        async fn execute(
            &self,
            _entry: &LedgerEntry,
            _user: Option<&BearerToken>,
            _made: &Modifications,
        ) -> Executed {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let mut script = self.script.lock().expect("lock");
            if script.is_empty() {
                Executed::Done(Change::CreditNote {
                    order: "4740".into(),
                    released: false,
                })
            } else {
                script.remove(0)
            }
        }
    }

    async fn filed(ledger: &Arc<dyn ActionLedger>) -> LedgerEntry {
        let entry = crate::agent::ledger::contract::entry("4740", "u1");
        match ledger.file(entry).await.expect("file") {
            Filing::Filed(entry) => entry,
            other => panic!("fresh: {other:?}"),
        }
    }

    fn executions(script: Vec<Executed>, max_attempts: u32) -> (Executions, Arc<Scripted>) {
        let ledger: Arc<dyn ActionLedger> = Arc::new(MemoryLedger::default());
        let executor = Arc::new(Scripted {
            script: Mutex::new(script),
            calls: AtomicU32::new(0),
        });
        let settings = ActionSettings {
            executor: ExecutorKind::S4hana,
            max_attempts,
            retry_base_ms: 0,
            ..ActionSettings::default()
        };
        (
            Executions::new(
                ledger,
                executor.clone() as Arc<dyn ActionExecutor>,
                settings,
            ),
            executor,
        )
    }

    #[tokio::test]
    async fn the_ledger_only_default_records_the_row_done_and_says_nothing_more() {
        let ledger: Arc<dyn ActionLedger> = Arc::new(MemoryLedger::default());
        let executions = Executions::ledger_only(Arc::clone(&ledger));
        let entry = filed(&ledger).await;
        let report = executions.run(&entry, None).await;
        assert_eq!(report.said, Said::Nothing);
        let row = ledger.get(&entry.key).await.expect("get").expect("row");
        assert_eq!(row.state, ExecutionState::Done);
        assert_eq!(row.answer.as_deref(), Some("ledger only"));
        assert!(!executions.needs_delivery_date());
    }

    #[tokio::test]
    async fn transient_failures_are_retried_until_done_once() {
        let (executions, executor) = executions(
            vec![
                Executed::Transient("transient", Reason::Theirs("HTTP 503".into())),
                Executed::Transient("transient", Reason::Theirs("HTTP 503".into())),
            ],
            5,
        );
        let entry = filed(&executions.ledger).await;
        let first = executions.run(&entry, None).await;
        assert_eq!(first.state, ExecutionState::Retrying);
        assert_eq!(first.said, Said::TriedAgain);
        // The retry job carries it on (backoff 0 here) until it is done.
        for _ in 0..5 {
            executions.run_due().await;
        }
        let row = executions
            .ledger
            .get(&entry.key)
            .await
            .expect("get")
            .expect("row");
        assert_eq!(row.state, ExecutionState::Done, "{row:?}");
        assert_eq!(row.attempts, 3);
        assert_eq!(executor.calls.load(Ordering::SeqCst), 3);
        assert_eq!(executions.run_due().await, 0);
    }

    #[tokio::test]
    async fn retries_are_bounded_and_a_refusal_stops_at_once() {
        let (executions, executor) = executions(
            vec![Executed::Transient("transient", Reason::Theirs("HTTP 503".into())); 10],
            2,
        );
        let entry = filed(&executions.ledger).await;
        executions.run(&entry, None).await;
        executions.run_due().await;
        executions.run_due().await;
        let row = executions
            .ledger
            .get(&entry.key)
            .await
            .expect("get")
            .expect("row");
        assert_eq!(row.state, ExecutionState::Failed);
        assert_eq!(
            row.answer.as_deref(),
            Some("S/4HANA did not answer after 2 attempts (HTTP 503)")
        );
        assert_eq!(executor.calls.load(Ordering::SeqCst), 2);

        let (executions, executor) = executions_refusing("4740");
        let entry = filed(&executions.ledger).await;
        let report = executions.run(&entry, None).await;
        assert_eq!(
            report.said.text(Language::En),
            "Recorded, but S/4HANA refused it: you may not change sales order 4740 (403). Nothing was changed."
        );
        let row = executions
            .ledger
            .get(&entry.key)
            .await
            .expect("get")
            .expect("row");
        assert_eq!(
            row.answer.as_deref(),
            Some("you may not change sales order 4740 (403)"),
            "the ledger keeps the reason in English"
        );
        assert_eq!(executions.run_due().await, 0);
        assert_eq!(executor.calls.load(Ordering::SeqCst), 1);
    }

    fn executions_refusing(order: &str) -> (Executions, Arc<Scripted>) {
        let reason = Reason::Forbidden {
            object: crate::backend::Subject::SalesOrder(order.into()),
        };
        executions(vec![Executed::Refused("forbidden", reason)], 5)
    }
}
