//! Process-wide figures, each counted in exactly one place and read by both
//! outputs: `GET /metrics` (Prometheus text, off unless
//! `telemetry.metrics_endpoint`) and the OTLP metrics export.
//!
//! - Counters are lock-free atomics of our own (`counts`; each figure's
//!   atomics and label sets are declared in `series`), indexed by label
//!   values from small fixed sets (methods, task states, results, reasons)
//!   or from small tables filled on first use (error codes, specialists) —
//!   never by what a caller sends. OpenTelemetry reads them through
//!   *observable* counters whenever a reading is taken (`pipeline`).
//! - The latency histogram cannot be observed, so it is recorded once, on
//!   one OpenTelemetry histogram bound per method (`pipeline`).
//! - The meter provider has exactly one reader — the periodic OTLP reader
//!   when metrics are exported, a manual one otherwise — and `/metrics`
//!   writes a reading of that same reader as Prometheus text (`prometheus`).
//!
//! No lock is taken on the request path but the SDK's per-series lock of
//! the histogram (a few instructions); `bench/README.md` ("Counting") has
//! what a recording costs.

mod counts;
mod pipeline;
mod prometheus;
mod series;

use counts::position;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::metrics::reader::MetricReader;
use series::{
    ACTION_EXECUTIONS, ACTION_NAMES, ACTION_OUTCOMES, AUDIT_MESSAGES, AUDIT_OUTCOMES,
    BUDGET_EXPIRIES, DROP_REASONS, ERROR_CODES, LEASE_EXPIRIES, LEDGER_ROWS, LEDGER_STATES,
    LIMIT_REFUSALS, LIMITS, METHODS, ODATA_SERVICES, OPEN_TASKS, PUSH_ATTEMPT_RESULTS,
    PUSH_ATTEMPTS, PUSH_DELIVERIES, PUSH_FORMATS, PUSH_OUTCOMES, REJECTION_REASONS, REJECTIONS,
    REQUESTS, S4_RETRIES, SPANS_DROPPED, SPECIALISTS, STORE_ERROR_TYPES, STORE_ERRORS,
    STORE_OPERATIONS, TASK_STATES, TASKS, TENANTS, TURNS_RUNNING, WAIT_EXPIRIES,
};
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub use pipeline::AlreadyCounting;
pub use series::ClientCall;

/// `method` as the service names it when it serves it (a bounded name for
/// a span or a label), `None` for any other name.
pub fn served_method(method: &str) -> Option<&'static str> {
    METHODS[..METHODS.len() - 2]
        .iter()
        .find(|served| **served == method)
        .copied()
}

// ---- recording (the request path) -----------------------------------------

/// One JSON-RPC call: its method (`-` when unreadable), `ok` or the error
/// code (a JSON-RPC code, or the HTTP status of a call refused before any
/// JSON-RPC answer: 401, 403, 413, …), how long it took, and the
/// caller's tenant (`None` with authentication off or before a token was
/// accepted; past the first tenants, `other`).
pub fn request(method: &str, error_code: Option<i64>, seconds: f64, tenant: Option<&str>) {
    let method = position(&METHODS, method);
    let outcome = error_code.map_or(0, |code| 1 + ERROR_CODES.index(&code));
    let tenant = tenant.map_or(0, |tenant| 1 + TENANTS.index(tenant));
    REQUESTS[tenant][method].add(outcome, 1);
    pipeline::figures().latency(tenant, method).record(seconds);
}

/// The specialists the agent has (and `-`, a turn no specialist
/// answered), so their outcomes are exported at 0 from the start.
pub fn known_specialists<'a>(names: impl IntoIterator<Item = &'a str>) {
    SPECIALISTS.index("-");
    for name in names {
        SPECIALISTS.index(name);
    }
}

/// A turn ended in `state`, answered by `specialist` (`-` when none).
pub fn task_outcome(task_state: &str, specialist: &str) {
    TASKS[position(&TASK_STATES, task_state)].add(SPECIALISTS.index(specialist), 1);
}

