//! Process-wide counters and a latency histogram, rendered as Prometheus
//! text for `GET /metrics` (off unless `telemetry.metrics_endpoint`) and,
//! when an OTLP destination is configured, recorded on OpenTelemetry
//! instruments as well. Labels come from small fixed sets (methods, states,
//! specialists, reasons), never from caller input.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram as OtelHistogram, Meter};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Upper bounds of the request latency buckets, in seconds.
const BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 60.0];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct State {
    requests: BTreeMap<(String, String), u64>,
    latency: BTreeMap<String, Histogram>,
    tasks: BTreeMap<(String, String), u64>,
    pushes: BTreeMap<String, u64>,
    rejections: BTreeMap<String, u64>,
    budget_expiries: u64,
    spans_dropped: BTreeMap<String, u64>,
}

static STATE: Mutex<State> = Mutex::new(State {
    requests: BTreeMap::new(),
    latency: BTreeMap::new(),
    tasks: BTreeMap::new(),
    pushes: BTreeMap::new(),
    rejections: BTreeMap::new(),
    budget_expiries: 0,
    spans_dropped: BTreeMap::new(),
});

/// The same figures as OpenTelemetry instruments, once `export_with` ran.
struct Instruments {
    requests: Counter<u64>,
    duration: OtelHistogram<f64>,
    tasks: Counter<u64>,
    pushes: Counter<u64>,
    rejections: Counter<u64>,
    budget_expiries: Counter<u64>,
    spans_dropped: Counter<u64>,
}

static OTLP: OnceLock<Instruments> = OnceLock::new();

/// Record on `meter`'s instruments from now on (the OTLP metrics export).
pub fn export_with(meter: &Meter) {
    let _ = OTLP.set(Instruments {
        requests: meter
            .u64_counter("a2a.requests")
            .with_description("JSON-RPC calls by method and outcome (ok or error code)")
            .build(),
        duration: meter
            .f64_histogram("a2a.request.duration")
            .with_description("JSON-RPC call latency by method")
            .with_unit("s")
            .with_boundaries(BUCKETS.to_vec())
            .build(),
        tasks: meter
            .u64_counter("a2a.task.outcomes")
            .with_description("Turns ended, by task state and specialist")
            .build(),
        pushes: meter
            .u64_counter("a2a.push.deliveries")
            .with_description("Push attempts by result")
            .build(),
        rejections: meter
            .u64_counter("a2a.token.rejections")
            .with_description("Requests refused by authentication, by reason")
            .build(),
        budget_expiries: meter
            .u64_counter("a2a.budget.expiries")
            .with_description("Blocking sends answered `working` when the budget ran out")
            .build(),
        spans_dropped: meter
            .u64_counter("a2a.telemetry.spans.dropped")
            .with_description("Spans not exported: queue full or export failed")
            .build(),
    });
}

fn state() -> MutexGuard<'static, State> {
    STATE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One JSON-RPC call: its method (`-` when unreadable), `ok` or the error
/// code, and how long it took.
pub fn request(method: &str, error_code: Option<i64>, seconds: f64) {
    let outcome = error_code.map_or_else(|| "ok".to_string(), |code| code.to_string());
    if let Some(otlp) = OTLP.get() {
        let method = KeyValue::new("rpc.method", method.to_string());
        otlp.requests.add(
            1,
            &[method.clone(), KeyValue::new("outcome", outcome.clone())],
        );
        otlp.duration.record(seconds, &[method]);
    }
    let mut state = state();
    *state
        .requests
        .entry((method.to_string(), outcome))
        .or_default() += 1;
    let histogram = state.latency.entry(method.to_string()).or_default();
    histogram.count += 1;
    histogram.sum += seconds;
    for (bound, count) in BUCKETS.iter().zip(histogram.counts.iter_mut()) {
        if seconds <= *bound {
            *count += 1;
        }
    }
}

/// A turn ended in `state`, answered by `specialist` (`-` when none).
pub fn task_outcome(task_state: &str, specialist: &str) {
    if let Some(otlp) = OTLP.get() {
        otlp.tasks.add(
            1,
            &[
                KeyValue::new("a2a.task.state", task_state.to_string()),
                KeyValue::new("a2a.specialist", specialist.to_string()),
            ],
        );
    }
    *state()
        .tasks
        .entry((task_state.to_string(), specialist.to_string()))
        .or_default() += 1;
}

/// One push attempt: `delivered`, `failed` (a non-2xx answer or no
/// answer) or `refused` (guard, no token).
pub fn push(result: &str) {
    if let Some(otlp) = OTLP.get() {
        otlp.pushes
            .add(1, &[KeyValue::new("result", result.to_string())]);
    }
    *state().pushes.entry(result.to_string()).or_default() += 1;
}

/// A request refused by authentication, by reason (`missing`, `invalid`,
/// `forbidden`, `unavailable`).
pub fn token_rejected(reason: &str) {
    if let Some(otlp) = OTLP.get() {
        otlp.rejections
            .add(1, &[KeyValue::new("reason", reason.to_string())]);
    }
    *state().rejections.entry(reason.to_string()).or_default() += 1;
}

