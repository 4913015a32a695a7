//! The S/4HANA order source through a BTP destination, as the user: each
//! authentication type against the Destination, connectivity-proxy and S/4
//! doubles; the identity rules (the propagated user per caller, no S/4 call
//! for a technical caller or a failed exchange); S/4's statuses (403, 404,
//! timeout, 5xx, 429, 503) as the user reads them; tokens cached per user.

use crate::doubles::connectivity_proxy::{ConnectivityProxy, ProxySetup};
use crate::doubles::destination::{Destination, DestinationDouble};
use crate::doubles::s4hana::users::known::{CLERK, COMM_USER, CREDIT_MANAGER};
use crate::doubles::s4hana::{Access, S4Double, Scope, Step};
use crate::helpers::key_server::{self, KeyServer, technical_claims, user_claims};
use crate::helpers::{TestApp, state, status_text};
use order_exception_agent::Settings;
use order_exception_agent::SourceKind;
use serde_json::{Value, json};
use std::time::Duration;

pub(crate) const CREDIT_4711: &str = "why is order 4711 blocked by credit";

pub(crate) struct World {
    pub(crate) app: TestApp,
    pub(crate) s4: S4Double,
    destinations: DestinationDouble,
    proxy: Option<ConnectivityProxy>,
    _keys: KeyServer,
}

fn settings(
    settings: &mut Settings,
    keys: &KeyServer,
    destinations: &DestinationDouble,
    proxy: Option<&ConnectivityProxy>,
) {
    settings.auth.client_id = Some(key_server::CLIENT_ID.into());
    settings.auth.domains = vec![key_server::DOMAIN.into()];
    settings.auth.app_tid = Some(key_server::APP_TID.into());
    settings.auth.url = Some(key_server::ISSUER.into());
    settings.auth.test_key_server = Some(keys.url.clone());
    crate::helpers::unthrottled(settings);
    settings.backend.source = SourceKind::S4hana;
    let s4 = &mut settings.backend.s4hana;
    s4.allow_loopback_http = true;
    s4.call_timeout_ms = 2_000;
    s4.retry_base_ms = 50;
    s4.destination_service.token_url = Some(destinations.url.clone());
    s4.destination_service.uri = Some(destinations.url.clone());
    s4.destination_service.client_id = Some(crate::doubles::destination::CLIENT_ID.into());
    s4.destination_service.client_secret = Some(crate::doubles::destination::CLIENT_SECRET.into());
    if let Some(proxy) = proxy {
        s4.connectivity.token_url = Some(proxy.url.clone());
        s4.connectivity.client_id = Some(crate::doubles::connectivity_proxy::CLIENT_ID.into());
        s4.connectivity.client_secret =
            Some(crate::doubles::connectivity_proxy::CLIENT_SECRET.into());
        s4.connectivity.proxy_host = Some("127.0.0.1".into());
        s4.connectivity.proxy_port = Some(proxy.port);
    }
}

/// The doubles and the app; `destination` is built from the S/4 double's URL.
async fn world_with(
    destination: impl FnOnce(&str) -> Destination,
    on_premise: bool,
    tune: impl FnOnce(&mut Settings),
) -> World {
    let keys = KeyServer::start().await;
    let s4 = S4Double::start().await;
    let (destination, proxy) = if on_premise {
        let proxy = ConnectivityProxy::start(
            ProxySetup::to("s4h-virtual:44300", &s4.url).with_location_id("LOC1"),
        )
        .await;
        (destination("http://s4h-virtual:44300"), Some(proxy))
    } else {
        (destination(&s4.url), None)
    };
    let destinations = DestinationDouble::start(vec![destination]).await;
    let app = TestApp::builder()
        .settings(|s| {
            settings(s, &keys, &destinations, proxy.as_ref());
            tune(s);
        })
        .spawn()
        .await;
    World {
        app,
        s4,
        destinations,
        proxy,
        _keys: keys,
    }
}

pub(crate) async fn world(destination: impl FnOnce(&str) -> Destination) -> World {
    world_with(destination, false, |_| {}).await
}

pub(crate) fn clerk_token() -> String {
    key_server::token(&user_claims())
}