/// One push attempt in `format` (`a2a`, `joule`): `delivered` (2xx) or
/// `failed` (another answer, or none).
pub fn push_attempt(format: &str, delivered: bool) {
    let result = if delivered { "delivered" } else { "failed" };
    PUSH_ATTEMPTS[position(&PUSH_FORMATS, format)].add(position(&PUSH_ATTEMPT_RESULTS, result), 1);
}

/// One push delivery ended: `delivered` (`-`), `given_up` after its
/// attempts (`status_3xx`, `status_4xx`, `status_5xx`, `timeout`,
/// `no_answer`) or `refused` before any (`refused_by_guard`,
/// `token_exchange_failed`, `not_encodable`).
pub fn push_delivery(format: &str, result: &str, reason: &str) {
    let outcome = PUSH_OUTCOMES
        .iter()
        .position(|known| *known == (result, reason))
        .unwrap_or(PUSH_OUTCOMES.len() - 1);
    PUSH_DELIVERIES[position(&PUSH_FORMATS, format)].add(outcome, 1);
}

/// A request refused by authentication, by reason (`missing`, an invalid
/// token's class such as `expired` or `bad_signature`, `forbidden`,
/// `unavailable`).
pub fn token_rejected(reason: &str) {
    REJECTIONS.add(position(&REJECTION_REASONS, reason), 1);
}

/// A request refused at `limit`: a rate quota (`caller`, `tenant`,
/// `instance`, `max_keys`), a bound on open streams (`streams`,
/// `streams_per_caller`, `streams_per_task`) or on work in flight, shed
/// with 503 (`calls_in_flight`, `body_bytes_in_flight`).
pub fn limit_refused(limit: &str) {
    LIMIT_REFUSALS.add(position(&LIMITS, limit), 1);
}

/// An audit message's outcome (`queued`, `sent`, `kept_aside`,
/// `dropped`, `logged`, `retried`).
pub fn audit_message(outcome: &str) {
    AUDIT_MESSAGES.add(position(&AUDIT_OUTCOMES, outcome), 1);
}

/// A blocking `message/send` answered `working` because its budget ran out.
pub fn budget_expired() {
    BUDGET_EXPIRIES.add(0, 1);
}

/// One outbound HTTP attempt ended (answered or not).
pub fn http_client_request(call: ClientCall<'_>) {
    pipeline::figures().client_request(&call);
}

/// One S/4HANA read ended after `retries` retries (429 or 503 answers
/// tried again), counted by OData service; a read without retries makes
/// its service's series appear at 0.
pub fn s4hana_retries(odata_service: &str, retries: u32) {
    S4_RETRIES.add(ODATA_SERVICES.index(odata_service), u64::from(retries));
}

/// A turn started (`1`) or ended (`-1`) on this instance.
pub fn turns_running(change: i64) {
    TURNS_RUNNING.fetch_add(change, Ordering::Relaxed);
}

/// The open tasks the store holds (every instance's), as last counted.
pub fn open_tasks(count: u64) {
    OPEN_TASKS.store(i64::try_from(count).unwrap_or(i64::MAX), Ordering::Relaxed);
}

/// One attempt to carry an approved action out ended: `done`,
/// `retrying` or `failed`, with the class of the failure (`transient`,
/// `forbidden`, `hook_refused`, `retries_exhausted`, …; `None` when done).
pub fn action_executed(action: &str, outcome: &str, error_type: Option<&str>) {
    let outcome = ACTION_OUTCOMES
        .iter()
        .position(|known| *known == (outcome, error_type.unwrap_or("-")))
        .unwrap_or(ACTION_OUTCOMES.len() - 1);
    ACTION_EXECUTIONS[position(&ACTION_NAMES, action)].add(outcome, 1);
}

/// The action ledger holds `rows` rows in `state` (all instances'), as
/// just counted.
pub fn ledger_rows(state: &str, rows: u64) {
    if let Some(slot) = LEDGER_STATES.iter().position(|known| *known == state) {
        LEDGER_ROWS[slot].store(i64::try_from(rows).unwrap_or(i64::MAX), Ordering::Relaxed);
    }
}

