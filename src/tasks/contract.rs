//! The `TaskStore` contract (test code only): what the engine relies on from
//! any place tasks live in, written once and run against every store —
//! memory, SQLite and PostgreSQL — so no store can drift from the others.
//!
//! The stores differ in one thing only, and legitimately: what outlives the
//! process. [`Expect`] names it, so the contract says where a store may
//! answer differently and why, instead of each store testing its own idea.

use super::settings::FinishedCaps;
use super::store::{ErasedTasks, StoreError, TaskStore};
use crate::a2a::{PushNotificationConfig, Task, TaskKind, TaskState, TaskStatus};
use std::time::Duration;

/// What a store keeps beyond one process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expect {
    /// The lease a store writes for open tasks, or `None` for a store
    /// without leases. A SQL store is shared by instances: a working task
    /// whose instance died is found by its lease running out. The memory
    /// store lives and dies with its one process, and its turns with it:
    /// nothing to lease, no lease ever runs out.
    pub lease: Option<Duration>,
    /// Whether `purge_finished` deletes finished tasks. The memory store
    /// forgets finished tasks by its own retention and count cap instead
    /// (see `MemoryStoreLimits`); its purge deletes nothing.
    pub purges: bool,
}

impl Expect {
    /// A SQL store (SQLite or PostgreSQL) with a lease of `lease`.
    pub(crate) fn shared(lease: Duration) -> Expect {
        Expect {
            lease: Some(lease),
            purges: true,
        }
    }

    /// The in-memory store.
    pub(crate) fn in_process() -> Expect {
        Expect {
            lease: None,
            purges: false,
        }
    }
}

/// A bare task in `state`.
pub(crate) fn task(id: &str, state: TaskState) -> Task {
    Task {
        kind: TaskKind::Value,
        id: id.into(),
        context_id: "c".into(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: None,
        },
        history: None,
        artifacts: None,
        metadata: None,
    }
}

fn now_ms() -> i64 {
    let now = time::OffsetDateTime::now_utc();
    (now.unix_timestamp_nanos() / 1_000_000) as i64
}

