//! Several orders in one request, over real HTTP: the seed's triage as one
//! request, fanned out to the specialist of each order's own block, answered
//! per order, approved per order on its own ledger key; slow and failing
//! orders (the S/4 double with faults) end as their own items; the bound,
//! duplicates and unknown orders.

use crate::agent::sources::s4_direct;
use crate::doubles::s4hana::{S4Double, Step};
use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{TestApp, state, status_text, user_message};
use serde_json::{Value, json};
use std::time::Duration;

const ALL_BLOCKED: &str = "show me all blocked orders";

/// The per-order results of the task's latest `orders` artifact, if a
/// batch was answered.
pub(super) fn latest_orders(task: &Value) -> Option<Vec<Value>> {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|artifact| artifact["name"] == "orders")
        .and_then(|artifact| artifact["parts"][0]["data"]["orders"].as_array().cloned())
}

/// The per-order results of the task's latest `orders` artifact.
fn orders(task: &Value) -> Vec<Value> {
    latest_orders(task).unwrap_or_else(|| panic!("an orders artifact: {task}"))
}

/// The latest `orders` (or `approvals`) artifact's data.
fn batch_data<'a>(task: &'a Value, name: &str) -> &'a Value {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|artifact| artifact["name"] == name)
        .map(|artifact| &artifact["parts"][0]["data"])
        .unwrap_or_else(|| panic!("a {name} artifact: {task}"))
}

fn numbers(items: &[Value]) -> Vec<&str> {
    items
        .iter()
        .map(|item| item["order"].as_str().unwrap_or("?"))
        .collect()
}

fn item<'a>(items: &'a [Value], order: &str) -> &'a Value {
    items
        .iter()
        .find(|item| item["order"] == order)
        .unwrap_or_else(|| panic!("order {order} in {items:?}"))
}

/// The status message's per-order `approvals` metadata, by order.
fn approval_of<'a>(task: &'a Value, order: &str) -> &'a Value {
    task["status"]["message"]["metadata"]["approvals"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|note| note["salesOrder"] == order)
        .unwrap_or(&Value::Null)
}

fn rows<'a>(actions: &'a [Value], order: &str) -> Vec<&'a Value> {
    actions
        .iter()
        .filter(|row| row["salesOrder"] == order)
        .collect()
}

