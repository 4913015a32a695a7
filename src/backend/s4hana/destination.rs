//! The BTP Destination service's "find destination" for S/4HANA
//! (`reference/s4hana.md` §4.1, `btp-runtime.md` §5): a client-credentials
//! token for the service (cached), then `GET …/destinations/<name>` with
//! `X-user-token` = the caller's token, read whole: the configuration (URL,
//! `Authentication`, `ProxyType`, `CloudConnectorLocationId`, `sap-client`,
//! `User`/`Password`) and `authTokens[0]` (its `http_header` used verbatim,
//! its `error` — sent with HTTP 200 — a failure). Answers are cached per
//! user (SHA-256 of the user token) until shortly before `expires_in`.
//!
//! Written to move into `src/btp/` as is: it knows nothing of S/4HANA
//! beyond the names of the authentication types.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Answers without `expires_in` (no token: principal propagation, basic,
/// none) are reused this long.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
const MAX_CACHED: usize = 1000;

/// Where the service is and how to sign in to it. `Debug` shows no secret.
#[derive(Clone)]
pub struct ServiceBinding {
    /// OAuth server base (`credentials.url`); `/oauth/token` is appended.
    pub token_url: reqwest::Url,
    /// The REST API (`credentials.uri`).
    pub uri: reqwest::Url,
    pub client_id: String,
    pub client_secret: String,
}

impl std::fmt::Debug for ServiceBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceBinding")
            .field("token_url", &self.token_url.as_str())
            .field("uri", &self.uri.as_str())
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .finish()
    }
}

/// One destination as the service answered it. `Debug` shows neither the
/// password nor the token header's value.
#[derive(Clone)]
pub struct FoundDestination {
    pub name: String,
    pub url: String,
    /// `OAuth2SAMLBearerAssertion`, `PrincipalPropagation`, …
    pub authentication: String,
    /// `Internet` or `OnPremise`.
    pub proxy_type: String,
    pub location_id: Option<String>,
    pub sap_client: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    /// `authTokens[0].http_header` (key, value), when the type has a token.
    pub auth_header: Option<(String, String)>,
    /// Every configuration property (for `diagnose`).
    pub properties: serde_json::Map<String, Value>,
}

impl std::fmt::Debug for FoundDestination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FoundDestination")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("authentication", &self.authentication)
            .field("proxy_type", &self.proxy_type)
            .field("location_id", &self.location_id)
            .field("sap_client", &self.sap_client)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field(
                "auth_header",
                &self
                    .auth_header
                    .as_ref()
                    .map(|(name, _)| (name, "<redacted>")),
            )
            .field("properties", &"<not shown>")
            .finish()
    }
}

impl FoundDestination {
    /// The types that carry the user's identity to the target.
    pub fn propagates_user(&self) -> bool {
        matches!(
            self.authentication.as_str(),
            "OAuth2SAMLBearerAssertion"
                | "OAuth2JWTBearer"
                | "OAuth2UserTokenExchange"
                | "PrincipalPropagation"
        )
    }
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum FindError {
    /// The service itself could not be reached or refused our client.
    #[error("the Destination service: {0}")]
    Service(String),
    #[error("the destination `{0}` does not exist (Destination service 404)")]
    NotFound(String),
    /// `authTokens[0].error`, or no usable token where one is needed.
    #[error("{0}")]
    Exchange(String),
}

/// (destination name, SHA-256 of the user token) → answer, usable until.
type FoundCache = HashMap<(String, [u8; 32]), (FoundDestination, Instant)>;

pub struct DestinationService {
    binding: ServiceBinding,
    http: reqwest::Client,
    margin: Duration,
    service_token: Mutex<Option<(String, Instant)>>,
    found: Mutex<FoundCache>,
}

/// A client-credentials token from `<token_url>/oauth/token` and its lifetime.
pub async fn client_credentials(
    http: &reqwest::Client,
    token_url: &reqwest::Url,
    client_id: &str,
    client_secret: &str,
) -> Result<(String, Duration), String> {
    let endpoint = append(token_url, &["oauth", "token"]);
    let response = crate::telemetry::propagation::inject(http.post(endpoint))
        .basic_auth(client_id, Some(client_secret))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials")
        .send()
        .await
        .map_err(|error| format!("the token request failed: {}", without_url(&error)))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(format!("the token endpoint answered {status}"));
    }
    let body: Value = response
        .json()
        .await
        .map_err(|_| "the token answer is not JSON".to_string())?;
    let token = body["access_token"]
        .as_str()
        .filter(|token| !token.is_empty())
        .ok_or_else(|| "the token answer has no access_token".to_string())?;
    Ok((
        token.to_string(),
        seconds(&body["expires_in"]).unwrap_or(DEFAULT_LIFETIME),
    ))
}

