//! German first-class, French and Spanish understood, typos forgiven, over
//! real HTTP: the language of a turn (hints before detection before the
//! conversation before English) in the `routing` metadata and on the task,
//! follow-ups that keep it, and the seed walkthrough in German through
//! routing and approvals. What the user reads is still English (the
//! answers' catalogs come later): the tests read the specialist, the state,
//! the metadata and the ledger, never the text.

use crate::helpers::{TestApp, approval, routed_to, state, user_message};
use serde_json::{Value, json};

fn routing(task: &Value) -> &Value {
    &task["status"]["message"]["metadata"]["routing"]
}

/// The language the routing metadata reports, and where it came from.
fn language(task: &Value) -> (String, String) {
    let routing = routing(task);
    (
        routing["language"].as_str().unwrap_or("-").to_string(),
        routing["languageSource"]
            .as_str()
            .unwrap_or("-")
            .to_string(),
    )
}

/// The language kept on the task.
fn kept(task: &Value) -> &str {
    task["metadata"]["language"].as_str().unwrap_or("-")
}

/// The proposal artifact's data.
fn proposal(task: &Value) -> Value {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|artifact| artifact["name"] == "proposal")
        .map(|artifact| artifact["parts"][0]["data"].clone())
        .unwrap_or(Value::Null)
}

fn rows<'a>(actions: &'a [Value], order: &str) -> Vec<&'a Value> {
    actions
        .iter()
        .filter(|row| row["salesOrder"] == order)
        .collect()
}

#[tokio::test]
async fn a_german_request_without_an_order_number_reaches_the_credit_specialist() {
    let app = TestApp::spawn().await;
    let task = app
        .send_text("Warum ist der Auftrag wegen des Kreditlimits gesperrt?")
        .await;
    assert_eq!(routed_to(&task).as_deref(), Some("credit"), "{task}");
    assert_eq!(routing(&task)["basis"], "text");
    // The specialist asks which order.
    assert_eq!(state(&task), "input-required");
    assert_eq!(language(&task), ("de".into(), "detected".into()));
    assert_eq!(kept(&task), "de");

    // French, Spanish and misspelled English reach a specialist too.
    for (text, specialist, code) in [
        ("Le client conteste le prix facturé", "pricing", "fr"),
        ("falta el código postal en la dirección", "masterdata", "es"),
        ("why is the order blockd by credt", "credit", "en"),
        ("Beim Warenempfänger fehlt die Straße", "masterdata", "de"),
    ] {
        let task = app.send_text(text).await;
        assert_eq!(
            routed_to(&task).as_deref(),
            Some(specialist),
            "{text}: {task}"
        );
        assert_eq!(language(&task).0, code, "{text}");
    }
}

/// message metadata > request metadata > Accept-Language > detection >
/// English, as the routing metadata shows.
#[tokio::test]
async fn language_hints_take_precedence_in_their_order() {
    let app = TestApp::spawn().await;
    let german = "Warum ist der Auftrag wegen des Kreditlimits gesperrt?";
    let send = |app: TestApp, message: Value, request: Option<Value>| async move {
        let mut params = json!({ "message": message });
        if let Some(metadata) = request {
            params["metadata"] = metadata;
        }
        let body = app.rpc("message/send", params).await;
        assert!(body.get("error").is_none(), "{body}");
        body["result"].clone()
    };
    let with_locale = |text: &str, locale: &str| {
        let mut message = user_message(text);
        message["metadata"] = json!({ "locale": locale });
        message
    };
    let header = app.with_headers(&[("accept-language", "en-US,en;q=0.9,de;q=0.5")]);

    let all = send(
        header.clone(),
        with_locale(german, "fr-FR"),
        Some(json!({ "language": "es" })),
    )
    .await;
    assert_eq!(language(&all), ("fr".into(), "message-metadata".into()));
    assert_eq!(kept(&all), "fr");
    assert_eq!(
        routed_to(&all).as_deref(),
        Some("credit"),
        "the words still route"
    );

    let request = send(
        header.clone(),
        user_message(german),
        Some(json!({ "language": "es-MX" })),
    )
    .await;
    assert_eq!(language(&request), ("es".into(), "request-metadata".into()));

    // A hint in a language the agent does not speak is passed over.
    let header_only = send(
        header.clone(),
        with_locale(german, "it-IT"),
        Some(json!({ "locale": "ja" })),
    )
    .await;
    assert_eq!(
        language(&header_only),
        ("en".into(), "accept-language".into())
    );

    let detected = send(app.clone(), user_message(german), None).await;
    assert_eq!(language(&detected), ("de".into(), "detected".into()));

    let nothing = send(app.clone(), user_message("4711"), None).await;
    assert_eq!(language(&nothing), ("en".into(), "default".into()));
    assert_eq!(kept(&nothing), "en");
}

