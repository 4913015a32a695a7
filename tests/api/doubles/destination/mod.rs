//! A loopback SAP BTP Destination service for the S/4HANA client tests,
//! following `reference/btp-runtime.md` §3.3/§5 and `reference/s4hana.md` §4:
//! - `POST /oauth/token` (the binding's `url`): the service's own
//!   client-credentials token, client id and secret as HTTP Basic or in the
//!   form; 401 `invalid_client` otherwise;
//! - `GET /destination-configuration/v1/destinations/{name}` (the binding's
//!   `uri`) with `Authorization: Bearer <that token>` (401 without), 404 for an
//!   unknown name, else `{owner, destinationConfiguration, authTokens?,
//!   certificates}`.
//!
//! Per authentication type:
//! - `OAuth2SAMLBearerAssertion` and `OAuth2JWTBearer` read `X-user-token`
//!   (a JWT, not verified: its `email`, as `userIdSource=mail`) and answer an
//!   `authTokens[0]` of type `Bearer` holding a token of S/4's OAuth server
//!   for that user ([`crate::doubles::s4hana::users::S4_OAUTH_ISSUER`], which the
//!   S/4 double accepts), valid `token_lifetime` seconds. A failed exchange
//!   still answers HTTP 200, with `authTokens[0].error` and an empty value:
//!   no `X-user-token`; a destination without `x_user_token.jwks_uri` (or
//!   `x_user_token.jwks`); a token that is not a JWT, has expired or names no
//!   e-mail; an e-mail outside [`DestinationDouble::set_known_users`]; or a
//!   forced [`Destination::exchange_error`];
//! - `PrincipalPropagation` (ProxyType `OnPremise`, `CloudConnectorLocationId`)
//!   and `NoAuthentication`: no `authTokens`;
//! - `BasicAuthentication`: `User`/`Password` in the configuration and an
//!   `authTokens[0]` of type `Basic`.
//!
//! `?$skipTokenRetrieval=true` leaves `authTokens` out. Every call is
//! recorded ([`FindCall`], [`TokenCall`]).

use crate::doubles::s4hana::faults::{self, Faults, Step};
use crate::doubles::s4hana::query::form_pairs;
use crate::doubles::s4hana::users::{
    S4_OAUTH_ISSUER, decode_unverified, mint_token, now_seconds, token_email,
};
use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The binding's client id and secret.
pub const CLIENT_ID: &str = "sb-clone-destination!b1|destination-xsappname!b9";
pub const CLIENT_SECRET: &str = "destination-client-secret";
pub const SUBACCOUNT_ID: &str = "8d7c6b5a-0000-4000-8000-00000000d001";
/// The `x_user_token.jwks_uri` the user-propagating templates carry.
pub const JWKS_URI: &str = "https://tenant.accounts.test/oauth2/certs";

/// The authentication types of s4hana.md §4.2 the agent supports (the
/// variant names are SAP's).
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authentication {
    OAuth2SAMLBearerAssertion,
    OAuth2JWTBearer,
    PrincipalPropagation,
    BasicAuthentication,
    NoAuthentication,
}

impl Authentication {
    pub fn name(self) -> &'static str {
        match self {
            Authentication::OAuth2SAMLBearerAssertion => "OAuth2SAMLBearerAssertion",
            Authentication::OAuth2JWTBearer => "OAuth2JWTBearer",
            Authentication::PrincipalPropagation => "PrincipalPropagation",
            Authentication::BasicAuthentication => "BasicAuthentication",
            Authentication::NoAuthentication => "NoAuthentication",
        }
    }
}

/// One destination as an admin would configure it.
#[derive(Debug, Clone)]
pub struct Destination {
    pub name: String,
    pub authentication: Authentication,
    pub url: String,
    /// `Internet` or `OnPremise`.
    pub proxy_type: String,
    pub location_id: Option<String>,
    pub sap_client: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    /// Further properties as the configuration shows them
    /// (`x_user_token.jwks_uri`, `tokenServiceURL`, …).
    pub properties: BTreeMap<String, String>,
    /// `expires_in` of the tokens handed out, in seconds.
    pub token_lifetime: u64,
    /// Every exchange fails with this `authTokens[0].error`.
    pub exchange_error: Option<String>,
}

