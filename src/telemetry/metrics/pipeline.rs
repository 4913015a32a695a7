//! The meter provider and its one reader: the periodic OTLP reader when
//! metrics are exported, a manual reader otherwise. `/metrics` takes its
//! readings from the same reader, so there is one pipeline, one aggregation
//! of the latency histogram, and one callback per counter family that
//! reads the atomics whenever anyone takes a reading.

use super::counts::Counts;
use super::series::{
    ACTION_EXECUTIONS, ACTION_NAMES, ACTION_OUTCOMES, AUDIT_MESSAGES, AUDIT_OUTCOMES,
    BUDGET_EXPIRIES, ClientCall, DROP_REASONS, ERROR_CODES, LEASE_EXPIRIES, LEDGER_ROWS,
    LEDGER_STATES, LIMIT_REFUSALS, LIMITS, METHODS, ODATA_SERVICES, OPEN_TASKS, OTHER,
    PUSH_ATTEMPT_RESULTS, PUSH_ATTEMPTS, PUSH_DELIVERIES, PUSH_FORMATS, PUSH_OUTCOMES,
    REJECTION_REASONS, REJECTIONS, REQUESTS, S4_RETRIES, SPANS_DROPPED, SPECIALISTS,
    STORE_ERROR_TYPES, STORE_ERRORS, STORE_OPERATIONS, TASK_STATES, TASKS, TENANT_ROWS, TENANTS,
    TURN_END_STATES, TURNS_RUNNING, WAIT_EXPIRIES,
};
use opentelemetry::metrics::{AsyncInstrument, BoundHistogram, Histogram, Meter, MeterProvider};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::reader::MetricReader;
use opentelemetry_sdk::metrics::{
    InstrumentKind, ManualReader, Pipeline, SdkMeterProvider, Temporality,
};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

/// Upper bounds of the request latency buckets, in seconds.
const BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 60.0];

/// Upper bounds of the task store buckets, in seconds: a memory store
/// answers in microseconds, a database in milliseconds.
const STORE_BUCKETS: [f64; 11] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5,
];

/// Upper bounds of the outbound call buckets, in seconds: OpenTelemetry's
/// advice for `http.client.request.duration`.
const CLIENT_BUCKETS: [f64; 14] = [
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
];

/// The provider's only reader, shared with `/metrics`. Always cumulative:
/// a delta reading by `/metrics` would take counts away from the export,
/// and the other way round (so `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`
/// is not honoured).
#[derive(Debug, Clone)]
struct SharedReader(Arc<dyn MetricReader>);

impl MetricReader for SharedReader {
    fn register_pipeline(&self, pipeline: Weak<Pipeline>) {
        self.0.register_pipeline(pipeline);
    }

    fn collect(&self, reading: &mut ResourceMetrics) -> OTelSdkResult {
        self.0.collect(reading)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn temporality(&self, _kind: InstrumentKind) -> Temporality {
        Temporality::Cumulative
    }
}

/// The meter provider, its reader and the latency histogram.
pub(super) struct Figures {
    reader: SharedReader,
    /// The provider when nothing else holds it (no export). When exporting,
    /// the `Telemetry` guard holds it: dropping the guard stops the export.
    _kept: Option<SdkMeterProvider>,
    duration: Histogram<f64>,
    /// The histogram bound to each tenant row and method on its first call
    /// (so a series appears with its first observation): no attribute
    /// look-up per call.
    latency: [[OnceLock<BoundHistogram<f64>>; METHODS.len()]; TENANT_ROWS],
    store_duration: Histogram<f64>,
    /// The store histogram bound per operation and outcome (ok, error).
    store_latency: [[OnceLock<BoundHistogram<f64>>; 2]; STORE_OPERATIONS.len()],
    /// `http.client.request.duration`: outbound calls are few per request,
    /// so their attributes are looked up per call.
    client_duration: Histogram<f64>,
}

static FIGURES: OnceLock<Figures> = OnceLock::new();

#[derive(Debug, thiserror::Error)]
#[error("metrics were recorded before telemetry was set up: they are not exported")]
pub struct AlreadyCounting;

/// See `metrics::install`.
pub(super) fn install(
    export: Option<Arc<dyn MetricReader>>,
    resource: Resource,
) -> Result<SdkMeterProvider, AlreadyCounting> {
    let exporting = export.is_some();
    let reader = export.unwrap_or_else(|| Arc::new(ManualReader::builder().build()));
    let (mut figures, provider) = Figures::new(reader, resource);
    if !exporting {
        figures._kept = Some(provider.clone());
    }
    FIGURES.set(figures).map_err(|_| AlreadyCounting)?;
    Ok(provider)
}

/// The installed figures, or (unit tests, client commands, a recording
/// before `install`) a provider with a manual reader only.
pub(super) fn figures() -> &'static Figures {
    FIGURES.get_or_init(|| {
        let manual = Arc::new(ManualReader::builder().build());
        let (mut figures, provider) = Figures::new(manual, Resource::builder_empty().build());
        figures._kept = Some(provider);
        figures
    })
}

