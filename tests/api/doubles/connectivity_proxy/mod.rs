//! A loopback stand-in for the BTP connectivity service's on-premise proxy
//! and the Cloud Connector behind it (s4hana.md §4.2, `PrincipalPropagation`
//! with `ProxyType: OnPremise`): an HTTP forward proxy that takes
//! absolute-form requests (`GET http://s4h-virtual:44300/sap/… HTTP/1.1`) and
//! forwards them to the real server mapped to that virtual host (the S/4
//! double). It checks, in this order, and records what it saw:
//! 1. `Proxy-Authorization: Bearer <token>` issued by its own `POST
//!    /oauth/token` (the `connectivity` binding's client credentials), else
//!    407 with `Proxy-Authenticate`;
//! 2. `SAP-Connectivity-SCC-Location_ID`: must equal the location id the
//!    Cloud Connector is connected with (none by default), else 503;
//! 3. the virtual host must be mapped, else 503;
//! 4. `SAP-Connectivity-Authentication: Bearer <user JWT>` (read without
//!    verifying: its `email`, and `exp` if present): required while
//!    [`ProxySetup::require_principal`] (the default, a principal-propagation
//!    system mapping), else 401 and nothing is forwarded. The user becomes
//!    the forwarded `Authorization: Bearer …` of
//!    [`crate::doubles::s4hana::users::CLOUD_CONNECTOR_ISSUER`] (the stand-in
//!    for the X.509 logon). Without the requirement, a request without the
//!    header is forwarded with its own `Authorization` (BasicAuthentication
//!    on premise).
//!
//! The proxy-only headers never reach the backend.

use crate::doubles::s4hana::query::form_pairs;
use crate::doubles::s4hana::users::{
    CLOUD_CONNECTOR_ISSUER, decode_unverified, mint_token, now_seconds, token_email,
};
use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

pub const CLIENT_ID: &str = "sb-connectivity-proxy!b17";
pub const CLIENT_SECRET: &str = "connectivity-client-secret";

/// What the proxy starts with.
#[derive(Debug, Clone)]
pub struct ProxySetup {
    /// Virtual host (`s4h-virtual:44300`) → real base URL (`http://127.0.0.1:…`).
    pub routes: BTreeMap<String, String>,
    /// The location id the Cloud Connector is connected with.
    pub location_id: Option<String>,
    pub require_principal: bool,
}

impl ProxySetup {
    /// One virtual host mapped to one backend, no location id, principal
    /// propagation required.
    pub fn to(virtual_host: &str, backend: &str) -> ProxySetup {
        ProxySetup {
            routes: BTreeMap::from([(virtual_host.to_string(), backend.to_string())]),
            location_id: None,
            require_principal: true,
        }
    }

    pub fn with_location_id(mut self, location_id: &str) -> ProxySetup {
        self.location_id = Some(location_id.into());
        self
    }

    pub fn without_principal(mut self) -> ProxySetup {
        self.require_principal = false;
        self
    }
}

/// What became of a proxied request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Forwarded; the backend answered this status.
    Forwarded(u16),
    /// Refused by the proxy with this status; nothing was forwarded.
    Refused(u16),
}

/// One request the proxy received.
#[derive(Debug, Clone)]
pub struct ProxyCall {
    pub method: String,
    /// The absolute-form target, e.g. `http://s4h-virtual:44300/sap/…`.
    pub target: String,
    /// Every header, names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The e-mail of the user in `SAP-Connectivity-Authentication`.
    pub principal: Option<String>,
    pub outcome: Outcome,
}

impl ProxyCall {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

struct State {
    setup: ProxySetup,
    issued: BTreeSet<String>,
    calls: Vec<ProxyCall>,
    token_calls: usize,
}

pub struct ConnectivityProxy {
    /// `http://127.0.0.1:<port>`: the proxy and its token endpoint.
    pub url: String,
    pub port: u16,
    state: Arc<Mutex<State>>,
    handle: actix_web::dev::ServerHandle,
}

const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    "sap-connectivity-authentication",
    "sap-connectivity-scc-location_id",
];

fn text(code: u16, message: &str) -> HttpResponse {
    HttpResponse::build(StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY))
        .content_type("text/plain")
        .body(message.to_string())
}

