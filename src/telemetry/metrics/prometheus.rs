//! `/metrics` as Prometheus text (0.0.4), written from one OpenTelemetry
//! reading — the same kind of reading the OTLP export sends — so both show
//! the same figures under their own names: `a2a.requests{rpc.method,…}`
//! here is `a2a_requests_total{method,…}`.

use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::data::{
    AggregatedMetrics, Histogram, Metric, MetricData, ResourceMetrics,
};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What a family's samples are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// A Prometheus family and the OpenTelemetry instrument it is read from.
struct Family {
    otel: &'static str,
    name: &'static str,
    help: &'static str,
    kind: Kind,
    /// (OpenTelemetry attribute, Prometheus label), in the order printed.
    labels: &'static [(&'static str, &'static str)],
}

/// In the order `/metrics` prints them.
const FAMILIES: [Family; 20] = [
    Family {
        otel: "a2a.requests",
        name: "a2a_requests_total",
        help: "JSON-RPC calls by method and outcome (ok or error code).",
        kind: Kind::Counter,
        labels: &[
            ("rpc.method", "method"),
            ("outcome", "outcome"),
            ("sap.tenancy.tenant_id", "tenant"),
        ],
    },
    Family {
        otel: "a2a.request.duration",
        name: "a2a_request_duration_seconds",
        help: "JSON-RPC call latency by method.",
        kind: Kind::Histogram,
        labels: &[
            ("rpc.method", "method"),
            ("sap.tenancy.tenant_id", "tenant"),
        ],
    },
    Family {
        otel: "a2a.task.outcomes",
        name: "a2a_task_outcomes_total",
        help: "Turns ended, by task state and specialist.",
        kind: Kind::Counter,
        labels: &[
            ("a2a.task.state", "state"),
            ("a2a.specialist", "specialist"),
        ],
    },
    Family {
        otel: "a2a.push.deliveries",
        name: "a2a_push_deliveries_total",
        help: "Push deliveries ended, by result, reason and format.",
        kind: Kind::Counter,
        labels: &[
            ("result", "result"),
            ("reason", "reason"),
            ("format", "format"),
        ],
    },
    Family {
        otel: "a2a.push.attempts",
        name: "a2a_push_attempts_total",
        help: "Push attempts by result and format.",
        kind: Kind::Counter,
        labels: &[("result", "result"), ("format", "format")],
    },
    Family {
        otel: "a2a.token.rejections",
        name: "a2a_token_rejections_total",
        help: "Requests refused by authentication, by reason.",
        kind: Kind::Counter,
        labels: &[("reason", "reason")],
    },
    Family {
        otel: "a2a.limit.refusals",
        name: "a2a_limit_refusals_total",
        help: "Requests refused past a rate quota or a bound on open streams or work in flight, by limit.",
        kind: Kind::Counter,
        labels: &[("limit", "limit")],
    },
    Family {
        otel: "a2a.audit.messages",
        name: "a2a_audit_messages_total",
        help: "Audit messages by outcome: queued, sent, kept aside, dropped, logged, retried.",
        kind: Kind::Counter,
        labels: &[("outcome", "outcome")],
    },
    Family {
        otel: "a2a.budget.expiries",
        name: "a2a_budget_expiries_total",
        help: "Blocking sends answered `working` when the budget ran out.",
        kind: Kind::Counter,
        labels: &[],
    },
    Family {
        otel: "http.client.request.duration",
        name: "http_client_request_duration_seconds",
        help: "Outbound HTTP attempts by peer service, method and outcome.",
        kind: Kind::Histogram,
        labels: &[
            ("peer.service", "peer_service"),
            ("odata.service", "odata_service"),
            ("http.request.method", "method"),
            ("http.response.status_code", "status_code"),
            ("error.type", "error_type"),
        ],
    },
    Family {
        otel: "a2a.s4hana.retries",
        name: "a2a_s4hana_retries_total",
        help: "S/4HANA answers (429, 503) tried again, by OData service.",
        kind: Kind::Counter,
        labels: &[("odata.service", "odata_service")],
    },
    Family {
        otel: "a2a.turns.running",
        name: "a2a_turns_running",
        help: "Turns running on this instance.",
        kind: Kind::Gauge,
        labels: &[],
    },
    Family {
        otel: "a2a.tasks.open",
        name: "a2a_tasks_open",
        help: "Open tasks in the store (all instances), as the last sweep counted.",
        kind: Kind::Gauge,
        labels: &[],
    },
    Family {
        otel: "a2a.actions.executions",
        name: "a2a_actions_executions_total",
        help: "Attempts to carry approved actions out, by action, outcome and error type.",
        kind: Kind::Counter,
        labels: &[
            ("action.name", "action"),
            ("outcome", "outcome"),
            ("error.type", "error_type"),
        ],
    },
    Family {
        otel: "a2a.actions.ledger",
        name: "a2a_actions_ledger",
        help: "Action ledger rows by state (all instances), as last counted.",
        kind: Kind::Gauge,
        labels: &[("state", "state")],
    },
    Family {
        otel: "a2a.task.lease_expiries",
        name: "a2a_task_lease_expiries_total",
        help: "Tasks ended failed because the instance running them stopped.",
        kind: Kind::Counter,
        labels: &[],
    },
    Family {
        otel: "a2a.task.wait_expiries",
        name: "a2a_task_wait_expiries_total",
        help: "Tasks ended canceled after waiting too long for an answer.",
        kind: Kind::Counter,
        labels: &[],
    },
    Family {
        otel: "a2a.store.errors",
        name: "a2a_store_errors_total",
        help: "Task store calls that failed (lost races aside), by error type.",
        kind: Kind::Counter,
        labels: &[("error.type", "error_type")],
    },
    Family {
        otel: "a2a.store.duration",
        name: "a2a_store_duration_seconds",
        help: "Task store calls by operation and outcome.",
        kind: Kind::Histogram,
        labels: &[("operation", "operation"), ("outcome", "outcome")],
    },
    Family {
        otel: "a2a.telemetry.spans.dropped",
        name: "a2a_telemetry_spans_dropped_total",
        help: "Spans not exported, by reason (queue_full, export_failed).",
        kind: Kind::Counter,
        labels: &[("reason", "reason")],
    },
];

