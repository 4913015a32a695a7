//! Who calls the double, and what they may see and change (s4hana.md §5).
//!
//! Callers are identified like S/4 identifies them, simplified for tests:
//! - `Authorization: Bearer <token>`: a token registered with
//!   [`super::S4Double::register_token`], or an unsigned JWT (read without
//!   verifying) whose `iss` is trusted and whose `email` (or `mail`) is a
//!   user's e-mail and whose `exp`, when present, lies ahead. The trusted
//!   issuers are [`S4_OAUTH_ISSUER`] (what the Destination double hands out
//!   for `OAuth2SAMLBearerAssertion` / `OAuth2JWTBearer`: a token of S/4's
//!   own OAuth server) and [`CLOUD_CONNECTOR_ISSUER`] (what the connectivity
//!   proxy double forwards for principal propagation: the stand-in for the
//!   Cloud Connector's X.509 logon). A user's IAS token sent directly is
//!   refused (401), as S/4 would refuse it;
//! - `Authorization: Basic …`: a technical user with a password;
//! - `APIKey: …`: the API sandbox's key header.
//!
//! Authorization is per user: which orders they may read, which they may
//! change, and which services they may call at all.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap};

/// The issuer of tokens S/4's OAuth server issues after a SAML-bearer or
/// JWT-bearer exchange (minted by the Destination double).
pub const S4_OAUTH_ISSUER: &str = "https://s4hana-double.test/sap/bc/sec/oauth2";
/// The issuer of the principal the connectivity proxy double forwards.
pub const CLOUD_CONNECTOR_ISSUER: &str = "https://cloud-connector-double.test";

/// An unsigned JWT (`alg: none`) for `email`, issued by `issuer`, valid for
/// `lifetime` seconds; `extra` claims are added.
pub fn mint_token(issuer: &str, email: &str, lifetime: u64, extra: &[(&str, Value)]) -> String {
    let now = now_seconds();
    let mut claims = json!({
        "iss": issuer,
        "sub": email,
        "email": email,
        "iat": now,
        "exp": now + lifetime as i64,
        "jti": uuid::Uuid::new_v4().to_string(),
    });
    for (name, value) in extra {
        claims[*name] = value.clone();
    }
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{payload}.")
}

/// The claims of a JWT, read without verifying the signature.
pub fn decode_unverified(token: &str) -> Option<Map<String, Value>> {
    let mut parts = token.split('.');
    let (_header, payload) = (parts.next()?, parts.next()?);
    parts.next()?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    serde_json::from_slice::<Value>(&bytes)
        .ok()?
        .as_object()
        .cloned()
}

/// The e-mail a token speaks for (`email`, else `mail`).
pub fn token_email(claims: &Map<String, Value>) -> Option<String> {
    claims
        .get("email")
        .or_else(|| claims.get("mail"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

pub fn now_seconds() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}

/// Which sales orders a right covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    All,
    Only(BTreeSet<String>),
    Nothing,
}

impl Scope {
    pub fn only(orders: &[&str]) -> Scope {
        Scope::Only(orders.iter().map(|order| (*order).to_string()).collect())
    }
    pub fn covers(&self, order: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Only(orders) => orders.contains(order),
            Scope::Nothing => false,
        }
    }
}

/// A user's authorizations: orders to read (display), orders to change,
/// and the services they may call (`None`: all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub read: Scope,
    pub change: Scope,
    pub services: Option<BTreeSet<String>>,
}

impl Access {
    pub fn full() -> Access {
        Access {
            read: Scope::All,
            change: Scope::All,
            services: None,
        }
    }
    pub fn read_only() -> Access {
        Access {
            change: Scope::Nothing,
            ..Access::full()
        }
    }
    pub fn may_call(&self, service: &str) -> bool {
        self.services
            .as_ref()
            .is_none_or(|services| services.contains(service))
    }
}

/// How a read outside the user's authorization looks (s4hana.md §5: both
/// exist, which API does which is unverified).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// 403 with an authorization message on a key read.
    Forbidden,
    /// The row is filtered: 404 on the key.
    Hidden,
}

/// An S/4 user: a business user (e-mail, reached by a propagated token) or a
/// technical one (password for basic auth, or an API key).
#[derive(Debug, Clone)]
pub struct User {
    /// The S/4 user name, e.g. `CB9980000101`.
    pub id: String,
    pub email: String,
    pub password: Option<String>,
    pub api_key: Option<String>,
    pub access: Access,
}