impl Destination {
    fn new(name: &str, authentication: Authentication, url: &str) -> Destination {
        Destination {
            name: name.into(),
            authentication,
            url: url.into(),
            proxy_type: "Internet".into(),
            location_id: None,
            sap_client: None,
            user: None,
            password: None,
            properties: BTreeMap::new(),
            token_lifetime: 3600,
            exchange_error: None,
        }
    }

    /// SAML bearer to S/4HANA Cloud (user propagation).
    pub fn saml_bearer(name: &str, url: &str) -> Destination {
        Destination::new(name, Authentication::OAuth2SAMLBearerAssertion, url)
            .with_property("audience", url)
            .with_property(
                "authnContextClassRef",
                "urn:oasis:names:tc:SAML:2.0:ac:classes:PreviousSession",
            )
            .with_property("clientKey", "S4_ORDERS_OAUTH_CLIENT")
            .with_property(
                "nameIdFormat",
                "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
            )
            .with_property("tokenServiceURL", &format!("{url}/sap/bc/sec/oauth2/token"))
            .with_property("tokenServiceUser", "S4_ORDERS_OAUTH_CLIENT")
            .with_property("tokenServicePassword", "oauth-client-password")
            .with_property("userIdSource", "mail")
            .with_property("x_user_token.jwks_uri", JWKS_URI)
    }

    /// JWT bearer (a target that trusts the IdP's JWTs).
    pub fn jwt_bearer(name: &str, url: &str) -> Destination {
        Destination::new(name, Authentication::OAuth2JWTBearer, url)
            .with_property("tokenServiceURL", &format!("{url}/sap/bc/sec/oauth2/token"))
            .with_property("tokenServiceURLType", "Dedicated")
            .with_property("clientId", "S4_ORDERS_OAUTH_CLIENT")
            .with_property("clientSecret", "oauth-client-secret")
            .with_property("x_user_token.jwks_uri", JWKS_URI)
    }

    /// Principal propagation to S/4HANA on premise through the Cloud
    /// Connector: `url` is the virtual host (`http://s4h-virtual:44300`).
    pub fn principal_propagation(name: &str, url: &str, location_id: Option<&str>) -> Destination {
        Destination {
            proxy_type: "OnPremise".into(),
            location_id: location_id.map(str::to_string),
            ..Destination::new(name, Authentication::PrincipalPropagation, url)
        }
    }

    /// A technical user (dev/sandbox).
    pub fn basic(name: &str, url: &str, user: &str, password: &str) -> Destination {
        Destination {
            user: Some(user.into()),
            password: Some(password.into()),
            ..Destination::new(name, Authentication::BasicAuthentication, url)
        }
    }

    pub fn no_authentication(name: &str, url: &str) -> Destination {
        Destination::new(name, Authentication::NoAuthentication, url)
    }

    pub fn with_property(mut self, name: &str, value: &str) -> Destination {
        self.properties.insert(name.into(), value.into());
        self
    }

    pub fn without_property(mut self, name: &str) -> Destination {
        self.properties.remove(name);
        self
    }

    pub fn with_sap_client(mut self, client: &str) -> Destination {
        self.sap_client = Some(client.into());
        self
    }

    pub fn with_token_lifetime(mut self, seconds: u64) -> Destination {
        self.token_lifetime = seconds;
        self
    }

    pub fn with_exchange_error(mut self, error: &str) -> Destination {
        self.exchange_error = Some(error.into());
        self
    }