/// A blocking `message/send` answered `working` because its budget ran out.
pub fn budget_expired() {
    if let Some(otlp) = OTLP.get() {
        otlp.budget_expiries.add(1, &[]);
    }
    state().budget_expiries += 1;
}

/// Spans that will never reach the collector, by reason (`queue_full`,
/// `export_failed`).
pub fn spans_dropped(reason: &str, spans: usize) {
    if let Some(otlp) = OTLP.get() {
        otlp.spans_dropped
            .add(spans as u64, &[KeyValue::new("reason", reason.to_string())]);
    }
    *state().spans_dropped.entry(reason.to_string()).or_default() += spans as u64;
}

/// Every span dropped so far, whatever the reason.
pub fn spans_dropped_total() -> u64 {
    state().spans_dropped.values().sum()
}

/// Label values are from fixed sets; escape anyway.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// One counter family with a single label, in the Prometheus text format.
fn counter_by(
    out: &mut String,
    name: &str,
    help: &str,
    label_name: &str,
    counts: &BTreeMap<String, u64>,
) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
    for (value, count) in counts {
        let _ = writeln!(out, "{name}{{{label_name}=\"{}\"}} {count}", label(value));
    }
}

/// Everything in the Prometheus text format (0.0.4).
pub fn render() -> String {
    let state = state();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# HELP a2a_requests_total JSON-RPC calls by method and outcome (ok or error code).\n# TYPE a2a_requests_total counter"
    );
    for ((method, outcome), count) in &state.requests {
        let _ = writeln!(
            out,
            "a2a_requests_total{{method=\"{}\",outcome=\"{}\"}} {count}",
            label(method),
            label(outcome)
        );
    }
    let _ = writeln!(
        out,
        "# HELP a2a_request_duration_seconds JSON-RPC call latency by method.\n# TYPE a2a_request_duration_seconds histogram"
    );
    for (method, histogram) in &state.latency {
        let method = label(method);
        for (bound, count) in BUCKETS.iter().zip(histogram.counts.iter()) {
            let _ = writeln!(
                out,
                "a2a_request_duration_seconds_bucket{{method=\"{method}\",le=\"{bound}\"}} {count}"
            );
        }
        let _ = writeln!(
            out,
            "a2a_request_duration_seconds_bucket{{method=\"{method}\",le=\"+Inf\"}} {}\na2a_request_duration_seconds_sum{{method=\"{method}\"}} {}\na2a_request_duration_seconds_count{{method=\"{method}\"}} {}",
            histogram.count, histogram.sum, histogram.count
        );
    }
    let _ = writeln!(
        out,
        "# HELP a2a_task_outcomes_total Turns ended, by task state and specialist.\n# TYPE a2a_task_outcomes_total counter"
    );
    for ((task_state, specialist), count) in &state.tasks {
        let _ = writeln!(
            out,
            "a2a_task_outcomes_total{{state=\"{}\",specialist=\"{}\"}} {count}",
            label(task_state),
            label(specialist)
        );
    }
    counter_by(
        &mut out,
        "a2a_push_deliveries_total",
        "Push attempts by result.",
        "result",
        &state.pushes,
    );
    counter_by(
        &mut out,
        "a2a_token_rejections_total",
        "Requests refused by authentication, by reason.",
        "reason",
        &state.rejections,
    );
    let _ = writeln!(
        out,
        "# HELP a2a_budget_expiries_total Blocking sends answered `working` when the budget ran out.\n# TYPE a2a_budget_expiries_total counter\na2a_budget_expiries_total {}",
        state.budget_expiries
    );
    counter_by(
        &mut out,
        "a2a_telemetry_spans_dropped_total",
        "Spans not exported, by reason (queue_full, export_failed).",
        "reason",
        &state.spans_dropped,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_buckets_render_as_prometheus_text() {
        request("unit/test-method", None, 0.02);
        request("unit/test-method", Some(-32601), 2.0);
        task_outcome("completed", "unit-specialist");
        push("unit-result");
        token_rejected("unit-reason");
        spans_dropped("unit-drop", 3);
        let text = render();
        assert!(text.contains("a2a_requests_total{method=\"unit/test-method\",outcome=\"ok\"} 1"));
        assert!(
            text.contains("a2a_requests_total{method=\"unit/test-method\",outcome=\"-32601\"} 1")
        );
        assert!(text.contains(
            "a2a_request_duration_seconds_bucket{method=\"unit/test-method\",le=\"0.025\"} 1"
        ));
        assert!(text.contains(
            "a2a_request_duration_seconds_bucket{method=\"unit/test-method\",le=\"5\"} 2"
        ));
        assert!(text.contains("a2a_request_duration_seconds_count{method=\"unit/test-method\"} 2"));
        assert!(text.contains(
            "a2a_task_outcomes_total{state=\"completed\",specialist=\"unit-specialist\"} 1"
        ));
        assert!(text.contains("a2a_push_deliveries_total{result=\"unit-result\"} 1"));
        assert!(text.contains("a2a_token_rejections_total{reason=\"unit-reason\"} 1"));
        assert!(text.contains("# TYPE a2a_budget_expiries_total counter"));
        assert!(text.contains("a2a_telemetry_spans_dropped_total{reason=\"unit-drop\"} 3"));
    }
}