/// A task ended `failed` because its instance stopped (its lease ran out).
pub fn lease_expired() {
    LEASE_EXPIRIES.add(0, 1);
}

/// A task ended `canceled` after waiting too long for an answer.
pub fn wait_expired() {
    WAIT_EXPIRIES.add(0, 1);
}

/// One task store call: its operation, its error's type when it failed
/// (a fault, not a lost race), and how long it took.
pub fn store_call(operation: &str, error_type: Option<&str>, seconds: f64) {
    if let Some(error_type) = error_type {
        STORE_ERRORS.add(position(&STORE_ERROR_TYPES, error_type), 1);
    }
    pipeline::figures()
        .store_latency(position(&STORE_OPERATIONS, operation), error_type.is_some())
        .record(seconds);
}

/// Spans that will never reach the collector, by reason (`queue_full`,
/// `export_failed`).
pub fn spans_dropped(reason: &str, spans: usize) {
    SPANS_DROPPED.add(position(&DROP_REASONS, reason), spans as u64);
}

/// Every span dropped so far, whatever the reason. Read from the figures
/// themselves: it is asked for at shutdown, after the last reading.
pub fn spans_dropped_total() -> u64 {
    SPANS_DROPPED.counted().map(|(_, count)| count).sum()
}

// ---- set-up and reading ----------------------------------------------------

/// Set up the meter provider with `export` (the periodic OTLP reader) as
/// its one reader, or a manual reader for `/metrics` only. Returns the
/// provider, whose `shutdown` takes the last reading. Must run before the
/// first recording; after one, the figures already have a provider without
/// export, and keep it.
pub fn install(
    export: Option<impl MetricReader>,
    resource: Resource,
) -> Result<SdkMeterProvider, AlreadyCounting> {
    pipeline::install(
        export.map(|reader| Arc::new(reader) as Arc<dyn MetricReader>),
        resource,
    )
}