fn token_for(email: &str) -> String {
    key_server::token(&key_server::with(user_claims(), "email", json!(email)))
}

pub(crate) async fn ask(app: &TestApp, token: &str, text: &str) -> Value {
    let response = app
        .client
        .post(format!("{}/", app.address))
        .bearer_auth(token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": {"message": crate::helpers::user_message(text)}}))
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status().as_u16(), 200);
    let body: Value = response.json().await.expect("JSON");
    assert!(body.get("error").is_none(), "{body}");
    body["result"].clone()
}

pub(crate) fn assert_credit_answer(task: &Value) {
    assert_eq!(state(task), "completed", "{task}");
    let text = status_text(task);
    assert!(
        text.contains("50700") && text.contains("1.4 percent over"),
        "{text}"
    );
}

/// The S/4 users the double resolved, one per request.
fn s4_users(s4: &S4Double) -> Vec<String> {
    s4.requests()
        .iter()
        .map(|request| request.user.clone().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn saml_bearer_reads_as_the_user_with_the_token_the_service_returns() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    let task = ask(&world.app, &clerk_token(), CREDIT_4711).await;
    assert_credit_answer(&task);
    let users = s4_users(&world.s4);
    assert!(!users.is_empty());
    assert!(users.iter().all(|user| user == CLERK.0), "{users:?}");
    let finds = world.destinations.finds();
    assert_eq!(finds.len(), 1, "one lookup per user, cached");
    assert_eq!(
        finds[0].user_email.as_deref(),
        Some(CLERK.1),
        "X-user-token is the caller's"
    );
    // The IAS token itself never reaches S/4; the exchanged one does.
    let ias = clerk_token();
    for request in world.s4.requests() {
        let authorization = request.header("authorization").unwrap_or("");
        assert!(authorization.starts_with("Bearer ") && !authorization.contains(&ias[..40]));
    }
    // As few round trips as the APIs allow: the order (one $expand), then
    // credit limit and open items (the addresses are not needed).
    assert_eq!(
        world.s4.requests().len(),
        3,
        "{:#?}",
        world
            .s4
            .requests()
            .iter()
            .map(|r| r.target.clone())
            .collect::<Vec<_>>()
    );
    assert!(world.s4.requests()[0].target.contains(
        "$expand=to_Item,to_Item/to_PricingElement,to_PricingElement,to_Text,to_Partner"
    ));
}

#[tokio::test]
async fn jwt_bearer_reads_as_the_user() {
    let world = world(|url| Destination::jwt_bearer("S4HANA_ORDERS", url)).await;
    assert_credit_answer(&ask(&world.app, &clerk_token(), CREDIT_4711).await);
    assert!(s4_users(&world.s4).iter().all(|user| user == CLERK.0));
}

#[tokio::test]
async fn principal_propagation_goes_through_the_connectivity_proxy_with_both_headers() {
    let world = world_with(
        |url| Destination::principal_propagation("S4HANA_ORDERS", url, Some("LOC1")),
        true,
        |_| {},
    )
    .await;
    assert_credit_answer(&ask(&world.app, &clerk_token(), CREDIT_4711).await);
    let calls = world.proxy.as_ref().expect("the proxy").calls();
    assert!(!calls.is_empty());
    for call in &calls {
        assert!(
            call.target
                .starts_with("http://s4h-virtual:44300/sap/opu/odata/sap/"),
            "{}",
            call.target
        );
        assert!(
            call.header("proxy-authorization")
                .is_some_and(|v| v.starts_with("Bearer "))
        );
        assert_eq!(
            call.header("sap-connectivity-scc-location_id"),
            Some("LOC1")
        );
        assert_eq!(call.principal.as_deref(), Some(CLERK.1));
    }
    assert!(s4_users(&world.s4).iter().all(|user| user == CLERK.0));
    assert_eq!(
        world.proxy.as_ref().unwrap().token_calls(),
        1,
        "the proxy token is cached"
    );
}

#[tokio::test]
async fn basic_authentication_reads_as_the_destination_s_technical_user() {
    let world =
        world(|url| Destination::basic("S4HANA_ORDERS", url, COMM_USER.0, COMM_USER.1)).await;
    assert_credit_answer(&ask(&world.app, &clerk_token(), CREDIT_4711).await);
    assert!(s4_users(&world.s4).iter().all(|user| user == COMM_USER.0));
}

#[tokio::test]
async fn no_authentication_sends_no_credentials_and_s4_s_401_is_an_identity_failure() {
    let world = world(|url| Destination::no_authentication("S4HANA_ORDERS", url)).await;
    let task = ask(&world.app, &clerk_token(), CREDIT_4711).await;
    assert_eq!(state(&task), "failed", "{task}");
    assert!(
        status_text(&task).contains("S/4HANA did not accept your identity"),
        "{}",
        status_text(&task)
    );
    let requests = world.s4.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), None);
}

