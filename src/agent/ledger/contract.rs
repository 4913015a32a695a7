//! The behaviour every ledger must show; run by each implementation's tests:
//! filing exactly once per key, a changed order or another request filed
//! anew, an open earlier request superseded (or waited for while it is
//! carried out), and the execution state's moves (claim, lease, finish, due
//! rows for the retry job).

use super::{ActionKey, ActionLedger, Claim, ExecutionState, Filing, Finish, LedgerEntry};
use std::sync::Arc;

/// The order version the contract files at unless it says otherwise.
pub const VERSION: &str = "W/\"datetimeoffset'2026-11-30T08%3A12%3A05.1230000Z'\"";

pub fn key(order: &str) -> ActionKey {
    ActionKey::new(order, ACTION, VERSION, "")
}

pub fn entry(order: &str, user: &str) -> LedgerEntry {
    LedgerEntry {
        key: key(order),
        specialist: "pricing".into(),
        summary: format!("Open a dispute case for order {order}"),
        approved_by: user.into(),
        approver_role: "ar_clerk".into(),
        approved_at: "2026-11-30T12:00:00.000Z".into(),
        task_id: format!("task-{user}"),
        context_id: "ctx".into(),
        ..LedgerEntry::default()
    }
}

pub async fn files_exactly_once_under_concurrency(ledger: Arc<dyn ActionLedger>) {
    let attempts: Vec<_> = (0..50)
        .map(|i| {
            let ledger = Arc::clone(&ledger);
            tokio::spawn(async move { ledger.file(entry("4725", &format!("u{i}"))).await })
        })
        .collect();
    let mut filed = Vec::new();
    let mut already = 0;
    for attempt in attempts {
        match attempt.await.expect("no panic").expect("ledger up") {
            Filing::Filed(entry) => filed.push(entry),
            Filing::AlreadyFiled(existing) => {
                already += 1;
                assert_eq!(existing.key, key("4725"));
            }
            Filing::EarlierOpen(other) => panic!("no earlier request: {other:?}"),
        }
    }
    assert_eq!(filed.len(), 1, "exactly one approval files");
    assert_eq!(already, 49);
    let rows = ledger.list().await.expect("list");
    let for_order: Vec<_> = rows
        .iter()
        .filter(|e| e.key.sales_order == "4725")
        .collect();
    assert_eq!(for_order.len(), 1);
    assert_eq!(for_order[0].approved_by, filed[0].approved_by);
    assert_eq!(for_order[0].state, ExecutionState::Recorded);
}

fn claim(owner: &str, lease_ms: u64, due_only: bool) -> Claim {
    Claim {
        owner: owner.into(),
        lease_ms,
        due_only,
        stale_ms: 60_000,
    }
}

const ACTION: &str = "open_dispute_case";