/// Everything in the Prometheus text format (0.0.4), from one reading of
/// the reader the OTLP export uses.
pub fn render() -> String {
    prometheus::render(&pipeline::figures().reading())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_buckets_render_as_prometheus_text() {
        request("tasks/pushNotificationConfig/list", None, 0.02, None);
        request("tasks/pushNotificationConfig/list", Some(-32099), 2.0, None);
        task_outcome("completed", "unit-specialist");
        push_delivery("a2a", "refused", "refused_by_guard");
        push_attempt("joule", false);
        token_rejected("forbidden");
        limit_refused("tenant");
        audit_message("kept_aside");
        spans_dropped("export_failed", 3);
        let text = render();
        let has = |series: &str| {
            text.lines().any(|line| {
                line.strip_prefix(series)
                    .and_then(|rest| rest.trim().parse::<u64>().ok())
                    .is_some_and(|count| count >= 1)
            })
        };
        let method = "method=\"tasks/pushNotificationConfig/list\"";
        assert!(
            has(&format!("a2a_requests_total{{{method},outcome=\"ok\"}}")),
            "{text}"
        );
        assert!(
            has(&format!(
                "a2a_requests_total{{{method},outcome=\"-32099\"}}"
            )),
            "{text}"
        );
        assert!(has(&format!(
            "a2a_request_duration_seconds_bucket{{{method},le=\"0.025\"}}"
        )));
        assert!(
            text.contains(&format!(
                "a2a_request_duration_seconds_bucket{{{method},le=\"5\"}} 2"
            )),
            "{text}"
        );
        assert!(text.contains(&format!(
            "a2a_request_duration_seconds_bucket{{{method},le=\"+Inf\"}} 2"
        )));
        assert!(text.contains(&format!("a2a_request_duration_seconds_count{{{method}}} 2")));
        let sum: Option<f64> = text.lines().find_map(|line| {
            line.strip_prefix(&format!("a2a_request_duration_seconds_sum{{{method}}} "))?
                .parse()
                .ok()
        });
        assert!(sum.is_some_and(|sum| (sum - 2.02).abs() < 1e-9), "{sum:?}");
        assert!(has(
            "a2a_task_outcomes_total{state=\"completed\",specialist=\"unit-specialist\"}"
        ));
        assert!(has(
            "a2a_push_deliveries_total{result=\"refused\",reason=\"refused_by_guard\",format=\"a2a\"}"
        ));
        assert!(has(
            "a2a_push_attempts_total{result=\"failed\",format=\"joule\"}"
        ));
        assert!(has("a2a_token_rejections_total{reason=\"forbidden\"}"));
        assert!(has("a2a_limit_refusals_total{limit=\"tenant\"}"));
        assert!(text.contains("a2a_audit_messages_total{outcome=\"kept_aside\"} "));
        assert!(text.contains("a2a_limit_refusals_total{limit=\"streams_per_task\"} "));
        assert!(text.contains("# TYPE a2a_budget_expiries_total counter"));
        assert!(text.contains("\na2a_budget_expiries_total "));
        assert!(has(
            "a2a_telemetry_spans_dropped_total{reason=\"export_failed\"}"
        ));
        assert!(spans_dropped_total() >= 3);
    }

    #[test]
    fn a_method_the_service_does_not_serve_is_counted_as_other_never_by_its_name() {
        request("no/such-method-from-a-caller", Some(-32601), 0.001, None);
        request("-", Some(-32700), 0.001, None);
        let text = render();
        assert!(!text.contains("no/such-method-from-a-caller"), "{text}");
        assert!(
            text.contains("a2a_requests_total{method=\"other\",outcome=\"-32601\"}"),
            "{text}"
        );
        assert!(text.contains("a2a_requests_total{method=\"-\",outcome=\"-32700\"}"));
        assert!(text.contains("a2a_request_duration_seconds_count{method=\"other\"}"));
    }

    #[test]
    fn the_first_tenants_label_their_requests_and_later_ones_count_as_other() {
        request("tasks/get", None, 0.001, Some("unit-tenant-a"));
        for n in 0..2 * series::TENANT_SLOTS {
            request(
                "tasks/get",
                Some(-32001),
                0.001,
                Some(&format!("unit-tenant-{n}")),
            );
        }
        let text = render();
        assert!(
            text.contains(
                "a2a_requests_total{method=\"tasks/get\",outcome=\"ok\",tenant=\"unit-tenant-a\"} 1"
            ),
            "{text}"
        );
        assert!(text.contains(
            "a2a_request_duration_seconds_count{method=\"tasks/get\",tenant=\"unit-tenant-a\"} 1"
        ));
        let tenants: std::collections::BTreeSet<&str> = text
            .lines()
            .filter_map(|line| line.split("tenant=\"").nth(1)?.split('"').next())
            .collect();
        assert!(tenants.contains("other"), "{tenants:?}");
        assert_eq!(tenants.len(), series::TENANT_SLOTS, "{tenants:?}");
        // Without a tenant the series has no tenant label at all.
        assert!(text.contains("a2a_requests_total{method=\"tasks/get\",outcome=\"ok\"} "));
    }

    /// What one JSON-RPC call costs to count (`request` and `task_outcome`),
    /// on one and two threads. A measurement, not a check: run it on a quiet
    /// machine with
    /// `cargo test --release --lib recording_cost -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement"]
    fn recording_cost() {
        const CALLS: u32 = 1_000_000;
        // The tenant measured takes the last named slot: the longest look-up.
        for n in 0..series::TENANT_SLOTS - 2 {
            request("tasks/get", None, 0.0, Some(&format!("filler-tenant-{n}")));
        }
        for tenant in [None, Some("9f3c1c2e-0b6a-4e4f-9d51-tenant-guid")] {
            for threads in [1u32, 2] {
                let started = std::time::Instant::now();
                std::thread::scope(|scope| {
                    for _ in 0..threads {
                        scope.spawn(|| {
                            for i in 0..CALLS {
                                request("message/send", None, f64::from(i % 100) / 1000.0, tenant);
                                task_outcome("completed", "credit");
                            }
                        });
                    }
                });
                eprintln!(
                    "tenant {tenant:?}, {threads} thread(s): {} ns per call on each thread",
                    started.elapsed().as_nanos() / u128::from(CALLS)
                );
            }
        }
    }
}