    fn configuration(&self) -> Value {
        let mut configuration = Map::new();
        configuration.insert("Name".into(), json!(self.name));
        configuration.insert("Type".into(), json!("HTTP"));
        configuration.insert("URL".into(), json!(self.url));
        configuration.insert("Authentication".into(), json!(self.authentication.name()));
        configuration.insert("ProxyType".into(), json!(self.proxy_type));
        if let Some(location) = &self.location_id {
            configuration.insert("CloudConnectorLocationId".into(), json!(location));
        }
        if let Some(client) = &self.sap_client {
            configuration.insert("sap-client".into(), json!(client));
        }
        if let Some(user) = &self.user {
            configuration.insert("User".into(), json!(user));
        }
        if let Some(password) = &self.password {
            configuration.insert("Password".into(), json!(password));
        }
        for (name, value) in &self.properties {
            configuration.insert(name.clone(), json!(value));
        }
        Value::Object(configuration)
    }
}

/// One find-destination call.
#[derive(Debug, Clone)]
pub struct FindCall {
    pub name: String,
    pub query: String,
    /// Every header, names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The e-mail in `X-user-token`, when it is a readable JWT.
    pub user_email: Option<String>,
    pub status: u16,
    /// What `authTokens[0]` said: `Ok(type)` or `Err(error)`; `None` when
    /// the answer has no `authTokens`.
    pub auth_token: Option<Result<String, String>>,
}

