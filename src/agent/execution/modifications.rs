//! The writes one attempt of an approved action makes in S/4HANA, as
//! `data-modifications` for the audit log (reference/audit-log.md §2.4,
//! §3.1): one message per write, in the approver's name, with the
//! attributes changed, `old` where the executor read them before and
//! `new`, and `success` as the write ended (a refused or unanswered write
//! is logged too: SAP asks for every attempt). The data subject is the
//! order's customer: `customer` of the approved proposal (`businessPartner`
//! for a master data change), else the sold-to party read before the
//! write. Texts are cut at [`TEXT_CHARS`] characters (a new one its
//! start, a replaced one its end, where the line added is): the agent's
//! note may quote what it was approved for, and no text reaches the log
//! whole.
//! [`super::Executions`] hands the messages to the audit room with the
//! ledger row's outcome, in its transaction.

use crate::agent::ledger::LedgerEntry;
use crate::audit::{AuditMessage, AuditObject, ChangedAttribute, Common, DataModification};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// How much of a text a message carries.
pub const TEXT_CHARS: usize = 200;

const SALES_ORDER: &str = "API_SALES_ORDER_SRV.A_SalesOrder";
const SALES_ORDER_TEXT: &str = "API_SALES_ORDER_SRV.A_SalesOrderText";
const CREDIT_BLOCKED_DOCUMENT: &str = "API_SLS_DOC_WITH_CREDIT_BLOCK.A_CreditBlockedSalesDocument";

/// The writes of one attempt, collected as they are made.
#[derive(Debug)]
pub struct Modifications {
    /// The approver: the action is made in their name.
    user: String,
    /// The customer named by the approved proposal, else the one read.
    subject: Mutex<Option<String>>,
    made: Mutex<Vec<AuditMessage>>,
}

