//! The four kinds of audit message of the write API v2, as typed structs
//! serialized to the exact JSON of reference/audit-log.md §2.4–§2.5, and
//! the checks the service makes before it accepts one (required fields,
//! at most 10 KB), made here before a message is queued: a message the
//! service would refuse is never sent.

use serde::Serialize;
use std::collections::BTreeMap;

/// The service's size limit (§2.3: 413 past 10 KB); 10 000 bytes, the
/// stricter of the two readings.
pub const MAX_MESSAGE_BYTES: usize = 10_000;

/// `tenant` for a single-tenant app with an oauth2/premium binding (§2.5).
pub const PROVIDER_TENANT: &str = "$PROVIDER";

/// Which endpoint a message goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    SecurityEvent,
    DataAccess,
    DataModification,
    ConfigurationChange,
}

impl Kind {
    /// The last path segment under `/audit-log/oauth2/v2/` (§0).
    pub fn path(self) -> &'static str {
        match self {
            Kind::SecurityEvent => "security-events",
            Kind::DataAccess => "data-accesses",
            Kind::DataModification => "data-modifications",
            Kind::ConfigurationChange => "configuration-changes",
        }
    }

    pub fn from_path(path: &str) -> Option<Kind> {
        [
            Kind::SecurityEvent,
            Kind::DataAccess,
            Kind::DataModification,
            Kind::ConfigurationChange,
        ]
        .into_iter()
        .find(|kind| kind.path() == path)
    }
}

/// The fields every message has.
#[derive(Debug, Clone, Serialize)]
pub struct Common {
    pub uuid: String,
    pub user: String,
    pub time: String,
    pub tenant: String,
}

impl Common {
    /// A new message by `user`, now, for the provider tenant.
    pub fn now(user: &str) -> Common {
        Common {
            uuid: uuid::Uuid::new_v4().to_string(),
            user: user.to_string(),
            time: now_iso(),
            tenant: PROVIDER_TENANT.into(),
        }
    }
}

/// `2023-06-30T00:00:00.000Z`: UTC, milliseconds.
fn now_iso() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.millisecond()
    )
}

/// What was touched: `{type, id: {key: value}}`.
#[derive(Debug, Clone, Serialize)]
pub struct AuditObject {
    #[serde(rename = "type")]
    pub object_type: String,
    pub id: BTreeMap<String, String>,
}

/// Whose data it is: `{type, role?, id: {key: value}}`.
#[derive(Debug, Clone, Serialize)]
pub struct DataSubject {
    #[serde(rename = "type")]
    pub subject_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    pub id: BTreeMap<String, String>,
}

/// An attribute read: `{name, successful?}`.
#[derive(Debug, Clone, Serialize)]
pub struct ReadAttribute {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successful: Option<bool>,
}

/// An attribute changed: `{name, old?, new?}` (only `new` on create, only
/// `old` on delete).
#[derive(Debug, Clone, Serialize)]
pub struct ChangedAttribute {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

/// `POST …/security-events`.
#[derive(Debug, Clone, Serialize)]
pub struct SecurityEvent {
    #[serde(flatten)]
    pub common: Common,
    /// Free text; a JSON object stringified, as CAP does.
    pub data: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip: Option<String>,
}

/// `POST …/data-accesses`.
#[derive(Debug, Clone, Serialize)]
pub struct DataAccess {
    #[serde(flatten)]
    pub common: Common,
    pub object: AuditObject,
    pub data_subject: DataSubject,
    pub attributes: Vec<ReadAttribute>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
}

/// `POST …/data-modifications`.
#[derive(Debug, Clone, Serialize)]
pub struct DataModification {
    #[serde(flatten)]
    pub common: Common,
    pub object: AuditObject,
    pub data_subject: DataSubject,
    pub attributes: Vec<ChangedAttribute>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
}

/// `POST …/configuration-changes`.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigurationChange {
    #[serde(flatten)]
    pub common: Common,
    pub object: AuditObject,
    pub attributes: Vec<ChangedAttribute>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
}

/// One message of any kind: security events and the configuration from
/// this room, data accesses from the S/4HANA reads (`backend/`), data
/// modifications from the writes of approved actions (`agent/execution`)
/// and of one user's data erased (`erasure.rs`).
#[derive(Debug, Clone)]
pub enum AuditMessage {
    Security(SecurityEvent),
    DataAccess(DataAccess),
    DataModification(DataModification),
    ConfigurationChange(ConfigurationChange),
}

/// Why a message cannot be sent: the service would answer 400 or 413.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("audit message: `{0}` is required")]
    Missing(&'static str),
    #[error("audit message: {bytes} bytes, more than the service's {MAX_MESSAGE_BYTES}")]
    TooLarge { bytes: usize },
    #[error("audit message: cannot be encoded: {0}")]
    Encode(String),
}

/// A checked message, ready for the outbox: its kind and its JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub kind: Kind,
    pub id: String,
    pub body: String,
}

impl AuditMessage {
    pub fn kind(&self) -> Kind {
        match self {
            AuditMessage::Security(_) => Kind::SecurityEvent,
            AuditMessage::DataAccess(_) => Kind::DataAccess,
            AuditMessage::DataModification(_) => Kind::DataModification,
            AuditMessage::ConfigurationChange(_) => Kind::ConfigurationChange,
        }
    }

    fn common(&self) -> &Common {
        match self {
            AuditMessage::Security(message) => &message.common,
            AuditMessage::DataAccess(message) => &message.common,
            AuditMessage::DataModification(message) => &message.common,
            AuditMessage::ConfigurationChange(message) => &message.common,
        }
    }

