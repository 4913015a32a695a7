//! The Destination double per authentication type (s4hana.md §4.1, §4.2;
//! btp-runtime.md §5): the binding's token, find destination with
//! `X-user-token`, the answer shapes, the error-in-200 cases, 404, and the
//! hand-over to the S/4 double (the token it hands out is accepted there as
//! the user).

use super::support::{SALES, client, send};
use crate::doubles::destination::{self, Destination, DestinationDouble, JWKS_URI};
use crate::doubles::s4hana::users::known::{CLERK, COMM_USER};
use crate::doubles::s4hana::users::{S4_OAUTH_ISSUER, decode_unverified};
use crate::doubles::s4hana::{S4Double, Step};
use crate::helpers::key_server;
use base64::Engine;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const NAME: &str = "S4HANA_ORDERS";

/// The service's own token, with the binding's credentials as HTTP Basic.
async fn service_token(double: &DestinationDouble) -> String {
    let credentials = double.binding_credentials();
    let answer = send(
        client()
            .post(format!(
                "{}/oauth/token",
                credentials["url"].as_str().expect("url")
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

/// Find destination `name`, with the user's token when given.
async fn find(
    double: &DestinationDouble,
    name: &str,
    token: &str,
    user_token: Option<&str>,
) -> (u16, Value) {
    let mut request = client()
        .get(format!(
            "{}/destination-configuration/v1/destinations/{name}",
            double.url
        ))
        .bearer_auth(token);
    if let Some(user_token) = user_token {
        request = request.header("X-user-token", user_token);
    }
    let answer = send(request).await;
    (answer.status, answer.json())
}

fn user_token() -> String {
    key_server::token(&key_server::user_claims())
}

#[tokio::test]
async fn the_token_endpoint_takes_the_binding_credentials() {
    let double = DestinationDouble::start(Vec::new()).await;
    let url = format!("{}/oauth/token", double.url);
    let form = |body: &str| {
        client()
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.to_string())
    };
    let wrong = send(
        form("grant_type=client_credentials").basic_auth(destination::CLIENT_ID, Some("wrong")),
    )
    .await;
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["error"], "invalid_client");
    let in_form = send(form(&format!(
        "grant_type=client_credentials&client_id={}&client_secret={}",
        destination::CLIENT_ID
            .replace('!', "%21")
            .replace('|', "%7C"),
        destination::CLIENT_SECRET
    )))
    .await;
    assert_eq!(in_form.status, 200, "{}", in_form.text);
    assert_eq!(in_form.json()["token_type"], "bearer");
    assert!(in_form.json()["expires_in"].is_u64());
    let password = send(form("grant_type=password&username=a&password=b")).await;
    assert_eq!(password.status, 400);
    assert!(!service_token(&double).await.is_empty());
    let calls = double.token_calls();
    assert_eq!(
        calls.iter().map(|call| call.status).collect::<Vec<_>>(),
        [401, 200, 400, 200]
    );
    assert_eq!(calls[1].client_id.as_deref(), Some(destination::CLIENT_ID));
    assert_eq!(calls[2].grant_type.as_deref(), Some("password"));
}

#[tokio::test]
async fn find_needs_the_service_token_and_an_unknown_destination_is_404() {
    let double = DestinationDouble::start(vec![Destination::no_authentication(
        NAME,
        "http://127.0.0.1:9",
    )])
    .await;
    let (status, _) = find(&double, NAME, "not-a-token", None).await;
    assert_eq!(status, 401);
    let token = service_token(&double).await;
    let (status, body) = find(&double, "NO_SUCH_DESTINATION", &token, None).await;
    assert_eq!(status, 404);
    assert_eq!(
        body["ErrorMessage"],
        "Configuration with the specified name was not found"
    );
    let (status, body) = find(&double, NAME, &token, None).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["destinationConfiguration"]["Authentication"],
        "NoAuthentication"
    );
    assert!(
        body.get("authTokens").is_none(),
        "NoAuthentication has no authTokens"
    );
    assert_eq!(body["certificates"], json!([]));
    assert!(body["owner"]["SubaccountId"].is_string());
    double.remove_destination(NAME);
    assert_eq!(find(&double, NAME, &token, None).await.0, 404);
    let statuses: Vec<u16> = double.finds().iter().map(|call| call.status).collect();
    assert_eq!(statuses, [401, 404, 200, 404]);
}

#[tokio::test]
async fn user_propagating_types_hand_out_an_s4_token_for_the_caller() {
    let s4 = S4Double::start().await;
    let double = DestinationDouble::start(vec![
        Destination::saml_bearer(NAME, &s4.url),
        Destination::jwt_bearer("S4HANA_JWT", &s4.url).with_sap_client("100"),
    ])
    .await;
    let token = service_token(&double).await;
    let user = user_token();
    for (name, authentication, grant) in [
        (
            NAME,
            "OAuth2SAMLBearerAssertion",
            "urn:ietf:params:oauth:grant-type:saml2-bearer",
        ),
        (
            "S4HANA_JWT",
            "OAuth2JWTBearer",
            "urn:ietf:params:oauth:grant-type:jwt-bearer",
        ),
    ] {
        let (status, body) = find(&double, name, &token, Some(&user)).await;
        assert_eq!(status, 200, "{body}");
        let configuration = &body["destinationConfiguration"];
        assert_eq!(configuration["Name"], name);
        assert_eq!(configuration["Type"], "HTTP");
        assert_eq!(configuration["URL"], s4.url.as_str());
        assert_eq!(configuration["Authentication"], authentication);
        assert_eq!(configuration["ProxyType"], "Internet");
        assert_eq!(configuration["x_user_token.jwks_uri"], JWKS_URI);
        let auth = &body["authTokens"][0];
        assert!(auth.get("error").is_none(), "{auth}");
        assert_eq!(auth["type"], "Bearer");
        assert_eq!(auth["expires_in"], "3600", "a string");
        let value = auth["value"].as_str().expect("a token");
        assert_eq!(
            auth["http_header"],
            json!({ "key": "Authorization", "value": format!("Bearer {value}") })
        );
        let claims = decode_unverified(value).expect("a JWT");
        assert_eq!(claims["iss"], S4_OAUTH_ISSUER);
        assert_eq!(claims["email"], CLERK.1, "the user of X-user-token");
        assert_eq!(claims["grant_type"], grant);
        // Sent verbatim, the header makes the call as the user.
        let header = auth["http_header"]["value"]
            .as_str()
            .expect("a header value");
        let answer = send(
            client()
                .get(format!("{}/A_SalesOrder('4711')", s4.service_url(SALES)))
                .header("authorization", header)
                .header("accept", "application/json"),
        )
        .await;
        assert_eq!(answer.status, 200);
        assert_eq!(
            s4.requests()
                .last()
                .and_then(|request| request.user.clone())
                .as_deref(),
            Some(CLERK.0)
        );
    }
    let (_, body) = find(&double, "S4HANA_JWT", &token, Some(&user)).await;
    assert_eq!(body["destinationConfiguration"]["sap-client"], "100");
    let finds = double.finds();
    assert!(
        finds
            .iter()
            .all(|call| call.header("x-user-token") == Some(user.as_str()))
    );
    assert!(
        finds
            .iter()
            .all(|call| call.user_email.as_deref() == Some(CLERK.1))
    );
    assert!(
        finds
            .iter()
            .all(|call| call.auth_token == Some(Ok("Bearer".into())))
    );
    let (_, body) = {
        let answer = send(
            client()
                .get(format!(
                    "{}/destination-configuration/v1/destinations/{NAME}?$skipTokenRetrieval=true",
                    double.url
                ))
                .bearer_auth(&token)
                .header("X-user-token", &user),
        )
        .await;
        (answer.status, answer.json())
    };
    assert!(body.get("authTokens").is_none(), "$skipTokenRetrieval=true");
}

#[tokio::test]
async fn a_failed_exchange_answers_200_with_the_error_in_the_auth_token() {
    let double = DestinationDouble::start(vec![
        Destination::saml_bearer(NAME, "http://127.0.0.1:9"),
        Destination::saml_bearer("NO_JWKS", "http://127.0.0.1:9")
            .without_property("x_user_token.jwks_uri"),
        Destination::jwt_bearer("BROKEN", "http://127.0.0.1:9")
            .with_exchange_error("invalid_grant: the assertion was refused"),
    ])
    .await;
    let token = service_token(&double).await;
    let user = user_token();
    let expired = key_server::token(&key_server::with(
        key_server::user_claims(),
        "exp",
        json!(key_server::now() - 60),
    ));
    let cases = [
        (NAME, None, "X-user-token"),
        (
            "NO_JWKS",
            Some(user.as_str()),
            "Retrieval of OAuthToken failed due to: unexpected error",
        ),
        ("BROKEN", Some(user.as_str()), "invalid_grant"),
        (NAME, Some("not-a-jwt"), "not a JWT"),
        (NAME, Some(expired.as_str()), "expired"),
    ];
    for (name, user_token, says) in cases {
        let (status, body) = find(&double, name, &token, user_token).await;
        assert_eq!(status, 200, "failures come back with HTTP 200: {body}");
        let auth = &body["authTokens"][0];
        let error = auth["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: an error in {auth}"));
        assert!(
            error.contains(says),
            "{name}: '{error}' should say '{says}'"
        );
        assert_eq!(auth["value"], "", "no usable value");
        assert!(auth.get("http_header").is_none());
        assert!(body["destinationConfiguration"].is_object());
    }
    double.set_known_users(Some(&["someone.else@example.com"]));
    let (status, body) = find(&double, NAME, &token, Some(&user)).await;
    assert_eq!(status, 200);
    let error = body["authTokens"][0]["error"].as_str().unwrap_or("");
    assert!(
        error.contains(CLERK.1),
        "an e-mail with no S/4 user: {error}"
    );
    double.set_known_users(None);
    let (_, body) = find(&double, NAME, &token, Some(&user)).await;
    assert!(body["authTokens"][0].get("error").is_none());
    let outcomes: Vec<bool> = double
        .finds()
        .iter()
        .map(|call| matches!(call.auth_token, Some(Err(_))))
        .collect();
    assert_eq!(outcomes, [true, true, true, true, true, true, false]);
}

