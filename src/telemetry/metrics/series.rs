//! The label sets of every figure and the atomics it is counted in (and
//! what one outbound HTTP call reports): a leaf that both the recording
//! functions of `mod.rs` and the reading pipeline (`pipeline`) use, so
//! that neither needs the other to see them.

use super::counts::{Claimed, Counts};
use std::sync::atomic::AtomicI64;

/// The label of values outside a family's set (and of a full table).
pub(super) const OTHER: &str = "other";

/// The methods the service serves (the A2A 0.3 methods, the legacy
/// `tasks/send` and the A2A 1.0 methods, as `rpc/` dispatches them), `-`
/// for a request whose method could not be read, and `other` for any name
/// the service does not serve: the caller chooses that name, so it never
/// becomes a label.
pub(super) const METHODS: [&str; 24] = [
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
    "tasks/send",
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
    "-",
    OTHER,
];

/// The A2A task states (`TaskState::as_str`).
pub(super) const TASK_STATES: [&str; 10] = [
    "submitted",
    "working",
    "input-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "auth-required",
    "unknown",
    OTHER,
];

/// How a push notification's delivery to one webhook ended: (`result`,
/// `reason`). Given up: the last attempt's status class, or why no answer
/// came; refused: never sent.
pub(super) const PUSH_OUTCOMES: [(&str, &str); 10] = [
    ("delivered", "-"),
    ("given_up", "status_3xx"),
    ("given_up", "status_4xx"),
    ("given_up", "status_5xx"),
    ("given_up", "timeout"),
    ("given_up", "no_answer"),
    ("refused", "refused_by_guard"),
    ("refused", "token_exchange_failed"),
    ("refused", "not_encodable"),
    (OTHER, OTHER),
];
pub(super) const PUSH_FORMATS: [&str; 3] = ["a2a", "joule", OTHER];
/// One attempt's result.
pub(super) const PUSH_ATTEMPT_RESULTS: [&str; 3] = ["delivered", "failed", OTHER];
/// Why authentication refused a request: no token, the class of an
/// invalid token (`auth::Rejection`), no permission, keys unavailable.
pub(super) const REJECTION_REASONS: [&str; 14] = [
    "missing",
    "malformed",
    "unsupported_algorithm",
    "expired",
    "not_yet_valid",
    "untrusted_issuer",
    "wrong_audience",
    "wrong_tenant",
    "unknown_key",
    "keys_refused",
    "bad_signature",
    "forbidden",
    "unavailable",
    OTHER,
];
/// The limits a request can be refused at: with -32029 and 429 the rate
/// quotas (`http/quota`; 503 for a full table of rates) and the bounds on
/// open event streams (`rpc/stream_slots`); with 503 the bounds on calls
/// and body bytes in flight (`http/calls_in_flight`, `http/body`).
pub(super) const LIMITS: [&str; 10] = [
    "caller",
    "tenant",
    "instance",
    "max_keys",
    "streams",
    "streams_per_caller",
    "streams_per_task",
    "calls_in_flight",
    "body_bytes_in_flight",
    OTHER,
];
pub(super) const DROP_REASONS: [&str; 3] = ["queue_full", "export_failed", OTHER];
/// What became of an audit message (src/audit/): stored in the outbox,
/// accepted by the Audit Log Service, kept aside (refused for good),
/// dropped (the outbox was full or the message invalid), written to the
/// log (no binding), or an attempt to be tried again.
pub(super) const AUDIT_OUTCOMES: [&str; 7] = [
    "queued",
    "sent",
    "kept_aside",
    "dropped",
    "logged",
    "retried",
    OTHER,
];

/// The actions the agent may carry out (`agent::Action::as_str`).
pub(super) const ACTION_NAMES: [&str; 5] = [
    "request_delivery_date_change",
    "request_credit_review",
    "open_dispute_case",
    "request_master_data_change",
    OTHER,
];
/// How one attempt to carry an approved action out ended: (`outcome`,
/// `error.type`; `-` for none). Retrying: why the attempt will be made
/// again; failed: why it never will (S/4HANA's refusal by class, the
/// action hook's, or the attempts used up).
pub(super) const ACTION_OUTCOMES: [(&str, &str); 11] = [
    ("done", "-"),
    ("retrying", "transient"),
    ("retrying", "hook_unavailable"),
    ("failed", "forbidden"),
    ("failed", "stale"),
    ("failed", "refused"),
    ("failed", "not_found"),
    ("failed", "identity"),
    ("failed", "hook_refused"),
    ("failed", "retries_exhausted"),
    (OTHER, OTHER),
];
/// The states of an action ledger row (`agent::ledger::ExecutionState`).
pub(super) const LEDGER_STATES: [&str; 5] =
    ["recorded", "retrying", "done", "failed", "superseded"];

/// The task store's operations (`tasks::TaskStore`'s methods).
pub(super) const STORE_OPERATIONS: [&str; 18] = [
    "get",
    "create",
    "opened_by",
    "context_held_by_another",
    "open_tasks_of",
    "waiting_since",
    "list",
    "update",
    "set_push_config",
    "push_configs",
    "delete_push_config",
    "renew_leases",
    "expired_leases",
    "purge_finished",
    "trim_finished",
    "count_open",
    "erase_owner",
    OTHER,
];
/// The task store's errors that are faults (lost races are not counted).
pub(super) const STORE_ERROR_TYPES: [&str; 9] = [
    "unavailable",
    "disk_full",
    "corrupt",
    "unreadable_task",
    "too_large",
    "full",
    "already_exists",
    "not_found",
    OTHER,
];

