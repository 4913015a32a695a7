//! A real IAS-like key server on loopback for the auth tests: OpenID
//! discovery, a JWKS endpoint (recording the headers it gets) and XSUAA's
//! `token_keys`, with switches for failures, delays and key rotation; plus
//! token minting with the throwaway keys in tests/fixtures.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

pub const CLIENT_ID: &str = "0a1b2c3d-agent-client";
pub const APP_TID: &str = "tenant-guid-0001";
pub const ISSUER: &str = "https://tenant.accounts.test";
pub const DOMAIN: &str = "accounts.test";
pub const REQUIRED_API: &str = "order-exception-agent";
pub const XS_CLIENT_ID: &str = "sb-order-agent!t7";
pub const XSAPPNAME: &str = "order-agent!t7";

pub static KEYS: LazyLock<Value> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../fixtures/test-keys.json"))
        .expect("fixture keys are JSON")
});

pub fn jwk(kid: &str) -> Value {
    let key = &KEYS[kid];
    json!({ "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": key["n"], "e": key["e"] })
}

/// An EC key under a `kid`: never usable for RS256.
pub fn ec_jwk(kid: &str) -> Value {
    let key = &KEYS["ec-key"];
    json!({ "kty": "EC", "kid": kid, "crv": "P-256", "x": key["x"], "y": key["y"] })
}

#[derive(Debug, Clone)]
pub struct Behaviour {
    pub jwks: Vec<Value>,
    pub jwks_status: u16,
    pub jwks_delay: Duration,
    pub discovery_status: u16,
    pub discovery_issuer: String,
    pub omit_jwks_uri: bool,
}

#[derive(Default)]
pub struct Recorded {
    pub discovery_calls: usize,
    pub jwks_calls: usize,
    pub token_keys_calls: usize,
    pub jwks_headers: Vec<HashMap<String, String>>,
}

pub struct KeyServer {
    pub url: String,
    pub behaviour: Arc<Mutex<Behaviour>>,
    pub recorded: Arc<Mutex<Recorded>>,
    handle: actix_web::dev::ServerHandle,
}

struct Shared {
    url: String,
    behaviour: Arc<Mutex<Behaviour>>,
    recorded: Arc<Mutex<Recorded>>,
}

async fn discovery(shared: web::Data<Shared>) -> HttpResponse {
    let behaviour = shared.behaviour.lock().unwrap().clone();
    shared.recorded.lock().unwrap().discovery_calls += 1;
    if behaviour.discovery_status != 200 {
        return HttpResponse::build(
            actix_web::http::StatusCode::from_u16(behaviour.discovery_status).unwrap(),
        )
        .finish();
    }
    let mut document = json!({ "issuer": behaviour.discovery_issuer });
    if !behaviour.omit_jwks_uri {
        document["jwks_uri"] = json!(format!("{}/oauth2/certs", shared.url));
    }
    HttpResponse::Ok().json(document)
}

async fn serve_keys(shared: &Shared, request: &HttpRequest, xsuaa: bool) -> HttpResponse {
    let behaviour = shared.behaviour.lock().unwrap().clone();
    {
        let mut recorded = shared.recorded.lock().unwrap();
        if xsuaa {
            recorded.token_keys_calls += 1;
        } else {
            recorded.jwks_calls += 1;
        }
        let headers = request
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_string(),
                    value.to_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        recorded.jwks_headers.push(headers);
    }
    tokio::time::sleep(behaviour.jwks_delay).await;
    if behaviour.jwks_status != 200 {
        return HttpResponse::build(
            actix_web::http::StatusCode::from_u16(behaviour.jwks_status).unwrap(),
        )
        .body("refused");
    }
    HttpResponse::Ok().json(json!({ "keys": behaviour.jwks }))
}

async fn jwks(shared: web::Data<Shared>, request: HttpRequest) -> HttpResponse {
    serve_keys(&shared, &request, false).await
}

async fn token_keys(shared: web::Data<Shared>, request: HttpRequest) -> HttpResponse {
    serve_keys(&shared, &request, true).await
}

impl KeyServer {
    pub async fn start() -> KeyServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let behaviour = Arc::new(Mutex::new(Behaviour {
            jwks: vec![jwk("key-1")],
            jwks_status: 200,
            jwks_delay: Duration::ZERO,
            discovery_status: 200,
            discovery_issuer: ISSUER.into(),
            omit_jwks_uri: false,
        }));
        let recorded = Arc::new(Mutex::new(Recorded::default()));
        let shared = web::Data::new(Shared {
            url: url.clone(),
            behaviour: Arc::clone(&behaviour),
            recorded: Arc::clone(&recorded),
        });
        let server = HttpServer::new(move || {
            App::new()
                .app_data(shared.clone())
                .route(
                    "/.well-known/openid-configuration",
                    web::get().to(discovery),
                )
                .route("/oauth2/certs", web::get().to(jwks))
                .route("/token_keys", web::get().to(token_keys))
        })
        .workers(2)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        KeyServer {
            url,
            behaviour,
            recorded,
            handle,
        }
    }

    pub fn set(&self, change: impl FnOnce(&mut Behaviour)) {
        change(&mut self.behaviour.lock().unwrap());
    }

    pub fn jwks_calls(&self) -> usize {
        self.recorded.lock().unwrap().jwks_calls
    }

    pub fn token_keys_calls(&self) -> usize {
        self.recorded.lock().unwrap().token_keys_calls
    }

    pub fn discovery_calls(&self) -> usize {
        self.recorded.lock().unwrap().discovery_calls
    }

    pub fn last_jwks_headers(&self) -> HashMap<String, String> {
        self.recorded
            .lock()
            .unwrap()
            .jwks_headers
            .last()
            .cloned()
            .unwrap_or_default()
    }

    pub async fn stop(&self) {
        self.handle.stop(false).await;
    }
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The claims of a Joule user token (App2App principal propagation).
pub fn user_claims() -> Map<String, Value> {
    let now = now();
    json!({
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "sub": "P000123",
        "azp": "joule-proxy-client",
        "app_tid": APP_TID,
        "exp": now + 600,
        "iat": now,
        "sap_id_type": "user",
        "user_uuid": "user-uuid-42",
        "email": "clerk@example.com",
        "given_name": "Ada",
        "family_name": "Clerk",
        "ias_apis": [REQUIRED_API],
        "groups": ["ar_clerk"],
        "jti": "jti-1"
    })
    .as_object()
    .cloned()
    .unwrap()
}

/// A technical (client credentials) App2App token.
pub fn technical_claims() -> Map<String, Value> {
    let mut claims = user_claims();
    claims.insert("sub".into(), json!("joule-proxy-client"));
    claims.insert("sap_id_type".into(), json!("app"));
    claims.remove("groups");
    claims.remove("user_uuid");
    claims
}

pub fn sign(claims: &Map<String, Value>, kid: Option<&str>, key: &str) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = kid.map(str::to_string);
    let pem = KEYS[key]["private_pem"].as_str().unwrap();
    jsonwebtoken::encode(
        &header,
        claims,
        &EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap(),
    )
    .unwrap()
}

/// Signed with key-1 under kid key-1.
pub fn token(claims: &Map<String, Value>) -> String {
    sign(claims, Some("key-1"), "key-1")
}

pub fn with(mut claims: Map<String, Value>, name: &str, value: Value) -> Map<String, Value> {
    if value.is_null() {
        claims.remove(name);
    } else {
        claims.insert(name.into(), value);
    }
    claims
}
