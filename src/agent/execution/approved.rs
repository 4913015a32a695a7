//! What the approval flow hands to execution: the ledger key of a proposal
//! (which approvals are one request), its approved parameters (its details,
//! the date the user gave, whether the approver's role releases a credit
//! block), and the delivery date question asked before the approval
//! question when the executor needs a date.

use super::date::{DateError, future_date, today};
use crate::agent::language::Language;
use crate::agent::ledger::ActionKey;
use crate::agent::rulebook::RuleBook;
use crate::agent::{Action, ORDER_VERSION, Proposal};
use crate::roles::BusinessRole;
use serde_json::{Map, Value, json};

/// The credit policy's bound for a credit manager's own decision.
const CREDIT_MANAGER_MAX_PERCENT: f64 = 5.0;

/// The ledger key of an approved proposal. Every action: the order and
/// the order's version as the specialist read it, so approving the same
/// proposal again, in this task or another, or fifty times at once, is one
/// request, and asking again after the order changed in S/4HANA (a credit
/// review after a new credit check, a dispute after a new price, a master
/// data change after the order was edited) is a new one. The version is
/// the one read when the action was proposed, never the one at approval:
/// the first approval's own write changes the order, and the others of the
/// same proposal must still find its row.
///
/// `request_delivery_date_change` also counts the requested date: another
/// date for the same order is another request (the customer asked again),
/// the same date in the same state a repeat.
pub fn key(proposal: &Proposal) -> ActionKey {
    let requested = match proposal.action {
        Action::RequestDeliveryDateChange => proposal
            .details
            .get("requestedDeliveryDate")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        Action::RequestCreditReview | Action::OpenDisputeCase | Action::RequestMasterDataChange => {
            ""
        }
    };
    ActionKey::new(
        &proposal.sales_order,
        proposal.action.as_str(),
        proposal.order_version(),
        requested,
    )
}

/// The parameters filed with the ledger row (the order's version is in its
/// key, not repeated here).
pub fn parameters(proposal: &Proposal, role: BusinessRole, rules: &RuleBook) -> Map<String, Value> {
    let mut parameters = proposal.details.clone();
    parameters.remove(ORDER_VERSION);
    if proposal.action == Action::RequestCreditReview {
        let within = proposal
            .details
            .get("percentOver")
            .and_then(Value::as_f64)
            .is_some_and(|percent| percent <= CREDIT_MANAGER_MAX_PERCENT);
        parameters.insert(
            "releaseCreditBlock".into(),
            json!(within && rules.may_release_credit_block(role)),
        );
    }
    parameters
}

/// Does this proposal still wait for the customer's date?
pub fn needs_date(proposal: &Proposal) -> bool {
    proposal.action == Action::RequestDeliveryDateChange
        && !proposal.details.contains_key("requestedDeliveryDate")
}

/// The proposal with the date the user typed in a turn in `language`, or
/// why it is not taken.
pub fn with_date(
    mut proposal: Proposal,
    text: &str,
    language: Language,
) -> Result<Proposal, DateError> {
    let date = future_date(text, today(), language)?;
    proposal.summary = format!(
        "Change the requested delivery date of sales order {} to {date}",
        proposal.sales_order
    );
    proposal
        .details
        .insert("requestedDeliveryDate".into(), json!(date));
    // The specialist could only say the date was still to be confirmed;
    // now it is, and the filed parameters say which.
    proposal.details.insert("newDate".into(), json!(date));
    Ok(proposal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn proposal(action: Action, details: Value) -> Proposal {
        Proposal {
            action,
            sales_order: "4740".into(),
            specialist: "delivery".into(),
            summary: "…".into(),
            details: details.as_object().cloned().unwrap_or_default(),
        }
    }

    #[test]
    fn the_key_is_the_order_its_version_as_proposed_and_for_a_delivery_date_the_date() {
        let dated = proposal(
            Action::RequestDeliveryDateChange,
            json!({"orderVersion": "W/\"v1\"", "requestedDeliveryDate": "2026-12-18", "etag": "W/\"v1\""}),
        );
        assert_eq!(
            key(&dated),
            ActionKey::new(
                "4740",
                "request_delivery_date_change",
                "W/\"v1\"",
                "2026-12-18"
            )
        );
        // Only the delivery date change counts a date.
        let review = proposal(
            Action::RequestCreditReview,
            json!({"orderVersion": "W/\"v1\"", "requestedDeliveryDate": "2026-12-18"}),
        );
        assert_eq!(
            key(&review),
            ActionKey::new("4740", "request_credit_review", "W/\"v1\"", "")
        );
        // A proposal stored before proposals carried a version: the old key.
        let stored = proposal(Action::OpenDisputeCase, json!({}));
        assert!(key(&stored).is_legacy());
        // The version is in the key, not repeated in the parameters.
        let rules = RuleBook::new(
            &crate::agent::specialists::registry(),
            &crate::agent::rulebook::RulesSettings::default(),
        )
        .expect("seed rules");
        let filed = parameters(&dated, BusinessRole::ArClerk, &rules);
        assert!(!filed.contains_key(ORDER_VERSION));
        assert_eq!(filed["etag"], "W/\"v1\"");
    }
}
