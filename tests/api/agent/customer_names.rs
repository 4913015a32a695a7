//! A customer named by name in an ask for blocked orders, over real HTTP:
//! the name is resolved to the customer's number (the embedded
//! `customers.json`, or S/4HANA's `A_Customer` read as the user through the
//! destination) and only that customer's orders are triaged; a name that
//! names nobody, or several (listed, the task waits for the pick), is said
//! so in the user's language, never answered with everyone's orders; an
//! injection attempt in the name stays a literal.

use crate::doubles::destination::Destination;
use crate::doubles::s4hana::S4Double;
use crate::doubles::s4hana::users::known::CLERK;
use crate::helpers::{TestApp, state, status_text};
use crate::s4hana::s4hana_source::{clerk_token, world};
use serde_json::{Value, json};

/// The order numbers of the task's latest `orders` artifact (none: no
/// batch was answered).
fn triaged(task: &Value) -> Vec<String> {
    super::batch::latest_orders(task)
        .unwrap_or_default()
        .iter()
        .map(|item| item["order"].as_str().unwrap_or("?").to_string())
        .collect()
}

async fn names_find_the_customers_orders(app: TestApp) {
    let clerk = app.as_role("ar_clerk");
    for (text, orders) in [
        ("which orders of Nordwind are blocked?", vec!["4711"]),
        (
            "which orders of customer nordwind handels are blocked?",
            vec!["4711"],
        ),
        (
            "Welche Aufträge von Alpen Logistik AG sind gesperrt?",
            vec!["4723", "4740"],
        ),
        (
            "quelles commandes de Rhein Elektro sont bloquées ?",
            vec!["4725"],
        ),
        ("¿qué pedidos de Nordwnd están bloqueados?", vec!["4711"]),
    ] {
        let task = clerk.send_text(text).await;
        assert_eq!(triaged(&task), orders, "{text}: {task}");
    }
    let none = clerk.send_text("credit blocks of Alpen").await;
    assert_eq!(state(&none), "completed", "{none}");
    assert_eq!(
        status_text(&none),
        "No credit blocks of customer Alpen Logistik AG (10051) found."
    );
}

async fn a_name_of_nobody_is_said_so(app: TestApp) {
    for (text, answer) in [
        (
            "which orders of ACME are blocked?",
            "I know no customer named \"ACME\", so I listed no orders.",
        ),
        (
            "Welche Aufträge von ACME sind gesperrt?",
            "Ich kenne keinen Kunden namens \"ACME\" und habe daher keine Aufträge aufgelistet.",
        ),
        (
            "which orders of ACME') or (1 eq 1 are blocked?",
            "I know no customer named \"ACME\", so I listed no orders.",
        ),
    ] {
        let task = app.send_text(text).await;
        assert_eq!(state(&task), "completed", "{text}: {task}");
        assert!(status_text(&task).starts_with(answer), "{text}: {task}");
        assert!(triaged(&task).is_empty(), "no orders listed: {task}");
    }
}

crate::on_each_source!(names_find_the_customers_orders, a_name_of_nobody_is_said_so);

/// The `A_Customer` reads the double got, decoded.
fn customer_reads(s4: &S4Double) -> Vec<String> {
    s4.requests()
        .into_iter()
        .filter(|request| request.path.contains("/A_Customer"))
        .map(|request| request.target)
        .collect()
}