#[tokio::test]
async fn principal_propagation_and_basic_authentication() {
    let s4 = S4Double::start().await;
    let double = DestinationDouble::start(vec![
        Destination::principal_propagation(NAME, "http://s4h-virtual:44300", Some("LOC1")),
        Destination::basic("S4HANA_BASIC", &s4.url, COMM_USER.0, COMM_USER.1),
    ])
    .await;
    let token = service_token(&double).await;
    let (status, body) = find(&double, NAME, &token, Some(&user_token())).await;
    assert_eq!(status, 200);
    let configuration = &body["destinationConfiguration"];
    assert_eq!(configuration["Authentication"], "PrincipalPropagation");
    assert_eq!(configuration["ProxyType"], "OnPremise");
    assert_eq!(configuration["URL"], "http://s4h-virtual:44300");
    assert_eq!(configuration["CloudConnectorLocationId"], "LOC1");
    assert!(
        body.get("authTokens").is_none(),
        "principal propagation has no authTokens"
    );

    let (status, body) = find(&double, "S4HANA_BASIC", &token, None).await;
    assert_eq!(status, 200);
    assert_eq!(body["destinationConfiguration"]["User"], COMM_USER.0);
    assert_eq!(body["destinationConfiguration"]["Password"], COMM_USER.1);
    let auth = &body["authTokens"][0];
    assert_eq!(auth["type"], "Basic");
    let expected = base64::engine::general_purpose::STANDARD
        .encode(format!("{}:{}", COMM_USER.0, COMM_USER.1));
    assert_eq!(auth["value"], expected.as_str());
    let header = auth["http_header"]["value"].as_str().expect("a header");
    let answer = send(
        client()
            .get(format!("{}/A_SalesOrder('4711')", s4.service_url(SALES)))
            .header("authorization", header)
            .header("accept", "application/json"),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        s4.requests()[0].user.as_deref(),
        Some(COMM_USER.0),
        "a technical user"
    );
}

