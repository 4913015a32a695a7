//! Approved actions carried out in S/4HANA, end to end against
//! the S/4HANA and Destination doubles, as the user: the delivery date
//! question, the MERGE with `If-Match` (one change in the double), a stale
//! ETag, a 403, a 503 then success on retry (done once), fifty concurrent
//! approvals (one change), a credit review by a credit manager (note and
//! `ReleaseCreditBlock`), and the ledger listing's execution state.

use crate::doubles::destination::{Destination, DestinationDouble};
use crate::doubles::s4hana::users::known::{CLERK, CREDIT_MANAGER};
use crate::doubles::s4hana::{Access, S4Double, Scope, Step};
use crate::helpers::ActionKey;
use crate::helpers::key_server::{self, KeyServer, user_claims};
use crate::helpers::{TestApp, approval, state, status_text, wait_until};
use order_exception_agent::ExecutorKind;
use order_exception_agent::SourceKind;
use serde_json::{Value, json};
use std::time::Duration;

const DELIVERY_4740: &str = "customer wants a later delivery date on 4740";

pub(crate) struct World {
    pub app: TestApp,
    pub s4: S4Double,
    pub destinations: DestinationDouble,
    _keys: KeyServer,
}

async fn world() -> World {
    world_with(|_| {}).await
}

pub(crate) async fn world_with(tune: impl FnOnce(&mut order_exception_agent::Settings)) -> World {
    let keys = KeyServer::start().await;
    let s4 = S4Double::start().await;
    let destinations =
        DestinationDouble::start(vec![Destination::saml_bearer("S4HANA_ORDERS", &s4.url)]).await;
    let app = TestApp::builder()
        .settings(|s| {
            s4_settings(s, &keys.url, &destinations.url);
            tune(s);
        })
        .spawn()
        .await;
    World {
        app,
        s4,
        destinations,
        _keys: keys,
    }
}

impl World {
    /// Another instance on the same doubles (and, with `tune`, the same store).
    pub(crate) async fn another_app(
        &self,
        tune: impl FnOnce(&mut order_exception_agent::Settings),
    ) -> TestApp {
        let (keys, destinations) = (self._keys.url.clone(), self.destinations.url.clone());
        TestApp::builder()
            .settings(|s| {
                s4_settings(s, &keys, &destinations);
                tune(s);
            })
            .spawn()
            .await
    }
}

/// Authentication on, S/4HANA through the destination, S/4HANA execution.
fn s4_settings(s: &mut order_exception_agent::Settings, keys: &str, destinations: &str) {
    s.auth.client_id = Some(key_server::CLIENT_ID.into());
    s.auth.domains = vec![key_server::DOMAIN.into()];
    s.auth.app_tid = Some(key_server::APP_TID.into());
    s.auth.url = Some(key_server::ISSUER.into());
    s.auth.test_key_server = Some(keys.to_string());
    crate::helpers::unthrottled(s);
    s.backend.source = SourceKind::S4hana;
    let s4s = &mut s.backend.s4hana;
    s4s.allow_loopback_http = true;
    s4s.call_timeout_ms = 2_000;
    s4s.retry_base_ms = 50;
    s4s.max_retries = 0;
    s4s.destination_service.token_url = Some(destinations.to_string());
    s4s.destination_service.uri = Some(destinations.to_string());
    s4s.destination_service.client_id = Some(crate::doubles::destination::CLIENT_ID.into());
    s4s.destination_service.client_secret = Some(crate::doubles::destination::CLIENT_SECRET.into());
    s.actions.executor = ExecutorKind::S4hana;
    s.actions.retry_base_ms = 50;
    s.actions.retry_interval_ms = 50;
}

pub(crate) fn clerk() -> String {
    key_server::token(&user_claims())
}

pub(crate) fn credit_manager() -> String {
    let claims = key_server::with(user_claims(), "email", json!(CREDIT_MANAGER.1));
    key_server::token(&key_server::with(
        claims,
        "groups",
        json!(["credit_manager"]),
    ))
}