impl Figures {
    /// The figures (not yet holding the provider) and the provider.
    fn new(reader: Arc<dyn MetricReader>, resource: Resource) -> (Figures, SdkMeterProvider) {
        let reader = SharedReader(reader);
        let provider = SdkMeterProvider::builder()
            .with_reader(reader.clone())
            .with_resource(resource)
            .build();
        let meter = provider.meter("order-exception-agent");
        observe(&meter);
        let figures = Figures {
            reader,
            duration: meter
                .f64_histogram("a2a.request.duration")
                .with_description("JSON-RPC call latency by method")
                .with_unit("s")
                .with_boundaries(BUCKETS.to_vec())
                .build(),
            latency: [const { [const { OnceLock::new() }; METHODS.len()] }; TENANT_ROWS],
            store_duration: meter
                .f64_histogram("a2a.store.duration")
                .with_description("Task store calls by operation and outcome")
                .with_unit("s")
                .with_boundaries(STORE_BUCKETS.to_vec())
                .build(),
            store_latency: [const { [const { OnceLock::new() }; 2] }; STORE_OPERATIONS.len()],
            client_duration: meter
                .f64_histogram("http.client.request.duration")
                .with_description("Outbound HTTP attempts by peer service, method and outcome")
                .with_unit("s")
                .with_boundaries(CLIENT_BUCKETS.to_vec())
                .build(),
            _kept: None,
        };
        (figures, provider)
    }

    /// The latency histogram of tenant row `tenant` and the method in slot
    /// `method` of `METHODS`.
    pub(super) fn latency(&self, tenant: usize, method: usize) -> &BoundHistogram<f64> {
        self.latency[tenant][method].get_or_init(|| {
            let mut attributes = vec![KeyValue::new("rpc.method", METHODS[method])];
            attributes.extend(tenant_attribute(tenant));
            self.duration.bind(&attributes)
        })
    }

    /// The store histogram of operation `operation` (its slot), ok or
    /// failed.
    pub(super) fn store_latency(&self, operation: usize, failed: bool) -> &BoundHistogram<f64> {
        self.store_latency[operation][usize::from(failed)].get_or_init(|| {
            self.store_duration.bind(&[
                KeyValue::new("operation", STORE_OPERATIONS[operation]),
                KeyValue::new("outcome", if failed { "error" } else { "ok" }),
            ])
        })
    }

    /// Record one outbound attempt.
    pub(super) fn client_request(&self, call: &ClientCall<'_>) {
        let mut attributes = Vec::with_capacity(5);
        attributes.push(KeyValue::new("peer.service", call.peer));
        attributes.push(KeyValue::new("http.request.method", call.method));
        if let Some(service) = call.odata_service {
            attributes.push(KeyValue::new("odata.service", service));
        }
        if let Some(status) = call.status {
            attributes.push(KeyValue::new(
                "http.response.status_code",
                i64::from(status),
            ));
        }
        if let Some(error_type) = call.error_type {
            attributes.push(KeyValue::new("error.type", error_type.to_string()));
        }
        self.client_duration.record(call.seconds, &attributes);
    }

    /// A reading of everything; empty after shutdown.
    pub(super) fn reading(&self) -> ResourceMetrics {
        let mut reading = ResourceMetrics::default();
        if let Err(error) = self.reader.collect(&mut reading) {
            tracing::debug!(%error, "no metrics reading");
        }
        reading
    }
}

