//! What counts as which block: S/4HANA's status values, block codes,
//! condition types and text ids are customizing, so they are settings
//! (`backend.blocks`) with the defaults of `reference/s4hana.md` §2 and the
//! demo data, never constants in the specialists.

use super::{BlockField, Blocks, SalesOrder, UnconfiguredBlock};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockRules {
    /// `TotalCreditCheckStatus` values that mean "credit block" (`B` not
    /// OK, `C` partially released: still blocked).
    pub credit_blocked_statuses: Vec<String>,
    /// Values that mean "released by the credit representative" (`D`):
    /// never a block, whatever else is configured.
    pub credit_released_statuses: Vec<String>,
    /// `DeliveryBlockReason` codes for the delivery specialist; empty = any
    /// code that is set.
    pub delivery_block_codes: Vec<String>,
    /// `HeaderBillingBlockReason` codes that mean a price dispute.
    pub price_dispute_billing_blocks: Vec<String>,
    /// Block code → the clerk's words for it, used in the block note of an
    /// S/4HANA order (`ZL` → "customer asked for a later date").
    pub block_texts: BTreeMap<String, String>,
    /// Address fields that must not be empty (a PO-box address may
    /// legitimately have no street: drop `StreetName` then).
    pub required_address_fields: Vec<String>,
    /// Partner functions whose address is checked (`SH` ship-to, `SP` sold-to).
    pub checked_partner_functions: Vec<String>,
    /// The price condition type (`PPR0` in S/4HANA; classic SD: `PR00`).
    pub price_condition_type: String,
    /// The `LongTextID` of the header text that holds the customer's note.
    pub customer_note_text_id: String,
    /// The language of that text (ISO code, as the API sends it).
    pub customer_note_language: String,
}

impl Default for BlockRules {
    fn default() -> Self {
        let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        BlockRules {
            credit_blocked_statuses: strings(&["B", "C"]),
            credit_released_statuses: strings(&["D"]),
            delivery_block_codes: Vec::new(),
            price_dispute_billing_blocks: strings(&["ZP"]),
            block_texts: BTreeMap::from([
                (
                    "ZL".to_string(),
                    "customer asked for a later date".to_string(),
                ),
                ("ZP".to_string(), "customer disputes the price".to_string()),
            ]),
            required_address_fields: strings(&["StreetName", "PostalCode", "CityName", "Country"]),
            checked_partner_functions: strings(&["SH", "SP"]),
            price_condition_type: "PPR0".into(),
            customer_note_text_id: "0001".into(),
            customer_note_language: "EN".into(),
        }
    }
}

impl BlockRules {
    /// Set `order.blocks` from its status and block fields.
    pub fn classify(&self, order: &mut SalesOrder) {
        let status = order.total_credit_check_status.as_str();
        let delivery = order.delivery_block_reason.as_str();
        order.blocks = Blocks {
            credit: !status.is_empty()
                && !self.credit_released_statuses.iter().any(|s| s == status)
                && self.credit_blocked_statuses.iter().any(|s| s == status),
            price_dispute: self
                .price_dispute_billing_blocks
                .contains(&order.header_billing_block_reason),
            delivery: !delivery.is_empty()
                && (self.delivery_block_codes.is_empty()
                    || self
                        .delivery_block_codes
                        .iter()
                        .any(|code| code == delivery)),
        };
        let mut unconfigured = Vec::new();
        let billing = order.header_billing_block_reason.trim();
        if !billing.is_empty() && !order.blocks.price_dispute {
            unconfigured.push(UnconfiguredBlock {
                field: BlockField::Billing,
                code: billing.to_string(),
            });
        }
        if !delivery.trim().is_empty() && !order.blocks.delivery {
            unconfigured.push(UnconfiguredBlock {
                field: BlockField::Delivery,
                code: delivery.trim().to_string(),
            });
        }
        order.unconfigured_blocks = unconfigured;
    }

