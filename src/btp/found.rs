//! One destination as the Destination service answers a find call: the
//! configuration (URL, `Authentication`, `ProxyType`,
//! `CloudConnectorLocationId`, `sap-client`, `User`/`Password`, every
//! property for `diagnose`) and `authTokens[0]` (its `http_header` used
//! verbatim; its `error`, sent with HTTP 200, a failed exchange).

use super::error::DestinationError;
use super::oauth::{DEFAULT_LIFETIME, seconds};
use crate::secret::Secret;
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

/// One destination as the service answered it; its password and token
/// headers are [`Secret`]s, and of its properties only the names are kept.
#[derive(Debug, Clone)]
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
    pub password: Option<Secret>,
    /// Every `authTokens[].http_header` (key, value), in the service's
    /// order; empty when the type has no token.
    pub auth_headers: Vec<(String, Secret)>,
    /// The name of every configuration property (for `diagnose`).
    pub property_names: BTreeSet<String>,
}

impl FoundDestination {
    /// The first token's header (the one S/4HANA and Joule callbacks use).
    pub fn auth_header(&self) -> Option<&(String, Secret)> {
        self.auth_headers.first()
    }

    /// The types that carry the user's identity to the target.
    pub fn propagates_user(&self) -> bool {
        Self::type_propagates_user(&self.authentication)
    }

    /// Whether destinations of this `Authentication` type carry the user.
    pub fn type_propagates_user(authentication: &str) -> bool {
        matches!(
            authentication,
            "OAuth2SAMLBearerAssertion"
                | "OAuth2JWTBearer"
                | "OAuth2UserTokenExchange"
                | "PrincipalPropagation"
        )
    }
}

/// The answer of a find call, failures in `authTokens[0]` included.
pub(super) fn read_answer(
    name: &str,
    body: &Value,
    skip_tokens: bool,
) -> Result<(FoundDestination, Duration), DestinationError> {
    let config = body["destinationConfiguration"]
        .as_object()
        .cloned()
        .ok_or_else(|| {
            DestinationError::Unreadable("the answer has no destinationConfiguration".into())
        })?;
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
        password: property("Password").map(Secret::new),
        auth_headers: Vec::new(),
        property_names: config.keys().cloned().collect(),
    };
    let mut lifetime = DEFAULT_LIFETIME;
    let tokens = body["authTokens"].as_array().cloned().unwrap_or_default();
    if !skip_tokens {
        for (index, token) in tokens.iter().enumerate() {
            if let Some(error) = token["error"].as_str().filter(|e| !e.is_empty()) {
                return Err(DestinationError::Exchange(error.to_string()));
            }
            let key = token["http_header"]["key"].as_str().unwrap_or("");
            let value = token["http_header"]["value"].as_str().unwrap_or("");
            if key.is_empty() || value.is_empty() {
                return Err(DestinationError::Exchange(
                    "the Destination service returned no usable token".into(),
                ));
            }
            found
                .auth_headers
                .push((key.to_string(), Secret::new(value)));
            let expires = seconds(&token["expires_in"]).unwrap_or(DEFAULT_LIFETIME);
            lifetime = if index == 0 {
                expires
            } else {
                lifetime.min(expires)
            };
        }
    }
    let needs_token = matches!(
        found.authentication.as_str(),
        "OAuth2SAMLBearerAssertion" | "OAuth2JWTBearer" | "OAuth2UserTokenExchange"
    );
    if !skip_tokens && needs_token && found.auth_headers.is_empty() {
        return Err(DestinationError::Exchange(format!(
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
            DestinationError::Exchange("Retrieval of OAuthToken failed".into())
        );
        let body = json!({"destinationConfiguration": {"Name": "S", "URL": "https://s4", "Authentication": "OAuth2JWTBearer"}});
        assert!(matches!(
            read_answer("S", &body, false),
            Err(DestinationError::Exchange(_))
        ));
        let body = json!({"destinationConfiguration": {"Name": "S", "URL": "https://s4", "Authentication": "OAuth2JWTBearer"},
            "authTokens": [{"type": "Bearer", "value": "t", "http_header": {"key": "Authorization", "value": "Bearer t"}, "expires_in": "120"}]});
        let (found, lifetime) = read_answer("S", &body, false).unwrap();
        let (key, value) = found.auth_header().expect("a token header");
        assert_eq!(
            (key.as_str(), value.expose()),
            ("Authorization", "Bearer t")
        );
        assert!(!format!("{found:?}").contains("Bearer t"));
        assert_eq!(lifetime, Duration::from_secs(120));
    }
}
