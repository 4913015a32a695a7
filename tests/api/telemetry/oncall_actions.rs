//! Approved actions as the on-call engineer meets them, read where they
//! read them: the OTLP export of the real binary (a loopback collector)
//! and its SAP JSON log lines. An action S/4HANA refuses is counted by
//! outcome and error type, shows in the ledger gauge, is an ERROR span
//! naming the ledger key and task, and a warning naming the same; a later
//! attempt in the retry job, and the push of its result, are a trace of
//! their own linked to the approval's, named by its task and ledger key,
//! and logged under the approval's correlation id.

use crate::doubles::otlp::{Collector, STATUS_ERROR, hex, int, status, text};
use crate::doubles::s4hana::users::known::COMM_USER;
use crate::doubles::s4hana::{Access, S4Double, Scope, Step};
use crate::helpers::binary::{Running, start_binary};
use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{ActionKey, TestApp, approval, delivery_day, state, status_text, wait_until};
use opentelemetry_proto::tonic::trace::v1::Span;
use serde_json::{Value, json};
use std::time::Duration;

/// The trace of the approving request (its `traceparent`).
const APPROVAL_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// The real binary reading and writing S/4HANA (the double, as its
/// technical user: no approver's token is needed for a retry), carrying
/// actions out there, logging JSON, exporting to `collector`, its retry
/// job and ledger count fast.
async fn binary(collector: &Collector, s4: &S4Double, more: &[(&str, &str)]) -> Running {
    let mut envs: Vec<(&str, &str)> = collector.variables().to_vec();
    envs.extend([
        ("AGENT__TELEMETRY__LOG_FORMAT", "json"),
        ("AGENT__BACKEND__SOURCE", "s4hana"),
        ("AGENT__BACKEND__S4HANA__URL", s4.url.as_str()),
        ("AGENT__BACKEND__S4HANA__USER", COMM_USER.0),
        ("AGENT__BACKEND__S4HANA__PASSWORD", COMM_USER.1),
        ("AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__BACKEND__S4HANA__MAX_RETRIES", "0"),
        ("AGENT__ACTIONS__EXECUTOR", "s4hana"),
        ("AGENT__ACTIONS__RETRY_BASE_MS", "50"),
        ("AGENT__ACTIONS__RETRY_INTERVAL_MS", "100"),
        ("AGENT__STORE__SWEEP_INTERVAL_SECS", "1"),
    ]);
    envs.extend_from_slice(more);
    start_binary(&envs).await
}

/// Ask about 4740's delivery block and give the date: the approval
/// question, as an AR clerk.
async fn asked_with_date(app: &TestApp) -> Value {
    let asked = app
        .send_text("customer wants a later delivery date on 4740")
        .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let dated = app.reply(&asked, &delivery_day().written).await;
    assert_eq!(approval(&dated)["status"], "pending", "{dated}");
    dated
}

/// The JSON log lines among everything the binary wrote.
fn json_lines(log: &[String]) -> Vec<Value> {
    log.iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .collect()
}

/// The ledger key as spans and log lines name it (`ledger.key`).
fn ledger_key_of(app_row: &Value) -> String {
    serde_json::from_value::<ActionKey>(app_row.clone())
        .expect("a ledger row carries its key")
        .idempotency_key()
}

fn executions(collector: &Collector, outcome: &str, error_type: Option<&str>) -> Option<f64> {
    let mut labels = vec![
        ("action.name", "request_delivery_date_change"),
        ("outcome", outcome),
    ];
    if let Some(error_type) = error_type {
        labels.push(("error.type", error_type));
    }
    let points = collector.metric("a2a.actions.executions")?;
    points
        .iter()
        .find(|point| {
            labels
                .iter()
                .all(|(key, value)| point.label(key).as_deref() == Some(*value))
                && (error_type.is_some() || point.label("error.type").is_none())
        })
        .map(|point| point.value)
}