/// A read S/4HANA refuses, asked in German: the refusal names the order
/// in German too, not in the English the logs keep.
#[tokio::test]
async fn a_german_user_reads_a_read_refusal_in_german() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world.s4.set_access(
        CLERK.1,
        Access {
            read: Scope::only(&["4723"]),
            ..Access::full()
        },
    );
    let task = ask(
        &world.app,
        &clerk_token(),
        "Warum ist der Auftrag 4711 wegen Kredit gesperrt?",
    )
    .await;
    assert_eq!(state(&task), "rejected", "{task}");
    assert_eq!(
        status_text(&task),
        "S/4HANA lässt Sie den Kundenauftrag 4711 nicht sehen."
    );
}

/// A question that names no kind of block reads the order to learn its
/// block, as the person asking; a read S/4HANA refuses or does not answer
/// is told as it is for a question that names the kind, in the user's
/// language.
#[tokio::test]
async fn the_order_read_for_its_own_block_is_the_users_and_fails_as_any_read() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world.s4.set_access(
        CLERK.1,
        Access {
            read: Scope::only(&["4723"]),
            ..Access::full()
        },
    );
    let token = clerk_token();
    let task = ask(&world.app, &token, "why is 4723 blocked and what can I do").await;
    assert_eq!(state(&task), "completed", "{task}");
    let routing = &task["status"]["message"]["metadata"]["routing"];
    assert_eq!(routing["specialist"], "masterdata", "{routing}");
    assert_eq!(routing["basis"], "order-block", "{routing}");
    let users = s4_users(&world.s4);
    assert!(!users.is_empty());
    assert!(users.iter().all(|user| user == CLERK.0), "{users:?}");
    let pairs = [
        ("why is 4711 blocked and what can I do", CREDIT_4711),
        (
            "Warum ist 4711 gesperrt und was kann ich tun?",
            "Warum ist der Auftrag 4711 wegen Kredit gesperrt?",
        ),
    ];
    // Refused (403): rejected, as the question naming the kind is.
    for (no_kind, naming_the_kind) in pairs {
        let refused = ask(&world.app, &token, no_kind).await;
        let named = ask(&world.app, &token, naming_the_kind).await;
        assert_eq!(state(&refused), "rejected", "{refused}");
        assert_eq!(status_text(&refused), status_text(&named), "{no_kind}");
    }
    // Not answered (500 on every try): failed, as the question naming the kind is.
    world.s4.set_access(CLERK.1, Access::full());
    world.s4.always("A_SalesOrder('4711')", Step::Status(500));
    for (no_kind, naming_the_kind) in pairs {
        let failed = ask(&world.app, &token, no_kind).await;
        let named = ask(&world.app, &token, naming_the_kind).await;
        assert_eq!(state(&failed), "failed", "{failed}");
        assert_eq!(status_text(&failed), status_text(&named), "{no_kind}");
    }
}