impl FindCall {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// One call of the token endpoint.
#[derive(Debug, Clone)]
pub struct TokenCall {
    pub client_id: Option<String>,
    pub grant_type: Option<String>,
    pub status: u16,
}

#[derive(Default)]
struct State {
    destinations: BTreeMap<String, Destination>,
    known_users: Option<BTreeSet<String>>,
    issued: BTreeSet<String>,
    finds: Vec<FindCall>,
    tokens: Vec<TokenCall>,
    faults: Faults,
}

pub struct DestinationDouble {
    /// `http://127.0.0.1:<port>`: both the binding's `uri` and its `url`.
    pub url: String,
    state: Arc<Mutex<State>>,
    handle: actix_web::dev::ServerHandle,
}

fn headers_of(request: &HttpRequest) -> BTreeMap<String, String> {
    request
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The fault step for a request, after the added latency.
async fn fault(state: &Mutex<State>, request: &str) -> Option<HttpResponse> {
    let (step, latency) = {
        let mut state = state.lock().unwrap();
        (state.faults.next(request), state.faults.latency)
    };
    tokio::time::sleep(latency).await;
    match step {
        Step::Pass => None,
        Step::Delay(delay) => {
            tokio::time::sleep(delay).await;
            None
        }
        Step::Hang => {
            tokio::time::sleep(faults::HANG).await;
            Some(HttpResponse::GatewayTimeout().finish())
        }
        Step::Status(code) | Step::StatusRetryAfter(code, _) => {
            let mut response = HttpResponse::build(status(code));
            if let Some(seconds) = faults::retry_after(&step) {
                response.insert_header(("retry-after", seconds.to_string()));
            }
            Some(response.json(json!({ "ErrorMessage": format!("injected status {code}") })))
        }
    }
}

async fn token(
    request: HttpRequest,
    body: web::Bytes,
    state: web::Data<Arc<Mutex<State>>>,
) -> HttpResponse {
    if let Some(response) = fault(&state, "POST /oauth/token").await {
        return response;
    }
    let form: BTreeMap<String, String> = form_pairs(&String::from_utf8_lossy(&body))
        .unwrap_or_default()
        .into_iter()
        .collect();
    let basic = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| STANDARD.decode(encoded.trim()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| {
            text.split_once(':')
                .map(|(id, secret)| (id.to_string(), secret.to_string()))
        });
    let (client_id, secret) = match basic {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (
            form.get("client_id").cloned(),
            form.get("client_secret").cloned(),
        ),
    };
    let grant_type = form.get("grant_type").cloned();
    let (code, body) = if grant_type.as_deref() != Some("client_credentials") {
        (
            400,
            json!({ "error": "unsupported_grant_type", "error_description": "only client_credentials" }),
        )
    } else if client_id.as_deref() != Some(CLIENT_ID) || secret.as_deref() != Some(CLIENT_SECRET) {
        (
            401,
            json!({ "error": "invalid_client", "error_description": "Bad credentials" }),
        )
    } else {
        let access_token = format!("destination-service-{}", uuid::Uuid::new_v4().simple());
        state.lock().unwrap().issued.insert(access_token.clone());
        (
            200,
            json!({
                "access_token": access_token,
                "token_type": "bearer",
                "expires_in": 43199,
                "scope": "uaa.resource",
                "jti": uuid::Uuid::new_v4().simple().to_string()
            }),
        )
    };
    state.lock().unwrap().tokens.push(TokenCall {
        client_id,
        grant_type,
        status: code,
    });
    HttpResponse::build(status(code)).json(body)
}

fn auth_error(message: &str) -> Value {
    json!({ "type": "", "value": "", "error": message, "expires_in": "0" })
}

/// `authTokens[0]` for a user-propagating destination.
fn exchange(
    destination: &Destination,
    headers: &BTreeMap<String, String>,
    known: Option<&BTreeSet<String>>,
) -> Value {
    let failed =
        |reason: &str| auth_error(&format!("Retrieval of OAuthToken failed due to: {reason}"));
    let Some(user_token) = headers.get("x-user-token") else {
        return auth_error(&format!(
            "No user token: {} needs the X-user-token header",
            destination.authentication.name()
        ));
    };
    if !destination.properties.contains_key("x_user_token.jwks_uri")
        && !destination.properties.contains_key("x_user_token.jwks")
    {
        return failed("unexpected error");
    }
    let Some(claims) = decode_unverified(user_token) else {
        return failed("the user token is not a JWT");
    };
    if claims
        .get("exp")
        .and_then(Value::as_i64)
        .is_some_and(|exp| exp <= now_seconds())
    {
        return failed("the user token has expired");
    }
    let Some(email) = token_email(&claims) else {
        return failed("the user token has no mail attribute (userIdSource mail)");
    };
    if known.is_some_and(|known| !known.iter().any(|user| user.eq_ignore_ascii_case(&email))) {
        return failed(&format!(
            "the target system has no business user with the e-mail {email}"
        ));
    }
    if let Some(error) = &destination.exchange_error {
        return auth_error(error);
    }
    let grant = match destination.authentication {
        Authentication::OAuth2JWTBearer => "urn:ietf:params:oauth:grant-type:jwt-bearer",
        _ => "urn:ietf:params:oauth:grant-type:saml2-bearer",
    };
    let token = mint_token(
        S4_OAUTH_ISSUER,
        &email,
        destination.token_lifetime,
        &[
            ("grant_type", json!(grant)),
            ("destination", json!(destination.name)),
        ],
    );
    json!({
        "type": "Bearer",
        "value": token,
        "http_header": { "key": "Authorization", "value": format!("Bearer {token}") },
        "expires_in": destination.token_lifetime.to_string()
    })
}

async fn find(
    request: HttpRequest,
    name: web::Path<String>,
    state: web::Data<Arc<Mutex<State>>>,
) -> HttpResponse {
    let name = name.into_inner();
    if let Some(response) = fault(
        &state,
        &format!("GET /destination-configuration/v1/destinations/{name}"),
    )
    .await
    {
        return response;
    }
    let headers = headers_of(&request);
    let query = request.query_string().to_string();
    let skip = form_pairs(&query)
        .unwrap_or_default()
        .iter()
        .any(|(key, value)| key == "$skipTokenRetrieval" && value == "true");
    let user_email = headers
        .get("x-user-token")
        .and_then(|token| decode_unverified(token))
        .and_then(|claims| token_email(&claims));
    let mut state = state.lock().unwrap();
    let authorized = headers
        .get("authorization")
        .and_then(|value| value.strip_prefix("Bearer "))
        .is_some_and(|token| state.issued.contains(token.trim()));
    let (code, body, auth_token) = if !authorized {
        (
            401,
            json!({ "ErrorMessage": "Unauthorized: a token of the destination binding is required" }),
            None,
        )
    } else if let Some(destination) = state.destinations.get(&name) {
        let auth_tokens = if skip {
            None
        } else {
            match destination.authentication {
                Authentication::OAuth2SAMLBearerAssertion | Authentication::OAuth2JWTBearer => {
                    Some(exchange(destination, &headers, state.known_users.as_ref()))
                }
                Authentication::BasicAuthentication => {
                    let value = STANDARD.encode(format!(
                        "{}:{}",
                        destination.user.as_deref().unwrap_or(""),
                        destination.password.as_deref().unwrap_or("")
                    ));
                    Some(json!({
                        "type": "Basic",
                        "value": value,
                        "http_header": { "key": "Authorization", "value": format!("Basic {value}") }
                    }))
                }
                Authentication::PrincipalPropagation | Authentication::NoAuthentication => None,
            }
        };
        let summary =
            auth_tokens
                .as_ref()
                .map(|token| match token.get("error").and_then(Value::as_str) {
                    Some(error) => Err(error.to_string()),
                    None => Ok(token["type"].as_str().unwrap_or("").to_string()),
                });
        let mut body = json!({
            "owner": { "SubaccountId": SUBACCOUNT_ID, "InstanceId": null },
            "destinationConfiguration": destination.configuration(),
            "certificates": []
        });
        if let Some(token) = auth_tokens {
            body["authTokens"] = json!([token]);
        }
        (200, body, summary)
    } else {
        (
            404,
            json!({ "ErrorMessage": "Configuration with the specified name was not found" }),
            None,
        )
    };
    state.finds.push(FindCall {
        name,
        query,
        headers,
        user_email,
        status: code,
        auth_token,
    });
    HttpResponse::build(status(code)).json(body)
}

impl DestinationDouble {
    pub async fn start(destinations: Vec<Destination>) -> DestinationDouble {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("an address").port()
        );
        let state = Arc::new(Mutex::new(State {
            destinations: destinations
                .into_iter()
                .map(|destination| (destination.name.clone(), destination))
                .collect(),
            ..State::default()
        }));
        let data = web::Data::new(Arc::clone(&state));
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route("/oauth/token", web::post().to(token))
                .route(
                    "/destination-configuration/v1/destinations/{name}",
                    web::get().to(find),
                )
        })
        .workers(2)
        .disable_signals()
        .listen(listener)
        .expect("the double listens")
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        DestinationDouble { url, state, handle }
    }

    /// The `credentials` of a `destination` binding in VCAP_SERVICES pointing
    /// at this double (`uri` and `url` are the same server).
    pub fn binding_credentials(&self) -> Value {
        json!({
            "clientid": CLIENT_ID,
            "clientsecret": CLIENT_SECRET,
            "credential-type": "binding-secret",
            "uri": self.url,
            "url": self.url,
            "uaadomain": "127.0.0.1",
            "identityzone": "agent-test",
            "tenantid": SUBACCOUNT_ID,
            "tenantmode": "dedicated",
            "instanceid": "0b1c2d3e-0000-4000-8000-00000000d002",
            "xsappname": "clone-destination!b1|destination-xsappname!b9"
        })
    }

    /// Add or replace a destination.
    pub fn set_destination(&self, destination: Destination) {
        self.state
            .lock()
            .unwrap()
            .destinations
            .insert(destination.name.clone(), destination);
    }

    pub fn remove_destination(&self, name: &str) {
        self.state.lock().unwrap().destinations.remove(name);
    }

    /// The e-mails the target system has business users for (`None`: all).
    pub fn set_known_users(&self, emails: Option<&[&str]>) {
        self.state.lock().unwrap().known_users =
            emails.map(|emails| emails.iter().map(|email| (*email).to_string()).collect());
    }

    pub fn finds(&self) -> Vec<FindCall> {
        self.state.lock().unwrap().finds.clone()
    }

    pub fn token_calls(&self) -> Vec<TokenCall> {
        self.state.lock().unwrap().tokens.clone()
    }

    /// Requests whose `"<METHOD> <path>"` contains `pattern` take `steps`.
    pub fn script(&self, pattern: &str, steps: Vec<Step>) {
        self.state.lock().unwrap().faults.script(pattern, steps);
    }

    pub fn set_latency(&self, latency: Duration) {
        self.state.lock().unwrap().faults.latency = latency;
    }

    pub async fn stop(&self) {
        self.handle.stop(false).await;
    }
}