/// The counters as OpenTelemetry observable counters: a reading reads the
/// atomics. Every series of a fixed label set is exported from the start,
/// at 0 until it counts (so a dashboard or an "absent" alert does not read
/// a missing series as no data); series of run-time values (error codes,
/// OData services) appear with their first use, the known specialists'
/// outcomes from the start.
fn observe(meter: &Meter) {
    let counter = |name: &'static str, description: &'static str| {
        meter
            .u64_observable_counter(name)
            .with_description(description)
    };
    counter(
        "a2a.requests",
        "JSON-RPC calls by method and outcome (ok or error code)",
    )
    .with_callback(|observer| {
        for (tenant, row) in REQUESTS.iter().enumerate() {
            for (method, counts) in row.iter().enumerate() {
                // Each served method's `ok` from the start, at 0 until
                // called (without a tenant; a tenant's series appear with
                // its calls).
                let served = tenant == 0 && !matches!(METHODS[method], "-" | OTHER);
                for (outcome, count) in counts.all() {
                    if count == 0 && !(served && outcome == 0) {
                        continue;
                    }
                    let outcome = match outcome {
                        0 => Value::from("ok"),
                        code => ERROR_CODES
                            .value(code - 1)
                            .map_or(Value::from(OTHER), |code| Value::from(code.to_string())),
                    };
                    let mut attributes = vec![
                        KeyValue::new("rpc.method", METHODS[method]),
                        KeyValue::new("outcome", outcome),
                    ];
                    attributes.extend(tenant_attribute(tenant));
                    observer.observe(count, &attributes);
                }
            }
        }
    })
    .build();
    counter(
        "a2a.task.outcomes",
        "Turns ended, by task state and specialist",
    )
    .with_callback(|observer| {
        for (state, counts) in TASKS.iter().enumerate() {
            // The end states of every known specialist from the start.
            let end_state = TURN_END_STATES.contains(&TASK_STATES[state]);
            for (specialist, count) in counts.all() {
                let known = SPECIALISTS.value(specialist);
                if count == 0 && !(end_state && known.is_some()) {
                    continue;
                }
                let specialist = known.map_or(Value::from(OTHER), |name| Value::from(name.clone()));
                observer.observe(
                    count,
                    &[
                        KeyValue::new("a2a.task.state", TASK_STATES[state]),
                        KeyValue::new("a2a.specialist", specialist),
                    ],
                );
            }
        }
    })
    .build();
    counter(
        "a2a.push.deliveries",
        "Push deliveries ended, by result, reason and format",
    )
    .with_callback(|observer| {
        // Every outcome from the start, at 0 until it happens.
        for (format, counts) in PUSH_DELIVERIES.iter().enumerate() {
            for (slot, count) in counts.all() {
                let (result, reason) = PUSH_OUTCOMES[slot];
                if count == 0 && (format + 1 == PUSH_FORMATS.len() || result == OTHER) {
                    continue;
                }
                observer.observe(
                    count,
                    &[
                        KeyValue::new("result", result),
                        KeyValue::new("reason", reason),
                        KeyValue::new("format", PUSH_FORMATS[format]),
                    ],
                );
            }
        }
    })
    .build();
    counter("a2a.push.attempts", "Push attempts by result and format")
        .with_callback(|observer| {
            for (format, counts) in PUSH_ATTEMPTS.iter().enumerate() {
                for (slot, count) in counts.all() {
                    let result = PUSH_ATTEMPT_RESULTS[slot];
                    if count == 0 && (format + 1 == PUSH_FORMATS.len() || result == OTHER) {
                        continue;
                    }
                    observer.observe(
                        count,
                        &[
                            KeyValue::new("result", result),
                            KeyValue::new("format", PUSH_FORMATS[format]),
                        ],
                    );
                }
            }
        })
        .build();
    counter(
        "a2a.token.rejections",
        "Requests refused by authentication, by reason",
    )
    .with_callback(|observer| all_by_label(observer, &REJECTIONS, "reason", &REJECTION_REASONS))
    .build();
    counter(
        "a2a.limit.refusals",
        "Requests refused past a rate quota or a bound on open streams or work in flight, by limit",
    )
    .with_callback(|observer| all_by_label(observer, &LIMIT_REFUSALS, "limit", &LIMITS))
    .build();
    counter(
        "a2a.audit.messages",
        "Audit messages by outcome: queued, sent, kept aside, dropped, logged, retried",
    )
    .with_callback(|observer| all_by_label(observer, &AUDIT_MESSAGES, "outcome", &AUDIT_OUTCOMES))
    .build();
    counter(
        "a2a.budget.expiries",
        "Blocking sends answered `working` when the budget ran out",
    )
    .with_callback(|observer| observer.observe(BUDGET_EXPIRIES.total(), &[]))
    .build();
    counter(
        "a2a.s4hana.retries",
        "S/4HANA answers (429, 503) tried again, by OData service",
    )
    .with_callback(|observer| {
        // A service's series appears (at 0) with its first read.
        for (slot, count) in S4_RETRIES.all() {
            let service = match ODATA_SERVICES.value(slot) {
                Some(name) => Value::from(name.clone()),
                None if count > 0 => Value::from(OTHER),
                None => continue,
            };
            observer.observe(count, &[KeyValue::new("odata.service", service)]);
        }
    })
    .build();
    counter(
        "a2a.task.lease_expiries",
        "Tasks ended failed because the instance running them stopped",
    )
    .with_callback(|observer| observer.observe(LEASE_EXPIRIES.total(), &[]))
    .build();
    counter(
        "a2a.task.wait_expiries",
        "Tasks ended canceled after waiting too long for an answer",
    )
    .with_callback(|observer| observer.observe(WAIT_EXPIRIES.total(), &[]))
    .build();
    counter(
        "a2a.store.errors",
        "Task store calls that failed (lost races aside), by error type",
    )
    .with_callback(|observer| {
        all_by_label(observer, &STORE_ERRORS, "error.type", &STORE_ERROR_TYPES);
    })
    .build();
    counter(
        "a2a.actions.executions",
        "Attempts to carry approved actions out, by action, outcome and error type",
    )
    .with_callback(|observer| {
        // Every action's outcomes from the start, at 0 until they happen.
        for (action, counts) in ACTION_EXECUTIONS.iter().enumerate() {
            for (slot, count) in counts.all() {
                let (outcome, error_type) = ACTION_OUTCOMES[slot];
                if count == 0 && (ACTION_NAMES[action] == OTHER || outcome == OTHER) {
                    continue;
                }
                let mut attributes = vec![
                    KeyValue::new("action.name", ACTION_NAMES[action]),
                    KeyValue::new("outcome", outcome),
                ];
                // A success has no error type (OpenTelemetry's rule).
                if error_type != "-" {
                    attributes.push(KeyValue::new("error.type", error_type));
                }
                observer.observe(count, &attributes);
            }
        }
    })
    .build();
    meter
        .i64_observable_gauge("a2a.actions.ledger")
        .with_description("Action ledger rows by state (all instances), as last counted")
        .with_callback(|observer| {
            for (slot, rows) in LEDGER_ROWS.iter().enumerate() {
                observer.observe(
                    rows.load(Ordering::Relaxed).max(0),
                    &[KeyValue::new("state", LEDGER_STATES[slot])],
                );
            }
        })
        .build();
    meter
        .i64_observable_gauge("a2a.turns.running")
        .with_description("Turns running on this instance")
        .with_callback(|observer| {
            observer.observe(TURNS_RUNNING.load(Ordering::Relaxed).max(0), &[]);
        })
        .build();
    meter
        .i64_observable_gauge("a2a.tasks.open")
        .with_description("Open tasks in the store (all instances), as the last sweep counted")
        .with_callback(|observer| {
            let open = OPEN_TASKS.load(Ordering::Relaxed);
            if open >= 0 {
                observer.observe(open, &[]);
            }
        })
        .build();
    counter(
        "a2a.telemetry.spans.dropped",
        "Spans not exported: queue full or export failed",
    )
    .with_callback(|observer| all_by_label(observer, &SPANS_DROPPED, "reason", &DROP_REASONS))
    .build();
}

/// `sap.tenancy.tenant_id` of tenant row `tenant`: none for row 0 (no
/// tenant), the tenant's id, or `other` past the table.
fn tenant_attribute(tenant: usize) -> Option<KeyValue> {
    let slot = tenant.checked_sub(1)?;
    let value = TENANTS
        .value(slot)
        .map_or(Value::from(OTHER), |id| Value::from(id.clone()));
    Some(KeyValue::new(
        crate::telemetry::caller_tags::TENANT_ATTRIBUTE,
        value,
    ))
}

/// Observe a family with one label from a fixed set, every value from the
/// start (at 0 until counted) but `other`, which appears when counted.
fn all_by_label<const N: usize>(
    observer: &dyn AsyncInstrument<u64>,
    counts: &Counts<N>,
    key: &'static str,
    values: &[&'static str; N],
) {
    for (slot, count) in counts.all() {
        if values[slot] != OTHER || count > 0 {
            observer.observe(count, &[KeyValue::new(key, values[slot])]);
        }
    }
}