    /// The clerk-readable sentence S/4HANA has no field for, built from the
    /// blocks (the embedded data's `BlockNote` wording, which the router
    /// knows). `incomplete` names the object with missing data.
    pub fn block_note(&self, order: &SalesOrder, incomplete: Option<&str>) -> String {
        let text = |code: &str| self.block_texts.get(code).cloned();
        let mut notes = Vec::new();
        if order.blocks.credit {
            notes.push("Blocked by the credit check.".to_string());
        }
        if order.blocks.price_dispute {
            let code = &order.header_billing_block_reason;
            notes.push(format!(
                "Pricing: {}.",
                text(code).unwrap_or_else(|| format!("billing block {code}, price dispute"))
            ));
        }
        if let Some(object) = incomplete {
            notes.push(format!("Incomplete: {object} data missing."));
        }
        if order.blocks.delivery {
            let code = &order.delivery_block_reason;
            notes.push(format!(
                "Delivery block: {}.",
                text(code).unwrap_or_else(|| format!("reason {code}"))
            ));
        }
        notes.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Amount;

    fn order(status: &str, delivery: &str, billing: &str) -> SalesOrder {
        SalesOrder {
            sales_order: "1".into(),
            sold_to_party: "2".into(),
            total_net_amount: Amount::from_cents(0),
            transaction_currency: "EUR".into(),
            total_credit_check_status: status.into(),
            delivery_block_reason: delivery.into(),
            header_billing_block_reason: billing.into(),
            block_note: String::new(),
            customer_note: String::new(),
            items: Vec::new(),
            blocks: Blocks::default(),
            etag: String::new(),
            last_change_date_time: String::new(),
            unconfigured_blocks: Vec::new(),
        }
    }

    #[test]
    fn the_default_rules_follow_the_reference() {
        let rules = BlockRules::default();
        for (status, credit) in [
            ("", false),
            ("A", false),
            ("B", true),
            ("C", true),
            ("D", false),
        ] {
            let mut o = order(status, "", "");
            rules.classify(&mut o);
            assert_eq!(o.blocks.credit, credit, "{status}");
        }
        let mut o = order("A", "ZL", "ZP");
        rules.classify(&mut o);
        assert!(o.blocks.delivery && o.blocks.price_dispute);
        assert_eq!(
            rules.block_note(&o, None),
            "Pricing: customer disputes the price. Delivery block: customer asked for a later date."
        );
    }

    #[test]
    fn other_codes_come_from_the_settings() {
        let rules = BlockRules {
            credit_blocked_statuses: vec!["X".into()],
            price_dispute_billing_blocks: vec!["Q1".into()],
            delivery_block_codes: vec!["07".into()],
            ..BlockRules::default()
        };
        let mut o = order("X", "ZL", "Q1");
        rules.classify(&mut o);
        assert!(o.blocks.credit && o.blocks.price_dispute && !o.blocks.delivery);
        let mut o = order("B", "07", "ZP");
        rules.classify(&mut o);
        assert!(!o.blocks.credit && !o.blocks.price_dispute && o.blocks.delivery);
        assert_eq!(rules.block_note(&o, None), "Delivery block: reason 07.");
    }

    #[test]
    fn codes_no_rule_counts_are_kept_as_unconfigured() {
        let rules = BlockRules::default();
        let mut o = order("A", "", "Q1");
        rules.classify(&mut o);
        assert_eq!(o.blocks, Blocks::default());
        assert_eq!(
            o.unconfigured_blocks,
            vec![UnconfiguredBlock {
                field: BlockField::Billing,
                code: "Q1".into()
            }]
        );
        // Any delivery code counts while the list is empty; not once it names others.
        let mut o = order("A", "07", "ZP");
        rules.classify(&mut o);
        assert!(o.unconfigured_blocks.is_empty());
        let rules = BlockRules {
            delivery_block_codes: vec!["ZL".into()],
            ..BlockRules::default()
        };
        rules.classify(&mut o);
        assert_eq!(
            o.unconfigured_blocks,
            vec![UnconfiguredBlock {
                field: BlockField::Delivery,
                code: "07".into()
            }]
        );
    }
}