/// Outcome slots of a request: `ok`, then the error codes met so far.
pub(super) const OUTCOMES: usize = 1 + CODE_SLOTS;
pub(super) const CODE_SLOTS: usize = 32;
pub(super) const SPECIALIST_SLOTS: usize = 32;
/// Tenant slots of the request figures: the first `TENANT_SLOTS - 1`
/// tenants a process meets keep their id, later ones count as `other`
/// (tenants come from accepted tokens only, but an instance may serve many).
pub(super) const TENANT_SLOTS: usize = 16;
/// Slot 0 of the request figures is "no tenant" (authentication off, or a
/// call refused before a token was accepted); slot `1 + t` is tenant `t`.
pub(super) const TENANT_ROWS: usize = 1 + TENANT_SLOTS;
/// OData services of S/4HANA: names from the code, a handful.
pub(super) const ODATA_SERVICE_SLOTS: usize = 16;

// ---- the figures ----------------------------------------------------------

/// Requests by tenant row, method and outcome.
pub(super) static REQUESTS: [[Counts<OUTCOMES>; METHODS.len()]; TENANT_ROWS] =
    [const { [const { Counts::new() }; METHODS.len()] }; TENANT_ROWS];
pub(super) static TENANTS: Claimed<String, TENANT_SLOTS> = Claimed::new();
pub(super) static ERROR_CODES: Claimed<i64, CODE_SLOTS> = Claimed::new();
pub(super) static TASKS: [Counts<SPECIALIST_SLOTS>; TASK_STATES.len()] =
    [const { Counts::new() }; TASK_STATES.len()];
pub(super) static SPECIALISTS: Claimed<String, SPECIALIST_SLOTS> = Claimed::new();
pub(super) static PUSH_DELIVERIES: [Counts<{ PUSH_OUTCOMES.len() }>; PUSH_FORMATS.len()] =
    [const { Counts::new() }; PUSH_FORMATS.len()];
pub(super) static PUSH_ATTEMPTS: [Counts<{ PUSH_ATTEMPT_RESULTS.len() }>; PUSH_FORMATS.len()] =
    [const { Counts::new() }; PUSH_FORMATS.len()];
pub(super) static REJECTIONS: Counts<{ REJECTION_REASONS.len() }> = Counts::new();
pub(super) static LIMIT_REFUSALS: Counts<{ LIMITS.len() }> = Counts::new();
pub(super) static BUDGET_EXPIRIES: Counts<1> = Counts::new();
pub(super) static AUDIT_MESSAGES: Counts<{ AUDIT_OUTCOMES.len() }> = Counts::new();
pub(super) static SPANS_DROPPED: Counts<{ DROP_REASONS.len() }> = Counts::new();
pub(super) static S4_RETRIES: Counts<ODATA_SERVICE_SLOTS> = Counts::new();
pub(super) static STORE_ERRORS: Counts<{ STORE_ERROR_TYPES.len() }> = Counts::new();
/// Tasks ended `failed` because the instance running them stopped (their
/// lease ran out), and tasks ended `canceled` after waiting too long.
pub(super) static LEASE_EXPIRIES: Counts<1> = Counts::new();
pub(super) static WAIT_EXPIRIES: Counts<1> = Counts::new();
/// Turns running on this instance (a gauge: added to and taken from).
pub(super) static TURNS_RUNNING: AtomicI64 = AtomicI64::new(0);
/// Open tasks in the store as the last sweep counted them; -1 before it.
pub(super) static OPEN_TASKS: AtomicI64 = AtomicI64::new(-1);
pub(super) static ODATA_SERVICES: Claimed<String, ODATA_SERVICE_SLOTS> = Claimed::new();
pub(super) static ACTION_EXECUTIONS: [Counts<{ ACTION_OUTCOMES.len() }>; ACTION_NAMES.len()] =
    [const { Counts::new() }; ACTION_NAMES.len()];
/// Ledger rows by state (every instance's), as this instance last counted
/// them; 0 until then.
pub(super) static LEDGER_ROWS: [AtomicI64; LEDGER_STATES.len()] =
    [const { AtomicI64::new(0) }; LEDGER_STATES.len()];

/// The states a turn ends in: exported at 0 for every known specialist.
pub(super) const TURN_END_STATES: [&str; 5] = [
    "completed",
    "failed",
    "rejected",
    "input-required",
    "canceled",
];

/// One outbound HTTP attempt, as `http.client.request.duration` counts
/// it: who was called (`peer.service`, and the OData service for S/4HANA:
/// names from the code), the method, the status or why there was none.
#[derive(Debug, Clone, Copy)]
pub struct ClientCall<'a> {
    pub peer: &'static str,
    pub odata_service: Option<&'static str>,
    pub method: &'static str,
    pub status: Option<u16>,
    pub error_type: Option<&'a str>,
    pub seconds: f64,
}
