//! Signing keys: discovery and JWKS fetching, and the cache in front of them.
//!
//! - 15 min hard expiry (`auth.key_cache_ttl_secs`); after half of it a background refresh while the
//!   cached set keeps serving (for keys that verified a token).
//! - One fetch at a time per key (`fetch_locks.rs`): concurrent misses wait for the same fetch.
//! - Discovery cached per issuer, whatever the token's `azp` or tenant.
//! - An unknown `kid` forces at most one refetch per key per 60 s.
//! - A refusal (400) is remembered for a minute (`refusals.rs`); other failures are never cached.
//! - Keys fetched for a token that has not verified wait on probation; keys that verified one are
//!   kept by last use (`proven_cache.rs`): forged tokens never evict a real caller's keys.
//! - Fetches for key requests that never verified a token are rate-limited (`fetch_budget.rs`).
//! - A hit takes one short std-mutex lock and no network; nothing is held
//!   across an await except the per-key fetch lock on a miss.

use super::fetch_budget::{BURST, FetchBudget, REFILL_EVERY};
use super::fetch_locks::FetchLocks;
use super::proven_cache::ProvenCache;
use super::refusals::Refusals;
use crate::clock::Clock;
use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, KeyAlgorithm};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const FORCED_REFETCH_INTERVAL: Duration = Duration::from_secs(60);
/// Key sets that verified a token (`ias-tokens.md` §6: ~1000), and those
/// fetched for tokens that have not (yet).
const PROVEN_KEY_SETS: usize = 1000;
const KEY_SETS_ON_PROBATION: usize = 64;
/// Issuers' discovery documents, likewise.
const PROVEN_ISSUERS: usize = 64;
const ISSUERS_ON_PROBATION: usize = 16;
const REMEMBERED_REFUSALS: usize = 1000;

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
    /// The key service could not be reached or failed, or the budget of
    /// new key requests is spent → 503.
    #[error("{0}")]
    Unavailable(String),
}

/// One fetched key set, by `kid`.
pub struct KeySet {
    keys: HashMap<String, Arc<DecodingKey>>,
    fetched_at: Instant,
}

/// The key a token names, and the set it came from (kept again if the set
/// was evicted before the token verified).
pub struct SigningKey {
    pub key: Arc<DecodingKey>,
    set: Arc<KeySet>,
}

struct Entry {
    set: Arc<KeySet>,
    forced_at: Option<Instant>,
    refreshing: bool,
}

struct Discovered {
    jwks_uri: reqwest::Url,
    fetched_at: Instant,
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
    entries: Mutex<ProvenCache<KeyRequest, Entry>>,
    /// Issuer → its `jwks_uri`.
    discoveries: Mutex<ProvenCache<String, Discovered>>,
    refusals: Mutex<Refusals<KeyRequest>>,
    budget: FetchBudget,
    fetch_locks: FetchLocks<KeyRequest>,
    discovery_locks: FetchLocks<String>,
}

enum Lookup {
    Hit(SigningKey, bool),
    Fetch { forced: bool, proven: bool },
}