#[tokio::test]
async fn lifetimes_replacement_faults_and_the_recording() {
    let double = DestinationDouble::start(vec![
        Destination::saml_bearer(NAME, "http://127.0.0.1:9").with_token_lifetime(120),
    ])
    .await;
    let token = service_token(&double).await;
    let user = user_token();
    let (_, body) = find(&double, NAME, &token, Some(&user)).await;
    assert_eq!(body["authTokens"][0]["expires_in"], "120");
    let claims = decode_unverified(body["authTokens"][0]["value"].as_str().expect("a token"))
        .expect("a JWT");
    assert_eq!(
        claims["exp"]
            .as_i64()
            .zip(claims["iat"].as_i64())
            .map(|(exp, iat)| exp - iat),
        Some(120)
    );

    double.set_destination(
        Destination::saml_bearer(NAME, "http://127.0.0.1:9").with_exchange_error("replaced"),
    );
    let (_, body) = find(&double, NAME, &token, Some(&user)).await;
    assert_eq!(body["authTokens"][0]["error"], "replaced");

    double.script("destinations/S4HANA_ORDERS", vec![Step::Status(503)]);
    assert_eq!(
        find(&double, NAME, &token, Some(&user)).await.0,
        503,
        "injected"
    );
    assert_eq!(
        find(&double, NAME, &token, Some(&user)).await.0,
        200,
        "then normal"
    );
    double.set_latency(Duration::from_millis(100));
    let started = Instant::now();
    find(&double, NAME, &token, Some(&user)).await;
    assert!(started.elapsed() >= Duration::from_millis(100));

    let finds = double.finds();
    assert!(finds.iter().all(|call| call.name == NAME));
    assert_eq!(finds.len(), 4, "an injected answer is not a lookup");
    let skip = client()
        .get(format!(
            "{}/destination-configuration/v1/destinations/{NAME}?$skipTokenRetrieval=true",
            double.url
        ))
        .bearer_auth(&token)
        .send()
        .await
        .expect("an answer");
    assert_eq!(skip.status(), 200);
    assert_eq!(
        double
            .finds()
            .last()
            .map(|call| call.query.clone())
            .as_deref(),
        Some("$skipTokenRetrieval=true")
    );
    double.stop().await;
    assert!(
        client()
            .post(format!("{}/oauth/token", double.url))
            .send()
            .await
            .is_err(),
        "stopped"
    );
}