/// The behaviour the engine relies on, for any store.
pub(crate) async fn behaves_like_a_task_store(store: &dyn TaskStore, expect: Expect) {
    let created = store
        .create(&task("t", TaskState::Submitted), &[], None)
        .await
        .unwrap();
    // A write hands back the task's JSON as it stored it (the answer's).
    assert_eq!(created.version, 1);
    assert_eq!(
        serde_json::from_str::<crate::a2a::Task>(&created.json).unwrap(),
        task("t", TaskState::Submitted)
    );
    let created = created.version;
    assert_eq!(
        store
            .create(&task("t", TaskState::Submitted), &[], None)
            .await,
        Err(StoreError::AlreadyExists("t".into()))
    );
    let config = PushNotificationConfig {
        id: Some("p1".into()),
        url: "https://hook.example/a".into(),
        token: None,
        authentication: None,
        payload_version: crate::a2a::PushPayload::V0_3,
    };
    store.set_push_config("t", &config, 10).await.unwrap();
    let working = store
        .update(&task("t", TaskState::Working), created)
        .await
        .unwrap();
    assert_eq!(working.push_configs, vec![config.clone()]);
    assert_eq!(
        serde_json::from_str::<crate::a2a::Task>(&working.json).unwrap(),
        task("t", TaskState::Working)
    );
    // A config remembers the version it was set with.
    let v1_config = PushNotificationConfig {
        id: Some("p2".into()),
        payload_version: crate::a2a::PushPayload::V1_0,
        ..config.clone()
    };
    store.set_push_config("t", &v1_config, 10).await.unwrap();
    assert_eq!(
        store.push_configs("t").await.unwrap(),
        vec![config.clone(), v1_config]
    );
    assert!(store.delete_push_config("t", "p2").await.unwrap());
    assert_eq!(
        store
            .update(&task("t", TaskState::Completed), created)
            .await,
        Err(StoreError::Conflict("t".into()))
    );
    assert_eq!(
        store.update(&task("nope", TaskState::Completed), 1).await,
        Err(StoreError::NotFound("nope".into()))
    );
    let done = store
        .update(&task("t", TaskState::Completed), working.version)
        .await
        .unwrap();
    assert_eq!(
        store
            .update(&task("t", TaskState::Working), done.version)
            .await,
        Err(StoreError::Terminal("t".into()))
    );
    let stored = store.get("t").await.unwrap().unwrap();
    assert_eq!(stored.task.status.state, TaskState::Completed);
    assert_eq!(stored.version, done.version);
    assert!(store.delete_push_config("t", "p1").await.unwrap());
    assert!(!store.delete_push_config("t", "p1").await.unwrap());
    assert_eq!(
        store.set_push_config("nope", &config, 10).await,
        Err(StoreError::NotFound("nope".into()))
    );

    push_configs_are_bounded_per_task(store).await;
    remembers_the_message_that_opened_a_task(store).await;

    // A working task whose lease runs out is reported; renewals keep it.
    store
        .create(&task("w", TaskState::Working), &[], None)
        .await
        .unwrap();
    assert!(store.expired_leases().await.unwrap().is_empty());
    match expect.lease {
        Some(lease) => {
            let past_the_lease = lease + Duration::from_millis(100);
            tokio::time::sleep(past_the_lease).await;
            store.renew_leases(&["w".to_string()]).await.unwrap();
            assert!(store.expired_leases().await.unwrap().is_empty());
            tokio::time::sleep(past_the_lease).await;
            assert_eq!(store.expired_leases().await.unwrap(), vec!["w".to_string()]);
        }
        None => {
            store.renew_leases(&["w".to_string()]).await.unwrap();
            assert!(store.expired_leases().await.unwrap().is_empty());
        }
    }

    // Two writers race on one version (same batch or not): one wins.
    let open = store
        .create(&task("race", TaskState::Working), &[], None)
        .await
        .unwrap()
        .version;
    let (completed, canceled) = (
        task("race", TaskState::Completed),
        task("race", TaskState::Canceled),
    );
    let (a, b) = tokio::join!(
        store.update(&completed, open),
        store.update(&canceled, open)
    );
    assert!(a.is_ok() != b.is_ok(), "exactly one wins: {a:?} {b:?}");
    // Many at once, each its own result.
    let creates = (0..40).map(|i| async move {
        store
            .create(&task(&format!("bulk-{i}"), TaskState::Working), &[], None)
            .await
    });
    let created = futures_util::future::join_all(creates).await;
    assert!(
        created
            .iter()
            .all(|result| result.as_ref().is_ok_and(|written| written.version == 1)),
        "{created:?}"
    );

    // Only finished tasks are purged.
    if expect.purges {
        assert_eq!(store.purge_finished(now_ms() + 1).await.unwrap(), 2);
        assert!(store.get("t").await.unwrap().is_none());
    } else {
        assert_eq!(store.purge_finished(now_ms() + 1).await.unwrap(), 0);
        assert!(store.get("t").await.unwrap().is_some());
    }
    assert!(store.get("w").await.unwrap().is_some());
}

/// A push config with id `id`.
fn hook(id: &str) -> PushNotificationConfig {
    PushNotificationConfig {
        id: Some(id.into()),
        url: format!("https://hook.example/{id}"),
        token: None,
        authentication: None,
        payload_version: crate::a2a::PushPayload::V0_3,
    }
}

/// `set_push_config` keeps a task at `most` configs, in one step: a new id
/// past the bound is not stored, a replacement by id is, two sets racing
/// for the last place do not both get it, and a lower bound later removes
/// nothing already stored.
async fn push_configs_are_bounded_per_task(store: &dyn TaskStore) {
    use super::store::PushConfigSet::{Full, Stored};
    store
        .create(&task("bounded", TaskState::InputRequired), &[], None)
        .await
        .unwrap();
    for id in ["b1", "b2"] {
        assert_eq!(
            store.set_push_config("bounded", &hook(id), 3).await,
            Ok(Stored)
        );
    }
    let (racer_a, racer_b) = (hook("racer-a"), hook("racer-b"));
    let (a, b) = tokio::join!(
        store.set_push_config("bounded", &racer_a, 3),
        store.set_push_config("bounded", &racer_b, 3),
    );
    let mut outcomes = [a.unwrap(), b.unwrap()];
    outcomes.sort_by_key(|outcome| *outcome == Full);
    assert_eq!(outcomes, [Stored, Full], "one racer takes the last place");
    assert_eq!(store.push_configs("bounded").await.unwrap().len(), 3);
    assert_eq!(
        store.set_push_config("bounded", &hook("b4"), 3).await,
        Ok(Full)
    );
    let replacement = PushNotificationConfig {
        url: "https://hook.example/b1-moved".into(),
        ..hook("b1")
    };
    assert_eq!(
        store.set_push_config("bounded", &replacement, 3).await,
        Ok(Stored),
        "replacing by id is not a new config"
    );
    assert_eq!(
        store.set_push_config("bounded", &hook("b2"), 1).await,
        Ok(Stored),
        "a lower bound still lets a stored config be replaced"
    );
    assert_eq!(
        store.set_push_config("bounded", &hook("b5"), 1).await,
        Ok(Full)
    );
    let kept = store.push_configs("bounded").await.unwrap();
    assert_eq!(kept.len(), 3, "nothing stored is lost: {kept:?}");
    assert!(kept.contains(&replacement));
}

