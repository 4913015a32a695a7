//! Signing keys: discovery and JWKS fetching, and the cache in front of them.
//!
//! - 15 min hard expiry (`auth.key_cache_ttl_secs`); after half of it a background refresh while the
//!   cached set keeps serving.
//! - One fetch at a time per key: concurrent misses wait for the same fetch.
//! - An unknown `kid` forces at most one refetch per key per 60 s.
//! - Failures are never cached.
//! - A hit takes one short std-mutex lock and no network; nothing is held
//!   across an await except the per-key fetch lock on a miss.

use crate::clock::Clock;
use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, KeyAlgorithm};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const FORCED_REFETCH_INTERVAL: Duration = Duration::from_secs(60);
const MAX_ENTRIES: usize = 1000;

/// Where the keys of a token come from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum KeySource {
    /// IAS: `<issuer>/.well-known/openid-configuration` → `jwks_uri`.
    Ias { issuer: String },
    /// XSUAA: `https://<uaadomain>/token_keys?zid=<zid>`.
    Xsuaa { uaa_domain: String, zid: String },
}

/// Cache identity: the source plus the headers that drive IAS's online check.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyRequest {
    pub source: KeySource,
    pub client_id: String,
    pub app_tid: Option<String>,
    pub azp: Option<String>,
    pub azp_app_tid: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("no key with this kid")]
    UnknownKid,
    /// The key service said no (400), or its answer cannot be trusted → 401.
    #[error("{0}")]
    Rejected(String),
    /// The key service could not be reached or failed → 503.
    #[error("{0}")]
    Unavailable(String),
}

type Keys = Arc<HashMap<String, Arc<DecodingKey>>>;

struct Entry {
    keys: Keys,
    fetched_at: Instant,
    forced_at: Option<Instant>,
    refreshing: bool,
}

pub struct KeyCache {
    /// What the keys' age is read by.
    clock: Clock,
    http: reqwest::Client,
    ttl: Duration,
    /// Half the TTL: from then on a hit also refreshes in the background.
    refresh_after: Duration,
    /// TESTING ONLY: base URL replacing every issuer / UAA host.
    test_key_server: Option<String>,
    entries: Mutex<HashMap<KeyRequest, Entry>>,
    fetch_locks: Mutex<HashMap<KeyRequest, Arc<tokio::sync::Mutex<()>>>>,
}

enum Lookup {
    Hit(Arc<DecodingKey>, bool),
    ForcedRefetch,
    Miss,
}

