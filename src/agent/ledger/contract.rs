//! The behaviour every ledger must show; run by each implementation's tests:
//! filing exactly once, and the execution state's moves (claim, lease,
//! finish, due rows for the retry job).

use super::*;
use std::sync::Arc;

pub fn entry(order: &str, user: &str) -> LedgerEntry {
    LedgerEntry {
        sales_order: order.into(),
        action: "open_dispute_case".into(),
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
                assert_eq!(existing.sales_order, "4725");
            }
        }
    }
    assert_eq!(filed.len(), 1, "exactly one approval files");
    assert_eq!(already, 49);
    let rows = ledger.list().await.expect("list");
    let for_order: Vec<_> = rows.iter().filter(|e| e.sales_order == "4725").collect();
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
    assert!(ledger.get("4740", "other").await.expect("get").is_none());

    // A fresh recorded row is not due for a retry job, but the approval
    // claims it at once; while the lease holds nobody else may.
    assert!(ledger.due(60_000, 10).await.expect("due").is_empty());
    assert!(
        ledger
            .claim("4740", ACTION, &claim("job", 60_000, true))
            .await
            .expect("claim")
            .is_none()
    );
    let claimed = ledger
        .claim("4740", ACTION, &claim("a", 60_000, false))
        .await
        .expect("claim")
        .expect("the fresh row is claimed");
    assert_eq!(claimed.parameters["requestedDeliveryDate"], "2026-12-18");
    assert!(
        ledger
            .claim("4740", ACTION, &claim("b", 60_000, false))
            .await
            .expect("claim")
            .is_none()
    );
    // Only the owner finishes.
    let transient = Finish {
        state: ExecutionState::Retrying,
        answer: Some("S/4HANA answered 503".into()),
        retry_in_ms: Some(0),
    };
    assert!(
        ledger
            .finish("4740", ACTION, "b", &transient)
            .await
            .expect("finish")
            .is_none()
    );
    let retrying = ledger
        .finish("4740", ACTION, "a", &transient)
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
            .finish("4740", ACTION, "a", &transient)
            .await
            .expect("finish")
            .is_none()
    );
    ledger
        .claim("4740", ACTION, &claim("job", 60_000, true))
        .await
        .expect("claim")
        .expect("a due retrying row is claimed");
    let done = ledger
        .finish(
            "4740",
            ACTION,
            "job",
            &Finish {
                state: ExecutionState::Done,
                answer: Some("204".into()),
                retry_in_ms: None,
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
            .claim("4740", ACTION, &claim("c", 60_000, false))
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
        Filing::Filed(_) => panic!("filed twice"),
    }

    // A permanent refusal is final too.
    ledger.file(entry("4711", "u1")).await.expect("file");
    ledger
        .claim("4711", ACTION, &claim("a", 60_000, false))
        .await
        .expect("claim")
        .expect("claimed");
    let failed = ledger
        .finish(
            "4711",
            ACTION,
            "a",
            &Finish {
                state: ExecutionState::Failed,
                answer: Some("403".into()),
                retry_in_ms: None,
            },
        )
        .await
        .expect("finish")
        .expect("finished");
    assert_eq!(failed.state, ExecutionState::Failed);
    assert!(
        ledger
            .claim("4711", ACTION, &claim("b", 60_000, false))
            .await
            .expect("claim")
            .is_none()
    );

    // An executor that stopped between filing and carrying out: its lease
    // expires and the stale recorded row is due for the job.
    ledger.file(entry("4725", "u1")).await.expect("file");
    ledger
        .claim("4725", ACTION, &claim("crashed", 0, false))
        .await
        .expect("claim")
        .expect("claimed");
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let due = ledger.due(0, 10).await.expect("due");
    assert_eq!(
        due.iter()
            .map(|e| e.sales_order.as_str())
            .collect::<Vec<_>>(),
        ["4725"]
    );
    let reclaimed = ledger
        .claim(
            "4725",
            ACTION,
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
                    .claim("4740", ACTION, &claim(&format!("o{i}"), 60_000, false))
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