/// Every family, each with its series sorted by label values; a family
/// without labels (the budget expiries) shows 0 before its first count.
pub(super) fn render(reading: &ResourceMetrics) -> String {
    let metrics: Vec<&Metric> = reading
        .scope_metrics()
        .flat_map(|scope| scope.metrics())
        .collect();
    let mut out = String::new();
    for family in &FAMILIES {
        let kind = match family.kind {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        };
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}",
            name = family.name,
            help = family.help
        );
        let data = metrics
            .iter()
            .find(|metric| metric.name() == family.otel)
            .map(|metric| metric.data());
        match data {
            Some(AggregatedMetrics::F64(MetricData::Histogram(histogram))) => {
                write_histogram(&mut out, family, histogram);
            }
            Some(AggregatedMetrics::U64(MetricData::Sum(sum))) => {
                let mut series = BTreeMap::new();
                for point in sum.data_points() {
                    *series
                        .entry(label_values(family, point.attributes()))
                        .or_insert(0) += point.value();
                }
                write_counter(&mut out, family, &series);
            }
            Some(AggregatedMetrics::I64(MetricData::Gauge(gauge))) => {
                let series: BTreeMap<_, _> = gauge
                    .data_points()
                    .map(|point| (label_values(family, point.attributes()), point.value()))
                    .collect();
                for (values, value) in series {
                    let _ = writeln!(
                        out,
                        "{}{} {value}",
                        family.name,
                        labels(family, &values, None)
                    );
                }
            }
            _ if family.kind == Kind::Gauge => {}
            _ => write_counter(&mut out, family, &BTreeMap::new()),
        }
    }
    out
}

fn write_counter(out: &mut String, family: &Family, series: &BTreeMap<Vec<String>, u64>) {
    if series.is_empty() && family.labels.is_empty() {
        let _ = writeln!(out, "{} 0", family.name);
    }
    for (values, count) in series {
        let _ = writeln!(
            out,
            "{}{} {count}",
            family.name,
            labels(family, values, None)
        );
    }
}

fn write_histogram(out: &mut String, family: &Family, histogram: &Histogram<f64>) {
    let series: BTreeMap<_, _> = histogram
        .data_points()
        .map(|point| (label_values(family, point.attributes()), point))
        .collect();
    let name = family.name;
    for (values, point) in series {
        // OpenTelemetry counts per bucket; Prometheus counts up to each bound.
        let mut up_to = 0;
        for (bound, count) in point.bounds().zip(point.bucket_counts()) {
            up_to += count;
            let bound = bound.to_string();
            let _ = writeln!(
                out,
                "{name}_bucket{} {up_to}",
                labels(family, &values, Some(&bound))
            );
        }
        let _ = writeln!(
            out,
            "{name}_bucket{} {count}\n{name}_sum{} {sum}\n{name}_count{} {count}",
            labels(family, &values, Some("+Inf")),
            labels(family, &values, None),
            labels(family, &values, None),
            count = point.count(),
            sum = point.sum(),
        );
    }
}

/// A point's values of the family's labels, in the family's order.
fn label_values<'a>(
    family: &Family,
    attributes: impl Iterator<Item = &'a KeyValue>,
) -> Vec<String> {
    let attributes: Vec<&KeyValue> = attributes.collect();
    family
        .labels
        .iter()
        .map(|(key, _)| {
            attributes
                .iter()
                .find(|kv| kv.key.as_str() == *key)
                .map(|kv| kv.value.as_str().into_owned())
                .unwrap_or_default()
        })
        .collect()
}

/// `{name="value",…}` (nothing without labels), `le` last for buckets. A
/// label the point does not have is left out (to Prometheus an empty value
/// is no label).
fn labels(family: &Family, values: &[String], le: Option<&str>) -> String {
    let mut pairs: Vec<String> = family
        .labels
        .iter()
        .zip(values)
        .filter(|(_, value)| !value.is_empty())
        .map(|((_, name), value)| format!("{name}=\"{}\"", escape(value)))
        .collect();
    if let Some(le) = le {
        pairs.push(format!("le=\"{le}\""));
    }
    if pairs.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", pairs.join(","))
    }
}

/// Label values are from fixed sets; escape anyway.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