impl KeyCache {
    pub fn new(
        http: reqwest::Client,
        ttl: Duration,
        test_key_server: Option<String>,
        clock: Clock,
    ) -> Self {
        KeyCache {
            clock,
            http,
            ttl,
            refresh_after: ttl / 2,
            test_key_server: test_key_server.map(|url| url.trim_end_matches('/').to_string()),
            entries: Mutex::new(HashMap::new()),
            fetch_locks: Mutex::new(HashMap::new()),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<KeyRequest, Entry>> {
        // A poisoned cache is still a valid cache: every write is one insert.
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub async fn decoding_key(
        self: &Arc<Self>,
        request: &KeyRequest,
        kid: &str,
    ) -> Result<Arc<DecodingKey>, KeyError> {
        let asked_at = self.clock.instant();
        let lookup = {
            let mut entries = self.entries();
            match entries.get_mut(request) {
                Some(entry) if asked_at.duration_since(entry.fetched_at) < self.ttl => {
                    match entry.keys.get(kid) {
                        Some(key) => {
                            let refresh = asked_at.duration_since(entry.fetched_at)
                                > self.refresh_after
                                && !entry.refreshing;
                            entry.refreshing |= refresh;
                            Lookup::Hit(Arc::clone(key), refresh)
                        }
                        None if entry.forced_at.is_none_or(|at| {
                            asked_at.duration_since(at) >= FORCED_REFETCH_INTERVAL
                        }) =>
                        {
                            entry.forced_at = Some(asked_at);
                            Lookup::ForcedRefetch
                        }
                        None => return Err(KeyError::UnknownKid),
                    }
                }
                _ => Lookup::Miss,
            }
        };
        let keys = match lookup {
            Lookup::Hit(key, refresh) => {
                if refresh {
                    let cache = Arc::clone(self);
                    let request = request.clone();
                    tokio::spawn(async move { cache.refresh_in_background(request).await });
                }
                return Ok(key);
            }
            Lookup::ForcedRefetch => self.fetch_shared(request, asked_at, true).await?,
            Lookup::Miss => self.fetch_shared(request, asked_at, false).await?,
        };
        keys.get(kid).cloned().ok_or(KeyError::UnknownKid)
    }

    async fn refresh_in_background(&self, request: KeyRequest) {
        // The keys are as old as the moment they were asked for.
        let asked_at = self.clock.instant();
        let result = self.fetch(&request).await;
        let mut entries = self.entries();
        match result {
            Ok(keys) => {
                let forced_at = entries.get(&request).and_then(|e| e.forced_at);
                entries.insert(
                    request,
                    Entry {
                        keys,
                        fetched_at: asked_at,
                        forced_at,
                        refreshing: false,
                    },
                );
            }
            Err(error) => {
                tracing::warn!(%error, "background key refresh failed; serving the cached keys");
                if let Some(entry) = entries.get_mut(&request) {
                    entry.refreshing = false;
                }
            }
        }
    }

    /// Fetch once for everybody waiting on the same key.
    async fn fetch_shared(
        &self,
        request: &KeyRequest,
        asked_at: Instant,
        forced: bool,
    ) -> Result<Keys, KeyError> {
        let lock = {
            let mut locks = self
                .fetch_locks
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            Arc::clone(locks.entry(request.clone()).or_default())
        };
        let _one_at_a_time = lock.lock().await;
        // Someone fetched while we waited: use theirs.
        if let Some(entry) = self.entries().get(request)
            && entry.fetched_at >= asked_at
        {
            return Ok(Arc::clone(&entry.keys));
        }
        let keys = self.fetch(request).await?;
        let mut entries = self.entries();
        if entries.len() >= MAX_ENTRIES && !entries.contains_key(request) {
            let oldest = entries
                .iter()
                .min_by_key(|(_, entry)| entry.fetched_at)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                entries.remove(&oldest);
            }
        }
        let forced_at = if forced {
            Some(asked_at)
        } else {
            entries.get(request).and_then(|e| e.forced_at)
        };
        entries.insert(
            request.clone(),
            Entry {
                keys: Arc::clone(&keys),
                fetched_at: self.clock.instant(),
                forced_at,
                refreshing: false,
            },
        );
        Ok(keys)
    }

    fn base_url<'a>(&'a self, real: &'a str) -> &'a str {
        self.test_key_server.as_deref().unwrap_or(real)
    }

    async fn fetch(&self, request: &KeyRequest) -> Result<Keys, KeyError> {
        match &request.source {
            KeySource::Ias { issuer } => {
                let jwks_uri = self.discover(issuer).await?;
                let mut call = self
                    .http
                    .get(jwks_uri.clone())
                    .header("x-client_id", &request.client_id);
                for (name, value) in [
                    ("x-app_tid", &request.app_tid),
                    ("x-azp", &request.azp),
                    ("x-azp_app_tid", &request.azp_app_tid),
                ] {
                    if let Some(value) = value {
                        call = call.header(name, value);
                    }
                }
                self.key_set(call, jwks_uri.as_str()).await
            }
            KeySource::Xsuaa { uaa_domain, zid } => {
                let real = format!("https://{uaa_domain}");
                // `zid` is checked to be [A-Za-z0-9-] before it gets here.
                let url = format!("{}/token_keys?zid={zid}", self.base_url(&real));
                let call = self.http.get(&url).header("X-zid", zid);
                self.key_set(call, &url).await
            }
        }
    }

    /// The `jwks_uri` of a trusted issuer; the document must name the same issuer.
    async fn discover(&self, issuer: &str) -> Result<reqwest::Url, KeyError> {
        let url = format!("{}/.well-known/openid-configuration", self.base_url(issuer));
        let call = crate::telemetry::propagation::inject(self.http.get(&url));
        let response = call.send().await.map_err(|error| {
            KeyError::Unavailable(format!("discovery at {url} failed: {error}"))
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(classify_status(status, "discovery"));
        }
        let document: serde_json::Value = response.json().await.map_err(|error| {
            KeyError::Unavailable(format!("discovery document unreadable: {error}"))
        })?;
        let named = document
            .get("issuer")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .trim_end_matches('/');
        if named != issuer {
            return Err(KeyError::Rejected(format!(
                "the discovery document names issuer `{named}`, not the token's"
            )));
        }
        let jwks_uri = document
            .get("jwks_uri")
            .and_then(|v| v.as_str())
            .ok_or_else(|| KeyError::Rejected("the discovery document has no jwks_uri".into()))?;
        judge_jwks_uri(jwks_uri, self.test_key_server.is_some())
    }

    async fn key_set(&self, call: reqwest::RequestBuilder, url: &str) -> Result<Keys, KeyError> {
        let call = crate::telemetry::propagation::inject(call);
        let response = call.send().await.map_err(|error| {
            KeyError::Unavailable(format!("key endpoint {url} failed: {error}"))
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(classify_status(status, "the key endpoint"));
        }
        let set: JwkSet = response
            .json()
            .await
            .map_err(|error| KeyError::Unavailable(format!("key set unreadable: {error}")))?;
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            let Some(kid) = jwk.common.key_id.clone() else {
                continue;
            };
            // RSA keys for RS256 only; anything else is never used.
            let rsa = matches!(jwk.algorithm, AlgorithmParameters::RSA(_));
            let alg_ok = jwk
                .common
                .key_algorithm
                .is_none_or(|alg| alg == KeyAlgorithm::RS256);
            if !(rsa && alg_ok) {
                continue;
            }
            if let Ok(key) = DecodingKey::from_jwk(jwk) {
                keys.insert(kid, Arc::new(key));
            }
        }
        Ok(Arc::new(keys))
    }
}

/// 400 (and other client errors) = this token must not be accepted; 408,
/// 429 and 5xx = try again later.
fn classify_status(status: reqwest::StatusCode, what: &str) -> KeyError {
    let code = status.as_u16();
    if code == 408 || code == 429 || status.is_server_error() {
        KeyError::Unavailable(format!("{what} answered {code}"))
    } else {
        KeyError::Rejected(format!("{what} answered {code}"))
    }
}

/// A discovery document's `jwks_uri`, judged on its parse (the parse is
/// what is called): https, or with the test key server plain http to
/// loopback.
fn judge_jwks_uri(text: &str, test_key_server: bool) -> Result<reqwest::Url, KeyError> {
    let url = reqwest::Url::parse(text)
        .map_err(|error| KeyError::Rejected(format!("the jwks_uri does not parse: {error}")))?;
    let allowed = url.scheme() == "https"
        || (test_key_server && url.scheme() == "http" && crate::loopback::is_loopback(&url));
    if !allowed {
        return Err(KeyError::Rejected("the jwks_uri is not https".into()));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jwks_uri_is_judged_on_its_parse() {
        let url =
            judge_jwks_uri("https://tenant.accounts.ondemand.com/oauth2/certs", false).unwrap();
        assert_eq!(url.host_str(), Some("tenant.accounts.ondemand.com"));
        assert!(judge_jwks_uri("http://127.0.0.1:9/oauth2/certs", true).is_ok());
        for (text, testing) in [
            ("http://127.0.0.1:9/oauth2/certs", false),
            // Begins like loopback; the host is keys.example.com.
            ("http://127.0.0.1.keys.example.com/oauth2/certs", true),
            ("http://127.0.0.1@keys.example.com/oauth2/certs", true),
            ("http:/\\keys.example.com/oauth2/certs", true),
            ("/oauth2/certs", true),
        ] {
            assert!(
                matches!(judge_jwks_uri(text, testing), Err(KeyError::Rejected(_))),
                "{text}"
            );
        }
    }
}