/// A task opened by a message of `role` with `message_id`.
fn opened(id: &str, role: crate::a2a::Role, message_id: &str) -> Task {
    let mut message = crate::a2a::Message::agent_text("hello");
    message.role = role;
    message.message_id = message_id.into();
    Task {
        history: Some(vec![message]),
        // Waiting: neither leased nor finished, so the lease and purge
        // checks that follow do not see these.
        ..task(id, TaskState::InputRequired)
    }
}

/// `opened_by`: the task a caller's message opened, for that caller only
/// (authentication off, `None`, is a caller of its own); a task the agent
/// opened, or one whose messageId is too long, is not remembered.
async fn remembers_the_message_that_opened_a_task(store: &dyn TaskStore) {
    use crate::a2a::Role::{Agent, User};
    let long = "m".repeat(super::store::MAX_REMEMBERED_MESSAGE_ID + 1);
    for (id, role, message_id, owner) in [
        ("by-alice", User, "m-1", Some("alice")),
        ("by-nobody", User, "m-2", None),
        ("by-agent", Agent, "m-3", Some("alice")),
        ("long-id", User, long.as_str(), Some("alice")),
    ] {
        store
            .create(&opened(id, role, message_id), &[], owner)
            .await
            .unwrap();
    }
    let opened_by = |owner, message_id| store.opened_by(owner, message_id);
    assert_eq!(
        opened_by(Some("alice"), "m-1").await,
        Ok(Some("by-alice".into()))
    );
    assert_eq!(opened_by(Some("bob"), "m-1").await, Ok(None));
    assert_eq!(opened_by(None, "m-1").await, Ok(None));
    assert_eq!(opened_by(None, "m-2").await, Ok(Some("by-nobody".into())));
    assert_eq!(opened_by(Some("alice"), "m-2").await, Ok(None));
    assert_eq!(opened_by(Some("alice"), "m-3").await, Ok(None));
    assert_eq!(opened_by(Some("alice"), &long).await, Ok(None));
    assert_eq!(opened_by(Some("alice"), "never-sent").await, Ok(None));

    // Erasing an owner forgets the messages that opened their tasks too.
    store.erase_owner("alice").await.unwrap();
    assert_eq!(opened_by(Some("alice"), "m-1").await, Ok(None));
    assert_eq!(opened_by(None, "m-2").await, Ok(Some("by-nobody".into())));
}

/// A task of `owner` in `context`, for the list contract.
fn owned(id: &str, context: &str, state: TaskState) -> Task {
    Task {
        context_id: context.into(),
        ..task(id, state)
    }
}