#[tokio::test]
async fn each_user_reads_as_themself_and_destination_answers_are_cached_per_user() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    world.s4.set_access(
        CLERK.1,
        Access {
            read: Scope::only(&["4723"]),
            ..Access::full()
        },
    );
    // One token per user for the whole conversation, as Joule sends it (a
    // token minted anew in another second is another token: `iat`), so
    // the second question is a cache hit whatever the clock does.
    let manager_token = token_for(CREDIT_MANAGER.1);
    let clerk = ask(&world.app, &clerk_token(), CREDIT_4711).await;
    let manager = ask(&world.app, &manager_token, CREDIT_4711).await;
    assert_eq!(state(&clerk), "rejected", "{clerk}");
    assert_eq!(
        status_text(&clerk),
        "S/4HANA does not let you see sales order 4711."
    );
    assert_credit_answer(&manager);
    let again = ask(&world.app, &manager_token, CREDIT_4711).await;
    assert_credit_answer(&again);
    let emails: Vec<Option<String>> = world
        .destinations
        .finds()
        .iter()
        .map(|f| f.user_email.clone())
        .collect();
    assert_eq!(
        emails,
        [
            Some(CLERK.1.to_string()),
            Some(CREDIT_MANAGER.1.to_string())
        ],
        "one find per user"
    );
    let users = s4_users(&world.s4);
    assert_eq!(users[0], CLERK.0);
    assert!(
        users[1..].iter().all(|user| user == CREDIT_MANAGER.0),
        "{users:?}"
    );
}

#[tokio::test]
async fn destination_tokens_are_fetched_again_shortly_before_they_expire() {
    let world = world_with(
        |url| Destination::saml_bearer("S4HANA_ORDERS", url).with_token_lifetime(64),
        false,
        |settings| settings.backend.s4hana.token_expiry_margin_secs = 60,
    )
    .await;
    // One token throughout (a new one would be a new cache key); the
    // answer is usable 64 - 60 = 4 s, room for two questions on a busy box.
    let token = clerk_token();
    assert_credit_answer(&ask(&world.app, &token, CREDIT_4711).await);
    assert_credit_answer(&ask(&world.app, &token, CREDIT_4711).await);
    assert_eq!(world.destinations.finds().len(), 1);
    tokio::time::sleep(Duration::from_millis(4_200)).await;
    assert_credit_answer(&ask(&world.app, &token, CREDIT_4711).await);
    assert_eq!(world.destinations.finds().len(), 2);
}

#[tokio::test]
async fn a_technical_caller_is_refused_and_nothing_is_read() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    let task = ask(
        &world.app,
        &key_server::token(&technical_claims()),
        CREDIT_4711,
    )
    .await;
    assert_eq!(state(&task), "rejected", "{task}");
    assert!(
        status_text(&task).contains("no user identity"),
        "{}",
        status_text(&task)
    );
    assert!(world.s4.requests().is_empty(), "no S/4 call");
    assert!(world.destinations.finds().is_empty(), "no lookup either");
}

#[tokio::test]
async fn a_failed_exchange_ends_the_turn_and_never_falls_back() {
    let world = world(|url| {
        Destination::saml_bearer("S4HANA_ORDERS", url)
            .with_exchange_error("Retrieval of OAuthToken failed due to: unexpected error")
    })
    .await;
    let task = ask(&world.app, &clerk_token(), CREDIT_4711).await;
    assert_eq!(state(&task), "failed", "{task}");
    let text = status_text(&task);
    assert!(
        text.contains("S/4HANA did not accept your identity")
            && text.contains("Retrieval of OAuthToken failed"),
        "{text}"
    );
    assert!(world.s4.requests().is_empty(), "no S/4 call");
}

