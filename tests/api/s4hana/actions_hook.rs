//! The outbound action hook against a loopback receiver: a
//! dispute case approved in S/4HANA mode gets its note and is POSTed once
//! with the idempotency key (made from the ledger key); 500s are retried. (A fixed
//! URL the webhook guard forbids stops the start: `bad_settings.rs`.)

use crate::helpers::webhook::WebhookReceiver;
use crate::helpers::{state, status_text};
use crate::s4hana::actions_s4::{
    World, actions, clerk, ledger_key, reply, row_of, send, world_with,
};

const DISPUTE_4725: &str = "Order 4725: Pricing: customer disputes the price.";

async fn hooked(receiver: &WebhookReceiver) -> World {
    let url = format!("{}/hook", receiver.url);
    world_with(move |s| {
        let hook = &mut s.push.action_hook;
        hook.url = Some(url);
        hook.allowed_hosts = vec!["127.0.0.1".into()];
        hook.allow_loopback_http = true;
        hook.allow_private_addresses = true;
        hook.retry_base_ms = 20;
    })
    .await
}

pub(crate) async fn approve_dispute(world: &World) -> String {
    let token = clerk();
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message(DISPUTE_4725),
    )
    .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let done = reply(&world.app, &token, &asked, "approve").await;
    assert_eq!(state(&done), "completed", "{done}");
    status_text(&done)
}

#[tokio::test]
async fn an_approved_dispute_case_is_noted_and_delivered_once_with_the_ledger_key() {
    let receiver = WebhookReceiver::start().await;
    let world = hooked(&receiver).await;
    let text = approve_dispute(&world).await;
    assert!(
        text.ends_with(
            "Done in S/4HANA: a note on sales order 4725 records the approved open_dispute_case, and the action hook took it (HTTP 200)."
        ),
        "{text}"
    );
    let calls = receiver.at("/hook");
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    // The ledger key: the order, the action and the order's ETag as the
    // dispute was proposed (the note does not change the order).
    let filed = ledger_key(&row_of(&world.app, &clerk(), "4725").await);
    assert_eq!(
        Some(filed.order_version.clone()),
        world.s4.etag("A_SalesOrder", "'4725'")
    );
    let key = filed.idempotency_key();
    assert!(key.starts_with("4725/open_dispute_case/"), "{key}");
    assert_eq!(call.headers["idempotency-key"], key);
    assert_eq!(call.body["idempotency_key"], key);
    assert_eq!(call.body["order"], "4725");
    assert_eq!(call.body["action"], "open_dispute_case");
    assert_eq!(call.body["approver_role"], "ar_clerk");
    assert!(
        call.body["approved_by"]
            .as_str()
            .is_some_and(|user| !user.is_empty())
    );
    assert!(
        call.body["task_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    assert!(
        call.body["context_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    assert!(
        call.body["approved_at"]
            .as_str()
            .is_some_and(|at| at.ends_with('Z'))
    );
    // The note is on the order in S/4HANA.
    assert!(
        world
            .s4
            .changes()
            .iter()
            .any(|change| change.entity.contains("Text")),
        "{:?}",
        world.s4.changes()
    );
    let listed = actions(&world.app, &clerk()).await;
    assert_eq!(listed[0]["state"], "done");
    assert!(
        listed[0]["answer"]
            .as_str()
            .is_some_and(|answer| answer.contains("HTTP 200"))
    );
}

#[tokio::test]
async fn a_receiver_that_fails_twice_gets_the_action_on_the_third_try() {
    let receiver = WebhookReceiver::start().await;
    receiver.fail("/hook", 2);
    let world = hooked(&receiver).await;
    let text = approve_dispute(&world).await;
    assert!(
        text.contains("and the action hook took it (HTTP 200)"),
        "{text}"
    );
    let calls = receiver.at("/hook");
    assert_eq!(calls.len(), 3);
    let key = ledger_key(&row_of(&world.app, &clerk(), "4725").await).idempotency_key();
    assert!(
        calls
            .iter()
            .all(|call| call.headers["idempotency-key"] == key.as_str()),
        "{key}"
    );
}

#[tokio::test]
async fn an_approved_master_data_change_is_noted_and_handed_to_the_hook() {
    let receiver = WebhookReceiver::start().await;
    let world = hooked(&receiver).await;
    let token = crate::helpers::key_server::token(&crate::helpers::key_server::with(
        crate::helpers::key_server::user_claims(),
        "groups",
        serde_json::json!(["master_data_specialist"]),
    ));
    let asked = send(
        &world.app,
        &token,
        crate::helpers::user_message("order 4723 is incomplete"),
    )
    .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    let done = reply(&world.app, &token, &asked, "approve").await;
    assert!(
        status_text(&done).ends_with(
            "Done in S/4HANA: a note on sales order 4723 records the approved request_master_data_change, and the action hook took it (HTTP 200)."
        ),
        "{}",
        status_text(&done)
    );
    let calls = receiver.at("/hook");
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].headers["idempotency-key"],
        ledger_key(&row_of(&world.app, &token, "4723").await).idempotency_key()
    );
    assert_eq!(calls[0].body["approver_role"], "master_data_specialist");
}