/// `list`: scoped to an owner or not, filtered, newest change first, paged
/// by cursor with the total of all matching tasks. Runs on a store that may
/// hold other tasks (every query names this test's context or owners).
pub(crate) async fn lists_like_a_task_store(store: &dyn TaskStore) {
    use super::listing::{OwnerScope, TaskQuery};
    use super::owner_realm::IdentityRealm;
    let pause = || tokio::time::sleep(Duration::from_millis(5));
    let ias = IdentityRealm::new("ias", "t-1");
    let xsuaa = IdentityRealm::new("xsuaa", "t-1");
    let key = |scope: OwnerScope| scope.owner().map(str::to_string);
    for (id, owner, state) in [
        (
            "list-a",
            key(OwnerScope::user(&ias, "alice")),
            TaskState::InputRequired,
        ),
        (
            "list-b",
            key(OwnerScope::user(&ias, "bob")),
            TaskState::Completed,
        ),
        (
            "list-c",
            key(OwnerScope::user(&ias, "alice")),
            TaskState::Working,
        ),
        (
            "list-d",
            key(OwnerScope::client(&ias, "reporting")),
            TaskState::Working,
        ),
        // The same user id from another issuer: another person.
        (
            "list-e",
            key(OwnerScope::user(&xsuaa, "alice")),
            TaskState::Working,
        ),
    ] {
        store
            .create(&owned(id, "list-ctx", state), &[], owner.as_deref())
            .await
            .unwrap();
        // Distinct change times, so the order below is the time order.
        pause().await;
    }
    // list-a changes last: it comes first.
    let a = store.get("list-a").await.unwrap().unwrap();
    store
        .update(
            &owned("list-a", "list-ctx", TaskState::Completed),
            a.version,
        )
        .await
        .unwrap();

    let in_context = |scope| TaskQuery {
        scope,
        context_id: Some("list-ctx".into()),
        ..TaskQuery::everything(10)
    };
    let ids = |page: &super::listing::TaskPage| -> Vec<String> {
        page.tasks.iter().map(|task| task.id.clone()).collect()
    };
    let all = store.list(&in_context(OwnerScope::Everyone)).await.unwrap();
    assert_eq!(
        ids(&all),
        ["list-a", "list-e", "list-d", "list-c", "list-b"]
    );
    assert_eq!(all.total, 5);
    assert_eq!(all.next, None);
    assert_eq!(all.tasks[0].status.state, TaskState::Completed);

    let alice = OwnerScope::user(&ias, "alice");
    let mine = store.list(&in_context(alice.clone())).await.unwrap();
    assert_eq!(ids(&mine), ["list-a", "list-c"]);
    let other_alice = store
        .list(&in_context(OwnerScope::user(&xsuaa, "alice")))
        .await;
    assert_eq!(ids(&other_alice.unwrap()), ["list-e"]);
    let technical = store
        .list(&in_context(OwnerScope::client(&ias, "reporting")))
        .await;
    assert_eq!(ids(&technical.unwrap()), ["list-d"]);
    let other_client = store
        .list(&in_context(OwnerScope::client(&ias, "other")))
        .await;
    assert_eq!(other_client.unwrap().total, 0, "clients do not share tasks");

    // A task is read with its owner; a context is held by whoever has a
    // task in it.
    let read = store.get("list-d").await.unwrap().unwrap();
    assert_eq!(read.owner.as_deref(), Some("ias:t-1:client:reporting"));
    assert!(
        store
            .context_held_by_another("list-ctx", "ias:t-1:user:alice")
            .await
            .unwrap()
    );
    store
        .create(
            &owned("solo-1", "solo-ctx", TaskState::Working),
            &[],
            Some("user:carol"),
        )
        .await
        .unwrap();
    assert!(
        !store
            .context_held_by_another("solo-ctx", "user:carol")
            .await
            .unwrap()
    );
    assert!(
        store
            .context_held_by_another("solo-ctx", "user:dave")
            .await
            .unwrap()
    );
    assert!(
        !store
            .context_held_by_another("unused-ctx", "user:dave")
            .await
            .unwrap()
    );
    store
        .create(&owned("solo-2", "solo-ctx", TaskState::Working), &[], None)
        .await
        .unwrap();
    assert!(
        store
            .context_held_by_another("solo-ctx", "user:carol")
            .await
            .unwrap(),
        "a task without an owner is no one's: not carol's either"
    );

    // One at a time: the cursor walks the same order, the total stays.
    let mut query = TaskQuery {
        page_size: 1,
        ..in_context(alice)
    };
    let first = store.list(&query).await.unwrap();
    assert_eq!((ids(&first), first.total), (vec!["list-a".to_string()], 2));
    query.after = first.next.clone();
    assert!(query.after.is_some());
    let second = store.list(&query).await.unwrap();
    assert_eq!(ids(&second), ["list-c"]);
    assert_eq!(second.next, None, "the last page");

    let completed = TaskQuery {
        state: Some(TaskState::Completed),
        ..in_context(OwnerScope::Everyone)
    };
    assert_eq!(
        ids(&store.list(&completed).await.unwrap()),
        ["list-a", "list-b"]
    );
    let later = TaskQuery {
        changed_since_ms: Some(now_ms() + 60_000),
        ..in_context(OwnerScope::Everyone)
    };
    let nothing = store.list(&later).await.unwrap();
    assert_eq!((nothing.tasks.len(), nothing.total), (0, 0));
    let elsewhere = TaskQuery {
        context_id: Some("list-nowhere".into()),
        ..TaskQuery::everything(10)
    };
    assert_eq!(store.list(&elsewhere).await.unwrap().total, 0);
}