pub(crate) async fn send(app: &TestApp, token: &str, message: Value) -> Value {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .bearer_auth(token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": {"message": message}}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.expect("JSON");
    assert!(body.get("error").is_none(), "{body}");
    body["result"].clone()
}

pub(crate) async fn reply(app: &TestApp, token: &str, task: &Value, text: &str) -> Value {
    let mut message = crate::helpers::user_message(text);
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    send(app, token, message).await
}

/// Ask about 4740's delivery block and give the date: the approval question.
async fn asked_with_date(app: &TestApp, token: &str) -> Value {
    let asked = send(app, token, crate::helpers::user_message(DELIVERY_4740)).await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    assert!(
        status_text(&asked).ends_with("Which delivery date did the customer ask for?"),
        "{}",
        status_text(&asked)
    );
    let dated = reply(app, token, &asked, &crate::helpers::delivery_day().written).await;
    assert_eq!(state(&dated), "input-required", "{dated}");
    assert_eq!(approval(&dated)["status"], "pending");
    dated
}

pub(crate) fn merges_of(s4: &S4Double, entity: &str) -> usize {
    s4.changes()
        .iter()
        .filter(|change| change.entity == entity && change.method != "POST")
        .count()
}

pub(crate) async fn actions(app: &TestApp, token: &str) -> Vec<Value> {
    let listing: Value = app
        .client
        .get(format!("{}/actions", app.address))
        .bearer_auth(token)
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
    listing["actions"]
        .as_array()
        .cloned()
        .or_else(|| listing.as_array().cloned())
        .unwrap_or_default()
}

/// The key of a row of `GET /actions` (the hook's idempotency key and the
/// note's marker are made from it).
pub(crate) fn ledger_key(row: &Value) -> ActionKey {
    serde_json::from_value(row.clone()).expect("a ledger row carries its key")
}

/// The one row of `order` in the ledger.
pub(crate) async fn row_of(app: &TestApp, token: &str, order: &str) -> Value {
    let rows: Vec<Value> = actions(app, token)
        .await
        .into_iter()
        .filter(|row| row["salesOrder"] == order)
        .collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    rows[0].clone()
}

#[tokio::test]
async fn a_delivery_date_change_is_asked_for_approved_and_made_once_in_s4hana() {
    let world = world().await;
    let token = clerk();
    let dated = asked_with_date(&world.app, &token).await;
    let second = asked_with_date(&world.app, &token).await;
    assert!(
        status_text(&dated).contains(&crate::helpers::delivery_day().iso),
        "{}",
        status_text(&dated)
    );
    let done = reply(&world.app, &token, &dated, "approve").await;
    assert_eq!(state(&done), "completed", "{done}");
    assert!(
        status_text(&done).ends_with(
            &format!("Done in S/4HANA: the requested delivery date of 4740 is now {} and its delivery block is removed.", crate::helpers::delivery_day().iso)
        ),
        "{}",
        status_text(&done)
    );
    let order = world.s4.entity("A_SalesOrder", "'4740'").expect("4740");
    assert_eq!(
        order["RequestedDeliveryDate"],
        crate::helpers::delivery_day().odata.as_str()
    );
    assert_eq!(order["DeliveryBlockReason"], "");
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
    let changes = world.s4.changes();
    assert!(
        changes.iter().all(|change| change.user == CLERK.0),
        "{changes:?}"
    );
    // The write carried the ETag of the order as it was explained.
    let merge = world
        .s4
        .requests()
        .into_iter()
        .find(|request| request.method == "MERGE")
        .expect("a MERGE");
    assert!(
        merge
            .headers
            .get("if-match")
            .is_some_and(|etag| etag != "*")
    );

    let listed = actions(&world.app, &token).await;
    let row = listed
        .iter()
        .find(|row| row["salesOrder"] == "4740")
        .expect("the row");
    assert_eq!(row["state"], "done", "{row}");
    assert_eq!(row["attempts"], 1);
    assert_eq!(
        row["parameters"]["requestedDeliveryDate"],
        crate::helpers::delivery_day().iso.as_str()
    );
    // The specialist's "to be confirmed with the customer" gave way to the
    // date the approver confirmed.
    assert_eq!(
        row["parameters"]["newDate"],
        crate::helpers::delivery_day().iso.as_str(),
        "{row}"
    );

    // Approving the same proposal in a second task changes nothing more
    // (asking anew finds no delivery block any more).
    let again = reply(&world.app, &token, &second, "approve").await;
    assert_eq!(approval(&again)["status"], "already_filed", "{again}");
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
}

#[tokio::test]
async fn a_date_in_the_past_or_unreadable_is_asked_again() {
    let world = world().await;
    let token = clerk();
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message(DELIVERY_4740),
    )
    .await;
    let past = reply(&world.app, &token, &asked, "2020-01-01").await;
    assert_eq!(state(&past), "input-required");
    assert_eq!(
        status_text(&past),
        "2020-01-01 is not in the future; please give a later date. Which delivery date did the customer ask for?"
    );
    let unreadable = reply(&world.app, &token, &past, "soonish").await;
    assert!(status_text(&unreadable).starts_with("\"soonish\" is not a date I understand"));
    assert!(world.s4.changes().is_empty());
}

