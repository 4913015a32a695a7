//! The seed walkthrough on S/4HANA (the S/4HANA and Destination doubles,
//! authentication on against the key server, SQLite store) with the
//! service bound to the Audit Log Service double: a refused token, the
//! credit of 4711 explained to a credit manager and its review approved
//! (a note and the credit block released), the incomplete addresses of
//! 4723, and a new delivery date for 4740 approved. The double receives
//! the security event, one data access per business partner and kind of
//! data each request read, and one data modification per write, with the
//! exact JSON of reference/audit-log.md §2.4–§2.5; and it receives every
//! one of them once after it answered 503 through the whole walkthrough.
//! A write S/4HANA refuses (403) is a modification with `success: false`.

use crate::doubles::audit_log::AuditLogDouble;
use crate::helpers::{state, status_text, wait_until};
use crate::s4hana::actions_s4::{World, clerk, credit_manager, reply, send, world_with};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

/// The user id of both test users' tokens (`user_uuid`).
const USER: &str = "user-uuid-42";

/// The S/4HANA world, bound to `audit` (plan oauth2), its outbox polled
/// every 50 ms.
async fn world(audit: &AuditLogDouble) -> World {
    let services = audit.vcap_services("oauth2");
    world_with(|settings| {
        settings.bind_services(&services).expect("VCAP_SERVICES");
        settings.audit.poll_interval_ms = 50;
        settings.audit.retry_max_secs = 1;
    })
    .await
}

/// A request with a token that is no JWT: 401, a security event.
async fn refused(world: &World) {
    let status = world
        .app
        .client
        .post(format!("{}/", world.app.address))
        .header("Content-Type", "application/json")
        .header("Authorization", "Bearer not-a-jwt")
        .header("X-Forwarded-For", "203.0.113.7")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#)
        .send()
        .await
        .expect("the service answers")
        .status();
    assert_eq!(status, 401);
}

/// The walkthrough: a refused token; 4711's credit explained and its
/// review approved by a credit manager; 4723's missing address data; a new
/// delivery date for 4740 approved by a clerk.
async fn walkthrough(world: &World) {
    refused(world).await;
    let manager = credit_manager();
    let credit = send(
        &world.app,
        &manager,
        crate::helpers::user_message("why is order 4711 blocked by credit"),
    )
    .await;
    assert_eq!(state(&credit), "input-required", "{credit}");
    let approved = reply(&world.app, &manager, &credit, "approve").await;
    assert!(
        status_text(&approved).ends_with(
            "Done in S/4HANA: a credit review note is on sales order 4711 and its credit block is released."
        ),
        "{}",
        status_text(&approved)
    );
    let token = clerk();
    let incomplete = send(
        &world.app,
        &token,
        crate::helpers::user_message("Order 4723: Incomplete: delivery address data missing."),
    )
    .await;
    assert!(
        status_text(&incomplete).contains("StreetName"),
        "{}",
        status_text(&incomplete)
    );
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message("customer wants a later delivery date on 4740"),
    )
    .await;
    let dated = reply(
        &world.app,
        &token,
        &asked,
        &crate::helpers::delivery_day().written,
    )
    .await;
    let done = reply(&world.app, &token, &dated, "approve").await;
    assert_eq!(state(&done), "completed", "{done}");
}

fn partner(id: &str) -> Value {
    json!({"type": "API_BUSINESS_PARTNER.A_BusinessPartner", "id": {"BusinessPartner": id}})
}

fn subject(id: &str) -> Value {
    json!({"type": "API_BUSINESS_PARTNER.A_BusinessPartner", "role": "Customer",
           "id": {"BusinessPartner": id}})
}

fn credit_read(id: &str) -> Value {
    json!({"user": USER, "tenant": "$PROVIDER", "channel": "A2A",
           "object": partner(id), "data_subject": subject(id),
           "attributes": [{"name": "CreditLimitAmount"}, {"name": "CreditSegmentCurrency"},
                          {"name": "AmountInCompanyCodeCurrency"}, {"name": "CompanyCodeCurrency"}]})
}

fn address_read(id: &str) -> Value {
    json!({"user": USER, "tenant": "$PROVIDER", "channel": "A2A",
           "object": partner(id), "data_subject": subject(id),
           "attributes": [{"name": "StreetName"}, {"name": "PostalCode"},
                          {"name": "CityName"}, {"name": "Country"}]})
}

