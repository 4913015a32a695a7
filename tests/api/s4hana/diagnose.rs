//! `order-exception-agent diagnose` against the doubles: all green for a
//! working destination; a broken destination, a missing user, no user
//! token, a wrong URL and direct mode's wrong password each fail the right
//! step with the right hint.

use crate::doubles::destination::{self, Destination, DestinationDouble};
use crate::doubles::s4hana::S4Double;
use crate::helpers::key_server::{self, user_claims};

/// Run the binary's `diagnose` with the destination double's service and
/// these arguments; (exit code, stdout lines).
async fn diagnose(destinations: &DestinationDouble, args: &[&str]) -> (i32, Vec<String>) {
    let url = destinations.url.as_str();
    diagnose_with(
        &[
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__TOKEN_URL",
                url,
            ),
            ("AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__URI", url),
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__CLIENT_ID",
                destination::CLIENT_ID,
            ),
            (
                "AGENT__BACKEND__S4HANA__DESTINATION_SERVICE__CLIENT_SECRET",
                destination::CLIENT_SECRET,
            ),
        ],
        args,
    )
    .await
}

/// Run the binary's `diagnose` against S/4HANA with these settings
/// (environment variables) and arguments; (exit code, stdout lines).
async fn diagnose_with(settings: &[(&str, &str)], args: &[&str]) -> (i32, Vec<String>) {
    let settings: Vec<(String, String)> = settings
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_order-exception-agent"))
            .arg("diagnose")
            .args(&args)
            .env_remove("VCAP_SERVICES")
            .env_remove("VCAP_APPLICATION")
            .env_remove("DIAGNOSE_USER_TOKEN")
            .env("AGENT__BACKEND__SOURCE", "s4hana")
            .env("AGENT__BACKEND__S4HANA__ALLOW_LOOPBACK_HTTP", "true")
            .env("AGENT__BACKEND__S4HANA__CALL_TIMEOUT_MS", "2000")
            .envs(settings)
            .output()
            .expect("the binary runs")
    })
    .await
    .expect("joined");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    (
        output.status.code().unwrap_or(-1),
        stdout.lines().map(str::to_string).collect(),
    )
}

fn line<'a>(lines: &'a [String], step: &str) -> &'a str {
    lines
        .iter()
        .find(|line| line[5..].starts_with(step))
        .unwrap_or_else(|| panic!("a line for {step}: {lines:#?}"))
}

fn user_token() -> String {
    key_server::token(&user_claims())
}

#[tokio::test]
async fn all_green_against_a_working_destination() {
    let s4 = S4Double::start().await;
    let destinations =
        DestinationDouble::start(vec![Destination::saml_bearer("S4HANA_ORDERS", &s4.url)]).await;
    let token = user_token();
    let (code, lines) = diagnose(&destinations, &["--user-token", &token, "--order", "4711"]).await;
    assert_eq!(code, 0, "{lines:#?}");
    assert!(
        lines.iter().all(|line| line.starts_with("OK ")),
        "{lines:#?}"
    );
    assert!(line(&lines, "destination").contains("Authentication OAuth2SAMLBearerAssertion"));
    for service in [
        "API_SALES_ORDER_SRV",
        "API_BUSINESS_PARTNER",
        "API_CRDTMBUSINESSPARTNER",
        "API_OPLACCTGDOCITEMCUBE_SRV",
        "API_SLSPRICINGCONDITIONRECORD_SRV",
    ] {
        line(&lines, &format!("$metadata {service}"));
    }
    assert!(
        line(&lines, "sample read").contains("sales order 4711 read"),
        "{lines:#?}"
    );
    let output = lines.join("\n");
    assert!(!output.contains(&token[..30]), "no token in the output");
}

