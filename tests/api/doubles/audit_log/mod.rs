//! A loopback SAP Audit Log Service (write API v2), following
//! `reference/audit-log.md` §1.3, §2 and the test-double checklist §7:
//! - `POST /oauth/token`: a client-credentials token for the binding's
//!   client id and secret, given in the form body, as query parameters or
//!   as HTTP Basic (`response_type`, `x-zid` ignored); 401
//!   `invalid_client` otherwise; answers `{access_token, token_type:
//!   "bearer", expires_in: 43199}` (an opaque token);
//! - `POST /audit-log/oauth2/v2/{security-events|data-accesses|
//!   data-modifications|configuration-changes}`: 401 without a token this
//!   double handed out; 413 for a body over 10 000 bytes (§2.3; the
//!   stricter reading of "10 KB"); 400 for a content type that is not
//!   JSON, a body that does not parse, or a required field missing or
//!   empty (§2.4: `uuid`, `user`, `time`, `tenant`; `data` for security
//!   events; `object.type`, `object.id` and `attributes` (≥ 1, each with a
//!   `name`) for the others; `data_subject.type` and `data_subject.id` for
//!   data accesses and modifications, the 400 of `cap-js/audit-logging#180`);
//!   else 201 with an empty body. `null` optional keys and extra keys are
//!   accepted (§7.3). An unknown kind is 404;
//! - `GET /audit-log`: the version list SAPAL reads (§7.4).
//!
//! Switches: [`AuditLogDouble::answer_writes_with`] answers every write
//! with a status (429, 503, 500 …; `Retry-After` optional) until cleared;
//! every write is recorded ([`Write`]) with its status, and the accepted
//! ones are [`AuditLogDouble::accepted`].

use crate::doubles::s4hana::query::form_pairs;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

pub const CLIENT_ID: &str = "sb-auditlog-clone!b1|auditlog!b2";
pub const CLIENT_SECRET: &str = "auditlog-client-secret";
/// The size limit the double enforces.
pub const MAX_BODY_BYTES: usize = 10_000;
pub const KINDS: [&str; 4] = [
    "security-events",
    "data-accesses",
    "data-modifications",
    "configuration-changes",
];

/// One write as received.
#[derive(Debug, Clone)]
pub struct Write {
    pub kind: String,
    pub status: u16,
    pub content_type: Option<String>,
    /// The JSON body (`Null` when it did not parse).
    pub body: Value,
}

#[derive(Default)]
struct State {
    tokens: BTreeSet<String>,
    token_calls: usize,
    writes: Vec<Write>,
    forced: Option<(u16, Option<u64>)>,
}

#[derive(Clone)]
pub struct AuditLogDouble {
    pub url: String,
    state: Arc<Mutex<State>>,
}

fn basic_credentials(request: &HttpRequest) -> Option<(String, String)> {
    let value = request.headers().get("authorization")?.to_str().ok()?;
    let encoded = value
        .strip_prefix("Basic ")
        .or(value.strip_prefix("basic "))?;
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    Some((id.to_string(), secret.to_string()))
}

async fn token(
    request: HttpRequest,
    body: web::Bytes,
    state: web::Data<Arc<Mutex<State>>>,
) -> HttpResponse {
    let mut pairs = form_pairs(request.query_string()).unwrap_or_default();
    pairs.extend(form_pairs(&String::from_utf8_lossy(&body)).unwrap_or_default());
    let find = |name: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let (id, secret) = match basic_credentials(&request) {
        Some((id, secret)) => (Some(id), Some(secret)),
        None => (find("client_id"), find("client_secret")),
    };
    let mut state = state.lock().unwrap();
    state.token_calls += 1;
    if find("grant_type").as_deref() != Some("client_credentials") {
        return HttpResponse::BadRequest().json(json!({"error": "unsupported_grant_type"}));
    }
    if id.as_deref() != Some(CLIENT_ID) || secret.as_deref() != Some(CLIENT_SECRET) {
        return HttpResponse::Unauthorized().json(json!({"error": "invalid_client"}));
    }
    let token = format!("auditlog-token-{}", uuid::Uuid::new_v4().simple());
    state.tokens.insert(token.clone());
    HttpResponse::Ok().json(json!({
        "access_token": token, "token_type": "bearer", "expires_in": 43199
    }))
}

fn non_empty_text(value: &Value) -> bool {
    value.as_str().is_some_and(|text| !text.trim().is_empty())
}

fn ids(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|ids| !ids.is_empty() && ids.values().all(Value::is_string))
}