fn token(request: &HttpRequest, body: &[u8], state: &Mutex<State>) -> HttpResponse {
    let form: BTreeMap<String, String> = form_pairs(&String::from_utf8_lossy(body))
        .unwrap_or_default()
        .into_iter()
        .collect();
    let basic = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Basic "))
        .and_then(|encoded| STANDARD.decode(encoded.trim()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    let credentials = basic
        .as_deref()
        .and_then(|text| text.split_once(':'))
        .map(|(id, secret)| (id.to_string(), secret.to_string()))
        .or_else(|| {
            Some((
                form.get("client_id")?.clone(),
                form.get("client_secret")?.clone(),
            ))
        });
    let mut state = state.lock().unwrap();
    state.token_calls += 1;
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return HttpResponse::BadRequest().json(json!({ "error": "unsupported_grant_type" }));
    }
    if credentials != Some((CLIENT_ID.to_string(), CLIENT_SECRET.to_string())) {
        return HttpResponse::Unauthorized().json(json!({ "error": "invalid_client" }));
    }
    let access_token = format!("connectivity-{}", uuid::Uuid::new_v4().simple());
    state.issued.insert(access_token.clone());
    HttpResponse::Ok()
        .json(json!({ "access_token": access_token, "token_type": "bearer", "expires_in": 43199 }))
}

/// The proxy's decision before forwarding: the backend URL and the
/// principal, or the refusal.
fn admit(
    state: &State,
    authority: &str,
    headers: &BTreeMap<String, String>,
) -> Result<(String, Option<String>), (u16, String)> {
    let proxy_token = headers
        .get("proxy-authorization")
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    if !proxy_token.is_some_and(|token| state.issued.contains(token)) {
        return Err((
            407,
            "Proxy authentication required: a connectivity token in Proxy-Authorization".into(),
        ));
    }
    let location = headers.get("sap-connectivity-scc-location_id").cloned();
    if location != state.setup.location_id {
        return Err((
            503,
            format!(
                "There is no SAP Cloud Connector (SCC) connected to your subaccount with location ID '{}'",
                location.unwrap_or_default()
            ),
        ));
    }
    let Some(backend) = state.setup.routes.get(authority) else {
        return Err((
            503,
            format!("The Cloud Connector has no mapping for the virtual host {authority}"),
        ));
    };
    let principal = match headers.get("sap-connectivity-authentication") {
        Some(value) => {
            let claims = value
                .strip_prefix("Bearer ")
                .and_then(|token| decode_unverified(token.trim()));
            let Some(claims) = claims else {
                return Err((
                    401,
                    "SAP-Connectivity-Authentication does not carry a user JWT".into(),
                ));
            };
            if claims
                .get("exp")
                .and_then(Value::as_i64)
                .is_some_and(|exp| exp <= now_seconds())
            {
                return Err((
                    401,
                    "The user JWT in SAP-Connectivity-Authentication has expired".into(),
                ));
            }
            let Some(email) = token_email(&claims) else {
                return Err((
                    401,
                    "The user JWT names no e-mail to map to a certificate".into(),
                ));
            };
            Some(email)
        }
        None if state.setup.require_principal => {
            return Err((
                401,
                "Principal propagation: no SAP-Connectivity-Authentication header".into(),
            ));
        }
        None => None,
    };
    Ok((backend.clone(), principal))
}

async fn handle(
    request: HttpRequest,
    body: web::Bytes,
    state: web::Data<Arc<Mutex<State>>>,
    client: web::Data<reqwest::Client>,
) -> HttpResponse {
    let Some(authority) = request
        .uri()
        .authority()
        .map(|authority| authority.as_str().to_string())
    else {
        if request.method() == "POST" && request.uri().path() == "/oauth/token" {
            return token(&request, &body, &state);
        }
        return text(400, "This is a forward proxy: send absolute-form requests");
    };
    if request.method() == "CONNECT" {
        return text(
            405,
            "CONNECT is not supported: the on-premise proxy takes plain HTTP",
        );
    }
    let target = request.uri().to_string();
    let headers: BTreeMap<String, String> = request
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect();
    let method = request.method().as_str().to_string();
    let decision = admit(&state.lock().unwrap(), &authority, &headers);
    let record = |principal: Option<String>, outcome: Outcome| {
        state.lock().unwrap().calls.push(ProxyCall {
            method: method.clone(),
            target: target.clone(),
            headers: headers.clone(),
            principal,
            outcome,
        });
    };
    let (backend, principal) = match decision {
        Ok(admitted) => admitted,
        Err((code, message)) => {
            record(None, Outcome::Refused(code));
            let response = text(code, &message);
            if code == 407 {
                let mut response = response;
                response.headers_mut().insert(
                    actix_web::http::header::PROXY_AUTHENTICATE,
                    actix_web::http::header::HeaderValue::from_static(
                        "Bearer realm=\"connectivity\"",
                    ),
                );
                return response;
            }
            return response;
        }
    };
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |path| path.as_str());
    let Ok(forward_method) = reqwest::Method::from_bytes(method.as_bytes()) else {
        record(principal, Outcome::Refused(400));
        return text(400, "unsupported method");
    };
    let mut forward = client.request(forward_method, format!("{backend}{path}"));
    for (name, value) in request.headers() {
        let lower = name.as_str().to_ascii_lowercase();
        if HOP_BY_HOP.contains(&lower.as_str()) || (principal.is_some() && lower == "authorization")
        {
            continue;
        }
        forward = forward.header(name.as_str(), value.as_bytes());
    }
    if let Some(email) = &principal {
        let logon = mint_token(
            CLOUD_CONNECTOR_ISSUER,
            email,
            300,
            &[("via", json!("cloud-connector"))],
        );
        forward = forward.header("authorization", format!("Bearer {logon}"));
    }
    let answer = match forward.body(body.to_vec()).send().await {
        Ok(answer) => answer,
        Err(error) => {
            record(principal, Outcome::Refused(502));
            return text(502, &format!("The backend did not answer: {error}"));
        }
    };
    let code = answer.status().as_u16();
    let mut response =
        HttpResponse::build(StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY));
    for (name, value) in answer.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) {
            response.append_header((name.as_str(), value.as_bytes()));
        }
    }
    let bytes = answer.bytes().await.unwrap_or_default();
    record(principal, Outcome::Forwarded(code));
    response.body(bytes)
}

