//! The BTP Destination service, for Joule callbacks: a client-credentials
//! token for the service, then the callback destination (default
//! `JOULE_ASYNC_API`) looked up with `X-user-token` = the caller's user token,
//! whose `authTokens[0]` is the Joule-API bearer (`joule.md` §6.3).

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

#[derive(Debug, Clone)]
pub struct DestinationSettings {
    /// OAuth base URL of the binding (`credentials.url`); `/oauth/token` is appended.
    pub token_url: String,
    /// The service API (`credentials.uri`).
    pub uri: String,
    pub client_id: String,
    pub client_secret: String,
    pub name: String,
}

pub struct DestinationClient {
    settings: DestinationSettings,
    http: reqwest::Client,
    /// SHA-256 of the user token → (Authorization value, usable until).
    minted: Mutex<HashMap<[u8; 32], (String, Instant)>>,
}

/// `base` (a binding's URL) parsed, with `segments` appended as path
/// segments: each is encoded as one segment (a destination name with `/`
/// or `?` stays a name), whatever `base` ends with.
fn endpoint(base: &str, segments: &[&str]) -> Result<reqwest::Url, String> {
    let mut url = reqwest::Url::parse(base)
        .map_err(|error| format!("the Destination service URL `{base}` does not parse: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "the Destination service URL `{base}` is not http or https"
        ));
    }
    url.set_query(None);
    url.set_fragment(None);
    url.path_segments_mut()
        .map_err(|()| format!("the Destination service URL `{base}` cannot have a path"))?
        .pop_if_empty()
        .extend(segments);
    Ok(url)
}

#[derive(Deserialize)]
struct AccessToken {
    access_token: String,
}

impl DestinationClient {
    pub fn new(settings: DestinationSettings, http: reqwest::Client) -> Self {
        DestinationClient {
            settings,
            http,
            minted: Mutex::new(HashMap::new()),
        }
    }

    /// The `Authorization` header value for a callback on behalf of the user,
    /// minted once per user token and reused until shortly before it expires
    /// (heartbeats and results of one conversation share it).
    pub async fn authorization(&self, user_token: &str) -> Result<String, String> {
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

    async fn mint(&self, user_token: &str) -> Result<(String, Duration), String> {
        let token_url = endpoint(&self.settings.token_url, &["oauth", "token"])?;
        let response = crate::telemetry::propagation::inject(self.http.post(token_url))
            .basic_auth(&self.settings.client_id, Some(&self.settings.client_secret))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials")
            .send()
            .await
            .map_err(|error| format!("Destination service token request failed: {error}"))?;
        if !response.status().is_success() {
            return Err(format!(
                "Destination service token request answered {}",
                response.status().as_u16()
            ));
        }
        let access: AccessToken = response
            .json()
            .await
            .map_err(|error| format!("Destination service token unreadable: {error}"))?;
        let lookup = endpoint(
            &self.settings.uri,
            &[
                "destination-configuration",
                "v1",
                "destinations",
                &self.settings.name,
            ],
        )?;
        let response = crate::telemetry::propagation::inject(self.http.get(lookup))
            .bearer_auth(&access.access_token)
            .header("X-user-token", user_token)
            .send()
            .await
            .map_err(|error| format!("destination lookup failed: {error}"))?;
        if !response.status().is_success() {
            return Err(format!(
                "destination lookup answered {}",
                response.status().as_u16()
            ));
        }
        let destination: Value = response
            .json()
            .await
            .map_err(|error| format!("destination unreadable: {error}"))?;
        let first = &destination["authTokens"][0];
        // A 200 can still carry a failed exchange.
        if let Some(error) = first.get("error").and_then(Value::as_str) {
            return Err(format!("the token exchange failed: {error}"));
        }
        let header = first["http_header"]["value"]
            .as_str()
            .filter(|value| !value.is_empty())
            .map(str::to_string)
            .ok_or_else(|| "the destination returned no token".to_string())?;
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