/// `base` with `segments` appended, each encoded as one path segment.
pub fn append(base: &reqwest::Url, segments: &[&str]) -> reqwest::Url {
    let mut url = base.clone();
    url.set_query(None);
    url.set_fragment(None);
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    url
}

/// A reqwest error without the URL it carries (a query may hold a name).
pub fn without_url(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "failed"
    };
    let mut text = kind.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text = format!("{kind}: {inner}");
        source = inner.source();
    }
    text
}

/// `expires_in` as a string or a number of seconds.
fn seconds(value: &Value) -> Option<Duration> {
    value
        .as_u64()
        .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
        .map(Duration::from_secs)
}

impl DestinationService {
    pub fn new(binding: ServiceBinding, http: reqwest::Client, margin: Duration) -> Self {
        DestinationService {
            binding,
            http,
            margin,
            service_token: Mutex::new(None),
            found: Mutex::new(HashMap::new()),
        }
    }

    async fn service_token(&self) -> Result<String, FindError> {
        let now = Instant::now();
        if let Some((token, until)) = &*self.service_token.lock().unwrap_or_else(|p| p.into_inner())
            && now < *until
        {
            return Ok(token.clone());
        }
        let (token, lifetime) = client_credentials(
            &self.http,
            &self.binding.token_url,
            &self.binding.client_id,
            &self.binding.client_secret,
        )
        .await
        .map_err(FindError::Service)?;
        *self.service_token.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((token.clone(), now + lifetime.saturating_sub(self.margin)));
        Ok(token)
    }