pub async fn execution_state_transitions(ledger: Arc<dyn ActionLedger>) {
    let mut new = entry("4740", "u1");
    new.parameters
        .insert("requestedDeliveryDate".into(), "2026-12-18".into());
    let Filing::Filed(filed) = ledger.file(new).await.expect("file") else {
        panic!("a fresh row files");
    };
    assert_eq!(filed.state, ExecutionState::Recorded);
    assert_eq!(filed.attempts, 0);
    assert!(
        ledger
            .get(&ActionKey::new("4740", "other", VERSION, ""))
            .await
            .expect("get")
            .is_none()
    );

    // A fresh recorded row is not due for a retry job, but the approval
    // claims it at once; while the lease holds nobody else may.
    assert!(ledger.due(60_000, 10).await.expect("due").is_empty());
    assert!(
        ledger
            .claim(&key("4740"), &claim("job", 60_000, true))
            .await
            .expect("claim")
            .is_none()
    );
    let claimed = ledger
        .claim(&key("4740"), &claim("a", 60_000, false))
        .await
        .expect("claim")
        .expect("the fresh row is claimed");
    assert_eq!(claimed.parameters["requestedDeliveryDate"], "2026-12-18");
    assert!(
        ledger
            .claim(&key("4740"), &claim("b", 60_000, false))
            .await
            .expect("claim")
            .is_none()
    );
    // Only the owner finishes.
    let transient = Finish {
        state: ExecutionState::Retrying,
        answer: Some("S/4HANA answered 503".into()),
        retry_in_ms: Some(0),
        audit: Default::default(),
    };
    assert!(
        ledger
            .finish(&key("4740"), "b", &transient)
            .await
            .expect("finish")
            .is_none()
    );
    let retrying = ledger
        .finish(&key("4740"), "a", &transient)
        .await
        .expect("finish")
        .expect("the owner finishes");
    assert_eq!(retrying.state, ExecutionState::Retrying);
    assert_eq!(retrying.attempts, 1);
    assert_eq!(retrying.answer.as_deref(), Some("S/4HANA answered 503"));
    assert!(retrying.next_attempt_at.is_some());

    // Due now: the job claims it; a second finish by the old owner is refused.
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    let due = ledger.due(60_000, 10).await.expect("due");
    assert_eq!(due.len(), 1);
    assert!(
        ledger
            .finish(&key("4740"), "a", &transient)
            .await
            .expect("finish")
            .is_none()
    );
    ledger
        .claim(&key("4740"), &claim("job", 60_000, true))
        .await
        .expect("claim")
        .expect("a due retrying row is claimed");
    let done = ledger
        .finish(
            &key("4740"),
            "job",
            &Finish {
                state: ExecutionState::Done,
                answer: Some("204".into()),
                retry_in_ms: None,
                audit: Default::default(),
            },
        )
        .await
        .expect("finish")
        .expect("the job finishes");
    assert_eq!(done.state, ExecutionState::Done);
    assert_eq!(done.attempts, 2);
    assert!(done.next_attempt_at.is_none());
    // Done is final: no claim, not due, a second filing finds it done.
    assert!(
        ledger
            .claim(&key("4740"), &claim("c", 60_000, false))
            .await
            .expect("claim")
            .is_none()
    );
    assert!(ledger.due(0, 10).await.expect("due").is_empty());
    match ledger.file(entry("4740", "u2")).await.expect("file") {
        Filing::AlreadyFiled(existing) => {
            assert_eq!(existing.state, ExecutionState::Done);
            assert_eq!(existing.approved_by, "u1");
        }
        other => panic!("filed twice: {other:?}"),
    }

    // A permanent refusal is final too.
    ledger.file(entry("4711", "u1")).await.expect("file");
    ledger
        .claim(&key("4711"), &claim("a", 60_000, false))
        .await
        .expect("claim")
        .expect("claimed");
    let failed = ledger
        .finish(
            &key("4711"),
            "a",
            &Finish {
                state: ExecutionState::Failed,
                answer: Some("403".into()),
                retry_in_ms: None,
                audit: Default::default(),
            },
        )
        .await
        .expect("finish")
        .expect("finished");
    assert_eq!(failed.state, ExecutionState::Failed);
    assert!(
        ledger
            .claim(&key("4711"), &claim("b", 60_000, false))
            .await
            .expect("claim")
            .is_none()
    );

    // An executor that stopped between filing and carrying out: its lease
    // expires and the stale recorded row is due for the job.
    ledger.file(entry("4725", "u1")).await.expect("file");
    ledger
        .claim(&key("4725"), &claim("crashed", 0, false))
        .await
        .expect("claim")
        .expect("claimed");
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let due = ledger.due(0, 10).await.expect("due");
    assert_eq!(
        due.iter()
            .map(|e| e.key.sales_order.as_str())
            .collect::<Vec<_>>(),
        ["4725"]
    );
    let reclaimed = ledger
        .claim(
            &key("4725"),
            &Claim {
                stale_ms: 0,
                ..claim("job", 60_000, true)
            },
        )
        .await
        .expect("claim")
        .expect("an expired lease is claimed again");
    assert_eq!(reclaimed.state, ExecutionState::Recorded);
    let listed = ledger.list().await.expect("list");
    assert_eq!(listed.len(), 3);
}

pub async fn one_claim_wins_under_concurrency(ledger: Arc<dyn ActionLedger>) {
    ledger.file(entry("4740", "u1")).await.expect("file");
    let claims: Vec<_> = (0..50)
        .map(|i| {
            let ledger = Arc::clone(&ledger);
            tokio::spawn(async move {
                ledger
                    .claim(&key("4740"), &claim(&format!("o{i}"), 60_000, false))
                    .await
            })
        })
        .collect();
    let mut won = 0;
    for claim in claims {
        if claim.await.expect("no panic").expect("ledger up").is_some() {
            won += 1;
        }
    }
    assert_eq!(won, 1, "exactly one executor holds the row");
}

