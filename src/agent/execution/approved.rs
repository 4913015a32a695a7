//! What the approval flow hands to execution: the approved parameters of a
//! proposal (its details, the date the user gave, whether the approver's
//! role releases a credit block), and the delivery date question asked
//! before the approval question when the executor needs a date.

use super::date::{DateError, future_date, today};
use crate::agent::rulebook::RuleBook;
use crate::agent::{Action, Proposal};
use crate::roles::BusinessRole;
use serde_json::{Map, Value, json};

pub const DATE_QUESTION: &str = "Which delivery date did the customer ask for?";

/// The credit policy's bound for a credit manager's own decision.
const CREDIT_MANAGER_MAX_PERCENT: f64 = 5.0;

/// The parameters filed with the ledger row.
pub fn parameters(proposal: &Proposal, role: BusinessRole, rules: &RuleBook) -> Map<String, Value> {
    let mut parameters = proposal.details.clone();
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

/// The proposal with the date the user typed, or why it is not taken.
pub fn with_date(mut proposal: Proposal, text: &str) -> Result<Proposal, DateError> {
    let date = future_date(text, today())?;
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