    /// The required fields (§2.4), then the JSON, then its size.
    pub fn encode(&self) -> Result<Encoded, MessageError> {
        let common = self.common();
        for (name, value) in [
            ("uuid", &common.uuid),
            ("user", &common.user),
            ("time", &common.time),
            ("tenant", &common.tenant),
        ] {
            if value.trim().is_empty() {
                return Err(MessageError::Missing(name));
            }
        }
        let body = match self {
            AuditMessage::Security(message) => {
                if message.data.trim().is_empty() {
                    return Err(MessageError::Missing("data"));
                }
                serde_json::to_string(message)
            }
            AuditMessage::DataAccess(message) => {
                check_object(&message.object)?;
                check_subject(&message.data_subject)?;
                if message.attributes.is_empty() {
                    return Err(MessageError::Missing("attributes"));
                }
                serde_json::to_string(message)
            }
            AuditMessage::DataModification(message) => {
                check_object(&message.object)?;
                check_subject(&message.data_subject)?;
                check_changes(&message.attributes)?;
                serde_json::to_string(message)
            }
            AuditMessage::ConfigurationChange(message) => {
                check_object(&message.object)?;
                check_changes(&message.attributes)?;
                serde_json::to_string(message)
            }
        }
        .map_err(|error| MessageError::Encode(error.to_string()))?;
        if body.len() > MAX_MESSAGE_BYTES {
            return Err(MessageError::TooLarge { bytes: body.len() });
        }
        Ok(Encoded {
            kind: self.kind(),
            id: common.uuid.clone(),
            body,
        })
    }
}

fn check_object(object: &AuditObject) -> Result<(), MessageError> {
    if object.object_type.trim().is_empty() {
        return Err(MessageError::Missing("object.type"));
    }
    if object.id.is_empty() {
        return Err(MessageError::Missing("object.id"));
    }
    Ok(())
}

fn check_subject(subject: &DataSubject) -> Result<(), MessageError> {
    if subject.subject_type.trim().is_empty() {
        return Err(MessageError::Missing("data_subject.type"));
    }
    if subject.id.is_empty() {
        return Err(MessageError::Missing("data_subject.id"));
    }
    Ok(())
}

fn check_changes(attributes: &[ChangedAttribute]) -> Result<(), MessageError> {
    if attributes.is_empty() {
        return Err(MessageError::Missing("attributes"));
    }
    if attributes.iter().any(|a| a.name.trim().is_empty()) {
        return Err(MessageError::Missing("attributes.name"));
    }
    Ok(())
}

/// At most `max` characters of `text`, with `…` when cut: a caller's
/// words never reach a message whole.
pub fn shortened(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn common() -> Common {
        Common {
            uuid: "71fa93d9-c993-405f-ba1b-a9ef42668199".into(),
            user: "alice".into(),
            time: "2023-02-26T08:13:48.287Z".into(),
            tenant: PROVIDER_TENANT.into(),
        }
    }

    fn ids(key: &str, value: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(key.to_string(), value.to_string())])
    }

    #[test]
    fn the_kinds_serialize_as_the_reference_shows() {
        let access = AuditMessage::DataAccess(DataAccess {
            common: common(),
            object: AuditObject {
                object_type: "AdminService.Customers".into(),
                id: ids("ID", "1004155"),
            },
            data_subject: DataSubject {
                subject_type: "AdminService.Customers".into(),
                role: Some("Customer".into()),
                id: ids("ID", "1004155"),
            },
            attributes: vec![ReadAttribute {
                name: "creditCardNo".into(),
                successful: None,
            }],
            channel: None,
        });
        let encoded = access.encode().unwrap();
        assert_eq!(encoded.kind.path(), "data-accesses");
        let body: Value = serde_json::from_str(&encoded.body).unwrap();
        assert_eq!(
            body,
            json!({"data_subject":{"id":{"ID":"1004155"},"role":"Customer","type":"AdminService.Customers"},
                "object":{"type":"AdminService.Customers","id":{"ID":"1004155"}},
                "attributes":[{"name":"creditCardNo"}],
                "uuid":"71fa93d9-c993-405f-ba1b-a9ef42668199","tenant":"$PROVIDER","user":"alice",
                "time":"2023-02-26T08:13:48.287Z"})
        );
        let security = AuditMessage::Security(SecurityEvent {
            common: common(),
            data: json!({"user":"alice","action":"x"}).to_string(),
            ip: Some("127.0.0.1".into()),
        });
        let body: Value = serde_json::from_str(&security.encode().unwrap().body).unwrap();
        assert_eq!(body["data"], "{\"action\":\"x\",\"user\":\"alice\"}");
        assert_eq!(body["ip"], "127.0.0.1");
        assert_eq!(body.as_object().unwrap().len(), 6);
    }

    #[test]
    fn missing_fields_and_oversized_messages_are_refused_before_sending() {
        let modification = AuditMessage::DataModification(DataModification {
            common: common(),
            object: AuditObject {
                object_type: "A_SalesOrder".into(),
                id: ids("SalesOrder", "4711"),
            },
            data_subject: DataSubject {
                subject_type: "BusinessPartner".into(),
                role: None,
                id: BTreeMap::new(),
            },
            attributes: vec![ChangedAttribute {
                name: "x".into(),
                old: None,
                new: Some("y".into()),
            }],
            success: Some(true),
        });
        assert_eq!(
            modification.encode().unwrap_err(),
            MessageError::Missing("data_subject.id")
        );
        let large = AuditMessage::Security(SecurityEvent {
            common: common(),
            data: "x".repeat(MAX_MESSAGE_BYTES),
            ip: None,
        });
        assert!(matches!(
            large.encode().unwrap_err(),
            MessageError::TooLarge { .. }
        ));
        assert_eq!(shortened("abcdef", 3), "abc…");
        assert_eq!(shortened("ab", 3), "ab");
    }
}
