//! The connectivity service's on-premise proxy (`reference/s4hana.md` §4.2,
//! `PrincipalPropagation` + `ProxyType: OnPremise`): requests to the
//! destination's virtual host go as HTTP proxy requests to
//! `onpremise_proxy_host:onpremise_proxy_http_port`, with
//! `Proxy-Authorization: Bearer <client-credentials token of the binding>`
//! (cached until shortly before it expires). The user's principal and the
//! Cloud Connector location id are headers the caller adds per request.
//!
//! Written to move into `src/btp/` as is.

use crate::btp::oauth::client_credentials;
use crate::secret::Secret;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct ConnectivityBinding {
    pub token_url: reqwest::Url,
    pub client_id: String,
    pub client_secret: Secret,
    pub proxy_host: String,
    pub proxy_port: u16,
}

pub struct ConnectivityProxy {
    binding: ConnectivityBinding,
    /// For the token endpoint.
    http: reqwest::Client,
    /// Sends every request through the proxy.
    proxied: reqwest::Client,
    margin: Duration,
    token: Mutex<Option<(String, Instant)>>,
}

impl ConnectivityProxy {
    pub fn new(
        binding: ConnectivityBinding,
        http: reqwest::Client,
        timeout: Duration,
        margin: Duration,
    ) -> Result<Self, String> {
        let proxy_url = format!("http://{}:{}", binding.proxy_host, binding.proxy_port);
        let proxy = reqwest::Proxy::http(&proxy_url)
            .map_err(|error| format!("the connectivity proxy `{proxy_url}`: {error}"))?;
        let proxied = reqwest::Client::builder()
            .proxy(proxy)
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| format!("the connectivity proxy client: {error}"))?;
        Ok(ConnectivityProxy {
            binding,
            http,
            proxied,
            margin,
            token: Mutex::new(None),
        })
    }

    /// The client whose requests go through the proxy.
    pub fn client(&self) -> &reqwest::Client {
        &self.proxied
    }

    /// `Bearer <token>` for `Proxy-Authorization`.
    pub async fn proxy_authorization(&self) -> Result<String, String> {
        let now = Instant::now();
        if let Some((token, until)) = &*self.token.lock().unwrap_or_else(|p| p.into_inner())
            && now < *until
        {
            return Ok(format!("Bearer {token}"));
        }
        let (token, lifetime) = client_credentials(
            &self.http,
            self.binding.token_url.as_str(),
            &self.binding.client_id,
            self.binding.client_secret.expose(),
        )
        .await
        .map_err(|error| format!("the connectivity service: {error}"))?;
        *self.token.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((token.clone(), now + lifetime.saturating_sub(self.margin)));
        Ok(format!("Bearer {token}"))
    }
}