fn versioned(order: &str, user: &str, version: &str, requested: &str) -> LedgerEntry {
    let mut new = entry(order, user);
    new.key = ActionKey::new(order, ACTION, version, requested);
    new
}

async fn finish_done(ledger: &Arc<dyn ActionLedger>, key: &ActionKey) {
    ledger
        .claim(key, &claim("done-by", 60_000, false))
        .await
        .expect("claim")
        .expect("claimed");
    ledger
        .finish(
            key,
            "done-by",
            &Finish {
                state: ExecutionState::Done,
                answer: Some("ledger only".into()),
                retry_in_ms: None,
                audit: Default::default(),
            },
        )
        .await
        .expect("finish")
        .expect("finished");
}

/// The same request is filed once; the order in another state, or another
/// requested date, is a new request with a row of its own.
pub async fn a_changed_order_or_another_date_is_a_new_request(ledger: Arc<dyn ActionLedger>) {
    let first = entry("4711", "u1");
    assert!(matches!(
        ledger.file(first.clone()).await.expect("file"),
        Filing::Filed(_)
    ));
    finish_done(&ledger, &first.key).await;
    // The same order in the same state: a repeat, whoever approves it.
    match ledger.file(entry("4711", "u2")).await.expect("file") {
        Filing::AlreadyFiled(existing) => {
            assert_eq!(existing.approved_by, "u1");
            assert_eq!(existing.state, ExecutionState::Done);
        }
        other => panic!("a repeat files nothing: {other:?}"),
    }
    // The order changed since: a new request.
    let changed = versioned("4711", "u2", "W/\"changed\"", "");
    match ledger.file(changed.clone()).await.expect("file") {
        Filing::Filed(filed) => {
            assert_eq!(filed.key, changed.key);
            assert_eq!(filed.approved_by, "u2");
            assert_eq!(filed.state, ExecutionState::Recorded);
        }
        other => panic!("a changed order files anew: {other:?}"),
    }
    assert_eq!(
        ledger
            .get(&first.key)
            .await
            .expect("get")
            .map(|row| row.state),
        Some(ExecutionState::Done),
        "the first row is kept as it was"
    );
    finish_done(&ledger, &changed.key).await;

    // A delivery date: another date in the same state is a new request,
    // the same date again a repeat.
    let december = versioned("4740", "u1", VERSION, "2026-12-18");
    let january = versioned("4740", "u1", VERSION, "2027-01-08");
    assert!(matches!(
        ledger.file(december.clone()).await.expect("file"),
        Filing::Filed(_)
    ));
    finish_done(&ledger, &december.key).await;
    assert!(matches!(
        ledger.file(january.clone()).await.expect("file"),
        Filing::Filed(_)
    ));
    assert!(matches!(
        ledger.file(december.clone()).await.expect("file"),
        Filing::AlreadyFiled(existing) if existing.key == december.key
    ));
    let rows = ledger.list().await.expect("list");
    let keys: Vec<_> = rows.iter().map(|row| row.key.clone()).collect();
    assert_eq!(rows.len(), 4, "{keys:?}");
    for wanted in [&first.key, &changed.key, &december.key, &january.key] {
        assert!(keys.contains(wanted), "{wanted:?} in {keys:?}");
    }
}