#[tokio::test]
async fn a_forbidden_order_is_recorded_refused_and_unchanged() {
    let world = world().await;
    world.s4.set_access(
        CLERK.1,
        Access {
            read: Scope::All,
            change: Scope::Nothing,
            services: None,
        },
    );
    let token = clerk();
    let dated = asked_with_date(&world.app, &token).await;
    let refused = reply(&world.app, &token, &dated, "approve").await;
    assert!(
        status_text(&refused).ends_with(
            "Recorded, but S/4HANA refused it: you may not change sales order 4740 (403). Nothing was changed."
        ),
        "{}",
        status_text(&refused)
    );
    assert!(world.s4.changes().is_empty());
    let listed = actions(&world.app, &token).await;
    assert_eq!(listed[0]["state"], "failed", "{listed:?}");
    assert_eq!(
        listed[0]["answer"],
        "you may not change sales order 4740 (403)"
    );
}

#[tokio::test]
async fn an_order_changed_since_it_was_explained_is_not_written() {
    let world = world().await;
    let token = clerk();
    let dated = asked_with_date(&world.app, &token).await;
    // Someone else changes the block in between: a new ETag.
    world
        .s4
        .set_field("A_SalesOrder", "'4740'", "DeliveryBlockReason", json!("ZX"));
    world.s4.set_field(
        "A_SalesOrder",
        "'4740'",
        "LastChangeDateTime",
        json!("/Date(1796144102774+0000)/"),
    );
    let refused = reply(&world.app, &token, &dated, "approve").await;
    assert!(
        status_text(&refused).contains("sales order 4740 changed since it was explained (412"),
        "{}",
        status_text(&refused)
    );
    assert!(world.s4.changes().is_empty());
    assert_eq!(
        world.s4.entity("A_SalesOrder", "'4740'").expect("4740")["DeliveryBlockReason"],
        "ZX"
    );
}

#[tokio::test]
async fn no_answer_then_success_on_retry_changes_the_order_once() {
    let world = world().await;
    world
        .s4
        .script("MERGE", vec![Step::Status(503), Step::Status(503)]);
    let token = clerk();
    let dated = asked_with_date(&world.app, &token).await;
    let later = reply(&world.app, &token, &dated, "approve").await;
    assert!(
        status_text(&later).ends_with(
            "Recorded; S/4HANA did not answer, it will be tried again (you will get a notification)."
        ),
        "{}",
        status_text(&later)
    );
    let done = wait_until(Duration::from_secs(20), async || {
        actions(&world.app, &token)
            .await
            .first()
            .is_some_and(|row| row["state"] == "done")
    })
    .await;
    assert!(done, "{:?}", actions(&world.app, &token).await);
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
    assert_eq!(actions(&world.app, &token).await[0]["attempts"], 3);
}

