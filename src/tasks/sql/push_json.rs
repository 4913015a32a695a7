//! The JSON a task row keeps its push configs in. The 0.3 wire type has no
//! `payloadVersion` (it is not a 0.3 field, so the 0.3 wire neither shows
//! nor reads it); the row still has to remember which version's payload a
//! config's notifications carry, so it is kept here, next to the config's
//! 0.3 members, under the same key rows written before have.

use crate::a2a::{PushNotificationConfig, PushPayload};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct StoredPushConfig {
    #[serde(flatten)]
    config: PushNotificationConfig,
    #[serde(
        default,
        rename = "payloadVersion",
        skip_serializing_if = "PushPayload::is_v0_3"
    )]
    payload_version: PushPayload,
}

/// The row's JSON of `configs`.
pub(super) fn encode(configs: &[PushNotificationConfig]) -> Result<String, serde_json::Error> {
    let stored: Vec<StoredPushConfig> = configs
        .iter()
        .map(|config| StoredPushConfig {
            config: config.clone(),
            payload_version: config.payload_version,
        })
        .collect();
    crate::tasks::store::task_json(&stored)
}

/// The configs of a row's JSON.
pub(super) fn decode(json: &str) -> Result<Vec<PushNotificationConfig>, serde_json::Error> {
    let stored: Vec<StoredPushConfig> = serde_json::from_str(json)?;
    Ok(stored
        .into_iter()
        .map(|stored| PushNotificationConfig {
            payload_version: stored.payload_version,
            ..stored.config
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_keeps_the_payload_version_under_its_old_key() {
        let configs = vec![
            PushNotificationConfig {
                id: Some("a".into()),
                url: "https://hook.example/a".into(),
                token: None,
                authentication: None,
                payload_version: PushPayload::V0_3,
            },
            PushNotificationConfig {
                id: Some("b".into()),
                url: "https://hook.example/b".into(),
                token: Some("t".into()),
                authentication: None,
                payload_version: PushPayload::V1_0,
            },
        ];
        let json = encode(&configs).unwrap();
        let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(rows[0].get("payloadVersion").is_none(), "{json}");
        assert_eq!(rows[1]["payloadVersion"], "1.0", "{json}");
        assert_eq!(decode(&json).unwrap(), configs);
        // A row written before this module reads the same.
        let old =
            r#"[{"id":"b","url":"https://hook.example/b","token":"t","payloadVersion":"1.0"}]"#;
        assert_eq!(decode(old).unwrap(), configs[1..].to_vec());
    }
}