/// `messages` without their `uuid` and `time` (each checked: a UUID, UTC
/// with milliseconds), as canonical JSON text, in order.
fn without_ids(messages: &[Value]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut all: Vec<String> = messages
        .iter()
        .map(|message| {
            let mut message = message.clone();
            let fields = message.as_object_mut().expect("an object");
            let uuid = fields.remove("uuid").expect("uuid");
            let uuid = uuid.as_str().expect("uuid is text");
            assert!(uuid::Uuid::parse_str(uuid).is_ok(), "{uuid}");
            assert!(seen.insert(uuid.to_string()), "{uuid} arrived twice");
            let time = fields.remove("time").expect("time");
            let time = time.as_str().expect("time is text");
            assert!(
                time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
                "{time}"
            );
            message.to_string()
        })
        .collect();
    all.sort();
    all
}

fn sorted(values: Vec<Value>) -> Vec<String> {
    let mut all: Vec<String> = values.iter().map(Value::to_string).collect();
    all.sort();
    all
}

/// The data accesses the walkthrough makes, one per request, business
/// partner and kind of data: the credit question reads 10023's credit data
/// (its answer needs no address); the approval reads 4711 with its
/// partners' address (sold-to and ship-to share it: one message); 4723
/// reads 10051's two addresses (one message); two of the three delivery
/// turns read 4740 with its address (one message each).
fn expected_accesses() -> Vec<String> {
    sorted(vec![
        credit_read("10023"),
        address_read("10023"),
        address_read("10051"),
        address_read("10051"),
        address_read("10051"),
    ])
}

/// The writes: the credit review's note created on 4711, its credit block
/// released, 4740's date and delivery block changed; each in the
/// approver's name with the customer as the data subject.
fn check_modifications(received: &[Value]) {
    assert_eq!(received.len(), 3, "{received:?}");
    let by_type = |object_type: &str| {
        received
            .iter()
            .find(|message| message["object"]["type"] == object_type)
            .unwrap_or_else(|| panic!("no {object_type}: {received:?}"))
            .clone()
    };
    let note = by_type("API_SALES_ORDER_SRV.A_SalesOrderText");
    let keys: Vec<&str> = note
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "attributes",
            "data_subject",
            "object",
            "success",
            "tenant",
            "time",
            "user",
            "uuid"
        ]
    );
    assert_eq!(note["user"], USER);
    assert_eq!(note["tenant"], "$PROVIDER");
    assert_eq!(note["success"], true);
    assert_eq!(note["data_subject"], subject("10023"));
    assert_eq!(
        note["object"]["id"],
        json!({"SalesOrder": "4711", "Language": "EN", "LongTextID": "Z001"})
    );
    let attributes = note["attributes"].as_array().unwrap();
    assert_eq!(attributes.len(), 1);
    assert_eq!(attributes[0]["name"], "LongText");
    assert!(attributes[0].get("old").is_none(), "a new text: {note}");
    let text = attributes[0]["new"].as_str().unwrap();
    assert!(
        text.starts_with("[agent request_credit_review ")
            && text.contains("approved by user-uuid-42 (credit_manager)"),
        "{text}"
    );
    assert!(text.chars().count() <= 201, "cut at 200 characters");

    let release = by_type("API_SLS_DOC_WITH_CREDIT_BLOCK.A_CreditBlockedSalesDocument");
    let uuid = release["uuid"].clone();
    let time = release["time"].clone();
    assert_eq!(
        release,
        json!({"user": USER, "tenant": "$PROVIDER", "uuid": uuid, "time": time,
               "object": {"type": "API_SLS_DOC_WITH_CREDIT_BLOCK.A_CreditBlockedSalesDocument",
                          "id": {"SalesDocument": "4711"}},
               "data_subject": subject("10023"),
               "attributes": [{"name": "TotalCreditCheckStatus", "old": "B", "new": "D"}],
               "success": true})
    );

    let date = by_type("API_SALES_ORDER_SRV.A_SalesOrder");
    let uuid = date["uuid"].clone();
    let time = date["time"].clone();
    assert_eq!(
        date,
        json!({"user": USER, "tenant": "$PROVIDER", "uuid": uuid, "time": time,
               "object": {"type": "API_SALES_ORDER_SRV.A_SalesOrder", "id": {"SalesOrder": "4740"}},
               "data_subject": subject("10051"),
               "attributes": [
                   {"name": "RequestedDeliveryDate", "old": "2026-12-07",
                    "new": crate::helpers::delivery_day().iso},
                   {"name": "DeliveryBlockReason", "old": "ZL", "new": ""}],
               "success": true})
    );
}

fn check_security_event(received: &[Value]) {
    assert_eq!(received.len(), 1, "{received:?}");
    let event = &received[0];
    assert_eq!(event["ip"], "203.0.113.7");
    assert_eq!(event["user"], "anonymous");
    let data: Value = serde_json::from_str(event["data"].as_str().unwrap()).unwrap();
    assert_eq!(data["reason"], "malformed");
}