#[tokio::test]
async fn a_broken_or_missing_destination_fails_the_destination_step() {
    let s4 = S4Double::start().await;
    let destinations = DestinationDouble::start(vec![
        Destination::saml_bearer("S4HANA_ORDERS", &s4.url)
            .without_property("x_user_token.jwks_uri"),
    ])
    .await;
    let token = user_token();
    let (code, lines) = diagnose(&destinations, &["--user-token", &token]).await;
    assert_eq!(code, 1, "{lines:#?}");
    let destination = line(&lines, "destination");
    assert!(
        destination.starts_with("FAIL") && destination.contains("x_user_token.jwks_uri"),
        "{destination}"
    );
    destinations.remove_destination("S4HANA_ORDERS");
    let (code, lines) = diagnose(&destinations, &["--user-token", &token]).await;
    assert_eq!(code, 1);
    assert!(
        line(&lines, "destination").contains("does not exist"),
        "{lines:#?}"
    );
    assert!(s4.requests().is_empty(), "no S/4 call");
}

#[tokio::test]
async fn a_missing_user_fails_the_token_exchange_in_plain_words() {
    let s4 = S4Double::start().await;
    let destinations =
        DestinationDouble::start(vec![Destination::saml_bearer("S4HANA_ORDERS", &s4.url)]).await;
    destinations.set_known_users(Some(&["someone.else@example.com"]));
    let token = user_token();
    let (code, lines) = diagnose(&destinations, &["--user-token", &token]).await;
    assert_eq!(code, 1, "{lines:#?}");
    let exchange = line(&lines, "token exchange");
    assert!(
        exchange.starts_with("FAIL") && exchange.contains("has no S/4HANA business user"),
        "{exchange}"
    );
    // No user token at all.
    let (code, lines) = diagnose(&destinations, &[]).await;
    assert_eq!(code, 1);
    assert!(
        line(&lines, "token exchange").contains("no user token given"),
        "{lines:#?}"
    );
    assert!(s4.requests().is_empty(), "no S/4 call");
}

#[tokio::test]
async fn a_wrong_url_fails_the_metadata_steps() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}", closed.local_addr().unwrap().port());
    drop(closed);
    let destinations =
        DestinationDouble::start(vec![Destination::saml_bearer("S4HANA_ORDERS", &url)]).await;
    let token = user_token();
    let (code, lines) = diagnose(&destinations, &["--user-token", &token]).await;
    assert_eq!(code, 1, "{lines:#?}");
    assert!(line(&lines, "destination").starts_with("OK"));
    assert!(line(&lines, "token exchange").starts_with("OK"));
    let metadata = line(&lines, "$metadata API_SALES_ORDER_SRV");
    assert!(
        metadata.starts_with("FAIL") && metadata.contains("check the URL"),
        "{metadata}"
    );
}

/// Direct mode sends `backend.s4hana.user`/`password` itself: a 401 says
/// to check those settings, not a destination's SAML trust.
#[tokio::test]
async fn a_401_in_direct_mode_names_the_user_and_password_settings() {
    let s4 = S4Double::start().await;
    let (user, _) = crate::doubles::s4hana::users::known::COMM_USER;
    let (code, lines) = diagnose_with(
        &[
            ("AGENT__BACKEND__S4HANA__URL", &s4.url),
            ("AGENT__BACKEND__S4HANA__USER", user),
            ("AGENT__BACKEND__S4HANA__PASSWORD", "not-the-password"),
        ],
        &[],
    )
    .await;
    assert_eq!(code, 1, "{lines:#?}");
    assert!(line(&lines, "connection").starts_with("OK"), "{lines:#?}");
    let metadata = line(&lines, "$metadata API_SALES_ORDER_SRV");
    assert!(
        metadata.starts_with("FAIL")
            && metadata.contains("backend.s4hana.user")
            && metadata.contains("backend.s4hana.password")
            && !metadata.contains("SAML"),
        "{metadata}"
    );
    // The right password passes the same step.
    let (_, password) = crate::doubles::s4hana::users::known::COMM_USER;
    let (code, lines) = diagnose_with(
        &[
            ("AGENT__BACKEND__S4HANA__URL", &s4.url),
            ("AGENT__BACKEND__S4HANA__USER", user),
            ("AGENT__BACKEND__S4HANA__PASSWORD", password),
        ],
        &[],
    )
    .await;
    assert_eq!(code, 0, "{lines:#?}");
}