/// The first required field (§2.4) missing from `body`, by its path.
pub fn missing_field(kind: &str, body: &Value) -> Option<&'static str> {
    for (name, path) in [
        ("uuid", "uuid"),
        ("user", "user"),
        ("time", "time"),
        ("tenant", "tenant"),
    ] {
        if !non_empty_text(&body[name]) {
            return Some(path);
        }
    }
    if kind == "security-events" {
        return (!non_empty_text(&body["data"])).then_some("data");
    }
    if !non_empty_text(&body["object"]["type"]) {
        return Some("object.type");
    }
    if !ids(&body["object"]["id"]) {
        return Some("object.id");
    }
    let attributes = body["attributes"].as_array();
    if attributes
        .is_none_or(|list| list.is_empty() || list.iter().any(|a| !non_empty_text(&a["name"])))
    {
        return Some("attributes");
    }
    if matches!(kind, "data-accesses" | "data-modifications") {
        if !non_empty_text(&body["data_subject"]["type"]) {
            return Some("data_subject.type");
        }
        if !ids(&body["data_subject"]["id"]) {
            return Some("data_subject.id");
        }
    }
    None
}

async fn write(
    request: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
    state: web::Data<Arc<Mutex<State>>>,
) -> HttpResponse {
    let kind = path.into_inner();
    if !KINDS.contains(&kind.as_str()) {
        return HttpResponse::NotFound().json(json!({"error": "Not Found"}));
    }
    let content_type = request
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .map(str::to_string);
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut state = state.lock().unwrap();
    let bearer = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_string);
    let (status, retry_after, error) = if !bearer.is_some_and(|token| state.tokens.contains(&token))
    {
        (401, None, "missing or invalid Authorization".to_string())
    } else if let Some((status, retry_after)) = state.forced {
        (status, retry_after, format!("forced {status}"))
    } else if body.len() > MAX_BODY_BYTES {
        (
            413,
            None,
            format!("message larger than {MAX_BODY_BYTES} bytes"),
        )
    } else if !content_type
        .as_deref()
        .is_some_and(|value| value.to_ascii_lowercase().starts_with("application/json"))
    {
        (
            400,
            None,
            "content type is not application/json".to_string(),
        )
    } else if !parsed.is_object() {
        (400, None, "unparsable message".to_string())
    } else if let Some(field) = missing_field(&kind, &parsed) {
        (
            400,
            None,
            format!("invalid attributes: `{field}` is required"),
        )
    } else {
        (201, None, String::new())
    };
    state.writes.push(Write {
        kind,
        status,
        content_type,
        body: parsed,
    });
    let mut response = HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap());
    if let Some(seconds) = retry_after {
        response.insert_header(("Retry-After", seconds.to_string()));
    }
    if status == 201 {
        response.finish()
    } else {
        response.json(json!({ "error": error }))
    }
}

async fn versions() -> HttpResponse {
    HttpResponse::Ok()
        .json(json!({"versions": [{"version": "v2", "url": "/audit-log/oauth2/v2/"}]}))
}

impl AuditLogDouble {
    pub async fn start() -> AuditLogDouble {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("an address").port()
        );
        let state = Arc::new(Mutex::new(State::default()));
        let data = web::Data::new(Arc::clone(&state));
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::PayloadConfig::new(1 << 20))
                .route("/oauth/token", web::post().to(token))
                .route("/audit-log", web::get().to(versions))
                .route("/audit-log/oauth2/v2/{kind}", web::post().to(write))
        })
        .workers(1)
        .listen(listener)
        .expect("the double listens")
        .run();
        tokio::spawn(server);
        AuditLogDouble { url, state }
    }

    /// A whole `auditlog` entry of VCAP_SERVICES with `plan`, pointing at
    /// this double (token endpoint and write API on the same server).
    pub fn vcap_services(&self, plan: &str) -> String {
        json!({ "auditlog": [{
            "label": "auditlog", "plan": plan, "name": "agent-auditlog", "tags": [],
            "credentials": {
                "url": self.url, "vendor": "SAP",
                "uaa": { "clientid": CLIENT_ID, "clientsecret": CLIENT_SECRET, "url": self.url,
                         "tenantmode": "dedicated" }
            }
        }]})
        .to_string()
    }

    /// Answer every write with `status` (and `Retry-After: seconds`), or
    /// as the reference says again (`None`).
    pub fn answer_writes_with(&self, status: Option<u16>, retry_after: Option<u64>) {
        self.state.lock().unwrap().forced = status.map(|status| (status, retry_after));
    }

    pub fn writes(&self) -> Vec<Write> {
        self.state.lock().unwrap().writes.clone()
    }

    /// The bodies of the writes answered 201, of `kind`.
    pub fn accepted(&self, kind: &str) -> Vec<Value> {
        self.writes()
            .into_iter()
            .filter(|write| write.status == 201 && write.kind == kind)
            .map(|write| write.body)
            .collect()
    }

    pub fn token_calls(&self) -> usize {
        self.state.lock().unwrap().token_calls
    }
}
