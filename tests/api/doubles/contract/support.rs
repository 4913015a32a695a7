//! Small helpers for the contract tests: tokens for the double's users,
//! one-call GETs with `Accept: application/json`, the CSRF handshake, and
//! exact decimal sums.

use crate::doubles::s4hana::users::{S4_OAUTH_ISSUER, mint_token};
use crate::doubles::s4hana::{S4Double, SESSION_COOKIE};
use reqwest::header::HeaderMap;
use serde_json::Value;
use std::sync::LazyLock;

/// One loopback client for all contract tests (building one costs ~0.1 s in
/// a debug build). No idle connections are kept, so none outlives the
/// runtime of the test that opened it.
static CLIENT: LazyLock<reqwest::Client> = LazyLock::new(|| {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .build()
        .expect("client builds")
});

pub fn client() -> reqwest::Client {
    CLIENT.clone()
}

pub const SALES: &str = "API_SALES_ORDER_SRV";

/// A token of S/4's OAuth server for this e-mail (what the Destination
/// service hands out after a SAML-bearer exchange).
pub fn s4_token(email: &str) -> String {
    mint_token(S4_OAUTH_ISSUER, email, 600, &[])
}

/// One answer: status, headers, body text.
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
    /// Every value of a repeated header.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok().map(str::to_string))
            .collect()
    }
}

pub async fn send(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("the double answers");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.expect("a body");
    Answer {
        status,
        headers,
        text,
    }
}

/// `GET <service>/<rest>` as the bearer of `token`, asking for JSON.
pub async fn get(double: &S4Double, service: &str, rest: &str, token: &str) -> Answer {
    send(
        client()
            .get(format!("{}/{rest}", double.service_url(service)))
            .bearer_auth(token)
            .header("accept", "application/json"),
    )
    .await
}

/// `d.results` of a collection answer that must be 200.
pub async fn results(double: &S4Double, service: &str, rest: &str, token: &str) -> Vec<Value> {
    let answer = get(double, service, rest, token).await;
    assert_eq!(answer.status, 200, "{rest}: {}", answer.text);
    answer.json()["d"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{rest}: no d.results in {}", answer.text))
}

/// The values of one field across results.
pub fn field(results: &[Value], name: &str) -> Vec<String> {
    results
        .iter()
        .map(|result| result[name].as_str().unwrap_or("").to_string())
        .collect()
}

/// The CSRF handshake as SAP's clients do it: `x-csrf-token: Fetch` on a
/// GET of the service root; returns the token and the `Cookie` header
/// carrying the session cookies.
pub async fn fetch_csrf(double: &S4Double, token: &str) -> (String, String) {
    let answer = send(
        client()
            .get(format!("{}/", double.service_url(SALES)))
            .bearer_auth(token)
            .header("accept", "application/json")
            .header("x-csrf-token", "Fetch"),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let csrf = answer
        .header("x-csrf-token")
        .expect("a CSRF token")
        .to_string();
    let cookies: Vec<String> = answer
        .all("set-cookie")
        .iter()
        .filter_map(|cookie| cookie.split(';').next().map(str::to_string))
        .collect();
    assert!(
        cookies
            .iter()
            .any(|cookie| cookie.starts_with(SESSION_COOKIE)),
        "the session cookie comes with the token: {cookies:?}"
    );
    (csrf, cookies.join("; "))
}

/// A decimal string with two places (`"20000.00"`) in cents.
pub fn cents(amount: &str) -> i64 {
    let (whole, fraction) = amount.split_once('.').unwrap_or((amount, "00"));
    assert_eq!(fraction.len(), 2, "two decimal places: {amount}");
    whole.parse::<i64>().expect("digits") * 100 + fraction.parse::<i64>().expect("digits")
}