/// `[(name, old, new)]` as changed attributes.
pub type Changes<'a> = &'a [(&'a str, Option<&'a str>, Option<&'a str>)];

impl Modifications {
    /// For an attempt of `entry`, approved by its approver.
    pub fn of(entry: &LedgerEntry) -> Self {
        let named = ["customer", "businessPartner"]
            .iter()
            .find_map(|key| entry.parameters.get(*key).and_then(Value::as_str))
            .filter(|id| !id.is_empty())
            .map(str::to_string);
        Modifications {
            user: crate::audit::shortened(&entry.approved_by, 200),
            subject: Mutex::new(named),
            made: Mutex::new(Vec::new()),
        }
    }

    /// The order's sold-to party as read: the subject unless the proposal
    /// named one.
    pub fn sold_to(&self, party: &str) {
        let mut subject = lock(&self.subject);
        if subject.is_none() && !party.is_empty() {
            *subject = Some(party.to_string());
        }
    }

    /// Fields of sales order `order` written (a MERGE).
    pub fn order_fields(&self, order: &str, changes: Changes<'_>, success: bool) {
        self.made(
            SALES_ORDER,
            BTreeMap::from([("SalesOrder".to_string(), order.to_string())]),
            order,
            changes,
            success,
        );
    }

    /// A text of sales order `order` created (`old` `None`) or replaced.
    pub fn text(
        &self,
        order: &str,
        (language, long_text_id): (&str, &str),
        old: Option<&str>,
        new: &str,
        success: bool,
    ) {
        let ids = BTreeMap::from([
            ("SalesOrder".to_string(), order.to_string()),
            ("Language".to_string(), language.to_string()),
            ("LongTextID".to_string(), long_text_id.to_string()),
        ]);
        // A replaced text is the old one with a line added: its end says
        // what changed.
        let (old, new) = match old {
            Some(old) => (Some(cut_end(old)), cut_end(new)),
            None => (None, cut(new)),
        };
        self.made(
            SALES_ORDER_TEXT,
            ids,
            order,
            &[("LongText", old.as_deref(), Some(new.as_str()))],
            success,
        );
    }

    /// `ReleaseCreditBlock` called for `order`: its credit check status as
    /// read before (`old`) and after (`new`, when read).
    pub fn credit_block_released(&self, order: &str, old: &str, new: Option<&str>, success: bool) {
        self.made(
            CREDIT_BLOCKED_DOCUMENT,
            BTreeMap::from([("SalesDocument".to_string(), order.to_string())]),
            order,
            &[("TotalCreditCheckStatus", Some(old), new)],
            success,
        );
    }

    /// The messages made so far, in the order of the writes.
    pub fn take(&self) -> Vec<AuditMessage> {
        std::mem::take(&mut *lock(&self.made))
    }

    fn made(
        &self,
        object_type: &str,
        id: BTreeMap<String, String>,
        order: &str,
        changes: Changes<'_>,
        success: bool,
    ) {
        // A row filed without a customer names the order (never expected:
        // every proposal names its customer).
        let subject = lock(&self.subject).clone();
        let data_subject = match subject {
            Some(partner) => crate::backend::s4hana::business_partner(&partner).1,
            None => crate::audit::DataSubject {
                subject_type: SALES_ORDER.into(),
                role: None,
                id: BTreeMap::from([("SalesOrder".to_string(), order.to_string())]),
            },
        };
        let attributes = changes
            .iter()
            .map(|(name, old, new)| ChangedAttribute {
                name: name.to_string(),
                old: old.map(str::to_string),
                new: new.map(str::to_string),
            })
            .collect();
        lock(&self.made).push(AuditMessage::DataModification(DataModification {
            common: Common::now(&self.user),
            object: AuditObject {
                object_type: object_type.into(),
                id,
            },
            data_subject,
            attributes,
            success: Some(success),
        }));
    }
}

/// A text as a message carries it: the first [`TEXT_CHARS`] characters.
fn cut(text: &str) -> String {
    crate::audit::shortened(text, TEXT_CHARS)
}

/// The last [`TEXT_CHARS`] characters of a text, `…` before them when cut.
fn cut_end(text: &str) -> String {
    let count = text.chars().count();
    if count <= TEXT_CHARS {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - TEXT_CHARS).collect();
    format!("…{tail}")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(message: &AuditMessage) -> Value {
        let AuditMessage::DataModification(modification) = message else {
            panic!("a data modification");
        };
        let mut body = serde_json::to_value(modification).unwrap();
        let common = body.as_object_mut().unwrap();
        for key in ["uuid", "time"] {
            assert!(common.remove(key).is_some(), "{key}");
        }
        body
    }

    #[test]
    fn a_write_is_one_message_with_old_new_and_success_in_the_approvers_name() {
        let mut entry = crate::agent::ledger::contract::entry("4740", "alice");
        entry.parameters.insert("customer".into(), json!("10051"));
        let made = Modifications::of(&entry);
        made.sold_to("99999");
        made.order_fields(
            "4740",
            &[
                (
                    "RequestedDeliveryDate",
                    Some("2026-12-01"),
                    Some("2026-12-18"),
                ),
                ("DeliveryBlockReason", Some("01"), Some("")),
            ],
            true,
        );
        made.text("4740", ("EN", "0002"), None, &"x".repeat(500), false);
        let messages = made.take();
        assert_eq!(messages.len(), 2);
        assert!(made.take().is_empty(), "taken once");
        assert_eq!(
            body(&messages[0]),
            json!({
                "user": "alice", "tenant": "$PROVIDER",
                "object": {"type": "API_SALES_ORDER_SRV.A_SalesOrder", "id": {"SalesOrder": "4740"}},
                "data_subject": {"type": "API_BUSINESS_PARTNER.A_BusinessPartner", "role": "Customer",
                    "id": {"BusinessPartner": "10051"}},
                "attributes": [
                    {"name": "RequestedDeliveryDate", "old": "2026-12-01", "new": "2026-12-18"},
                    {"name": "DeliveryBlockReason", "old": "01", "new": ""}],
                "success": true
            })
        );
        let text = body(&messages[1]);
        assert_eq!(
            text["object"]["id"],
            json!({"SalesOrder": "4740", "Language": "EN", "LongTextID": "0002"})
        );
        assert_eq!(
            text["attributes"][0]["new"]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            TEXT_CHARS + 1,
            "cut, with …"
        );
        assert!(text["attributes"][0].get("old").is_none());
        assert_eq!(text["success"], false);
        assert!(messages[1].encode().is_ok(), "the service would take it");
    }

    #[test]
    fn without_a_named_customer_the_sold_to_party_read_is_the_subject() {
        let entry = crate::agent::ledger::contract::entry("4711", "bob");
        let made = Modifications::of(&entry);
        made.sold_to("10023");
        made.credit_block_released("4711", "B", Some("D"), true);
        let message = body(&made.take()[0]);
        assert_eq!(message["data_subject"]["id"]["BusinessPartner"], "10023");
        assert_eq!(
            message["attributes"],
            json!([{"name": "TotalCreditCheckStatus", "old": "B", "new": "D"}])
        );
        assert_eq!(message["user"], "bob");
    }
}