/// "4711" and "genehmigen" keep the conversation's language; a sentence in
/// another language switches it.
#[tokio::test]
async fn a_follow_up_keeps_the_conversations_language() {
    let app = TestApp::spawn().await;
    let manager = app.as_role("credit_manager");
    let asked = manager
        .send_text("Warum ist der Auftrag wegen des Kreditlimits gesperrt?")
        .await;
    assert_eq!(state(&asked), "input-required");
    assert_eq!(language(&asked).0, "de");

    let number = manager.reply(&asked, "4711").await;
    assert_eq!(number["id"], asked["id"]);
    assert_eq!(routed_to(&number).as_deref(), Some("credit"), "{number}");
    assert_eq!(language(&number), ("de".into(), "conversation".into()));
    assert_eq!(approval(&number)["status"], "pending", "{number}");
    assert_eq!(kept(&number), "de");

    let approved = manager.reply(&number, "genehmigen").await;
    assert_eq!(state(&approved), "completed", "{approved}");
    assert_eq!(approval(&approved)["status"], "filed", "{approved}");
    assert_eq!(kept(&approved), "de");
    let actions = app.actions().await;
    assert_eq!(rows(&actions, "4711").len(), 1);

    // "approve" in English still keeps German: one word says too little.
    let clerk = app.as_role("ar_clerk");
    let dispute = clerk.send_text("Preisdifferenz bei Auftrag 4725").await;
    assert_eq!(routed_to(&dispute).as_deref(), Some("pricing"), "{dispute}");
    assert_eq!(language(&dispute), ("de".into(), "detected".into()));
    let filed = clerk.reply(&dispute, "approve").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");
    assert_eq!(kept(&filed), "de");

    // A whole sentence in another language is answered in that one.
    let asked = app.send_text("Warum ist der Auftrag gesperrt?").await;
    assert_eq!(language(&asked).0, "de");
    let switched = app
        .reply(
            &asked,
            "it is order 4740, the customer wants a later delivery date",
        )
        .await;
    assert_eq!(
        routed_to(&switched).as_deref(),
        Some("delivery"),
        "{switched}"
    );
    assert_eq!(language(&switched), ("en".into(), "detected".into()));
    assert_eq!(kept(&switched), "en");
}

/// Joule starts a new task in the same context once a task is finished
/// (the task id cleared, or the finished task's id sent again): a short
/// follow-up keeps the conversation's language there too.
#[tokio::test]
async fn a_new_task_in_the_conversation_keeps_its_language() {
    let app = TestApp::spawn().await;
    let first = app
        .send_text("Beim Warenempfänger von Auftrag 4723 fehlt die Straße")
        .await;
    assert_eq!(state(&first), "completed", "{first}");
    assert_eq!(kept(&first), "de");

    // The context only.
    let mut message = user_message("4740");
    message["contextId"] = first["contextId"].clone();
    let next = app.send(message).await;
    assert_ne!(next["id"], first["id"]);
    assert_eq!(next["contextId"], first["contextId"]);
    assert_eq!(routed_to(&next).as_deref(), Some("delivery"), "{next}");
    assert_eq!(language(&next), ("de".into(), "conversation".into()));

    // The finished task's id again.
    let again = app.reply(&first, "4711").await;
    assert_ne!(again["id"], first["id"]);
    assert_eq!(language(&again), ("de".into(), "conversation".into()));

    // Another conversation starts in English.
    let fresh = app.send_text("4711").await;
    assert_eq!(language(&fresh), ("en".into(), "default".into()));
}

/// The same order gets the same specialist and the same proposal in every
/// language: the rule book decides, not the words.
#[tokio::test]
async fn the_same_order_gets_the_same_proposal_in_every_language() {
    let app = TestApp::spawn().await;
    let clerk = app.as_role("ar_clerk");
    let mut proposals = Vec::new();
    for text in [
        "the customer disputes the price on 4725",
        "Der Kunde reklamiert den Preis auf der Rechnung für 4725",
        "Le client conteste le prix facturé sur 4725",
        "El cliente reclama el precio facturado en 4725",
    ] {
        let task = clerk.send_text(text).await;
        assert_eq!(
            routed_to(&task).as_deref(),
            Some("pricing"),
            "{text}: {task}"
        );
        assert_eq!(state(&task), "input-required", "{text}");
        assert_eq!(approval(&task)["status"], "pending", "{text}");
        proposals.push(proposal(&task));
    }
    assert_eq!(proposals[0]["action"], "open_dispute_case");
    assert!(
        proposals.iter().all(|p| *p == proposals[0]),
        "{proposals:#?}"
    );
}