/// The seed's triage as one request: 4 items, refusals with who may
/// decide, two proposals offered together, approved per order.
async fn the_seed_triage_in_one_request(app: TestApp) {
    let clerk = app.as_role("ar_clerk");
    let triage = clerk.send_text(ALL_BLOCKED).await;
    assert_eq!(state(&triage), "input-required", "{triage}");
    let items = orders(&triage);
    assert_eq!(numbers(&items), ["4711", "4723", "4725", "4740"]);
    let specialists: Vec<&str> = items
        .iter()
        .map(|item| item["specialist"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(specialists, ["credit", "masterdata", "pricing", "delivery"]);
    assert!(
        items.iter().all(|item| item["state"] == "completed"),
        "{items:?}"
    );
    // 4711 and 4723: the clerk may not; who may decide, per order.
    assert_eq!(item(&items, "4711")["approval"]["status"], "not_permitted");
    assert_eq!(
        item(&items, "4711")["approval"]["mayDecide"],
        json!(["credit_manager"])
    );
    assert_eq!(
        item(&items, "4723")["approval"]["mayDecide"],
        json!(["master_data_specialist"])
    );
    assert_eq!(item(&items, "4725")["approval"]["status"], "pending");
    assert_eq!(
        item(&items, "4740")["proposal"]["action"],
        "request_delivery_date_change"
    );
    let text = status_text(&triage);
    assert!(text.starts_with("4 of 4 orders explained."), "{text}");
    assert!(
        text.contains(
            "role ar_clerk may not do request_credit_review. Who may decide: credit_manager."
        ),
        "{text}"
    );
    assert!(
        text.ends_with(
            "Approve: 4725 open a dispute case, 4740 request a delivery date change? Reply approve all, approve 4725, or reject."
        ),
        "{text}"
    );
    assert_eq!(approval_of(&triage, "4740")["status"], "pending");
    // While it waits the text is `artifacts[0]` too, the orders' data after it.
    assert_eq!(triage["artifacts"][0]["name"], "answer", "{triage}");
    assert_eq!(triage["artifacts"][0]["parts"][0]["text"], text.as_str());
    assert_eq!(triage["artifacts"][1]["name"], "orders", "{triage}");
    assert!(
        app.actions().await.is_empty(),
        "nothing filed before approval"
    );

    // "approve 4725": only 4725 is filed; 4740 is asked again.
    let first = clerk.reply(&triage, "approve 4725").await;
    assert_eq!(state(&first), "input-required", "{first}");
    assert_eq!(first["id"], triage["id"], "one task holds the batch");
    assert_eq!(approval_of(&first, "4725")["status"], "filed");
    assert!(
        status_text(&first).ends_with("Approve: 4740 request a delivery date change? Reply approve all, approve 4740, or reject."),
        "{}",
        status_text(&first)
    );
    let actions = app.actions().await;
    assert_eq!(numbers_of(&actions), ["4725"]);
    assert_eq!(actions[0]["approverRole"], "ar_clerk");

    // "approve all": 4740 filed, 4725 reported as already filed.
    let second = clerk.reply(&first, "approve all").await;
    assert_eq!(state(&second), "completed", "{second}");
    assert_eq!(approval_of(&second, "4740")["status"], "filed");
    assert_eq!(approval_of(&second, "4725")["status"], "already_filed");
    let decided = batch_data(&second, "approvals");
    assert_eq!(decided["approvals"].as_array().map(Vec::len), Some(2));
    // One `approvals` artifact, the first turn's, brought up to date.
    let approvals_artifacts = |task: &Value| -> Vec<Value> {
        task["artifacts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|artifact| artifact["name"] == "approvals")
            .map(|artifact| artifact["artifactId"].clone())
            .collect()
    };
    assert_eq!(approvals_artifacts(&second), approvals_artifacts(&first));
    assert_eq!(approvals_artifacts(&second).len(), 1, "{second}");
    // Joule reads the answer at artifacts[0].
    let answer = second["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(answer.contains("4725: Already filed"), "{answer}");
    let actions = app.actions().await;
    assert_eq!(rows(&actions, "4725").len(), 1);
    assert_eq!(rows(&actions, "4740").len(), 1);
    assert!(rows(&actions, "4711").is_empty());

    // As credit_manager, 4711 is offered and filed.
    let manager = app.as_role("credit_manager");
    let triage = manager.send_text(ALL_BLOCKED).await;
    assert_eq!(state(&triage), "input-required", "{triage}");
    assert_eq!(
        item(&orders(&triage), "4711")["approval"]["status"],
        "pending"
    );
    let filed = manager.reply(&triage, "approve 4711, reject 4725").await;
    assert_eq!(approval_of(&filed, "4711")["status"], "filed", "{filed}");
    assert_eq!(approval_of(&filed, "4725")["status"], "declined", "{filed}");
    let actions = app.actions().await;
    assert_eq!(rows(&actions, "4711").len(), 1);
    assert_eq!(rows(&actions, "4711")[0]["approverRole"], "credit_manager");
    assert_eq!(rows(&actions, "4725").len(), 1, "rejecting files nothing");
}

fn numbers_of(actions: &[Value]) -> Vec<&str> {
    actions
        .iter()
        .map(|row| row["salesOrder"].as_str().unwrap_or("?"))
        .collect()
}

/// Named orders go each to the specialist of its own block, not of the
/// request's words; one customer's credit blocks are only 4711.
async fn named_orders_and_filtered_questions(app: TestApp) {
    let clerk = app.as_role("ar_clerk");
    let named = clerk.send_text("why are 4711, 4723 and 4725 stuck?").await;
    let items = orders(&named);
    assert_eq!(numbers(&items), ["4711", "4723", "4725"], "as named");
    let specialists: Vec<&str> = items
        .iter()
        .map(|item| item["specialist"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(specialists, ["credit", "masterdata", "pricing"]);

    let credit = clerk.send_text("credit blocks of customer 10023").await;
    assert_eq!(numbers(&orders(&credit)), ["4711"], "{credit}");
    assert_eq!(
        state(&credit),
        "completed",
        "the clerk may approve nothing here"
    );
    let of_customer = clerk
        .send_text("which orders of customer 10051 are blocked?")
        .await;
    assert_eq!(
        numbers(&orders(&of_customer)),
        ["4723", "4740"],
        "{of_customer}"
    );
    let none = clerk.send_text("credit blocks of customer 10051").await;
    assert_eq!(state(&none), "completed", "{none}");
    assert_eq!(
        status_text(&none),
        "No credit blocks of customer 10051 found."
    );
}

crate::on_each_source!(
    the_seed_triage_in_one_request,
    named_orders_and_filtered_questions
);

#[tokio::test]
async fn the_bound_duplicates_and_unknown_orders() {
    let app = TestApp::builder()
        .settings(|settings| settings.batch.max_orders = 2)
        .spawn()
        .await;
    let clerk = app.as_role("ar_clerk");
    let bounded = clerk.send_text(ALL_BLOCKED).await;
    assert_eq!(numbers(&orders(&bounded)), ["4711", "4723"]);
    assert_eq!(batch_data(&bounded, "orders")["notListed"], 2);
    let text = status_text(&bounded);
    assert!(
        text.contains(
            "2 more blocked orders match than one request looks at (at most 2); narrow the question"
        ),
        "{text}"
    );
    // One more is said of one.
    let one_more = TestApp::builder()
        .settings(|settings| settings.batch.max_orders = 3)
        .spawn()
        .await;
    let bounded = one_more.as_role("ar_clerk").send_text(ALL_BLOCKED).await;
    assert_eq!(batch_data(&bounded, "orders")["notListed"], 1);
    let text = status_text(&bounded);
    assert!(
        text.contains(
            "1 more blocked order matches than one request looks at (at most 3); narrow the question"
        ),
        "{text}"
    );

    // Duplicates count once; an unknown order is one failed item.
    let named = clerk.send_text("4711, 9999 and 4711").await;
    assert_ne!(state(&named), "failed", "{named}");
    let items = orders(&named);
    assert_eq!(numbers(&items), ["4711", "9999"]);
    assert_eq!(item(&items, "9999")["state"], "failed");
    assert_eq!(item(&items, "4711")["state"], "completed");
    assert!(
        status_text(&named).starts_with("1 of 2 orders explained; 9999 failed."),
        "{}",
        status_text(&named)
    );
    let past = clerk.send_text("orders 4711, 4723 and 4725").await;
    assert_eq!(numbers(&orders(&past)), ["4711", "4723"]);
    assert!(
        status_text(&past).contains(
            "1 more order was named than one request looks at (at most 2); ask about it in another request."
        ),
        "{past}"
    );
    let two_past = clerk.send_text("orders 4711, 4723, 4725 and 4740").await;
    assert!(
        status_text(&two_past).contains("2 more orders were named than one request looks at"),
        "{two_past}"
    );

    // A reply that is not an answer asks again and files nothing.
    let asked = clerk.send_text("4725 and 4740").await;
    assert_eq!(state(&asked), "input-required");
    let unclear = clerk.reply(&asked, "approve and release order 4711").await;
    assert_eq!(state(&unclear), "input-required", "{unclear}");
    assert!(status_text(&unclear).starts_with("Please answer with approve all"));
    let stray = clerk.reply(&asked, "approve 4711").await;
    assert_eq!(state(&stray), "input-required", "{stray}");
    assert!(status_text(&stray).starts_with("Nothing of order 4711 is offered"));
    // "approve" with a data part naming an order is no answer for all.
    let mut named = user_message("approve");
    named["parts"]
        .as_array_mut()
        .expect("parts")
        .push(json!({"kind": "data", "data": {"salesOrder": "4740"}}));
    named["taskId"] = asked["id"].clone();
    named["contextId"] = asked["contextId"].clone();
    let unclear = clerk.send(named).await;
    assert_eq!(state(&unclear), "input-required", "{unclear}");
    assert!(status_text(&unclear).starts_with("Please answer with approve all"));
    assert!(app.actions().await.is_empty());
    let rejected = clerk.reply(&asked, "reject").await;
    assert_eq!(state(&rejected), "completed", "{rejected}");
    assert_eq!(approval_of(&rejected, "4725")["status"], "declined");
    assert!(app.actions().await.is_empty());
}

/// An app reading the S/4 double with these batch settings.
async fn on_s4(s4: &S4Double, item_timeout_ms: u64, budget_ms: u64) -> TestApp {
    TestApp::builder()
        .budget_ms(budget_ms)
        .settings(|settings| {
            s4_direct(s4, settings);
            settings.backend.s4hana.max_retries = 0;
            settings.batch.item_timeout_ms = item_timeout_ms;
        })
        .spawn()
        .await
}

#[tokio::test]
async fn a_slow_order_times_out_and_a_failing_one_fails_while_the_others_complete() {
    let s4 = S4Double::start().await;
    s4.always("A_SalesOrder('4723')", Step::Delay(Duration::from_secs(5)));
    s4.always("A_SalesOrder('4725')", Step::Status(500));
    let app = on_s4(&s4, 1_000, 55_000).await;
    let task = app
        .as_role("ar_clerk")
        .send_text("why are 4711, 4723, 4725 and 4740 stuck?")
        .await;
    let items = orders(&task);
    assert_eq!(numbers(&items), ["4711", "4723", "4725", "4740"]);
    let states: Vec<&str> = items
        .iter()
        .map(|item| item["state"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(states, ["completed", "timed_out", "failed", "completed"]);
    let text = status_text(&task);
    assert!(
        text.starts_with("2 of 4 orders explained; 4723 could not be read in time; 4725 failed."),
        "{text}"
    );
    // 4740's delivery date change is still offered.
    assert_eq!(state(&task), "input-required", "{task}");
    assert!(text.ends_with("Approve: 4740 request a delivery date change? Reply approve all, approve 4740, or reject."), "{text}");
}

#[tokio::test]
async fn past_the_budget_the_batch_answers_working_with_what_is_done_and_the_rest_is_pushed() {
    let s4 = S4Double::start().await;
    s4.always("A_SalesOrder('4723')", Step::Delay(Duration::from_secs(4)));
    let receiver = WebhookReceiver::start().await;
    let app = TestApp::builder()
        .budget_ms(1_500)
        .loopback_webhooks(&["127.0.0.1"])
        .settings(|settings| {
            s4_direct(&s4, settings);
            settings.backend.s4hana.max_retries = 0;
            settings.batch.item_timeout_ms = 20_000;
        })
        .spawn()
        .await;
    let body = app
        .as_role("ar_clerk")
        .rpc(
            "message/send",
            json!({
                "message": user_message("why are 4711 and 4723 stuck?"),
                "configuration": {
                    "blocking": true,
                    "pushNotificationConfig": { "url": format!("{}/batch", receiver.url) }
                }
            }),
        )
        .await;
    let task = &body["result"];
    assert_eq!(state(task), "working", "{task}");
    // How far it got, then how the rest comes: by push.
    assert_eq!(
        status_text(task),
        format!(
            "1 of 2 orders looked at so far (4711 just now). {}",
            crate::helpers::STILL_WORKING
        )
    );
    let mut finished = Value::Null;
    let pushed = crate::helpers::wait_until(Duration::from_secs(20), async || {
        if let Some(call) = receiver
            .at("/batch")
            .into_iter()
            .find(|call| call.body["status"]["state"] == "completed")
        {
            finished = call.body;
        }
        !finished.is_null()
    })
    .await;
    assert!(
        pushed,
        "the finished batch is pushed: {:?}",
        receiver.at("/batch")
    );
    let finished = &finished;
    assert_eq!(finished["id"], task["id"]);
    let items = orders(finished);
    assert_eq!(numbers(&items), ["4711", "4723"]);
    assert!(
        items.iter().all(|item| item["state"] == "completed"),
        "{items:?}"
    );
}

/// A batch's approval reads each order again before filing it; S/4HANA's
/// answers then count as on the first turn: a 403 is the user's refusal
/// (nothing filed, not offered again), and the other orders are filed.
#[tokio::test]
async fn an_order_s4hana_refuses_at_approval_is_not_filed_and_the_others_are() {
    let s4 = S4Double::start().await;
    let app = on_s4(&s4, 5_000, 55_000).await;
    let clerk = app.as_role("ar_clerk");
    let asked = clerk.send_text("why are 4725 and 4740 stuck?").await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    s4.always("A_SalesOrder('4725')", Step::Status(403));
    let answered = clerk.reply(&asked, "approve all").await;
    assert_eq!(state(&answered), "completed", "{answered}");
    let text = status_text(&answered);
    assert!(
        text.contains("4725: S/4HANA does not let you see sales order 4725"),
        "{text}"
    );
    assert!(text.contains("Nothing was filed."), "{text}");
    let filed: Vec<String> = app
        .actions()
        .await
        .iter()
        .filter_map(|row| row["salesOrder"].as_str().map(str::to_string))
        .collect();
    assert_eq!(filed, ["4740"]);
}

/// An ask for orders that is not about blocks is no batch: it is answered
/// with what the agent does (no fan-out, no `orders` artifact, no order
/// read), in every language, and the next message in the task is routed as
/// usual.
#[tokio::test]
async fn an_ask_for_orders_beyond_blocks_says_what_the_agent_does() {
    let app = TestApp::spawn().await;
    for text in [
        "list all sales orders from last week",
        "show me all orders of customer 10023",
    ] {
        let task = app.send_text(text).await;
        assert_eq!(state(&task), "input-required", "{text}: {task}");
        let answer = status_text(&task);
        assert!(
            answer.starts_with("I explain blocked sales orders"),
            "{text}: {answer}"
        );
        assert!(answer.contains("show me all blocked orders"), "{answer}");
        assert!(
            !answer.contains("4723") && !answer.contains("4740"),
            "{answer}"
        );
        let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
        assert!(
            artifacts
                .iter()
                .all(|artifact| artifact["name"] != "orders"),
            "{text}: {task}"
        );
    }
    // "list" (of "price list") and "week" (of "next week") name no block on
    // their own, in any language: the same answer, in the user's language,
    // with the router's decision (no specialist) in the metadata.
    for (text, opening) in [
        ("list all orders of customer 10023", "I explain"),
        ("show all orders from last week", "I explain"),
        ("liste alle Aufträge des Kunden 10023", "Ich erkläre"),
        ("zeige alle Aufträge der letzten Woche", "Ich erkläre"),
        ("liste toutes les commandes du client 10023", "J'explique"),
        (
            "montre toutes les commandes de la semaine dernière",
            "J'explique",
        ),
        ("lista todos los pedidos del cliente 10023", "Explico"),
        ("muestra todos los pedidos de la semana pasada", "Explico"),
    ] {
        let task = app.send_text(text).await;
        assert_eq!(state(&task), "input-required", "{text}: {task}");
        let routing = &task["status"]["message"]["metadata"]["routing"];
        assert_eq!(routing["specialist"], Value::Null, "{text}: {task}");
        assert_eq!(routing["basis"], "no-match", "{text}: {task}");
        let answer = status_text(&task);
        assert!(answer.starts_with(opening), "{text}: {answer}");
        assert!(
            !answer.contains("4725") && !answer.contains("4740"),
            "{text}: {answer}"
        );
        let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
        assert!(
            artifacts
                .iter()
                .all(|artifact| artifact["name"] != "orders"),
            "{text}: {task}"
        );
    }
    // Asks about blocks are batches as before.
    let triage = app.send_text(ALL_BLOCKED).await;
    assert_eq!(numbers(&orders(&triage)), ["4711", "4723", "4725", "4740"]);
    let credit = app.send_text("credit blocks of customer 10023").await;
    assert_eq!(numbers(&orders(&credit)), ["4711"]);
}