/// Everything the walkthrough sends has arrived.
async fn all_arrived(audit: &AuditLogDouble) -> bool {
    let audit = audit.clone();
    wait_until(Duration::from_secs(20), async || {
        audit.accepted("security-events").len() == 1
            && audit.accepted("data-accesses").len() == expected_accesses().len()
            && audit.accepted("data-modifications").len() == 3
            && audit.accepted("configuration-changes").len() == 1
    })
    .await
}

fn kinds_received(audit: &AuditLogDouble) -> Vec<(String, u16)> {
    audit
        .writes()
        .iter()
        .map(|write| (write.kind.clone(), write.status))
        .collect()
}

#[tokio::test]
async fn the_walkthrough_on_s4hana_reaches_the_auditor_with_the_exact_json() {
    let audit = AuditLogDouble::start().await;
    let world = world(&audit).await;
    walkthrough(&world).await;
    assert!(all_arrived(&audit).await, "{:?}", kinds_received(&audit));
    // Nothing more comes (a message sent twice would).
    tokio::time::sleep(Duration::from_millis(500)).await;
    check_security_event(&audit.accepted("security-events"));
    let accesses = audit.accepted("data-accesses");
    for access in &accesses {
        let keys: Vec<&str> = access
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "attributes",
                "channel",
                "data_subject",
                "object",
                "tenant",
                "time",
                "user",
                "uuid"
            ],
            "{access}"
        );
    }
    assert_eq!(without_ids(&accesses), expected_accesses());
    let modifications = audit.accepted("data-modifications");
    check_modifications(&modifications);
    without_ids(&modifications);
    let written = audit.writes();
    assert!(
        written.iter().all(|write| write.status == 201),
        "every write accepted at once: {:?}",
        kinds_received(&audit)
    );
    let text = serde_json::to_string(&written.iter().map(|w| &w.body).collect::<Vec<_>>()).unwrap();
    assert!(!text.contains("not-a-jwt"), "never a token");
    assert!(
        !text.contains("Bearer") && !text.contains("eyJ"),
        "never a token: {text}"
    );
}

#[tokio::test]
async fn with_the_auditor_down_through_the_walkthrough_every_message_arrives_once_later() {
    let audit = AuditLogDouble::start().await;
    audit.answer_writes_with(Some(503), None);
    let world = world(&audit).await;
    walkthrough(&world).await;
    // The approvals were answered while the auditor refused everything.
    assert!(
        audit.writes().iter().all(|write| write.status == 503),
        "{:?}",
        kinds_received(&audit)
    );
    let health = world.app.get_json("/health").await;
    assert_eq!(health["status"], "UP");
    assert!(
        health["audit"]["outbox"]["queued"].as_u64().unwrap_or(0) >= 1,
        "{health}"
    );
    audit.answer_writes_with(None, None);
    assert!(all_arrived(&audit).await, "{:?}", kinds_received(&audit));
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    check_security_event(&audit.accepted("security-events"));
    assert_eq!(
        without_ids(&audit.accepted("data-accesses")),
        expected_accesses(),
        "each once"
    );
    let modifications = audit.accepted("data-modifications");
    check_modifications(&modifications);
    without_ids(&modifications);
    assert!(
        wait_until(Duration::from_secs(5), async || {
            let health = world.app.get_json("/health").await;
            health["audit"]["outbox"] == json!({"queued": 0, "keptAside": 0})
        })
        .await
    );
}

#[tokio::test]
async fn a_write_s4hana_refuses_is_a_modification_with_success_false() {
    use crate::doubles::s4hana::users::known::CLERK;
    use crate::doubles::s4hana::{Access, Scope};
    let audit = AuditLogDouble::start().await;
    let world = world(&audit).await;
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
        crate::helpers::user_message("customer wants a later delivery date on 4740"),
    )
    .await;
    let dated = reply(
        &world.app,
        &token,
        &asked,
        &crate::helpers::delivery_day().written,
    )
    .await;
    let refused = reply(&world.app, &token, &dated, "approve").await;
    assert!(
        status_text(&refused).contains("S/4HANA refused it"),
        "{}",
        status_text(&refused)
    );
    assert!(world.s4.changes().is_empty());
    assert!(
        wait_until(Duration::from_secs(10), async || {
            audit.accepted("data-modifications").len() == 1
        })
        .await,
        "{:?}",
        kinds_received(&audit)
    );
    let modification = &audit.accepted("data-modifications")[0];
    assert_eq!(modification["success"], false, "{modification}");
    assert_eq!(modification["user"], USER);
    assert_eq!(modification["object"]["id"]["SalesOrder"], "4740");
    assert_eq!(
        modification["attributes"][0],
        json!({"name": "RequestedDeliveryDate", "old": "2026-12-07",
               "new": crate::helpers::delivery_day().iso})
    );
}