/// What the engine's bounds rely on, for any store: open tasks
/// counted per owner and no further than asked, the tasks waiting for an
/// answer since before a time, and no task written that could not be read
/// back.
pub(crate) async fn bounds_like_a_task_store(store: &dyn TaskStore) {
    let alice = Some("user:alice");
    for (id, state, owner) in [
        ("b-a1", TaskState::InputRequired, alice),
        ("b-a2", TaskState::InputRequired, alice),
        ("b-a3", TaskState::Completed, alice),
        ("b-b1", TaskState::Working, Some("client:batch")),
        ("b-n1", TaskState::InputRequired, None),
    ] {
        store.create(&task(id, state), &[], owner).await.unwrap();
    }
    assert_eq!(store.open_tasks_of(alice, 100).await.unwrap(), 2);
    assert_eq!(store.open_tasks_of(alice, 1).await.unwrap(), 1);
    assert_eq!(
        store
            .open_tasks_of(Some("client:batch"), 100)
            .await
            .unwrap(),
        1
    );
    assert_eq!(store.open_tasks_of(None, 100).await.unwrap(), 1);
    assert_eq!(store.open_tasks_of(Some("user:bob"), 100).await.unwrap(), 0);
    store
        .update(&task("b-a1", TaskState::Completed), 1)
        .await
        .unwrap();
    assert_eq!(store.open_tasks_of(alice, 100).await.unwrap(), 1);

    let later = now_ms() + 60_000;
    let mut waiting = store.waiting_since(later, 100).await.unwrap();
    waiting.sort();
    assert_eq!(waiting, ["b-a2", "b-n1"]);
    assert_eq!(store.waiting_since(later, 1).await.unwrap().len(), 1);
    assert!(store.waiting_since(0, 100).await.unwrap().is_empty());

    // A task larger than any store reads back is refused, and not written.
    let mut huge = task("b-huge", TaskState::Working);
    huge.metadata = Some(serde_json::Map::from_iter([(
        "x".to_string(),
        serde_json::Value::String("x".repeat(super::store::MAX_TASK_JSON_BYTES)),
    )]));
    assert!(matches!(
        store.create(&huge, &[], alice).await,
        Err(StoreError::TooLarge { .. })
    ));
    assert_eq!(store.get("b-huge").await.unwrap(), None);
    assert_eq!(store.open_tasks_of(alice, 100).await.unwrap(), 1);
}

/// Each caller keeps at most `caps.per_caller` finished tasks, after
/// `trim_finished` (the memory store trims as a task finishes): past it,
/// the caller's own oldest finished tasks go, by when they finished;
/// another caller's stay, and so do waiting and working ones. Run on a
/// store of its own, whose per-caller cap is `caps.per_caller` (2).
pub(crate) async fn trims_like_a_task_store(store: &dyn TaskStore, caps: FinishedCaps) {
    assert_eq!(caps.per_caller, 2, "the contract counts on a cap of 2");
    let (alice, bob) = (Some("user:alice"), Some("client:batch"));
    let pause = || tokio::time::sleep(Duration::from_millis(5));
    for (id, state, owner) in [
        ("t-waiting", TaskState::InputRequired, bob),
        ("t-working", TaskState::Working, bob),
        ("t-hers", TaskState::Completed, alice),
        ("t-1", TaskState::Completed, bob),
        ("t-2", TaskState::Failed, bob),
        ("t-3", TaskState::Canceled, bob),
        ("t-4", TaskState::Rejected, bob),
    ] {
        store.create(&task(id, state), &[], owner).await.unwrap();
        // Distinct finishing times, so "oldest" is the order above.
        pause().await;
    }
    store.trim_finished(caps).await.unwrap();
    let kept = |ids: &'static [&'static str]| async move {
        let mut kept = Vec::new();
        for id in ids {
            if store.get(id).await.unwrap().is_some() {
                kept.push(*id);
            }
        }
        kept
    };
    let all = &[
        "t-waiting",
        "t-working",
        "t-hers",
        "t-1",
        "t-2",
        "t-3",
        "t-4",
    ];
    assert_eq!(
        kept(all).await,
        ["t-waiting", "t-working", "t-hers", "t-3", "t-4"]
    );

    // A task counts from when it finished: the one that waited longest
    // now finished last, and is kept.
    store
        .update(&task("t-waiting", TaskState::Completed), 1)
        .await
        .unwrap();
    store.trim_finished(caps).await.unwrap();
    assert_eq!(kept(all).await, ["t-waiting", "t-working", "t-hers", "t-4"]);
}