/// S/4HANA refuses an approved action (the user may not change the
/// order): `a2a.actions.executions` counts it `failed` with `error.type`
/// `forbidden` (every outcome there at 0 from the first reading), the
/// ledger gauge shows the failed row (every state at 0 before), the
/// `action.execute` span is ERROR with a message, `error.type`, the ledger
/// key and the task id, and one warning names the action, the ledger key,
/// the task, the reason and the approver's correlation id.
#[tokio::test]
async fn an_action_s4hana_refuses_is_counted_gauged_an_error_span_and_a_warning() {
    let s4 = S4Double::start().await;
    s4.set_access(
        COMM_USER.0,
        Access {
            read: Scope::All,
            change: Scope::Nothing,
            services: None,
        },
    );
    let collector = Collector::start().await;
    let running = binary(&collector, &s4, &[]).await;
    let app = running.app().with_headers(&[
        ("x-agent-role", "ar_clerk"),
        ("x-correlationid", "corr-refused"),
    ]);
    let dated = asked_with_date(&app).await;
    let refused = app.reply(&dated, "approve").await;
    assert!(
        status_text(&refused).contains("S/4HANA refused it: you may not change sales order 4740"),
        "{}",
        status_text(&refused)
    );
    let row = app.actions().await[0].clone();
    assert_eq!(row["state"], "failed", "{row}");
    let key = ledger_key_of(&row);
    let task_id = dated["id"].as_str().expect("a task id").to_string();
    wait_until(Duration::from_secs(10), async || {
        executions(&collector, "failed", Some("forbidden")) == Some(1.0)
            && collector.value("a2a.actions.ledger", &[("state", "failed")]) == Some(1.0)
            && !collector.named("action.execute").is_empty()
    })
    .await;
    let log = json_lines(&running.terminate().await);

    // Every outcome and state from the first reading, at 0.
    let first = collector
        .first_metric("a2a.actions.executions")
        .expect("the executions counter is exported");
    for (outcome, error_type) in [
        ("done", None),
        ("retrying", Some("transient")),
        ("failed", Some("hook_refused")),
        ("failed", Some("retries_exhausted")),
    ] {
        let at_zero = first.iter().any(|point| {
            point.label("action.name").as_deref() == Some("open_dispute_case")
                && point.label("outcome").as_deref() == Some(outcome)
                && point.label("error.type").as_deref() == error_type
                && point.value == 0.0
        });
        assert!(at_zero, "{outcome} {error_type:?} at 0: {first:?}");
    }
    let first_ledger = collector
        .first_metric("a2a.actions.ledger")
        .expect("the ledger gauge is exported");
    for state in ["recorded", "retrying", "done", "failed", "superseded"] {
        assert!(
            first_ledger
                .iter()
                .any(|point| point.label("state").as_deref() == Some(state) && point.value == 0.0),
            "{state} at 0 in the first reading: {first_ledger:?}"
        );
    }

    assert_eq!(
        executions(&collector, "failed", Some("forbidden")),
        Some(1.0)
    );
    assert_eq!(executions(&collector, "done", None), Some(0.0));
    assert_eq!(
        collector.value("a2a.actions.ledger", &[("state", "failed")]),
        Some(1.0)
    );
    assert_eq!(
        collector.value("a2a.actions.ledger", &[("state", "done")]),
        Some(0.0)
    );

    let spans = collector.named("action.execute");
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    let (code, message) = status(span);
    assert_eq!(code, STATUS_ERROR, "{span:?}");
    assert!(
        message.contains("you may not change sales order 4740 (403)"),
        "{message}"
    );
    assert_eq!(
        text(&span.attributes, "error.type").as_deref(),
        Some("forbidden")
    );
    assert_eq!(
        text(&span.attributes, "ledger.key").as_deref(),
        Some(key.as_str())
    );
    assert_eq!(
        text(&span.attributes, "a2a.task.id").as_deref(),
        Some(task_id.as_str())
    );
    assert_eq!(
        text(&span.attributes, "action.outcome").as_deref(),
        Some("failed")
    );

    let warnings: Vec<&Value> = log
        .iter()
        .filter(|line| line["msg"] == "an approved action failed")
        .collect();
    assert_eq!(warnings.len(), 1, "{log:?}");
    let line = warnings[0];
    assert_eq!(line["level"], "WARN", "{line}");
    assert_eq!(
        line["action.name"], "request_delivery_date_change",
        "{line}"
    );
    assert_eq!(line["ledger.key"], key.as_str(), "{line}");
    assert_eq!(line["a2a.task.id"], task_id.as_str(), "{line}");
    assert_eq!(line["sap.sales_order"], "4740", "{line}");
    assert_eq!(line["error.type"], "forbidden", "{line}");
    assert_eq!(line["correlation_id"], "corr-refused", "{line}");
    assert_eq!(line["trace_id"], hex(&span.trace_id).as_str(), "{line}");
    assert!(
        line["reason"]
            .as_str()
            .is_some_and(|reason| reason.contains("(403)")),
        "{line}"
    );
    // S/4HANA's own words are in the log, not in any span.
    assert!(
        log.iter().any(|line| line.to_string().contains(S4_WORDS)),
        "{log:?}"
    );
    assert!(!format!("{:?}", collector.spans()).contains(S4_WORDS));
}