#[tokio::test]
async fn s4_statuses_become_the_user_s_answers() {
    let world = world_with(
        |url| Destination::saml_bearer("S4HANA_ORDERS", url),
        false,
        |settings| {
            settings.backend.s4hana.call_timeout_ms = 2_000;
            settings.backend.s4hana.max_retries = 2;
        },
    )
    .await;
    let token = clerk_token();
    // 404: not found.
    let task = ask(&world.app, &token, "why is order 9999 blocked by credit").await;
    assert_eq!(state(&task), "failed");
    assert!(
        status_text(&task).contains("9999 not found"),
        "{}",
        status_text(&task)
    );
    // 500: no answer.
    world
        .s4
        .script("A_SalesOrder('4711')", vec![Step::Status(500)]);
    let task = ask(&world.app, &token, CREDIT_4711).await;
    assert_eq!(state(&task), "failed");
    assert_eq!(
        status_text(&task),
        "S/4HANA did not answer in time; please try again."
    );
    // 429 then success: retried within the budget.
    world.s4.clear_requests();
    world
        .s4
        .script("A_SalesOrder('4711')", vec![Step::StatusRetryAfter(429, 0)]);
    assert_credit_answer(&ask(&world.app, &token, CREDIT_4711).await);
    let order_reads = world
        .s4
        .requests()
        .iter()
        .filter(|r| r.target.contains("A_SalesOrder('4711')"))
        .count();
    assert_eq!(order_reads, 2, "one 429, one retry");
    // 503 on every try: retried, then failed.
    world.s4.clear_requests();
    world.s4.script(
        "A_SalesOrder('4711')",
        vec![
            Step::StatusRetryAfter(503, 0),
            Step::StatusRetryAfter(503, 0),
            Step::StatusRetryAfter(503, 0),
        ],
    );
    let task = ask(&world.app, &token, CREDIT_4711).await;
    assert_eq!(
        status_text(&task),
        "S/4HANA did not answer in time; please try again."
    );
    let order_reads = world
        .s4
        .requests()
        .iter()
        .filter(|r| r.target.contains("A_SalesOrder('4711')"))
        .count();
    assert_eq!(order_reads, 3, "the first try and max_retries = 2");
    // A hanging S/4: the call times out, and other turns go on meanwhile.
    world.s4.always("A_SalesOrder('4711')", Step::Hang);
    let app = world.app.clone();
    let hanging_token = token.clone();
    let hanging = tokio::spawn(async move { ask(&app, &hanging_token, CREDIT_4711).await });
    let other = ask(
        &world.app,
        &token,
        "customer wants a later delivery date on 4740",
    )
    .await;
    assert!(
        status_text(&other).contains("has a delivery block"),
        "{other}"
    );
    assert!(
        !hanging.is_finished(),
        "the other turn did not wait for the hanging one"
    );
    let hung = hanging.await.expect("the turn ends");
    assert_eq!(state(&hung), "failed");
    assert_eq!(
        status_text(&hung),
        "S/4HANA did not answer in time; please try again."
    );
}

#[tokio::test]
async fn the_block_codes_come_from_the_settings() {
    let s4 = S4Double::start().await;
    s4.set_field("A_SalesOrder", "'4740'", "DeliveryBlockReason", json!("07"));
    let app = TestApp::builder()
        .settings(|settings| {
            crate::agent::sources::s4_direct(&s4, settings);
            settings.backend.blocks.delivery_block_codes = vec!["ZL".into()];
        })
        .spawn()
        .await;
    let task = app
        .send_text("customer wants a later delivery date on 4740")
        .await;
    assert_eq!(
        state(&task),
        "rejected",
        "07 is not a configured delivery block: {task}"
    );
    let app = TestApp::builder()
        .settings(|settings| {
            crate::agent::sources::s4_direct(&s4, settings);
            settings.backend.blocks.delivery_block_codes = vec!["07".into()];
            settings
                .backend
                .blocks
                .block_texts
                .insert("07".into(), "waiting for the customer's dock slot".into());
        })
        .spawn()
        .await;
    let task = app
        .send_text("customer wants a later delivery date on 4740")
        .await;
    assert_eq!(state(&task), "completed", "{task}");
    assert!(
        status_text(&task).contains("Delivery block: waiting for the customer's dock slot."),
        "{}",
        status_text(&task)
    );
}

/// A block code S/4HANA shows that no setting counts (billing block `Q1`
/// with the default `ZP`) is named, with the setting to change, never
/// answered with "It has no block".
#[tokio::test]
async fn a_block_code_that_is_not_configured_is_named_with_its_setting() {
    let s4 = S4Double::start().await;
    s4.set_field(
        "A_SalesOrder",
        "'4725'",
        "HeaderBillingBlockReason",
        json!("Q1"),
    );
    let app = TestApp::builder()
        .settings(|settings| crate::agent::sources::s4_direct(&s4, settings))
        .spawn()
        .await;
    let task = app
        .send_text("the customer disputes the price on 4725")
        .await;
    assert_eq!(state(&task), "rejected", "{task}");
    let text = status_text(&task);
    assert!(!text.contains("It has no block"), "{text}");
    assert!(
        text.contains("is not in a price dispute. It carries billing block Q1, which this agent is not configured to explain"),
        "{text}"
    );
    assert!(
        text.contains("backend.blocks.price_dispute_billing_blocks (AGENT__BACKEND__BLOCKS__PRICE_DISPUTE_BILLING_BLOCKS)"),
        "{text}"
    );
    // Asked without a problem, the order is not "not blocked" either.
    let task = app.send_text("what about order 4725?").await;
    let text = status_text(&task);
    assert!(!text.contains("is not blocked"), "{text}");
    assert!(text.contains("billing block Q1"), "{text}");
}