#[tokio::test]
async fn fifty_concurrent_approvals_make_one_change() {
    let world = world().await;
    let token = clerk();
    let mut asked = Vec::new();
    for _ in 0..50 {
        asked.push(asked_with_date(&world.app, &token).await);
    }
    let approvals: Vec<_> = asked
        .iter()
        .map(|task| reply(&world.app, &token, task, "approve"))
        .collect();
    let answers = futures_util::future::join_all(approvals).await;
    let filed = answers
        .iter()
        .filter(|answer| approval(answer)["status"] == "filed")
        .count();
    assert_eq!(filed, 1);
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
}

#[tokio::test]
async fn fifty_concurrent_approvals_on_two_instances_sharing_postgres_make_one_change() {
    let Some(url) = crate::helpers::postgres_url("fifty_approvals_on_two_instances").await else {
        return;
    };
    let on_postgres = |s: &mut order_exception_agent::Settings| {
        s.store.backend = Some(order_exception_agent::StoreBackend::Postgres);
        s.store.database_url = Some(url.clone().into());
    };
    let world = world_with(on_postgres).await;
    let two = world.another_app(on_postgres).await;
    let token = clerk();
    let mut asked = Vec::new();
    for _ in 0..50 {
        asked.push(asked_with_date(&world.app, &token).await);
    }
    // Joule's follow-ups land on either instance.
    let approvals: Vec<_> = asked
        .iter()
        .enumerate()
        .map(|(index, task)| {
            let app = if index % 2 == 0 { &world.app } else { &two };
            reply(app, &token, task, "approve")
        })
        .collect();
    let answers = futures_util::future::join_all(approvals).await;
    let filed = answers
        .iter()
        .filter(|answer| approval(answer)["status"] == "filed")
        .count();
    assert_eq!(filed, 1);
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
    let rows = actions(&two, &token).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["state"], "done");
}

#[tokio::test]
async fn a_credit_manager_files_a_review_note_and_releases_the_credit_block() {
    let world = world().await;
    let token = credit_manager();
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message("why is order 4711 blocked by credit"),
    )
    .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let done = reply(&world.app, &token, &asked, "approve").await;
    let text = status_text(&done);
    assert!(
        text.ends_with(
            "Done in S/4HANA: a credit review note is on sales order 4711 and its credit block is released."
        ),
        "{text}"
    );
    let changes = world.s4.changes();
    assert!(
        changes
            .iter()
            .any(|change| change.entity.contains("ReleaseCreditBlock")),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|change| change.entity.contains("A_SalesOrderText")
                || change.entity.contains("to_Text")),
        "{changes:?}"
    );
    assert_eq!(
        world.s4.entity("A_SalesOrder", "'4711'").expect("4711")["TotalCreditCheckStatus"],
        "D"
    );
}