/// One open row per order and action: a new request supersedes an earlier
/// one that waits (recorded or retrying, lease free) and waits itself while
/// an executor holds the earlier one.
pub async fn an_open_earlier_request_is_superseded_unless_it_is_being_carried_out(
    ledger: Arc<dyn ActionLedger>,
) {
    let waiting = entry("4725", "u1");
    ledger.file(waiting.clone()).await.expect("file");
    let newer = versioned("4725", "u2", "W/\"v2\"", "");
    let Filing::Filed(_) = ledger.file(newer.clone()).await.expect("file") else {
        panic!("a waiting earlier request does not block a new one");
    };
    let superseded = ledger.get(&waiting.key).await.expect("get").expect("kept");
    assert_eq!(superseded.state, ExecutionState::Superseded);
    assert!(
        superseded
            .answer
            .as_deref()
            .is_some_and(|answer| answer.starts_with("superseded by a later approval (by u2 ")),
        "{superseded:?}"
    );
    // Superseded is final: never claimed, never due.
    assert!(
        ledger
            .claim(&waiting.key, &claim("late", 60_000, false))
            .await
            .expect("claim")
            .is_none()
    );
    assert!(
        ledger
            .due(0, 10)
            .await
            .expect("due")
            .iter()
            .all(|row| row.key != waiting.key)
    );
    // A repeat of the superseded request files nothing and takes nothing.
    assert!(matches!(
        ledger.file(entry("4725", "u3")).await.expect("file"),
        Filing::AlreadyFiled(existing) if existing.state == ExecutionState::Superseded
    ));

    // While an executor holds the open row, a newer request waits.
    ledger
        .claim(&newer.key, &claim("busy", 60_000, false))
        .await
        .expect("claim")
        .expect("claimed");
    let third = versioned("4725", "u3", "W/\"v3\"", "");
    match ledger.file(third.clone()).await.expect("file") {
        Filing::EarlierOpen(open) => assert_eq!(open.key, newer.key),
        other => panic!("an attempt under way is never cut off: {other:?}"),
    }
    assert!(ledger.get(&third.key).await.expect("get").is_none());
    ledger
        .finish(
            &newer.key,
            "busy",
            &Finish {
                state: ExecutionState::Retrying,
                answer: Some("503".into()),
                retry_in_ms: Some(60_000),
                audit: Default::default(),
            },
        )
        .await
        .expect("finish")
        .expect("finished");
    // Retrying and its lease free: superseded by the newer request.
    assert!(matches!(
        ledger.file(third.clone()).await.expect("file"),
        Filing::Filed(_)
    ));
    let rows = ledger.list().await.expect("list");
    let open: Vec<_> = rows.iter().filter(|row| row.state.is_open()).collect();
    assert_eq!(open.len(), 1, "{rows:?}");
    assert_eq!(open[0].key, third.key);
    assert_eq!(
        ledger
            .get(&newer.key)
            .await
            .expect("get")
            .map(|row| (row.state, row.attempts)),
        Some((ExecutionState::Superseded, 1))
    );
}

/// Fifty approvals at once of two requests made after the order changed
/// (and the first one's row finished): each request is filed exactly once,
/// and one row is left open.
pub async fn new_requests_file_exactly_once_under_concurrency(ledger: Arc<dyn ActionLedger>) {
    let first = entry("4740", "u0");
    ledger.file(first.clone()).await.expect("file");
    finish_done(&ledger, &first.key).await;
    let versions = ["W/\"v2\"", "W/\"v3\""];
    let attempts: Vec<_> = (0..50)
        .map(|i| {
            let ledger = Arc::clone(&ledger);
            let new = versioned("4740", &format!("u{i}"), versions[i % 2], "");
            tokio::spawn(async move { ledger.file(new).await })
        })
        .collect();
    let mut filed = Vec::new();
    for attempt in attempts {
        match attempt.await.expect("no panic").expect("ledger up") {
            Filing::Filed(entry) => filed.push(entry.key),
            Filing::AlreadyFiled(existing) => {
                assert!(versions.contains(&existing.key.order_version.as_str()));
            }
            Filing::EarlierOpen(open) => panic!("nobody holds a lease here: {open:?}"),
        }
    }
    filed.sort_by(|a, b| a.order_version.cmp(&b.order_version));
    assert_eq!(
        filed
            .iter()
            .map(|key| key.order_version.as_str())
            .collect::<Vec<_>>(),
        versions,
        "each request exactly once"
    );
    let rows = ledger.list().await.expect("list");
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(
        rows.iter().filter(|row| row.state.is_open()).count(),
        1,
        "{rows:?}"
    );
    assert_eq!(
        rows.iter()
            .filter(|row| row.state == ExecutionState::Superseded)
            .count(),
        1,
        "{rows:?}"
    );
}

