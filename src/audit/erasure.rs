//! What the audit trail says when one user's data in this service is
//! erased (`POST /users/erase`, the CLI `erase-user`; docs/personal-data.md):
//! a data modification whose object is the user's data here, whose data
//! subject is the user (issuer, tenant and user id: what identifies them,
//! nothing more), and whose attributes say what went as counts, never as
//! the values themselves (no order, customer or note of theirs). The rooms
//! that erase hand in plain strings and numbers: this room imports none of
//! theirs.

use super::message::{
    AuditMessage, AuditObject, ChangedAttribute, Common, DataModification, DataSubject,
};

/// Whose data was erased: the user as their tokens name them.
#[derive(Debug, Clone, Copy)]
pub struct ErasedUser<'a> {
    /// `ias` or `xsuaa`.
    pub issuer: &'a str,
    /// IAS `app_tid`, XSUAA `zid`.
    pub tenant: &'a str,
    pub user_id: &'a str,
}

/// What was erased, as counts (also the answer's `erased`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErasedCounts {
    pub tasks: u64,
    pub contexts: u64,
    pub push_configs: u64,
    /// Ledger rows whose approver was replaced by `erased` (the rows stay).
    pub ledger_rows: u64,
}

/// The data modification for `user`'s data erased by `by` (the officer's
/// user id, or the operator of the CLI); `success` false when a store
/// failed part-way (what the counts say went, went).
pub fn user_data_erased(
    by: &str,
    user: ErasedUser<'_>,
    counts: ErasedCounts,
    success: bool,
) -> AuditMessage {
    // SAPAL wants `old` and `new` both, as strings, when either is set.
    let deleted = |name: &str, count: u64| ChangedAttribute {
        name: name.into(),
        old: Some(count.to_string()),
        new: Some("0".into()),
    };
    AuditMessage::DataModification(DataModification {
        common: Common::now(&super::shortened(by, 200)),
        object: AuditObject {
            object_type: "order-exception-agent.user-data".into(),
            id: [("service".to_string(), "order-exception-agent".to_string())].into(),
        },
        data_subject: DataSubject {
            subject_type: "user".into(),
            role: None,
            id: [
                ("issuer".to_string(), super::shortened(user.issuer, 20)),
                ("tenant".to_string(), super::shortened(user.tenant, 200)),
                ("userId".to_string(), super::shortened(user.user_id, 500)),
            ]
            .into(),
        },
        attributes: vec![
            deleted("tasks", counts.tasks),
            deleted("contexts", counts.contexts),
            deleted("pushConfigs", counts.push_configs),
            ChangedAttribute {
                name: "actionLedger.approver".into(),
                old: Some(format!("{} rows", counts.ledger_rows)),
                new: Some("erased".into()),
            },
        ],
        success: Some(success),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_erasure_is_a_data_modification_of_counts_only() {
        let message = user_data_erased(
            "dpo-1",
            ErasedUser {
                issuer: "ias",
                tenant: "t-1",
                user_id: "P000123",
            },
            ErasedCounts {
                tasks: 3,
                contexts: 2,
                push_configs: 1,
                ledger_rows: 4,
            },
            true,
        );
        let encoded = message.encode().expect("the service would accept it");
        assert_eq!(encoded.kind.path(), "data-modifications");
        let body: serde_json::Value = serde_json::from_str(&encoded.body).unwrap();
        assert_eq!(body["user"], "dpo-1");
        assert_eq!(
            body["data_subject"],
            serde_json::json!({"type": "user", "id": {"issuer": "ias", "tenant": "t-1", "userId": "P000123"}})
        );
        assert_eq!(
            body["attributes"][0],
            serde_json::json!({"name": "tasks", "old": "3", "new": "0"})
        );
        assert_eq!(
            body["attributes"][3],
            serde_json::json!({"name": "actionLedger.approver", "old": "4 rows", "new": "erased"})
        );
        assert_eq!(body["success"], true);
    }
}