/// The agent's note goes into a text of its own (`Z001`), extended with
/// `If-Match` when it exists; the customer's note (`0001`) is never written,
/// and the next answer quotes the customer's words only. (With both ids
/// `0001` the note was appended to the customer's text, without `If-Match`,
/// and quoted back as the customer's.)
#[tokio::test]
async fn the_agents_note_has_a_text_of_its_own_and_the_customers_note_stays_the_customers() {
    let world = world().await;
    let customer_key = "SalesOrder='4725',Language='EN',LongTextID='0001'";
    let agent_key = "SalesOrder='4725',Language='EN',LongTextID='Z001'";
    let customer_before = world
        .s4
        .entity("A_SalesOrderText", customer_key)
        .expect("4725 has the customer's note")["LongText"]
        .clone();
    let mut earlier = serde_json::Map::new();
    for (name, value) in [
        ("SalesOrder", "4725"),
        ("Language", "EN"),
        ("LongTextID", "Z001"),
        (
            "LongText",
            "[agent request_master_data_change] noted earlier.",
        ),
    ] {
        earlier.insert(name.into(), json!(value));
    }
    world.s4.insert_row("A_SalesOrderText", earlier);

    let text = crate::s4hana::actions_hook::approve_dispute(&world).await;
    assert!(
        text.ends_with(
            "Done in S/4HANA: a note on sales order 4725 records the approved open_dispute_case."
        ),
        "{text}"
    );
    assert_eq!(
        world
            .s4
            .entity("A_SalesOrderText", customer_key)
            .expect("still there")["LongText"],
        customer_before,
        "the customer's note is not written"
    );
    let agent = world
        .s4
        .entity("A_SalesOrderText", agent_key)
        .expect("the agent's text");
    let agent = agent["LongText"].as_str().unwrap_or_default();
    let filed = ledger_key(&row_of(&world.app, &clerk(), "4725").await);
    assert!(
        agent.starts_with(&format!(
            "[agent request_master_data_change] noted earlier.\n{} ",
            filed.note_marker()
        )),
        "{agent}"
    );
    assert!(filed.note_marker().starts_with("[agent open_dispute_case "));
    let merges: Vec<_> = world
        .s4
        .requests()
        .into_iter()
        .filter(|request| {
            matches!(request.method.as_str(), "MERGE" | "PATCH" | "PUT")
                || request.headers.contains_key("x-http-method")
        })
        .collect();
    assert_eq!(merges.len(), 1, "{merges:?}");
    assert!(
        merges[0].target.contains("LongTextID='Z001'"),
        "{}",
        merges[0].target
    );
    assert!(
        merges[0]
            .headers
            .get("if-match")
            .is_some_and(|etag| !etag.is_empty() && etag != "*"),
        "an update of an existing text carries the ETag it was read with: {:?}",
        merges[0].headers
    );

    let again = send(
        &world.app,
        &clerk(),
        crate::helpers::user_message("Order 4725: Pricing: customer disputes the price."),
    )
    .await;
    let answer = status_text(&again);
    assert!(answer.contains("Price agreed at 3500."), "{answer}");
    assert!(
        !answer.contains("[agent"),
        "the agent's note is not the customer's: {answer}"
    );
}

#[tokio::test]
async fn a_credit_manager_without_release_credit_block_files_the_note_only() {
    let world = world_with(|s| {
        s.rules
            .decisions
            .insert("release_credit_block".into(), Vec::new());
    })
    .await;
    let token = credit_manager();
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message("why is order 4711 blocked by credit"),
    )
    .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let done = reply(&world.app, &token, &asked, "approve").await;
    let text = status_text(&done);
    assert!(
        text.ends_with("Done in S/4HANA: a credit review note is on sales order 4711."),
        "{text}"
    );
    let changes = world.s4.changes();
    assert!(
        !changes
            .iter()
            .any(|change| change.entity.contains("ReleaseCreditBlock")),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|change| change.entity.contains("A_SalesOrderText")
                || change.entity.contains("to_Text")),
        "{changes:?}"
    );
    assert_ne!(
        world.s4.entity("A_SalesOrder", "'4711'").expect("4711")["TotalCreditCheckStatus"],
        "D"
    );
    let listed = actions(&world.app, &token).await;
    assert_eq!(listed[0]["parameters"]["releaseCreditBlock"], false);
}

#[tokio::test]
async fn with_the_embedded_backend_an_approval_files_the_ledger_only() {
    // Even when the settings ask for S/4HANA execution: the embedded data
    // is never written, the answer is the filing line alone.
    let app = TestApp::builder()
        .settings(|s| s.actions.executor = ExecutorKind::S4hana)
        .spawn()
        .await;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk.send_text(DELIVERY_4740).await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    assert!(
        status_text(&asked).ends_with("Reply approve or reject."),
        "no date question: {}",
        status_text(&asked)
    );
    let filed = clerk.reply(&asked, "approve").await;
    assert_eq!(
        status_text(&filed),
        "Filed: Request a delivery date change for sales order 4740 (order 4740, request_delivery_date_change), approved by local-user as ar_clerk."
    );
    let rows = app.actions().await;
    assert_eq!(rows[0]["state"], "done");
    assert_eq!(rows[0]["answer"], "ledger only");
}

