//! The BTP Destination service client, the one `push/` (Joule callbacks,
//! `JOULE_ASYNC_API`) and `backend/s4hana` (the S/4HANA destination) share
//! (`joule.md` §6.3, `s4hana.md` §4.1): a client-credentials token for the
//! service (cached until shortly before it expires), then
//! `GET …/destinations/<name>` with `X-user-token` = the caller's token,
//! read whole ([`FoundDestination`]). Answers are cached per destination
//! and user (SHA-256 of the user token) until shortly before the token
//! they carry expires. Knows nothing of Joule or S/4HANA beyond the names
//! of the authentication types.

use super::error::DestinationError;
pub use super::found::FoundDestination;
use super::found::read_answer;
use super::oauth::{client_credentials, endpoint, without_url};
use super::settings::{DestinationService, DestinationSettings};
use crate::secret::BearerToken;
use crate::telemetry::outbound::{Attempt, Peer, Request};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Tokens and answers are reused until this long before they expire
/// (unless [`DestinationClient::with_expiry_margin`] says otherwise).
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);
const MAX_CACHED: usize = 1000;

/// (destination name, SHA-256 of the user token) → answer, usable until.
type FoundCache = HashMap<(String, [u8; 32]), (FoundDestination, Instant)>;

pub struct DestinationClient {
    service: DestinationService,
    /// The destination [`DestinationClient::authorization`] looks up.
    name: String,
    http: reqwest::Client,
    margin: Duration,
    service_token: Mutex<Option<(String, Instant)>>,
    found: Mutex<FoundCache>,
    /// Per destination name: the authentication type of the last answer.
    seen: Mutex<HashMap<String, String>>,
}

impl DestinationClient {
    pub fn new(service: DestinationService, name: String, http: reqwest::Client) -> Self {
        DestinationClient {
            service,
            name,
            http,
            margin: EXPIRY_MARGIN,
            service_token: Mutex::new(None),
            found: Mutex::new(HashMap::new()),
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Renew tokens this long before they expire.
    pub fn with_expiry_margin(mut self, margin: Duration) -> Self {
        self.margin = margin;
        self
    }

    /// The client the settings (or, field by field, the binding's
    /// `credentials`) describe, with an HTTP client of its own (no
    /// redirects: a token request is never sent elsewhere); `None` when
    /// neither says where the service is.
    pub fn from_settings(
        settings: &DestinationSettings,
        binding: &Value,
    ) -> Result<Option<Self>, reqwest::Error> {
        let Some(service) = settings.service.service(binding) else {
            return Ok(None);
        };
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Some(Self::new(service, settings.name.clone(), http)))
    }

    /// The destination this client was made for (`push.destination.name`,
    /// `backend.s4hana.destination`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `Authorization` header value of this client's destination on
    /// behalf of the user (Joule callbacks), from the cached find.
    pub async fn authorization(
        &self,
        user_token: &BearerToken,
    ) -> Result<String, DestinationError> {
        let found = self.find(&self.name, user_token).await?;
        found
            .auth_header()
            .map(|(_, value)| value.expose().to_string())
            .ok_or(DestinationError::NoToken)
    }

    /// The authentication type the service last answered for `name`
    /// (`None` before the first lookup).
    pub fn authentication_seen(&self, name: &str) -> Option<String> {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned()
    }

    async fn service_token(&self) -> Result<String, DestinationError> {
        let now = Instant::now();
        if let Some((token, until)) = &*self.service_token.lock().unwrap_or_else(|p| p.into_inner())
            && now < *until
        {
            return Ok(token.clone());
        }
        let (token, lifetime) = client_credentials(
            &self.http,
            &self.service.token_url,
            &self.service.client_id,
            self.service.client_secret.expose(),
        )
        .await
        .map_err(DestinationError::Token)?;
        *self.service_token.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((token.clone(), now + lifetime.saturating_sub(self.margin)));
        Ok(token)
    }

    /// Find `name` for the user (`X-user-token`), cached per user.
    pub async fn find(
        &self,
        name: &str,
        user_token: &BearerToken,
    ) -> Result<FoundDestination, DestinationError> {
        let key = (
            name.to_string(),
            Sha256::digest(user_token.expose().as_bytes()).into(),
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
        let (found, lifetime) = self.lookup(name, Some(user_token.expose()), false).await?;
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
    pub async fn configuration(&self, name: &str) -> Result<FoundDestination, DestinationError> {
        Ok(self.lookup(name, None, true).await?.0)
    }

    async fn lookup(
        &self,
        name: &str,
        user_token: Option<&str>,
        skip_tokens: bool,
    ) -> Result<(FoundDestination, Duration), DestinationError> {
        let token = self.service_token().await?;
        let mut url = endpoint(
            &self.service.uri,
            &["destination-configuration", "v1", "destinations", name],
        )?;
        if skip_tokens {
            url.set_query(Some("$skipTokenRetrieval=true"));
        }
        // The name is in the path: the template says `{name}`.
        let attempt = Attempt::start(&Request {
            peer: Peer::Destination,
            method: "GET",
            url: &url,
            template: Some("/destination-configuration/v1/destinations/{name}".into()),
            resend_count: 0,
            odata_service: None,
        });
        let mut request = self.http.get(url.clone()).bearer_auth(token);
        if let Some(user_token) = user_token {
            request = request.header("X-user-token", user_token);
        }
        let response = attempt.send(request).await.map_err(|error| {
            attempt.no_answer(&error);
            DestinationError::Lookup(without_url(&error))
        })?;
        attempt.answered(response.status().as_u16());
        match response.status().as_u16() {
            200 => {}
            404 => return Err(DestinationError::NotFound(name.to_string())),
            status => return Err(DestinationError::Lookup(format!("answered {status}"))),
        }
        let body: Value = response
            .json()
            .await
            .map_err(|_| DestinationError::Unreadable("not JSON".into()))?;
        let answer = read_answer(name, &body, skip_tokens)?;
        let previous = self
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_string(), answer.0.authentication.clone());
        if !answer.0.propagates_user() && previous.as_ref() != Some(&answer.0.authentication) {
            tracing::warn!(
                destination = name,
                authentication = %answer.0.authentication,
                "the destination does not propagate the user: its target sees one technical \
                 user for every caller"
            );
        }
        Ok(answer)
    }
}
