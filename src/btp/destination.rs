//! The BTP Destination service client: a client-credentials token for the
//! service, then a destination (for Joule callbacks `JOULE_ASYNC_API`)
//! looked up with `X-user-token` = the caller's user token, whose
//! `authTokens[0]` is the bearer for the destination's API (`joule.md`
//! §6.3). What it mints is cached per user token until shortly before it
//! expires.

use super::settings::{DestinationService, DestinationSettings};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Minted tokens are reused until shortly before they expire.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);
/// When the destination gives no lifetime.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
const MAX_CACHED: usize = 1000;

/// Why no token came from the Destination service. Carries no secret and
/// no token: the reasons name URLs and status codes only.
#[derive(Debug, thiserror::Error)]
pub enum DestinationError {
    #[error("the Destination service URL `{url}` does not parse: {source}")]
    UrlDoesNotParse {
        url: String,
        source: url::ParseError,
    },
    #[error("the Destination service URL `{0}` is not http or https")]
    UrlNotHttp(String),
    #[error("the Destination service URL `{0}` cannot have a path")]
    UrlWithoutPath(String),
    #[error("Destination service token request failed: {0}")]
    TokenRequest(#[source] reqwest::Error),
    #[error("Destination service token request answered {0}")]
    TokenStatus(u16),
    #[error("Destination service token unreadable: {0}")]
    TokenUnreadable(#[source] reqwest::Error),
    #[error("destination lookup failed: {0}")]
    Lookup(#[source] reqwest::Error),
    #[error("destination lookup answered {0}")]
    LookupStatus(u16),
    #[error("destination unreadable: {0}")]
    DestinationUnreadable(#[source] reqwest::Error),
    /// The service's own words about the failed exchange.
    #[error("the token exchange failed: {0}")]
    Exchange(String),
    #[error("the destination returned no token")]
    NoToken,
}

pub struct DestinationClient {
    service: DestinationService,
    /// The destination looked up.
    name: String,
    http: reqwest::Client,
    /// SHA-256 of the user token → (Authorization value, usable until).
    minted: Mutex<HashMap<[u8; 32], (String, Instant)>>,
}

/// `base` (a binding's URL) parsed, with `segments` appended as path
/// segments: each is encoded as one segment (a destination name with `/`
/// or `?` stays a name), whatever `base` ends with.
fn endpoint(base: &str, segments: &[&str]) -> Result<reqwest::Url, DestinationError> {
    let mut url =
        reqwest::Url::parse(base).map_err(|source| DestinationError::UrlDoesNotParse {
            url: base.to_string(),
            source,
        })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(DestinationError::UrlNotHttp(base.to_string()));
    }
    url.set_query(None);
    url.set_fragment(None);
    url.path_segments_mut()
        .map_err(|()| DestinationError::UrlWithoutPath(base.to_string()))?
        .pop_if_empty()
        .extend(segments);
    Ok(url)
}

#[derive(Deserialize)]
struct AccessToken {
    access_token: String,
}

impl DestinationClient {
    pub fn new(service: DestinationService, name: String, http: reqwest::Client) -> Self {
        DestinationClient {
            service,
            name,
            http,
            minted: Mutex::new(HashMap::new()),
        }
    }

    /// The client the settings (or, field by field, the binding's
    /// `credentials`) describe, with an HTTP client of its own (no
    /// redirects: a token request is never sent elsewhere); `None` when
    /// neither says where the service is.
    pub fn from_settings(
        settings: &DestinationSettings,
        binding: &Value,
    ) -> Result<Option<Self>, reqwest::Error> {
        let Some(service) = settings.service(binding) else {
            return Ok(None);
        };
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Some(Self::new(service, settings.name.clone(), http)))
    }

    /// The `Authorization` header value for a callback on behalf of the user,
    /// minted once per user token and reused until shortly before it expires
    /// (heartbeats and results of one conversation share it).
    pub async fn authorization(&self, user_token: &str) -> Result<String, DestinationError> {
        let key: [u8; 32] = Sha256::digest(user_token.as_bytes()).into();
        let now = Instant::now();
        {
            let minted = self.minted.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((header, until)) = minted.get(&key)
                && now < *until
            {
                return Ok(header.clone());
            }
        }
        let (header, lifetime) = self.mint(user_token).await?;
        let mut minted = self.minted.lock().unwrap_or_else(|p| p.into_inner());
        if minted.len() >= MAX_CACHED {
            minted.retain(|_, (_, until)| now < *until);
            if minted.len() >= MAX_CACHED {
                minted.clear();
            }
        }
        minted.insert(
            key,
            (header.clone(), now + lifetime.saturating_sub(EXPIRY_MARGIN)),
        );
        Ok(header)
    }

    async fn mint(&self, user_token: &str) -> Result<(String, Duration), DestinationError> {
        let token_url = endpoint(&self.service.token_url, &["oauth", "token"])?;
        let response = crate::telemetry::propagation::inject(self.http.post(token_url))
            .basic_auth(
                &self.service.client_id,
                Some(self.service.client_secret.expose()),
            )
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials")
            .send()
            .await
            .map_err(DestinationError::TokenRequest)?;
        if !response.status().is_success() {
            return Err(DestinationError::TokenStatus(response.status().as_u16()));
        }
        let access: AccessToken = response
            .json()
            .await
            .map_err(DestinationError::TokenUnreadable)?;
        let lookup = endpoint(
            &self.service.uri,
            &[
                "destination-configuration",
                "v1",
                "destinations",
                &self.name,
            ],
        )?;
        let response = crate::telemetry::propagation::inject(self.http.get(lookup))
            .bearer_auth(&access.access_token)
            .header("X-user-token", user_token)
            .send()
            .await
            .map_err(DestinationError::Lookup)?;
        if !response.status().is_success() {
            return Err(DestinationError::LookupStatus(response.status().as_u16()));
        }
        let destination: Value = response
            .json()
            .await
            .map_err(DestinationError::DestinationUnreadable)?;
        let first = &destination["authTokens"][0];
        // A 200 can still carry a failed exchange.
        if let Some(error) = first.get("error").and_then(Value::as_str) {
            return Err(DestinationError::Exchange(error.to_string()));
        }
        let header = first["http_header"]["value"]
            .as_str()
            .filter(|value| !value.is_empty())
            .map(str::to_string)
            .ok_or(DestinationError::NoToken)?;
        // `expires_in` comes as a string or a number of seconds.
        let lifetime = first
            .get("expires_in")
            .and_then(|v| {
                v.as_u64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            })
            .map(Duration::from_secs)
            .unwrap_or(DEFAULT_LIFETIME);
        Ok((header, lifetime))
    }
}

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn endpoints_are_built_on_the_parse() {
        for base in [
            "https://destination.cfapps.eu10.hana.ondemand.com",
            "https://destination.cfapps.eu10.hana.ondemand.com/",
        ] {
            assert_eq!(
                endpoint(base, &["oauth", "token"]).unwrap().as_str(),
                "https://destination.cfapps.eu10.hana.ondemand.com/oauth/token"
            );
        }
        assert_eq!(
            endpoint(
                "https://d.example/base/",
                &["destination-configuration", "v1", "destinations", "A/B?c#d"]
            )
            .unwrap()
            .as_str(),
            "https://d.example/base/destination-configuration/v1/destinations/A%2FB%3Fc%23d"
        );
        for base in ["d.example", "mailto:x@d.example", "https://"] {
            assert!(endpoint(base, &["oauth", "token"]).is_err(), "{base}");
        }
    }
}