/// The `a2a.actions.ledger` gauge's count: every state, those without rows
/// at 0; and the approval's trace and correlation id, filed with the row,
/// come back with it (a later attempt links to them).
pub async fn rows_are_counted_by_state_and_keep_the_approvals_trace(ledger: Arc<dyn ActionLedger>) {
    let counted = ledger.count_by_state().await.expect("count");
    assert_eq!(counted, ExecutionState::ALL.map(|state| (state, 0)));

    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let mut traced = entry("4740", "u1");
    traced.trace_parent = Some(traceparent.into());
    traced.correlation_id = Some("corr-approval".into());
    let Filing::Filed(_) = ledger.file(traced).await.expect("file") else {
        panic!("a fresh row files");
    };
    let row = ledger.get(&key("4740")).await.expect("get").expect("row");
    assert_eq!(row.trace_parent.as_deref(), Some(traceparent));
    assert_eq!(row.correlation_id.as_deref(), Some("corr-approval"));
    let Filing::Filed(untraced) = ledger.file(entry("4725", "u2")).await.expect("file") else {
        panic!("a fresh row files");
    };
    assert_eq!(
        (untraced.trace_parent, untraced.correlation_id),
        (None, None)
    );
    ledger
        .claim(&key("4725"), &claim("a", 60_000, false))
        .await
        .expect("claim")
        .expect("claimed");
    let refused = Finish {
        state: ExecutionState::Failed,
        answer: Some("you may not change sales order 4725 (403)".into()),
        retry_in_ms: None,
        audit: Default::default(),
    };
    ledger
        .finish(&key("4725"), "a", &refused)
        .await
        .expect("finish")
        .expect("finished");

    let counted = ledger.count_by_state().await.expect("count");
    let rows = |state| {
        counted
            .iter()
            .find(|(counted, _)| *counted == state)
            .map(|(_, rows)| *rows)
    };
    assert_eq!(rows(ExecutionState::Recorded), Some(1));
    assert_eq!(rows(ExecutionState::Failed), Some(1));
    assert_eq!(rows(ExecutionState::Retrying), Some(0));
    assert_eq!(rows(ExecutionState::Done), Some(0));
    assert_eq!(rows(ExecutionState::Superseded), Some(0));
}