impl User {
    pub fn business(id: &str, email: &str, access: Access) -> User {
        User {
            id: id.into(),
            email: email.into(),
            password: None,
            api_key: None,
            access,
        }
    }
    pub fn technical(id: &str, password: &str) -> User {
        User {
            id: id.into(),
            email: String::new(),
            password: Some(password.into()),
            api_key: None,
            access: Access::full(),
        }
    }
    pub fn with_api_key(id: &str, key: &str) -> User {
        User {
            id: id.into(),
            email: String::new(),
            password: None,
            api_key: Some(key.into()),
            access: Access::read_only(),
        }
    }
}

/// The users every double knows unless told otherwise.
pub mod known {
    /// An AR clerk: the e-mail of the agent tests' IAS user tokens.
    pub const CLERK: (&str, &str) = ("CB9980000101", "clerk@example.com");
    pub const CREDIT_MANAGER: (&str, &str) = ("CB9980000102", "credit.manager@example.com");
    pub const MASTER_DATA: (&str, &str) = ("CB9980000103", "masterdata@example.com");
    /// May read every order, change none.
    pub const VIEWER: (&str, &str) = ("CB9980000104", "viewer@example.com");
    /// A communication user for basic authentication (technical).
    pub const COMM_USER: (&str, &str) = ("COMM_USER_ORDERS", "comm-user-password");
    /// The API sandbox's key (read only).
    pub const SANDBOX: (&str, &str) = ("SANDBOX_API", "sandbox-api-key");
}

pub fn default_users() -> Vec<User> {
    use known::*;
    vec![
        User::business(CLERK.0, CLERK.1, Access::full()),
        User::business(CREDIT_MANAGER.0, CREDIT_MANAGER.1, Access::full()),
        User::business(MASTER_DATA.0, MASTER_DATA.1, Access::full()),
        User::business(VIEWER.0, VIEWER.1, Access::read_only()),
        User::technical(COMM_USER.0, COMM_USER.1),
        User::with_api_key(SANDBOX.0, SANDBOX.1),
    ]
}

/// Why a caller was not let in (answered 401).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unauthenticated(pub String);

/// Find the user behind a request's headers (`authorization`, `apikey`).
pub fn identify<'a>(
    authorization: Option<&str>,
    api_key: Option<&str>,
    users: &'a [User],
    tokens: &HashMap<String, String>,
    trusted_issuers: &[String],
) -> Result<&'a User, Unauthenticated> {
    let refuse = |reason: &str| Err(Unauthenticated(reason.into()));
    let by_email = |email: &str| {
        users
            .iter()
            .find(|user| !user.email.is_empty() && user.email.eq_ignore_ascii_case(email))
    };
    if let Some(header) = authorization {
        let (scheme, credentials) = header.split_once(' ').unwrap_or((header, ""));
        if scheme.eq_ignore_ascii_case("bearer") {
            let token = credentials.trim();
            if let Some(email) = tokens.get(token) {
                return by_email(email).map_or_else(|| refuse("the token's user is unknown"), Ok);
            }
            let Some(claims) = decode_unverified(token) else {
                return refuse("the bearer token is neither registered nor a JWT");
            };
            let issuer = claims.get("iss").and_then(Value::as_str).unwrap_or("");
            if !trusted_issuers.iter().any(|trusted| trusted == issuer) {
                return refuse("the token's issuer is not trusted by this system");
            }
            if claims
                .get("exp")
                .and_then(Value::as_i64)
                .is_some_and(|exp| exp <= now_seconds())
            {
                return refuse("the token has expired");
            }
            let Some(email) = token_email(&claims) else {
                return refuse("the token names no e-mail");
            };
            return by_email(&email).map_or_else(|| refuse("no business user has this e-mail"), Ok);
        }
        if scheme.eq_ignore_ascii_case("basic") {
            let decoded = STANDARD
                .decode(credentials.trim())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok());
            let Some((name, password)) = decoded.as_deref().and_then(|text| text.split_once(':'))
            else {
                return refuse("malformed basic credentials");
            };
            return users
                .iter()
                .find(|user| user.id == name && user.password.as_deref() == Some(password))
                .map_or_else(|| refuse("wrong user or password"), Ok);
        }
        return refuse("unsupported authorization scheme");
    }
    if let Some(key) = api_key {
        return users
            .iter()
            .find(|user| user.api_key.as_deref() == Some(key))
            .map_or_else(|| refuse("unknown API key"), Ok);
    }
    refuse("no credentials")
}
