//! Where a Destination service instance is, as settings: the one model of
//! `push.destination.*` (Joule callbacks and the action hook, with the
//! destination's name) and `backend.s4hana.destination_service.*` (the
//! S/4HANA source, whose destination is named elsewhere). Each field falls
//! back to the `destination` binding's credentials.

use crate::secret::Secret;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A Destination service's client credentials; unset fields come from the
/// `destination` binding in `VCAP_SERVICES` (these settings win, field by
/// field).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DestinationServiceSettings {
    /// OAuth base URL (binding `url`); `/oauth/token` is appended.
    pub token_url: Option<String>,
    /// Service API base URL (binding `uri`).
    pub uri: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<Secret>,
}

/// The Destination service for Joule callbacks (`push.destination`): the
/// destination that mints the callback token, and where the service is.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct DestinationSettings {
    /// The destination that mints the callback token.
    pub name: String,
    /// `push.destination.token_url`, `.uri`, `.client_id`, `.client_secret`.
    #[serde(flatten)]
    pub service: DestinationServiceSettings,
}

impl Default for DestinationSettings {
    fn default() -> Self {
        DestinationSettings {
            name: "JOULE_ASYNC_API".into(),
            service: DestinationServiceSettings::default(),
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
    pub client_secret: Secret,
}

impl DestinationServiceSettings {
    /// The service these settings name, each field falling back to the
    /// binding's `credentials` (`Value::Null` without a binding); `None`
    /// when a field is in neither.
    pub fn service(&self, binding: &Value) -> Option<DestinationService> {
        Some(DestinationService {
            token_url: (self.token_url.clone()).or_else(|| binding_field(binding, &["url"]))?,
            uri: (self.uri.clone()).or_else(|| binding_field(binding, &["uri"]))?,
            client_id: (self.client_id.clone())
                .or_else(|| binding_field(binding, &["clientid"]))?,
            client_secret: (self.client_secret.clone())
                .or_else(|| binding_field(binding, &["clientsecret"]).map(Secret::new))?,
        })
    }
}

/// The first of `keys` a binding's `credentials` hold as a non-empty string
/// or a number, at the top level or under `uaa` (older bindings keep the
/// OAuth client there).
pub fn binding_field(binding: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| {
        binding
            .get(*key)
            .or_else(|| binding.get("uaa").and_then(|uaa| uaa.get(*key)))
            .and_then(|value| match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                _ => None,
            })
            .filter(|text| !text.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_win_field_by_field_over_the_binding() {
        let binding = json!({"url": "https://b.auth", "uri": "https://b.dest",
            "clientid": "b-id", "clientsecret": "b-secret"});
        let settings = DestinationServiceSettings {
            client_id: Some("s-id".into()),
            ..DestinationServiceSettings::default()
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

    #[test]
    fn the_push_destination_keeps_its_flat_keys() {
        let settings: DestinationSettings = serde_json::from_value(json!({
            "name": "N", "token_url": "https://t", "client_secret": "s"
        }))
        .expect("flat keys");
        assert_eq!(settings.name, "N");
        assert_eq!(settings.service.token_url.as_deref(), Some("https://t"));
        let shown = serde_json::to_value(&settings).expect("serializes");
        assert_eq!(shown["token_url"], "https://t");
        assert_eq!(shown["client_secret"], crate::secret::REDACTED);
    }
}