    /// Find `name` for the user (`X-user-token`), cached per user.
    pub async fn find(&self, name: &str, user_token: &str) -> Result<FoundDestination, FindError> {
        let key = (
            name.to_string(),
            Sha256::digest(user_token.as_bytes()).into(),
        );
        let now = Instant::now();
        if let Some((found, until)) = self
            .found
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            && now < *until
        {
            return Ok(found.clone());
        }
        let (found, lifetime) = self.lookup(name, Some(user_token), false).await?;
        let mut cache = self.found.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= MAX_CACHED {
            cache.retain(|_, (_, until)| now < *until);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(
            key,
            (found.clone(), now + lifetime.saturating_sub(self.margin)),
        );
        Ok(found)
    }

    /// The configuration only (`$skipTokenRetrieval=true`), not cached: for
    /// `diagnose`.
    pub async fn configuration(&self, name: &str) -> Result<FoundDestination, FindError> {
        Ok(self.lookup(name, None, true).await?.0)
    }

    async fn lookup(
        &self,
        name: &str,
        user_token: Option<&str>,
        skip_tokens: bool,
    ) -> Result<(FoundDestination, Duration), FindError> {
        let token = self.service_token().await?;
        let mut url = append(
            &self.binding.uri,
            &["destination-configuration", "v1", "destinations", name],
        );
        if skip_tokens {
            url.set_query(Some("$skipTokenRetrieval=true"));
        }
        let mut request =
            crate::telemetry::propagation::inject(self.http.get(url)).bearer_auth(token);
        if let Some(user_token) = user_token {
            request = request.header("X-user-token", user_token);
        }
        let response = request
            .send()
            .await
            .map_err(|error| FindError::Service(format!("the lookup {}", without_url(&error))))?;
        match response.status().as_u16() {
            200 => {}
            404 => return Err(FindError::NotFound(name.to_string())),
            status => {
                return Err(FindError::Service(format!("the lookup answered {status}")));
            }
        }
        let body: Value = response
            .json()
            .await
            .map_err(|_| FindError::Service("the lookup answer is not JSON".into()))?;
        read_answer(name, &body, skip_tokens)
    }
}

/// The answer of a find call, failures in `authTokens[0]` included.
fn read_answer(
    name: &str,
    body: &Value,
    skip_tokens: bool,
) -> Result<(FoundDestination, Duration), FindError> {
    let config = body["destinationConfiguration"]
        .as_object()
        .cloned()
        .ok_or_else(|| FindError::Service("the answer has no destinationConfiguration".into()))?;
    let property = |key: &str| {
        config
            .get(key)
            .and_then(Value::as_str)
            .filter(|value| !value.is_empty())
            .map(str::to_string)
    };
    let mut found = FoundDestination {
        name: property("Name").unwrap_or_else(|| name.to_string()),
        url: property("URL").unwrap_or_default(),
        authentication: property("Authentication").unwrap_or_else(|| "NoAuthentication".into()),
        proxy_type: property("ProxyType").unwrap_or_else(|| "Internet".into()),
        location_id: property("CloudConnectorLocationId"),
        sap_client: property("sap-client"),
        user: property("User"),
        password: property("Password"),
        auth_header: None,
        properties: config.clone(),
    };
    let mut lifetime = DEFAULT_LIFETIME;
    if !skip_tokens && let Some(first) = body["authTokens"].as_array().and_then(|t| t.first()) {
        if let Some(error) = first["error"].as_str().filter(|e| !e.is_empty()) {
            return Err(FindError::Exchange(error.to_string()));
        }
        let key = first["http_header"]["key"].as_str().unwrap_or("");
        let value = first["http_header"]["value"].as_str().unwrap_or("");
        if key.is_empty() || value.is_empty() {
            return Err(FindError::Exchange(
                "the Destination service returned no usable token".into(),
            ));
        }
        found.auth_header = Some((key.to_string(), value.to_string()));
        lifetime = seconds(&first["expires_in"]).unwrap_or(DEFAULT_LIFETIME);
    }
    let needs_token = matches!(
        found.authentication.as_str(),
        "OAuth2SAMLBearerAssertion" | "OAuth2JWTBearer" | "OAuth2UserTokenExchange"
    );
    if !skip_tokens && needs_token && found.auth_header.is_none() {
        return Err(FindError::Exchange(format!(
            "the Destination service returned no token for the {} destination",
            found.authentication
        )));
    }
    Ok((found, lifetime))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_error_in_a_200_is_a_failed_exchange() {
        let body = json!({"destinationConfiguration": {"Name": "S", "URL": "https://s4", "Authentication": "OAuth2SAMLBearerAssertion"},
            "authTokens": [{"type": "", "value": "", "error": "Retrieval of OAuthToken failed", "expires_in": "0"}]});
        assert_eq!(
            read_answer("S", &body, false).unwrap_err(),
            FindError::Exchange("Retrieval of OAuthToken failed".into())
        );
        let body = json!({"destinationConfiguration": {"Name": "S", "URL": "https://s4", "Authentication": "OAuth2JWTBearer"}});
        assert!(matches!(
            read_answer("S", &body, false),
            Err(FindError::Exchange(_))
        ));
        let body = json!({"destinationConfiguration": {"Name": "S", "URL": "https://s4", "Authentication": "OAuth2JWTBearer"},
            "authTokens": [{"type": "Bearer", "value": "t", "http_header": {"key": "Authorization", "value": "Bearer t"}, "expires_in": "120"}]});
        let (found, lifetime) = read_answer("S", &body, false).unwrap();
        assert_eq!(
            found.auth_header,
            Some(("Authorization".into(), "Bearer t".into()))
        );
        assert_eq!(lifetime, Duration::from_secs(120));
    }
}