/// A lock of a cache: poisoned is still whole, as every write is one
/// insert, move or remove.
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl KeyCache {
    pub fn new(
        http: reqwest::Client,
        ttl: Duration,
        test_key_server: Option<String>,
        clock: Clock,
    ) -> Self {
        let now = clock.instant();
        KeyCache {
            clock,
            http,
            ttl,
            refresh_after: ttl / 2,
            test_key_server: test_key_server.map(|url| url.trim_end_matches('/').to_string()),
            entries: Mutex::new(ProvenCache::new(PROVEN_KEY_SETS, KEY_SETS_ON_PROBATION)),
            discoveries: Mutex::new(ProvenCache::new(PROVEN_ISSUERS, ISSUERS_ON_PROBATION)),
            refusals: Mutex::new(Refusals::new(REMEMBERED_REFUSALS)),
            budget: FetchBudget::new(BURST, REFILL_EVERY, now),
            fetch_locks: FetchLocks::default(),
            discovery_locks: FetchLocks::default(),
        }
    }

    /// The key for `kid` from `request`'s key set, fetched if need be.
    /// When it verifies the token, say so with [`KeyCache::verified`].
    pub async fn signing_key(
        self: &Arc<Self>,
        request: &KeyRequest,
        kid: &str,
    ) -> Result<SigningKey, KeyError> {
        let asked_at = self.clock.instant();
        if locked(&self.refusals).refused(request, asked_at) {
            return Err(recently_refused());
        }
        let lookup = {
            let mut entries = locked(&self.entries);
            match entries.get_mut(request) {
                Some((entry, proven))
                    if asked_at.duration_since(entry.set.fetched_at) < self.ttl =>
                {
                    match entry.set.keys.get(kid) {
                        Some(key) => {
                            let refresh = proven
                                && asked_at.duration_since(entry.set.fetched_at)
                                    > self.refresh_after
                                && !entry.refreshing;
                            entry.refreshing |= refresh;
                            let key = SigningKey {
                                key: Arc::clone(key),
                                set: Arc::clone(&entry.set),
                            };
                            Lookup::Hit(key, refresh)
                        }
                        None if entry.forced_at.is_none_or(|at| {
                            asked_at.duration_since(at) >= FORCED_REFETCH_INTERVAL
                        }) =>
                        {
                            entry.forced_at = Some(asked_at);
                            Lookup::Fetch {
                                forced: true,
                                proven,
                            }
                        }
                        None => return Err(KeyError::UnknownKid),
                    }
                }
                Some((_, proven)) => Lookup::Fetch {
                    forced: false,
                    proven,
                },
                None => Lookup::Fetch {
                    forced: false,
                    proven: false,
                },
            }
        };
        match lookup {
            Lookup::Hit(key, refresh) => {
                if refresh {
                    let cache = Arc::clone(self);
                    let request = request.clone();
                    tokio::spawn(async move { cache.refresh_in_background(request).await });
                }
                Ok(key)
            }
            Lookup::Fetch { forced, proven } => {
                let set = self.fetch_shared(request, asked_at, forced, proven).await?;
                let key = set.keys.get(kid).cloned().ok_or(KeyError::UnknownKid)?;
                Ok(SigningKey { key, set })
            }
        }
    }

    /// `key`, from `request`'s set, verified a token: the set (and its
    /// issuer's discovery) is proven and used now.
    pub fn verified(&self, request: &KeyRequest, key: &SigningKey) {
        let now = self.clock.instant();
        locked(&self.entries).prove(request, now, || {
            Some(Entry {
                set: Arc::clone(&key.set),
                forced_at: None,
                refreshing: false,
            })
        });
        if let KeySource::Ias { issuer } = &request.source {
            locked(&self.discoveries).prove(issuer, now, || None);
        }
    }

    async fn refresh_in_background(&self, request: KeyRequest) {
        // The keys are as old as the moment they were asked for.
        let asked_at = self.clock.instant();
        let result = self.fetch(&request).await;
        let mut entries = locked(&self.entries);
        match result {
            Ok(keys) => {
                let forced_at = entries.get_mut(&request).and_then(|(e, _)| e.forced_at);
                entries.insert(
                    request,
                    Entry {
                        set: Arc::new(KeySet {
                            keys,
                            fetched_at: asked_at,
                        }),
                        forced_at,
                        refreshing: false,
                    },
                );
            }
            Err(error) => {
                tracing::warn!(%error, "background key refresh failed; serving the cached keys");
                if let Some((entry, _)) = entries.get_mut(&request) {
                    entry.refreshing = false;
                }
            }
        }
    }

    /// Fetch once for everybody waiting on the same key; a key set that
    /// never verified a token only within the budget.
    async fn fetch_shared(
        &self,
        request: &KeyRequest,
        asked_at: Instant,
        forced: bool,
        proven: bool,
    ) -> Result<Arc<KeySet>, KeyError> {
        let _one_at_a_time = self.fetch_locks.acquire(request).await;
        // Someone fetched, or was refused, while we waited: take theirs.
        if let Some((entry, _)) = locked(&self.entries).get_mut(request)
            && entry.set.fetched_at >= asked_at
        {
            return Ok(Arc::clone(&entry.set));
        }
        if locked(&self.refusals).refused(request, asked_at) {
            return Err(recently_refused());
        }
        if !proven && !self.budget.take(self.clock.instant()) {
            return Err(KeyError::Unavailable(
                "the budget of new key requests is spent; try again shortly".into(),
            ));
        }
        let keys = match self.fetch(request).await {
            Ok(keys) => keys,
            Err(error) => {
                if matches!(error, KeyError::Rejected(_)) {
                    locked(&self.refusals).remember(request.clone(), self.clock.instant());
                }
                return Err(error);
            }
        };
        let set = Arc::new(KeySet {
            keys,
            fetched_at: self.clock.instant(),
        });
        let mut entries = locked(&self.entries);
        let forced_at = if forced {
            Some(asked_at)
        } else {
            entries.get_mut(request).and_then(|(e, _)| e.forced_at)
        };
        entries.insert(
            request.clone(),
            Entry {
                set: Arc::clone(&set),
                forced_at,
                refreshing: false,
            },
        );
        Ok(set)
    }

    fn base_url<'a>(&'a self, real: &'a str) -> &'a str {
        self.test_key_server.as_deref().unwrap_or(real)
    }

    async fn fetch(
        &self,
        request: &KeyRequest,
    ) -> Result<HashMap<String, Arc<DecodingKey>>, KeyError> {
        match &request.source {
            KeySource::Ias { issuer } => {
                let jwks_uri = self.jwks_uri(issuer).await?;
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
                // `zid` is a short identifier of [A-Za-z0-9_-] (`claim_shape.rs`).
                let url = format!("{}/token_keys?zid={zid}", self.base_url(&real));
                let call = self.http.get(&url).header("X-zid", zid);
                self.key_set(call, &url).await
            }
        }
    }

    /// The `jwks_uri` of a trusted issuer, discovered once per issuer and
    /// lifetime.
    async fn jwks_uri(&self, issuer: &str) -> Result<reqwest::Url, KeyError> {
        let fresh = |cache: &Self| {
            let now = cache.clock.instant();
            locked(&cache.discoveries)
                .get_mut(&issuer.to_string())
                .filter(|(found, _)| now.duration_since(found.fetched_at) < cache.ttl)
                .map(|(found, _)| found.jwks_uri.clone())
        };
        if let Some(jwks_uri) = fresh(self) {
            return Ok(jwks_uri);
        }
        let _one_at_a_time = self.discovery_locks.acquire(&issuer.to_string()).await;
        if let Some(jwks_uri) = fresh(self) {
            return Ok(jwks_uri);
        }
        let jwks_uri = self.discover(issuer).await?;
        locked(&self.discoveries).insert(
            issuer.to_string(),
            Discovered {
                jwks_uri: jwks_uri.clone(),
                fetched_at: self.clock.instant(),
            },
        );
        Ok(jwks_uri)
    }

    /// Ask a trusted issuer for its `jwks_uri`; the document must name the same issuer.
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

    async fn key_set(
        &self,
        call: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<HashMap<String, Arc<DecodingKey>>, KeyError> {
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
        Ok(keys)
    }
}

fn recently_refused() -> KeyError {
    KeyError::Rejected("the key endpoint refused this key request less than a minute ago".into())
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