/// `page`: one approver's rows or every row, newest approval first, at
/// most `limit` a page, the pages joining up without a gap or a repeat.
pub async fn pages_newest_first_by_approver(ledger: Arc<dyn ActionLedger>) {
    use super::{LedgerCursor, LedgerQuery};
    let alice = "ias:t-1:user:alice";
    // Five rows: alice's of 4701…4703, and the same user id of another
    // issuer (someone else) on 4704 and 4705; distinct approval times.
    for (order, approver) in [
        ("4701", alice),
        ("4704", "xsuaa:t-1:user:alice"),
        ("4702", alice),
        ("4705", "xsuaa:t-1:user:alice"),
        ("4703", alice),
    ] {
        let mut row = entry(order, "alice");
        row.approver_key = Some(approver.into());
        assert!(matches!(
            ledger.file(row).await.expect("file"),
            Filing::Filed(_)
        ));
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let orders = |entries: &[LedgerEntry]| -> Vec<String> {
        entries
            .iter()
            .map(|entry| entry.key.sales_order.clone())
            .collect()
    };
    let query = |approver: Option<&str>, limit, after: Option<LedgerCursor>| LedgerQuery {
        approver_key: approver.map(str::to_string),
        limit,
        after,
    };
    let all = ledger.page(&query(None, 10, None)).await.expect("page");
    assert_eq!(
        orders(&all.entries),
        ["4703", "4705", "4702", "4704", "4701"]
    );
    assert_eq!(all.next, None);

    let first = ledger
        .page(&query(Some(alice), 2, None))
        .await
        .expect("page");
    assert_eq!(orders(&first.entries), ["4703", "4702"]);
    assert_eq!(first.entries[0].approver_key.as_deref(), Some(alice));
    let after = first.next.expect("a next page");
    // The token a client hands back is the cursor.
    let after = LedgerCursor::from_token(&after.to_token()).expect("our token");
    let second = ledger
        .page(&query(Some(alice), 2, Some(after)))
        .await
        .expect("page");
    assert_eq!(orders(&second.entries), ["4701"]);
    assert_eq!(second.next, None);

    let exact = ledger
        .page(&query(Some(alice), 3, None))
        .await
        .expect("page");
    assert_eq!(exact.entries.len(), 3);
    assert_eq!(
        exact.next, None,
        "no next page when the page holds the rest"
    );
    let nobody = ledger
        .page(&query(Some("ias:t-2:user:alice"), 10, None))
        .await
        .expect("page");
    assert!(nobody.entries.is_empty());
}

/// Erasing an approver keeps every row they approved (order, action,
/// request, state, times) and replaces their id and key with `erased`,
/// also where another row's answer names their approval; the same user id
/// of another realm, and other approvers, are untouched; a second erase
/// finds nothing, and the erased rows are no longer listed as theirs.
pub async fn erasing_an_approver_keeps_the_rows_without_them(ledger: Arc<dyn ActionLedger>) {
    use super::LedgerQuery;
    use super::entry::ERASED;
    let alice = "ias:t-1:user:alice";
    let other_alice = "xsuaa:t-1:user:alice";
    let mut first = entry("4725", "bob");
    first.approver_key = Some("ias:t-1:user:bob".into());
    ledger.file(first.clone()).await.expect("file");
    // Alice's later request supersedes bob's open one: its answer names her.
    let mut hers = versioned("4725", "alice", "W/\"v2\"", "");
    hers.approver_key = Some(alice.into());
    hers.task_id = "t-2".into();
    ledger.file(hers.clone()).await.expect("file");
    let mut also_hers = entry("4711", "alice");
    also_hers.approver_key = Some(alice.into());
    ledger.file(also_hers.clone()).await.expect("file");
    let mut not_hers = entry("4740", "alice");
    not_hers.approver_key = Some(other_alice.into());
    ledger.file(not_hers.clone()).await.expect("file");
    let before = ledger.list().await.expect("list");

    assert_eq!(ledger.erase_approver(alice).await.expect("erase"), 2);

    let after = ledger.list().await.expect("list");
    assert_eq!(after.len(), before.len(), "every row is kept");
    for key in [&hers.key, &also_hers.key] {
        let was = before.iter().find(|row| row.key == *key).expect("was");
        let row = ledger.get(key).await.expect("get").expect("kept");
        assert_eq!(row.approved_by, ERASED);
        assert_eq!(row.approver_key.as_deref(), Some(ERASED));
        assert_eq!(
            (
                &row.approver_role,
                &row.approved_at,
                row.state,
                &row.task_id
            ),
            (
                &was.approver_role,
                &was.approved_at,
                was.state,
                &was.task_id
            ),
            "the approval itself is kept"
        );
    }
    let superseded = ledger.get(&first.key).await.expect("get").expect("kept");
    assert_eq!(superseded.approved_by, "bob");
    let answer = superseded.answer.expect("why it was superseded");
    assert!(
        answer.starts_with("superseded by a later approval (by erased as ar_clerk in task t-2 at "),
        "{answer}"
    );
    assert!(!answer.contains("alice"), "{answer}");
    let untouched = ledger.get(&not_hers.key).await.expect("get").expect("kept");
    assert_eq!(untouched.approved_by, "alice");
    assert_eq!(untouched.approver_key.as_deref(), Some(other_alice));

    let theirs = ledger
        .page(&LedgerQuery {
            approver_key: Some(alice.into()),
            limit: 10,
            after: None,
        })
        .await
        .expect("page");
    assert!(theirs.entries.is_empty(), "{theirs:?}");
    assert_eq!(ledger.erase_approver(alice).await.expect("erase"), 0);
}

/// A row filed `done` (the ledger-only executor: recording is all there
/// is) keeps its answer and one attempt, reads back so, is no one's to
/// claim or retry, and is filed once per key like any other; an open row
/// of another request is superseded, as by any filing.
pub async fn a_row_filed_done_is_finished_at_once(ledger: Arc<dyn ActionLedger>) {
    let Filing::Filed(open) = ledger.file(entry("4711", "u0")).await.expect("file") else {
        panic!("a fresh row files");
    };
    assert_eq!(open.state, ExecutionState::Recorded);
    let mut done = entry("4711", "u1");
    done.key = ActionKey::new("4711", ACTION, "W/\"later\"", "");
    done.state = ExecutionState::Done;
    done.answer = Some("ledger only".into());
    let Filing::Filed(filed) = ledger.file(done.clone()).await.expect("file") else {
        panic!("a row of another version files");
    };
    assert_eq!(filed.state, ExecutionState::Done);
    assert_eq!(filed.attempts, 1);
    assert_eq!(filed.answer.as_deref(), Some("ledger only"));
    let read = ledger.get(&done.key).await.expect("get").expect("stored");
    assert_eq!(
        (read.state, read.attempts, read.answer.as_deref()),
        (ExecutionState::Done, 1, Some("ledger only"))
    );
    assert!(
        ledger
            .claim(&done.key, &claim("a", 60_000, false))
            .await
            .expect("claim")
            .is_none(),
        "a done row is not claimed"
    );
    let earlier = ledger.get(&open.key).await.expect("get").expect("stored");
    assert_eq!(earlier.state, ExecutionState::Superseded);
    let Filing::AlreadyFiled(again) = ledger.file(done).await.expect("file") else {
        panic!("the same key files once");
    };
    assert_eq!(again.approved_by, "u1");
}
