//! The outbound action hook reached through a destination: the
//! Destination service (its double) gives the receiver's URL and auth
//! header as the approver; the URL is judged by the webhook guard exactly
//! as the destination gives it. Delivered to the destination's URL (not the
//! `url` setting, which the destination overrides) with its token and the
//! idempotency key; a destination URL the guard forbids, or a destination
//! that does not exist, is refused, nothing is sent, and the ledger says why.

use crate::doubles::destination::Destination;
use crate::doubles::s4hana::users::known::CLERK;
use crate::doubles::s4hana::users::{decode_unverified, token_email};
use crate::helpers::webhook::WebhookReceiver;
use crate::s4hana::actions_hook::approve_dispute;
use crate::s4hana::actions_s4::{World, actions, clerk, ledger_key, row_of, world_with};

const HOOK_DESTINATION: &str = "ORDER_ACTIONS_HOOK";

/// S/4HANA execution with the hook through `HOOK_DESTINATION` (on the same
/// Destination service double as S/4HANA) and, to show that the
/// destination wins, a `url` setting pointing elsewhere on the receiver.
async fn through_destination(receiver: &WebhookReceiver, private_allowed: bool) -> World {
    let settings_url = format!("{}/from-settings", receiver.url);
    world_with(move |s| {
        s.push.destination.service = s.backend.s4hana.destination_service.clone();
        let hook = &mut s.push.action_hook;
        hook.destination = Some(HOOK_DESTINATION.into());
        hook.url = Some(settings_url);
        hook.allowed_hosts = vec!["127.0.0.1".into()];
        hook.allow_loopback_http = true;
        hook.allow_private_addresses = private_allowed;
        hook.retry_base_ms = 20;
    })
    .await
}

#[tokio::test]
async fn the_hook_goes_to_the_destinations_url_with_its_token_and_the_ledger_key() {
    let receiver = WebhookReceiver::start().await;
    let world = through_destination(&receiver, true).await;
    world.destinations.set_destination(Destination::jwt_bearer(
        HOOK_DESTINATION,
        &format!("{}/from-destination?tenant=a", receiver.url),
    ));
    let text = approve_dispute(&world).await;
    assert!(
        text.ends_with("and the action hook took it (HTTP 200)."),
        "{text}"
    );
    assert!(
        receiver.at("/from-settings").is_empty(),
        "the destination wins"
    );
    let calls = receiver.at("/from-destination");
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    let key = ledger_key(&row_of(&world.app, &clerk(), "4725").await).idempotency_key();
    assert!(key.starts_with("4725/open_dispute_case/"), "{key}");
    assert_eq!(call.headers["idempotency-key"], key);
    assert_eq!(call.body["idempotency_key"], key);
    // The destination's token, exchanged for the approver.
    let token = call.headers["authorization"]
        .strip_prefix("Bearer ")
        .expect("a bearer token");
    let claims = decode_unverified(token).expect("the exchanged JWT");
    assert_eq!(token_email(&claims).as_deref(), Some(CLERK.1));
    assert_eq!(claims["destination"], HOOK_DESTINATION);
    let finds: Vec<_> = world
        .destinations
        .finds()
        .into_iter()
        .filter(|find| find.name == HOOK_DESTINATION)
        .collect();
    assert_eq!(finds.len(), 1, "{finds:?}");
    assert_eq!(finds[0].user_email.as_deref(), Some(CLERK.1));
    let listed = actions(&world.app, &clerk()).await;
    assert_eq!(listed[0]["state"], "done");
}

#[tokio::test]
async fn a_destination_url_the_guard_forbids_is_refused_nothing_sent_and_filed_with_the_reason() {
    let receiver = WebhookReceiver::start().await;
    // Loopback is a forbidden address unless a test allows it.
    let world = through_destination(&receiver, false).await;
    world.destinations.set_destination(Destination::jwt_bearer(
        HOOK_DESTINATION,
        &format!("{}/from-destination", receiver.url),
    ));
    let text = approve_dispute(&world).await;
    let reason = format!(
        "the action hook URL of destination {HOOK_DESTINATION} is refused: address 127.0.0.1 is private, loopback or link-local"
    );
    assert!(
        text.ends_with(&format!(
            "Recorded and noted on sales order 4725, but the action hook refused it: {reason}."
        )),
        "{text}"
    );
    assert!(receiver.at("/from-destination").is_empty());
    assert!(receiver.at("/from-settings").is_empty());
    let listed = actions(&world.app, &clerk()).await;
    assert_eq!(listed[0]["state"], "failed", "{listed:?}");
    assert_eq!(listed[0]["answer"], reason.as_str());
}

#[tokio::test]
async fn a_destination_that_does_not_exist_is_refused_and_nothing_is_sent() {
    let receiver = WebhookReceiver::start().await;
    let world = through_destination(&receiver, true).await;
    let text = approve_dispute(&world).await;
    assert!(
        text.contains(&format!(
            "the action hook refused it: the action hook's destination {HOOK_DESTINATION}: the destination `{HOOK_DESTINATION}` does not exist"
        )),
        "{text}"
    );
    assert!(receiver.at("/from-settings").is_empty());
    assert!(receiver.at("/from-destination").is_empty());
    assert_eq!(actions(&world.app, &clerk()).await[0]["state"], "failed");
}