#[tokio::test]
async fn a_new_etag_on_an_order_that_still_needs_the_change_is_written_after_a_re_read() {
    let world = world().await;
    let token = clerk();
    let dated = asked_with_date(&world.app, &token).await;
    let explained = world.s4.etag("A_SalesOrder", "'4740'").expect("an ETag");
    // Someone touched the order (a new ETag), the block is still there.
    world.s4.set_field(
        "A_SalesOrder",
        "'4740'",
        "LastChangeDateTime",
        json!("/Date(1796144102774+0000)/"),
    );
    assert_ne!(
        world.s4.etag("A_SalesOrder", "'4740'"),
        Some(explained.clone())
    );
    let done = reply(&world.app, &token, &dated, "approve").await;
    assert!(
        status_text(&done).starts_with("Filed: ")
            && status_text(&done).contains("Done in S/4HANA: "),
        "{}",
        status_text(&done)
    );
    let merges: Vec<_> = world
        .s4
        .requests()
        .into_iter()
        .filter(|request| request.method == "MERGE")
        .collect();
    assert_eq!(
        merges.len(),
        2,
        "the stale write, then one with the new ETag"
    );
    assert_eq!(merges[0].status, Some(412));
    assert_eq!(merges[0].headers.get("if-match"), Some(&explained));
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
    // The reply's ledger entry is the row as the execution left it.
    assert_eq!(approval(&done)["entry"]["state"], "done");
}

#[tokio::test]
async fn a_result_that_arrives_after_the_answer_is_pushed_as_a_follow_up_task() {
    let (world, receiver) = world_that_answers_later().await;
    let token = clerk();
    let dated = asked_with_date(&world.app, &token).await;
    let answered = approve_with_push(&world.app, &token, &dated, "approve", &receiver).await;
    assert!(
        status_text(&answered["result"]).ends_with(TRIED),
        "{answered}"
    );
    let follow_up = &pushed_later(&receiver, "Done in S/4HANA").await;
    assert_eq!(
        status_text(follow_up),
        format!(
            "Done in S/4HANA: the requested delivery date of 4740 is now {} and its delivery block is removed.",
            crate::helpers::delivery_day().iso
        )
    );
    assert_eq!(state(follow_up), "completed");
    assert_eq!(follow_up["contextId"], dated["contextId"]);
    assert_ne!(follow_up["id"], dated["id"]);
    assert_eq!(
        follow_up["status"]["message"]["referenceTaskIds"][0],
        dated["id"]
    );
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 1);
}

const TRIED: &str =
    "Recorded; S/4HANA did not answer, it will be tried again (you will get a notification).";

/// The S/4HANA world with push allowed to a loopback receiver, whose first
/// change S/4HANA answers 503: the approval's result comes later, pushed.
async fn world_that_answers_later() -> (World, crate::helpers::webhook::WebhookReceiver) {
    let receiver = crate::helpers::webhook::WebhookReceiver::start().await;
    let world = world_with(|s| {
        s.push.allowed_hosts = vec!["127.0.0.1".into()];
        s.push.allow_loopback_http = true;
        s.push.allow_private_addresses = true;
        s.push.retry_base_ms = 50;
    })
    .await;
    world.s4.script("MERGE", vec![Step::Status(503)]);
    (world, receiver)
}

/// Approves in `task` with `text` (blocking), asking for later results at
/// the receiver's `/later`; the JSON-RPC response.
async fn approve_with_push(
    app: &TestApp,
    token: &str,
    task: &Value,
    text: &str,
    receiver: &crate::helpers::webhook::WebhookReceiver,
) -> Value {
    let mut message = crate::helpers::user_message(text);
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    app.client
        .post(format!("{}/", app.address))
        .bearer_auth(token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": {"message": message, "configuration": {
                          "blocking": true,
                          "pushNotificationConfig": {"url": format!("{}/later", receiver.url)}}}}))
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON")
}

/// The first task pushed to `/later` whose status text starts with `start`
/// (within 20 s).
async fn pushed_later(receiver: &crate::helpers::webhook::WebhookReceiver, start: &str) -> Value {
    let mut later = Vec::new();
    let pushed = wait_until(Duration::from_secs(20), async || {
        later = receiver
            .at("/later")
            .into_iter()
            .filter(|call| status_text(&call.body).starts_with(start))
            .collect();
        !later.is_empty()
    })
    .await;
    assert!(pushed, "{:?}", receiver.at("/later"));
    later.swap_remove(0).body
}