/// Erasing one owner deletes all its tasks in every state (finished,
/// waiting, working), with their push configs and contexts, and counts
/// them; another owner's tasks, and tasks without an owner, stay whole,
/// in the same context too; the owner's open and finished tasks no longer
/// count against it; a second erase finds nothing. Run on a store of its
/// own.
pub(crate) async fn erases_like_a_task_store(store: &dyn TaskStore) {
    let (alice, bob) = (Some("ias:t1:user:alice"), Some("ias:t1:user:bob"));
    let in_context = |id: &str, state, context: &str| {
        let mut task = task(id, state);
        task.context_id = context.into();
        task
    };
    let hook = |id: &str| PushNotificationConfig {
        id: Some(id.into()),
        url: "https://hook.example/erase".into(),
        token: Some("a webhook token".into()),
        authentication: None,
        payload_version: crate::a2a::PushPayload::V0_3,
    };
    for (id, state, context, owner) in [
        ("e-a-done", TaskState::Completed, "e-c1", alice),
        ("e-a-waiting", TaskState::InputRequired, "e-c1", alice),
        ("e-a-working", TaskState::Working, "e-c2", alice),
        ("e-b-waiting", TaskState::InputRequired, "e-c3", bob),
        ("e-b-shared", TaskState::Completed, "e-c2", bob),
        ("e-nobody", TaskState::InputRequired, "e-c4", None),
    ] {
        store
            .create(&in_context(id, state, context), &[], owner)
            .await
            .unwrap();
    }
    for (task_id, config) in [
        ("e-a-waiting", "p1"),
        ("e-a-waiting", "p2"),
        ("e-a-working", "p3"),
        ("e-b-waiting", "p4"),
    ] {
        store
            .set_push_config(task_id, &hook(config), 10)
            .await
            .unwrap();
    }

    let erased = store.erase_owner("ias:t1:user:alice").await.unwrap();
    assert_eq!(
        erased,
        ErasedTasks {
            tasks: 3,
            contexts: 2,
            push_configs: 3
        }
    );
    for gone in ["e-a-done", "e-a-waiting", "e-a-working"] {
        assert_eq!(store.get(gone).await.unwrap(), None, "{gone}");
        assert!(store.push_configs(gone).await.unwrap().is_empty(), "{gone}");
    }
    for kept in ["e-b-waiting", "e-b-shared", "e-nobody"] {
        assert!(store.get(kept).await.unwrap().is_some(), "{kept}");
    }
    assert_eq!(
        store.push_configs("e-b-waiting").await.unwrap(),
        [hook("p4")]
    );
    assert_eq!(store.open_tasks_of(alice, 100).await.unwrap(), 0);
    assert_eq!(store.open_tasks_of(bob, 100).await.unwrap(), 1);
    // Her context is hers no longer: nobody else's task is in e-c1, bob's
    // is still in e-c2.
    assert!(
        !store
            .context_held_by_another("e-c1", "ias:t1:user:carol")
            .await
            .unwrap()
    );
    assert!(
        store
            .context_held_by_another("e-c2", "ias:t1:user:carol")
            .await
            .unwrap()
    );
    // Her turn's late write finds nothing to update.
    assert_eq!(
        store
            .update(&in_context("e-a-working", TaskState::Completed, "e-c2"), 1)
            .await,
        Err(StoreError::NotFound("e-a-working".into()))
    );
    assert_eq!(
        store.erase_owner("ias:t1:user:alice").await.unwrap(),
        ErasedTasks::default()
    );
    // The same user id of another tenant is another owner.
    assert_eq!(
        store.erase_owner("ias:t2:user:bob").await.unwrap(),
        ErasedTasks::default()
    );
    assert!(store.get("e-b-waiting").await.unwrap().is_some());
}
