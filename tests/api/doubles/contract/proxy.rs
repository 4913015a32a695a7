//! The connectivity proxy double (s4hana.md §4.2, on premise): it refuses
//! without `Proxy-Authorization`, without `SAP-Connectivity-Authentication`,
//! with a location id no Cloud Connector has, or for an unmapped virtual
//! host — and then nothing reaches S/4; with them it forwards as the user,
//! cookies and CSRF included; and the whole way from a destination lookup.

use super::support::{Answer, SALES, client, send};
use crate::doubles::connectivity_proxy::{ConnectivityProxy, Outcome, ProxySetup};
use crate::doubles::destination::{Destination, DestinationDouble};
use crate::doubles::s4hana::S4Double;
use crate::doubles::s4hana::users::known::{CLERK, COMM_USER};
use crate::doubles::s4hana::users::{CLOUD_CONNECTOR_ISSUER, decode_unverified};
use crate::helpers::key_server;
use serde_json::{Value, json};

const VIRTUAL: &str = "s4h-virtual:44300";

fn proxied_client(proxy: &ConnectivityProxy) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .proxy(reqwest::Proxy::http(&proxy.url).expect("a proxy URL"))
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client")
}

/// The connectivity token, from the binding's credentials.
async fn connectivity_token(credentials: &Value) -> String {
    let answer = send(
        client()
            .post(format!(
                "{}/oauth/token",
                credentials["token_service_url"].as_str().expect("a URL")
            ))
            .basic_auth(
                credentials["clientid"].as_str().expect("client id"),
                credentials["clientsecret"].as_str(),
            )
            .header("content-type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials"),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.json()["access_token"]
        .as_str()
        .expect("a token")
        .to_string()
}

fn order_url(order: &str) -> String {
    format!("http://{VIRTUAL}/sap/opu/odata/sap/{SALES}/A_SalesOrder('{order}')")
}

async fn through(client: &reqwest::Client, headers: &[(&str, &str)], url: &str) -> Answer {
    let mut request = client.get(url).header("accept", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(request).await
}

#[tokio::test]
async fn the_proxy_refuses_without_the_connectivity_headers_and_nothing_reaches_s4() {
    let s4 = S4Double::start().await;
    let proxy = ConnectivityProxy::start(ProxySetup::to(VIRTUAL, &s4.url)).await;
    let client = proxied_client(&proxy);
    let token = connectivity_token(&proxy.binding_credentials()).await;
    let proxy_auth = format!("Bearer {token}");
    let user = format!("Bearer {}", key_server::token(&key_server::user_claims()));

    let answer = through(
        &client,
        &[("SAP-Connectivity-Authentication", &user)],
        &order_url("4711"),
    )
    .await;
    assert_eq!(answer.status, 407, "no Proxy-Authorization");
    assert!(answer.header("proxy-authenticate").is_some());
    let answer = through(
        &client,
        &[
            ("Proxy-Authorization", "Bearer forged"),
            ("SAP-Connectivity-Authentication", &user),
        ],
        &order_url("4711"),
    )
    .await;
    assert_eq!(
        answer.status, 407,
        "a token the connectivity service did not issue"
    );
    let answer = through(
        &client,
        &[("Proxy-Authorization", &proxy_auth)],
        &order_url("4711"),
    )
    .await;
    assert_eq!(answer.status, 401, "no user: no call");
    let answer = through(
        &client,
        &[
            ("Proxy-Authorization", &proxy_auth),
            ("SAP-Connectivity-Authentication", &user),
            ("SAP-Connectivity-SCC-Location_ID", "LOC9"),
        ],
        &order_url("4711"),
    )
    .await;
    assert_eq!(
        answer.status, 503,
        "no Cloud Connector with that location id"
    );
    assert!(answer.text.contains("LOC9"));
    let answer = through(
        &client,
        &[
            ("Proxy-Authorization", &proxy_auth),
            ("SAP-Connectivity-Authentication", &user),
        ],
        &format!("http://other-host:1/sap/opu/odata/sap/{SALES}/A_SalesOrder('4711')"),
    )
    .await;
    assert_eq!(answer.status, 503, "an unmapped virtual host");

    assert!(s4.requests().is_empty(), "no call reached S/4");
    let outcomes: Vec<Outcome> = proxy.calls().iter().map(|call| call.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Refused(407),
            Outcome::Refused(407),
            Outcome::Refused(401),
            Outcome::Refused(503),
            Outcome::Refused(503)
        ]
    );
    assert_eq!(proxy.token_calls(), 1);
}

#[tokio::test]
async fn principal_propagation_reaches_s4_as_the_user_with_the_location_id() {
    let s4 = S4Double::start().await;
    let proxy =
        ConnectivityProxy::start(ProxySetup::to(VIRTUAL, &s4.url).with_location_id("LOC1")).await;
    let client = proxied_client(&proxy);
    let proxy_auth = format!(
        "Bearer {}",
        connectivity_token(&proxy.binding_credentials()).await
    );
    let user = format!("Bearer {}", key_server::token(&key_server::user_claims()));
    let headers = [
        ("Proxy-Authorization", proxy_auth.as_str()),
        ("SAP-Connectivity-Authentication", user.as_str()),
        ("SAP-Connectivity-SCC-Location_ID", "LOC1"),
    ];
    let answer = through(
        &client,
        &headers,
        &format!("{}?$expand=to_Text", order_url("4725")),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.json()["d"]["to_Text"]["results"][0]["LongTextID"],
        "0001"
    );
    assert!(
        answer.header("etag").is_some(),
        "response headers pass back"
    );

    let seen = &s4.requests()[0];
    assert_eq!(
        seen.user.as_deref(),
        Some(CLERK.0),
        "the Cloud Connector's logon is the user's"
    );
    let logon = seen
        .header("authorization")
        .and_then(|value| value.strip_prefix("Bearer "))
        .expect("a logon");
    assert_eq!(
        decode_unverified(logon).expect("a JWT")["iss"],
        CLOUD_CONNECTOR_ISSUER
    );
    for header in [
        "proxy-authorization",
        "sap-connectivity-authentication",
        "sap-connectivity-scc-location_id",
    ] {
        assert!(seen.header(header).is_none(), "{header} stays at the proxy");
    }
    assert_eq!(
        seen.target,
        format!("/sap/opu/odata/sap/{SALES}/A_SalesOrder('4725')?$expand=to_Text")
    );
    let call = &proxy.calls()[0];
    assert_eq!(call.outcome, Outcome::Forwarded(200));
    assert_eq!(call.principal.as_deref(), Some(CLERK.1));
    assert_eq!(
        call.header("SAP-Connectivity-SCC-Location_ID"),
        Some("LOC1")
    );
    assert_eq!(
        call.target,
        format!("{}?$expand=to_Text", order_url("4725")).replace(' ', "%20")
    );

    let answer = through(&client, &headers[..2], &order_url("4711")).await;
    assert_eq!(
        answer.status, 503,
        "the location id is required when the connector has one"
    );
    proxy.set_location_id(None);
    let answer = through(&client, &headers[..2], &order_url("4711")).await;
    assert_eq!(answer.status, 200);
}

#[tokio::test]
async fn writes_pass_through_with_their_session_cookie_and_csrf_token() {
    let s4 = S4Double::start().await;
    let proxy = ConnectivityProxy::start(ProxySetup::to(VIRTUAL, &s4.url)).await;
    let client = proxied_client(&proxy);
    let proxy_auth = format!(
        "Bearer {}",
        connectivity_token(&proxy.binding_credentials()).await
    );
    let user = format!("Bearer {}", key_server::token(&key_server::user_claims()));
    let fetch = through(
        &client,
        &[
            ("Proxy-Authorization", &proxy_auth),
            ("SAP-Connectivity-Authentication", &user),
            ("x-csrf-token", "Fetch"),
        ],
        &order_url("4740"),
    )
    .await;
    assert_eq!(fetch.status, 200);
    let csrf = fetch.header("x-csrf-token").expect("a token").to_string();
    let etag = fetch.header("etag").expect("an ETag").to_string();
    let cookies: Vec<String> = fetch
        .all("set-cookie")
        .iter()
        .filter_map(|cookie| cookie.split(';').next().map(str::to_string))
        .collect();
    assert_eq!(
        cookies.len(),
        2,
        "both session cookies come through: {cookies:?}"
    );
    let patch = send(
        client
            .patch(order_url("4740"))
            .header("Proxy-Authorization", &proxy_auth)
            .header("SAP-Connectivity-Authentication", &user)
            .header("x-csrf-token", &csrf)
            .header("cookie", cookies.join("; "))
            .header("if-match", &etag)
            .header("content-type", "application/json")
            .body(json!({ "DeliveryBlockReason": "" }).to_string()),
    )
    .await;
    assert_eq!(patch.status, 204, "{}", patch.text);
    assert_eq!(s4.changes()[0].user, CLERK.0);
    let methods: Vec<String> = proxy
        .calls()
        .iter()
        .map(|call| call.method.clone())
        .collect();
    assert_eq!(methods, ["GET", "PATCH"]);
    proxy.stop().await;
    assert!(
        client.get(order_url("4740")).send().await.is_err(),
        "the proxy is gone"
    );
}

#[tokio::test]
async fn from_the_destination_lookup_through_the_proxy_to_s4() {
    let s4 = S4Double::start().await;
    let proxy =
        ConnectivityProxy::start(ProxySetup::to(VIRTUAL, &s4.url).with_location_id("LOC1")).await;
    let destinations = DestinationDouble::start(vec![Destination::principal_propagation(
        "S4HANA_ORDERS",
        &format!("http://{VIRTUAL}"),
        Some("LOC1"),
    )])
    .await;
    let user_jwt = key_server::token(&key_server::user_claims());
    // What an S/4 client does: look the destination up …
    let credentials = destinations.binding_credentials();
    let service = send(
        client()
            .post(format!(
                "{}/oauth/token",
                credentials["url"].as_str().expect("url")
            ))
            .basic_auth(
                credentials["clientid"].as_str().expect("id"),
                credentials["clientsecret"].as_str(),
            )
            .header("content-type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials"),
    )
    .await
    .json()["access_token"]
        .as_str()
        .expect("a token")
        .to_string();
    let found = send(
        client()
            .get(format!(
                "{}/destination-configuration/v1/destinations/S4HANA_ORDERS",
                credentials["uri"].as_str().expect("uri")
            ))
            .bearer_auth(&service)
            .header("X-user-token", &user_jwt),
    )
    .await
    .json();
    let configuration = &found["destinationConfiguration"];
    assert_eq!(configuration["ProxyType"], "OnPremise");
    // … then go through the connectivity binding's proxy.
    let connectivity = proxy.binding_credentials();
    let proxy_url = format!(
        "http://{}:{}",
        connectivity["onpremise_proxy_host"].as_str().expect("host"),
        connectivity["onpremise_proxy_http_port"]
            .as_str()
            .expect("a port string")
    );
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .proxy(reqwest::Proxy::http(&proxy_url).expect("a proxy URL"))
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");
    let answer = send(
        client
            .get(format!(
                "{}/sap/opu/odata/sap/{SALES}/A_SalesOrder('4711')",
                configuration["URL"].as_str().expect("URL")
            ))
            .header("accept", "application/json")
            .header(
                "Proxy-Authorization",
                format!("Bearer {}", connectivity_token(&connectivity).await),
            )
            .header(
                "SAP-Connectivity-Authentication",
                format!("Bearer {user_jwt}"),
            )
            .header(
                "SAP-Connectivity-SCC-Location_ID",
                configuration["CloudConnectorLocationId"]
                    .as_str()
                    .expect("a location id"),
            ),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.json()["d"]["TotalCreditCheckStatus"], "B");
    assert_eq!(s4.requests()[0].user.as_deref(), Some(CLERK.0));
}

#[tokio::test]
async fn basic_authentication_on_premise_passes_its_own_authorization() {
    let s4 = S4Double::start().await;
    let proxy =
        ConnectivityProxy::start(ProxySetup::to(VIRTUAL, &s4.url).without_principal()).await;
    let client = proxied_client(&proxy);
    let proxy_auth = format!(
        "Bearer {}",
        connectivity_token(&proxy.binding_credentials()).await
    );
    let answer = send(
        client
            .get(order_url("4711"))
            .header("accept", "application/json")
            .header("Proxy-Authorization", &proxy_auth)
            .basic_auth(COMM_USER.0, Some(COMM_USER.1)),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(s4.requests()[0].user.as_deref(), Some(COMM_USER.0));
    assert_eq!(proxy.calls()[0].principal, None);
}