/// A German approval carried out in S/4HANA: what the approver reads about
/// the attempt, and the result the retry job pushes later, are German (with
/// the German date); the ledger keeps its detail in English.
#[tokio::test]
async fn a_german_approval_is_reported_in_german_now_and_later() {
    let (world, receiver) = world_that_answers_later().await;
    let token = clerk();
    let day = crate::helpers::delivery_day();
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message("Der Kunde möchte für 4740 einen späteren Liefertermin"),
    )
    .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let dated = reply(&world.app, &token, &asked, &day.german).await;
    assert_eq!(approval(&dated)["status"], "pending", "{dated}");
    let answered = approve_with_push(&world.app, &token, &dated, "genehmigen", &receiver).await;
    let now = status_text(&answered["result"]);
    assert!(
        now.ends_with(
            "Eingereicht; S/4HANA hat nicht geantwortet, es wird erneut versucht \
             (Sie erhalten eine Benachrichtigung)."
        ),
        "{now}"
    );
    let follow_up = pushed_later(&receiver, "In S/4HANA erledigt").await;
    assert_eq!(
        status_text(&follow_up),
        format!(
            "In S/4HANA erledigt: der Wunschliefertermin von Auftrag 4740 ist jetzt der \
             {}, und seine Liefersperre ist aufgehoben.",
            day.german
        )
    );
    assert_eq!(follow_up["metadata"]["language"], "de", "{follow_up}");
    let listed = actions(&world.app, &token).await;
    assert_eq!(
        listed[0]["answer"],
        format!(
            "the requested delivery date of 4740 is now {} and its delivery block is removed",
            day.iso
        ),
        "the ledger keeps its detail in English"
    );
}

/// A refusal in German: the reason in German too.
#[tokio::test]
async fn a_refusal_reads_german_to_a_german_approver() {
    let world = world().await;
    world.s4.set_access(
        CLERK.1,
        Access {
            read: Scope::All,
            change: Scope::Nothing,
            services: None,
        },
    );
    let token = clerk();
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message("Der Kunde möchte für 4740 einen späteren Liefertermin"),
    )
    .await;
    let day = crate::helpers::delivery_day();
    let dated = reply(&world.app, &token, &asked, &day.german).await;
    let refused = reply(&world.app, &token, &dated, "genehmigen").await;
    assert!(
        status_text(&refused).ends_with(
            "Eingereicht, aber S/4HANA hat es abgelehnt: S/4HANA lässt Sie den Kundenauftrag \
             4740 nicht ändern (403). Es wurde nichts geändert."
        ),
        "{}",
        status_text(&refused)
    );
    assert!(world.s4.changes().is_empty());
}

/// A batch with S/4HANA execution: the delivery date change of 4740 needs
/// the customer's date, which the joint question cannot ask for, so it is
/// not offered there (the line says to ask about 4740 on its own); "approve
/// all" files the one offered proposal, 4725's, and nothing for 4740.
#[tokio::test]
async fn a_batch_does_not_offer_a_delivery_date_change_that_needs_its_date() {
    let world = world().await;
    let token = clerk();
    let triage = send(
        &world.app,
        &token,
        crate::helpers::user_message("show me all blocked orders"),
    )
    .await;
    assert_eq!(state(&triage), "input-required", "{triage}");
    let text = status_text(&triage);
    assert!(
        text.contains("To approve it, ask about order 4740 on its own"),
        "{text}"
    );
    let question = text.lines().last().unwrap_or_default();
    assert!(question.starts_with("Approve: 4725 "), "{question}");
    assert!(!question.contains("4740"), "{question}");

    let approved = reply(&world.app, &token, &triage, "approve all").await;
    let listed = actions(&world.app, &token).await;
    let orders: Vec<&str> = listed
        .iter()
        .filter_map(|row| row["salesOrder"].as_str())
        .collect();
    assert_eq!(orders, ["4725"], "{approved}");
    assert_eq!(merges_of(&world.s4, "A_SalesOrder('4740')"), 0);
}
