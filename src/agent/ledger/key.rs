//! The ledger key: what tells a new request from a repeat. The same action
//! on the same order in the same state, asking for the same thing, is one
//! request however often it is approved; once the order changed (a new
//! S/4HANA ETag, or a new `LastChangeDateTime` in the demo data) or the
//! request asks for something else (another delivery date), it is a new
//! one. Which part of a proposal goes into which field is decided where
//! proposals are approved (`agent::execution::approved::key`).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionKey {
    pub sales_order: String,
    pub action: String,
    /// The order's version as read when the action was proposed: S/4HANA's
    /// ETag (opaque, compared verbatim), or the demo data's
    /// `LastChangeDateTime`. Empty for rows filed before the ledger kept
    /// versions.
    #[serde(default)]
    pub order_version: String,
    /// What the action asks for beyond the order: the requested delivery
    /// date of a delivery date change; empty for the other actions.
    #[serde(default)]
    pub requested: String,
}

impl ActionKey {
    pub fn new(sales_order: &str, action: &str, order_version: &str, requested: &str) -> Self {
        ActionKey {
            sales_order: sales_order.to_string(),
            action: action.to_string(),
            order_version: order_version.to_string(),
            requested: requested.to_string(),
        }
    }

    /// A row filed before the ledger kept versions.
    pub fn is_legacy(&self) -> bool {
        self.order_version.is_empty() && self.requested.is_empty()
    }

    /// Twelve hex digits that stand for the version and the request (an
    /// ETag is long and full of quotes; notes and hook keys carry this
    /// instead). `None` for a legacy row, whose marks stay as they were.
    pub fn tag(&self) -> Option<String> {
        if self.is_legacy() {
            return None;
        }
        let mut digest = Sha256::new();
        digest.update(self.order_version.as_bytes());
        digest.update([0]);
        digest.update(self.requested.as_bytes());
        let hex: String = digest
            .finalize()
            .iter()
            .take(6)
            .map(|byte| format!("{byte:02x}"))
            .collect();
        Some(hex)
    }

    /// The key the outbound action hook's receiver drops repeats by:
    /// `<order>/<action>/<tag>`, and `<order>/<action>` for a legacy row
    /// (so its retries carry the key they always had).
    pub fn idempotency_key(&self) -> String {
        match self.tag() {
            Some(tag) => format!("{}/{}/{tag}", self.sales_order, self.action),
            None => format!("{}/{}", self.sales_order, self.action),
        }
    }

    /// The mark the agent's note carries so that a later attempt finds it:
    /// `[agent <action> <tag>]` (`[agent <action>]` for a legacy row).
    pub fn note_marker(&self) -> String {
        match self.tag() {
            Some(tag) => format!("[agent {} {tag}]", self.action),
            None => format!("[agent {}]", self.action),
        }
    }
}

impl std::fmt::Display for ActionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}", self.action, self.sales_order)?;
        if !self.requested.is_empty() {
            write!(f, " ({})", self.requested)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legacy_key_keeps_its_marks_and_a_versioned_one_gets_a_tag_of_its_own() {
        let legacy = ActionKey::new("4725", "open_dispute_case", "", "");
        assert_eq!(legacy.idempotency_key(), "4725/open_dispute_case");
        assert_eq!(legacy.note_marker(), "[agent open_dispute_case]");

        let first = ActionKey::new("4725", "open_dispute_case", "W/\"a\"", "");
        let changed = ActionKey::new("4725", "open_dispute_case", "W/\"b\"", "");
        let tag = first.tag().expect("a tag");
        assert_eq!(tag.len(), 12);
        assert_eq!(first.tag(), first.clone().tag(), "stable");
        assert_ne!(first.tag(), changed.tag());
        assert_eq!(
            first.idempotency_key(),
            format!("4725/open_dispute_case/{tag}")
        );
        assert_eq!(
            first.note_marker(),
            format!("[agent open_dispute_case {tag}]")
        );
        // The legacy marker is not found inside a versioned one.
        assert!(!first.note_marker().contains(&legacy.note_marker()));

        // The version and the request are kept apart.
        let a = ActionKey::new("4740", "request_delivery_date_change", "v1", "2026-12-18");
        let b = ActionKey::new("4740", "request_delivery_date_change", "v12026-12-18", "");
        assert_ne!(a.tag(), b.tag());
    }
}