/// What the S/4HANA double says when a change is not authorized.
const S4_WORDS: &str = "No authorization to change sales document 4740";

/// With `telemetry.debug_content`, spans quote what S/4HANA said too.
#[tokio::test]
async fn with_debug_content_the_spans_quote_what_s4hana_said() {
    let s4 = S4Double::start().await;
    s4.set_access(
        COMM_USER.0,
        Access {
            read: Scope::All,
            change: Scope::Nothing,
            services: None,
        },
    );
    let collector = Collector::start().await;
    let running = binary(
        &collector,
        &s4,
        &[("AGENT__TELEMETRY__DEBUG_CONTENT", "true")],
    )
    .await;
    let app = running.app().with_headers(&[("x-agent-role", "ar_clerk")]);
    let dated = asked_with_date(&app).await;
    app.reply(&dated, "approve").await;
    wait_until(Duration::from_secs(10), async || {
        format!("{:?}", collector.spans()).contains(S4_WORDS)
    })
    .await;
    running.terminate().await;
    assert!(format!("{:?}", collector.spans()).contains(S4_WORDS));
}

/// What an approval whose first attempt S/4HANA did not answer (503) left
/// behind once the retry job carried it out: the spans, the log lines, the
/// task id and ledger key, the follow-up task's id when a push was asked for.
struct Retried {
    collector: Collector,
    log: Vec<Value>,
    task_id: String,
    key: String,
    follow_up: Option<String>,
}