/// The approval turn reads the order again: S/4HANA's answer then is the
/// user's, as on the first turn, and nothing is filed.
#[tokio::test]
async fn an_approval_turn_answers_s4_statuses_as_the_first_turn_does() {
    let s4 = S4Double::start().await;
    let app = TestApp::builder()
        .settings(|settings| {
            crate::agent::sources::s4_direct(&s4, settings);
            settings.backend.s4hana.retry_base_ms = 10;
        })
        .spawn()
        .await;
    let clerk = app.as_role("ar_clerk");
    let dispute = "Order 4725: Pricing: customer disputes the price.";
    for (status, outcome, text) in [
        (
            403,
            "rejected",
            "S/4HANA does not let you see sales order 4725. Nothing was filed.",
        ),
        (
            500,
            "failed",
            "S/4HANA did not answer in time; please try again. Nothing was filed.",
        ),
        (
            502,
            "failed",
            "S/4HANA did not answer in time; please try again. Nothing was filed.",
        ),
    ] {
        let asked = clerk.send_text(dispute).await;
        assert_eq!(state(&asked), "input-required", "{asked}");
        s4.clear_requests();
        s4.script("A_SalesOrder('4725')", vec![Step::Status(status)]);
        let answered = clerk.reply(&asked, "approve").await;
        assert_eq!(state(&answered), outcome, "{status}: {answered}");
        assert_eq!(status_text(&answered), text, "{status}");
        let order_reads = s4
            .requests()
            .iter()
            .filter(|r| r.target.contains("A_SalesOrder('4725')"))
            .count();
        assert_eq!(order_reads, 1, "{status} is not retried");
    }
    // 404 (the order went away meanwhile): not found, failed.
    let asked = clerk.send_text(dispute).await;
    s4.script("A_SalesOrder('4725')", vec![Step::Status(404)]);
    let answered = clerk.reply(&asked, "approve").await;
    assert_eq!(state(&answered), "failed", "{answered}");
    assert!(
        status_text(&answered).contains("4725 not found"),
        "{answered}"
    );
    // 503 once: retried, and the approval is filed.
    let asked = clerk.send_text(dispute).await;
    s4.clear_requests();
    s4.script("A_SalesOrder('4725')", vec![Step::StatusRetryAfter(503, 0)]);
    let answered = clerk.reply(&asked, "approve").await;
    assert_eq!(state(&answered), "completed", "{answered}");
    assert!(status_text(&answered).starts_with("Filed: "), "{answered}");
    let order_reads = s4
        .requests()
        .iter()
        .filter(|r| r.target.contains("A_SalesOrder('4725')"))
        .count();
    assert_eq!(order_reads, 2, "one 503, one retry");
    let actions = app.actions().await;
    assert_eq!(
        actions.len(),
        1,
        "only the last approval filed: {actions:?}"
    );
}

