//! Where the Destination service is: the `push.destination` settings, each
//! field falling back to the `destination` binding's credentials.

use super::secret::ClientSecret;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The Destination service for Joule callbacks: the `destination` binding in
/// `VCAP_SERVICES`, or these settings (they win).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct DestinationSettings {
    /// The destination that mints the callback token.
    pub name: String,
    /// OAuth base URL (binding `url`); `/oauth/token` is appended.
    pub token_url: Option<String>,
    /// Service API base URL (binding `uri`).
    pub uri: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<ClientSecret>,
}

impl Default for DestinationSettings {
    fn default() -> Self {
        DestinationSettings {
            name: "JOULE_ASYNC_API".into(),
            token_url: None,
            uri: None,
            client_id: None,
            client_secret: None,
        }
    }
}

/// A Destination service instance, every field known.
#[derive(Debug, Clone)]
pub struct DestinationService {
    /// OAuth base URL of the binding (`credentials.url`); `/oauth/token` is appended.
    pub token_url: String,
    /// The service API (`credentials.uri`).
    pub uri: String,
    pub client_id: String,
    pub client_secret: ClientSecret,
}

impl DestinationSettings {
    /// The service these settings name, each field falling back to the
    /// binding's `credentials` (`Value::Null` without a binding); `None`
    /// when a field is in neither.
    pub fn service(&self, binding: &Value) -> Option<DestinationService> {
        let from_binding = |key: &str| binding.get(key).and_then(Value::as_str).map(str::to_string);
        Some(DestinationService {
            token_url: self.token_url.clone().or_else(|| from_binding("url"))?,
            uri: self.uri.clone().or_else(|| from_binding("uri"))?,
            client_id: self
                .client_id
                .clone()
                .or_else(|| from_binding("clientid"))?,
            client_secret: self
                .client_secret
                .clone()
                .or_else(|| from_binding("clientsecret").map(ClientSecret::new))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_win_field_by_field_over_the_binding() {
        let binding = json!({"url": "https://b.auth", "uri": "https://b.dest",
            "clientid": "b-id", "clientsecret": "b-secret"});
        let settings = DestinationSettings {
            client_id: Some("s-id".into()),
            ..DestinationSettings::default()
        };
        let service = settings.service(&binding).expect("complete");
        assert_eq!(service.client_id, "s-id");
        assert_eq!(service.token_url, "https://b.auth");
        assert_eq!(service.client_secret.expose(), "b-secret");
        assert!(!format!("{service:?}").contains("b-secret"));
        assert!(
            settings.service(&Value::Null).is_none(),
            "no binding, no url"
        );
    }
}