/// Approve 4740's delivery date change with a `traceparent` and a
/// correlation id while S/4HANA answers the first write 503, and wait for
/// the retry job to carry it out (and, with `webhook`, for the later
/// result to be pushed there).
async fn approved_then_retried(webhook: Option<&WebhookReceiver>) -> Retried {
    let s4 = S4Double::start().await;
    s4.script("MERGE", vec![Step::Status(503)]);
    let collector = Collector::start().await;
    let push = [
        ("AGENT__PUSH__ALLOWED_HOSTS", "127.0.0.1"),
        ("AGENT__PUSH__ALLOW_LOOPBACK_HTTP", "true"),
        ("AGENT__PUSH__ALLOW_PRIVATE_ADDRESSES", "true"),
    ];
    let running = binary(&collector, &s4, &push).await;
    let clerk = running.app().as_role("ar_clerk");
    let dated = asked_with_date(&clerk).await;
    let approving = running.app().with_headers(&[
        ("x-agent-role", "ar_clerk"),
        ("x-correlationid", "corr-approved"),
        (
            "traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ),
    ]);
    let mut message = crate::helpers::user_message("approve");
    message["taskId"] = dated["id"].clone();
    message["contextId"] = dated["contextId"].clone();
    let mut params = json!({"message": message});
    if let Some(webhook) = webhook {
        params["configuration"] = json!({"blocking": true, "pushNotificationConfig": {"url": format!("{}/later", webhook.url)}});
    }
    let answered = approving.rpc("message/send", params).await;
    assert!(
        status_text(&answered["result"]).contains("it will be tried again"),
        "{answered}"
    );
    let done = wait_until(Duration::from_secs(20), async || {
        clerk
            .actions()
            .await
            .first()
            .is_some_and(|row| row["state"] == "done")
    })
    .await;
    assert!(done, "{:?}", clerk.actions().await);
    let row = clerk.actions().await[0].clone();
    let mut follow_up: Option<String> = None;
    if let Some(webhook) = webhook {
        let pushed = wait_until(Duration::from_secs(20), async || {
            follow_up = webhook
                .at("/later")
                .iter()
                .find(|call| status_text(&call.body).starts_with("Done in S/4HANA"))
                .and_then(|call| call.body["id"].as_str().map(str::to_string));
            follow_up.is_some()
        })
        .await;
        assert!(
            pushed,
            "the later result is pushed: {:?}",
            webhook.at("/later")
        );
    }
    let delivered_later = || {
        collector
            .named("push.delivery")
            .iter()
            .any(|span| text(&span.attributes, "a2a.task.id").as_deref() == follow_up.as_deref())
    };
    wait_until(Duration::from_secs(10), async || {
        collector.named("action.execute").len() >= 2
            && !collector.named("action.retry").is_empty()
            && (webhook.is_none() || delivered_later())
    })
    .await;
    let log = json_lines(&running.terminate().await);
    Retried {
        collector,
        log,
        task_id: dated["id"].as_str().expect("a task id").to_string(),
        key: ledger_key_of(&row),
        follow_up,
    }
}

/// The retry job's root span of the one later attempt.
/// `retry` links to the approval's trace and names its task and ledger key.
fn assert_linked_to_the_approval(retried: &Retried, retry: &Span) {
    let linked: Vec<String> = retry.links.iter().map(|link| hex(&link.trace_id)).collect();
    assert_eq!(linked, [APPROVAL_TRACE], "{retry:?}");
    assert_eq!(
        text(&retry.attributes, "a2a.task.id").as_deref(),
        Some(retried.task_id.as_str())
    );
    assert_eq!(
        text(&retry.attributes, "ledger.key").as_deref(),
        Some(retried.key.as_str())
    );
}

fn the_retry(retried: &Retried) -> Span {
    let retries = retried.collector.named("action.retry");
    assert_eq!(retries.len(), 1, "{retries:?}");
    retries[0].clone()
}

/// A later attempt in the retry job is a trace of its own (`action.retry`,
/// a root) with a span link to the approval's trace, `a2a.task.id` and
/// `ledger.key`; its `action.execute` is a child of it; its log line
/// carries the approval's correlation id. The first attempt, in the
/// approval's trace, says why it will be retried (`error.type`) without
/// being an error, and each attempt is counted by outcome.
#[tokio::test]
async fn a_later_attempt_in_the_retry_job_links_to_the_approval_and_logs_its_correlation_id() {
    let retried = approved_then_retried(None).await;
    let collector = &retried.collector;
    let retry = the_retry(&retried);
    assert!(retry.parent_span_id.is_empty(), "a root: {retry:?}");
    assert_ne!(hex(&retry.trace_id), APPROVAL_TRACE);
    assert_linked_to_the_approval(&retried, &retry);

    let attempts = collector.named("action.execute");
    let outcome = |span: &Span| text(&span.attributes, "action.outcome");
    let first = attempts
        .iter()
        .find(|span| outcome(span).as_deref() == Some("retrying"))
        .expect("the first attempt");
    assert_eq!(hex(&first.trace_id), APPROVAL_TRACE);
    assert_eq!(
        text(&first.attributes, "error.type").as_deref(),
        Some("transient")
    );
    assert_eq!(status(first).0, 0, "retrying is not failed: {first:?}");
    let later = attempts
        .iter()
        .find(|span| outcome(span).as_deref() == Some("done"))
        .expect("the later attempt");
    assert_eq!(later.trace_id, retry.trace_id);
    assert_eq!(later.parent_span_id, retry.span_id);
    assert_eq!(int(&later.attributes, "action.attempts"), Some(2));
    assert_eq!(
        text(&later.attributes, "a2a.task.id").as_deref(),
        Some(retried.task_id.as_str())
    );

    let line = retried
        .log
        .iter()
        .find(|line| line["msg"] == "approved action tried again")
        .unwrap_or_else(|| panic!("the later attempt's line: {:?}", retried.log));
    assert_eq!(line["correlation_id"], "corr-approved", "{line}");
    assert_eq!(line["trace_id"], hex(&retry.trace_id).as_str(), "{line}");
    assert_eq!(line["a2a.task.id"], retried.task_id.as_str(), "{line}");
    assert_eq!(line["ledger.key"], retried.key.as_str(), "{line}");
    assert_eq!(line["action.outcome"], "done", "{line}");

    assert_eq!(
        executions(collector, "retrying", Some("transient")),
        Some(1.0)
    );
    assert_eq!(executions(collector, "done", None), Some(1.0));
}

/// The push of a result that arrived after the answer (a follow-up task,
/// sent by the retry job) is part of the later attempt's trace, which
/// links to the approval: its `push.delivery` is a child of `action.retry`
/// (with the approval's task id and ledger key), and its log line carries
/// the approval's correlation id.
#[tokio::test]
async fn the_push_of_a_later_result_is_in_the_linked_trace_and_logs_the_approvals_correlation_id() {
    let webhook = WebhookReceiver::start().await;
    let retried = approved_then_retried(Some(&webhook)).await;
    let follow_up = retried.follow_up.clone().expect("a follow-up task");
    assert_ne!(follow_up, retried.task_id);
    let retry = the_retry(&retried);
    assert_linked_to_the_approval(&retried, &retry);

    let deliveries: Vec<Span> = retried
        .collector
        .named("push.delivery")
        .into_iter()
        .filter(|span| text(&span.attributes, "a2a.task.id").as_deref() == Some(&follow_up))
        .collect();
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    let delivery = &deliveries[0];
    assert_eq!(delivery.trace_id, retry.trace_id);
    assert_eq!(delivery.parent_span_id, retry.span_id);

    let line = retried
        .log
        .iter()
        .find(|line| line["msg"] == "push delivery" && line["a2a.task.id"] == follow_up.as_str())
        .unwrap_or_else(|| panic!("the later push's line: {:?}", retried.log));
    assert_eq!(line["correlation_id"], "corr-approved", "{line}");
    assert_eq!(line["trace_id"], hex(&retry.trace_id).as_str(), "{line}");
}

/// A read S/4HANA refuses (403, its words in the answer) is a warning in
/// the log that quotes them, and no span does: the agent's "backend read
/// failed" warnings carry the content marker too.
#[tokio::test]
async fn a_read_s4hana_refuses_quotes_its_words_in_the_log_and_in_no_span() {
    let s4 = S4Double::start().await;
    s4.set_access(
        COMM_USER.0,
        Access {
            read: Scope::Nothing,
            change: Scope::Nothing,
            services: None,
        },
    );
    let collector = Collector::start().await;
    let running = binary(&collector, &s4, &[]).await;
    let app = running.app().with_headers(&[("x-agent-role", "viewer")]);
    let answered = app.send_text("why is order 4711 blocked").await;
    assert!(!status_text(&answered).contains(READ_WORDS), "{answered}");
    wait_until(Duration::from_secs(10), async || {
        !collector.named("a2a.turn").is_empty()
    })
    .await;
    let log = json_lines(&running.terminate().await);
    assert!(
        log.iter().any(|line| line.to_string().contains(READ_WORDS)),
        "{log:?}"
    );
    assert!(!format!("{:?}", collector.spans()).contains(READ_WORDS));
}

/// What the S/4HANA double says when a read is not authorized.
const READ_WORDS: &str = "No authorization to display sales document 4711";
