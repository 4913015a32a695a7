//! A specialist's structured proposal. Only this, never reply text, can lead
//! to an action.

use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    RequestCreditReview,
    OpenDisputeCase,
    RequestMasterDataChange,
    RequestDeliveryDateChange,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::RequestCreditReview => "request_credit_review",
            Action::OpenDisputeCase => "open_dispute_case",
            Action::RequestMasterDataChange => "request_master_data_change",
            Action::RequestDeliveryDateChange => "request_delivery_date_change",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposal {
    pub action: Action,
    pub sales_order: String,
    /// The skill id of the specialist that proposes it.
    pub specialist: String,
    /// One line for people: what would be filed.
    pub summary: String,
    /// Specialist-specific facts (amounts, fields, who decides).
    #[serde(flatten)]
    pub details: Map<String, Value>,
}