/// The billed price is the item's pricing element of the configured
/// condition type, read in the order's one round trip.
#[tokio::test]
async fn the_billed_price_is_the_item_s_configured_price_condition() {
    let s4 = S4Double::start().await;
    s4.set_field(
        "A_SalesOrderItemPrElement",
        "SalesOrder='4725',SalesOrderItem='10',PricingProcedureStep='20',PricingProcedureCounter='1'",
        "ConditionRateValue",
        json!("3700.000000000"),
    );
    let app = TestApp::builder()
        .settings(|settings| crate::agent::sources::s4_direct(&s4, settings))
        .spawn()
        .await;
    let dispute = "Order 4725: Pricing: customer disputes the price.";
    let task = app.send_text(dispute).await;
    let text = status_text(&task);
    assert!(
        text.contains("billed at 3700.00 EUR while the customer's price list says 3600.00 EUR, a difference of 100.00 EUR"),
        "{text}"
    );
    let order_reads: Vec<String> = s4
        .requests()
        .iter()
        .filter(|r| r.target.contains("A_SalesOrder('4725')"))
        .map(|r| r.target.clone())
        .collect();
    assert_eq!(order_reads.len(), 1, "{order_reads:?}");
    assert!(
        order_reads[0].contains("to_Item/to_PricingElement/ConditionRateValue"),
        "{order_reads:?}"
    );
    // No such element on the item: the header's element (one item) stands in.
    s4.set_field(
        "A_SalesOrderItemPrElement",
        "SalesOrder='4725',SalesOrderItem='10',PricingProcedureStep='20',PricingProcedureCounter='1'",
        "ConditionType",
        json!("ZZZZ"),
    );
    s4.set_field(
        "A_SalesOrderHeaderPrElement",
        "SalesOrder='4725',PricingProcedureStep='20',PricingProcedureCounter='1'",
        "ConditionRateValue",
        json!("3800.000000000"),
    );
    let text = status_text(&app.send_text(dispute).await);
    assert!(text.contains("billed at 3800.00 EUR"), "{text}");
    // Another condition type: the item has none of it, so the net amount
    // is the billed price, and the price list has no record of that type.
    let app = TestApp::builder()
        .settings(|settings| {
            crate::agent::sources::s4_direct(&s4, settings);
            settings.backend.blocks.price_condition_type = "PR00".into();
        })
        .spawn()
        .await;
    let text = status_text(&app.send_text(dispute).await);
    assert!(
        text.contains("billed at 3900.00 EUR and has no entry in the customer's price list"),
        "{text}"
    );
}

/// `GET /health` says whose identity S/4HANA is read with: a technical
/// user (direct mode, a basic destination) loudly, the calling user for a
/// propagating destination once it was looked up.
#[tokio::test]
async fn health_says_whether_s4_is_read_as_the_calling_user_or_a_technical_user() {
    let embedded = TestApp::spawn().await;
    let health = embedded.get_json("/health").await;
    assert_eq!(health["backend"]["source"], "embedded");
    assert_eq!(health["backend"]["identity"], "none");
    assert!(health.get("backendWarning").is_none());

    let s4 = S4Double::start().await;
    let direct = TestApp::builder()
        .settings(|settings| crate::agent::sources::s4_direct(&s4, settings))
        .spawn()
        .await;
    let health = direct.get_json("/health").await;
    assert_eq!(health["backend"]["source"], "s4hana");
    assert_eq!(health["backend"]["connection"], "direct");
    assert_eq!(health["backend"]["identity"], "technical_user");
    assert!(
        health["backendWarning"]
            .as_str()
            .is_some_and(|w| w.contains("technical user")),
        "{health}"
    );

    let saml = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    let health = saml.app.get_json("/health").await;
    assert_eq!(health["backend"]["connection"], "destination");
    assert_eq!(health["backend"]["destination"], "S4HANA_ORDERS");
    assert_eq!(health["backend"]["identity"], "not_yet_known");
    assert!(
        saml.destinations.finds().is_empty(),
        "health looks nothing up"
    );
    assert_credit_answer(&ask(&saml.app, &clerk_token(), CREDIT_4711).await);
    let health = saml.app.get_json("/health").await;
    assert_eq!(health["backend"]["identity"], "calling_user");
    assert_eq!(
        health["backend"]["authentication"],
        "OAuth2SAMLBearerAssertion"
    );
    assert!(health.get("backendWarning").is_none());

    let basic =
        world(|url| Destination::basic("S4HANA_ORDERS", url, COMM_USER.0, COMM_USER.1)).await;
    assert_credit_answer(&ask(&basic.app, &clerk_token(), CREDIT_4711).await);
    let health = basic.app.get_json("/health").await;
    assert_eq!(health["backend"]["identity"], "technical_user");
    assert_eq!(health["backend"]["authentication"], "BasicAuthentication");
    assert!(health["backendWarning"].is_string(), "{health}");
}