/// The seed walkthrough in German, through routing and approvals: credit,
/// pricing with the customer's note, master data, delivery, "zeige alle
/// gesperrten Aufträge", "genehmigen".
async fn the_seed_walkthrough_in_german(app: TestApp) {
    // Credit: the credit manager approves.
    let manager = app.as_role("credit_manager");
    let credit = manager
        .send_text("Warum ist der Auftrag 4711 wegen des Kreditlimits gesperrt?")
        .await;
    assert_eq!(routed_to(&credit).as_deref(), Some("credit"), "{credit}");
    assert_eq!(state(&credit), "input-required");
    assert_eq!(proposal(&credit)["action"], "request_credit_review");
    assert_eq!(language(&credit), ("de".into(), "detected".into()));
    let filed = manager.reply(&credit, "genehmigen").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");

    // Pricing, with the customer's note quoted as data: the clerk says "ja".
    let clerk = app.as_role("ar_clerk");
    let pricing = clerk
        .send_text("Der Kunde reklamiert den Preis auf der Rechnung für 4725")
        .await;
    assert_eq!(routed_to(&pricing).as_deref(), Some("pricing"), "{pricing}");
    let offered = proposal(&pricing);
    assert_eq!(offered["action"], "open_dispute_case");
    assert!(
        offered["customerNote"]
            .as_str()
            .is_some_and(|note| note.starts_with("Price agreed at 3500.")),
        "{offered}"
    );
    let filed = clerk.reply(&pricing, "ja").await;
    assert_eq!(approval(&filed)["status"], "filed", "{filed}");

    // Master data: a conditional answer files nothing, then "ablehnen".
    let specialist = app.as_role("master_data_specialist");
    let masterdata = specialist
        .send_text("Beim Warenempfänger von 4723 fehlt die Straße")
        .await;
    assert_eq!(
        routed_to(&masterdata).as_deref(),
        Some("masterdata"),
        "{masterdata}"
    );
    assert_eq!(
        proposal(&masterdata)["action"],
        "request_master_data_change"
    );
    let unclear = specialist.reply(&masterdata, "ja, aber erst morgen").await;
    assert_eq!(state(&unclear), "input-required", "{unclear}");
    assert_eq!(approval(&unclear)["status"], "pending");
    let declined = specialist.reply(&unclear, "ablehnen").await;
    assert_eq!(approval(&declined)["status"], "declined", "{declined}");

    // Delivery: asked, left waiting.
    let delivery = clerk
        .send_text("Der Kunde möchte für 4740 einen späteren Liefertermin")
        .await;
    assert_eq!(
        routed_to(&delivery).as_deref(),
        Some("delivery"),
        "{delivery}"
    );
    assert_eq!(
        proposal(&delivery)["action"],
        "request_delivery_date_change"
    );
    assert_eq!(kept(&delivery), "de");

    // All blocked orders, then "genehmigen": what the clerk may, filed.
    let triage = clerk.send_text("zeige alle gesperrten Aufträge").await;
    assert_eq!(state(&triage), "input-required", "{triage}");
    assert_eq!(kept(&triage), "de");
    let items = triage["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|artifact| artifact["name"] == "orders")
        .map(|artifact| artifact["parts"][0]["data"]["orders"].clone())
        .unwrap_or(Value::Null);
    let specialists: Vec<(&str, &str)> = items
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            (
                item["order"].as_str().unwrap_or("?"),
                item["specialist"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        specialists,
        [
            ("4711", "credit"),
            ("4723", "masterdata"),
            ("4725", "pricing"),
            ("4740", "delivery")
        ]
    );
    let approved = clerk.reply(&triage, "genehmigen").await;
    assert_eq!(state(&approved), "completed", "{approved}");
    assert_eq!(kept(&approved), "de");

    let actions = app.actions().await;
    assert_eq!(rows(&actions, "4711").len(), 1, "{actions:#?}");
    assert_eq!(rows(&actions, "4711")[0]["approverRole"], "credit_manager");
    assert_eq!(rows(&actions, "4725").len(), 1, "filed once");
    assert_eq!(rows(&actions, "4725")[0]["action"], "open_dispute_case");
    assert_eq!(rows(&actions, "4740").len(), 1);
    assert_eq!(
        rows(&actions, "4740")[0]["action"],
        "request_delivery_date_change"
    );
    assert!(rows(&actions, "4723").is_empty(), "declined: nothing filed");
}

crate::on_each_source!(the_seed_walkthrough_in_german);