/// Through the destination as the clerk: the name is looked up in
/// `A_Customer` with the spellings of its longest word as literals, only
/// the fields used and a bounded `$top`, then the customer's orders.
#[tokio::test]
async fn s4hana_is_asked_for_the_name_as_the_user() {
    let world = world(|url| Destination::saml_bearer("S4HANA_ORDERS", url)).await;
    let bearer = format!("Bearer {}", clerk_token());
    let clerk = world
        .app
        .with_headers(&[("authorization", bearer.as_str())]);
    let task = clerk
        .send_text("which orders of Nordwind are blocked?")
        .await;
    assert_eq!(triaged(&task), ["4711"], "{task}");
    let reads = customer_reads(&world.s4);
    assert_eq!(
        reads,
        [
            "/sap/opu/odata/sap/API_BUSINESS_PARTNER/A_Customer?$filter=substringof('Nordwind',CustomerName) \
          or substringof('nordwind',CustomerName) or substringof('NORDWIND',CustomerName)\
          &$select=Customer,CustomerName&$orderby=Customer&$top=50"
        ],
        "{reads:#?}"
    );
    let users: Vec<Option<String>> = world
        .s4
        .requests()
        .iter()
        .map(|request| request.user.clone())
        .collect();
    assert!(
        users.iter().all(|user| user.as_deref() == Some(CLERK.0)),
        "every read as the clerk: {users:?}"
    );
    let listed = world
        .s4
        .requests()
        .into_iter()
        .find(|request| request.path.ends_with("/A_SalesOrder"))
        .expect("the blocked-orders query");
    assert!(
        listed.target.contains("SoldToParty eq '10023'"),
        "{}",
        listed.target
    );

    // An injection attempt: the name ends at its punctuation, and what is
    // looked for is one word as a literal; nobody matches, nothing is listed.
    let task = clerk
        .send_text("which orders of ACME') or (1 eq 1 are blocked?")
        .await;
    assert_eq!(state(&task), "completed", "{task}");
    assert!(triaged(&task).is_empty(), "{task}");
    let reads = customer_reads(&world.s4);
    let spellings = |part: &str, lower: &str, capitalised: &str| {
        format!(
            "/sap/opu/odata/sap/API_BUSINESS_PARTNER/A_Customer?$filter=substringof('{part}',CustomerName) \
             or substringof('{lower}',CustomerName) or substringof('{capitalised}',CustomerName)\
             &$select=Customer,CustomerName&$orderby=Customer&$top=50"
        )
    };
    // The word, then its first letters (for a typo past them).
    assert_eq!(
        reads[1..],
        [
            spellings("ACME", "acme", "Acme"),
            spellings("ACM", "acm", "Acm")
        ],
        "{reads:#?}"
    );
}

/// Two customers named Nordwind (the double's 10051 renamed): both are
/// listed with their numbers, the task waits, and the clerk's answer picks
/// one, in English and in German.
#[tokio::test]
async fn several_customers_of_one_name_are_listed_and_the_answer_picks_one() {
    let s4 = S4Double::start().await;
    s4.set_field(
        "A_Customer",
        "'10051'",
        "CustomerName",
        json!("Nordwind Logistik AG"),
    );
    let app = TestApp::builder()
        .settings(|settings| crate::agent::sources::s4_direct(&s4, settings))
        .spawn()
        .await
        .as_role("ar_clerk");

    let asked = app.send_text("which orders of Nordwind are blocked?").await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    assert_eq!(
        status_text(&asked),
        "2 customers match \"Nordwind\": Nordwind Handels GmbH (10023) and Nordwind Logistik AG \
         (10051). Which one do you mean? Answer with its number."
    );
    assert!(triaged(&asked).is_empty(), "{asked}");
    let picked = app.reply(&asked, "10051").await;
    assert_eq!(triaged(&picked), ["4723", "4740"], "{picked}");

    let asked = app
        .send_text("Welche Aufträge von Nordwind sind gesperrt?")
        .await;
    assert_eq!(state(&asked), "input-required", "{asked}");
    assert!(
        status_text(&asked).starts_with(
            "2 Kunden passen zu \"Nordwind\": Nordwind Handels GmbH (10023) und Nordwind \
             Logistik AG (10051). Welchen meinen Sie?"
        ),
        "{asked}"
    );
    let picked = app.reply(&asked, "die Handels").await;
    assert_eq!(triaged(&picked), ["4711"], "{picked}");
}