impl ConnectivityProxy {
    pub async fn start(setup: ProxySetup) -> ConnectivityProxy {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().expect("an address").port();
        let url = format!("http://127.0.0.1:{port}");
        let state = Arc::new(Mutex::new(State {
            setup,
            issued: BTreeSet::new(),
            calls: Vec::new(),
            token_calls: 0,
        }));
        let data = web::Data::new(Arc::clone(&state));
        let server = HttpServer::new(move || {
            let client = reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("the forwarding client builds");
            App::new()
                .app_data(data.clone())
                .app_data(web::Data::new(client))
                .app_data(web::PayloadConfig::new(1 << 20))
                .default_service(web::to(handle))
        })
        .workers(2)
        .disable_signals()
        .listen(listener)
        .expect("the proxy listens")
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        ConnectivityProxy {
            url,
            port,
            state,
            handle,
        }
    }

    /// The `credentials` of a `connectivity` binding in VCAP_SERVICES
    /// pointing at this proxy (ports as strings, as the binding has them).
    pub fn binding_credentials(&self) -> Value {
        json!({
            "clientid": CLIENT_ID,
            "clientsecret": CLIENT_SECRET,
            "url": self.url,
            "token_service_url": self.url,
            "token_service_domain": "127.0.0.1",
            "onpremise_proxy_host": "127.0.0.1",
            "onpremise_proxy_http_port": self.port.to_string(),
            "onpremise_proxy_port": self.port.to_string()
        })
    }

    pub fn calls(&self) -> Vec<ProxyCall> {
        self.state.lock().unwrap().calls.clone()
    }

    pub fn token_calls(&self) -> usize {
        self.state.lock().unwrap().token_calls
    }

    pub fn set_location_id(&self, location_id: Option<&str>) {
        self.state.lock().unwrap().setup.location_id = location_id.map(str::to_string);
    }

    pub async fn stop(&self) {
        self.handle.stop(false).await;
    }
}
