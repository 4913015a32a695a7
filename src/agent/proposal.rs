//! A specialist's structured proposal. Only this, never reply text, can lead
//! to an action.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    RequestCreditReview,
    OpenDisputeCase,
    RequestMasterDataChange,
    RequestDeliveryDateChange,
}

impl Action {
    pub const ALL: [Action; 4] = [
        Action::RequestCreditReview,
        Action::OpenDisputeCase,
        Action::RequestMasterDataChange,
        Action::RequestDeliveryDateChange,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Action::RequestCreditReview => "request_credit_review",
            Action::OpenDisputeCase => "open_dispute_case",
            Action::RequestMasterDataChange => "request_master_data_change",
            Action::RequestDeliveryDateChange => "request_delivery_date_change",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// The detail that holds the order's version as the specialist read it
/// ([`crate::backend::SalesOrder::version`]): what the ledger key tells a
/// new request from a repeat by.
pub const ORDER_VERSION: &str = "orderVersion";

impl Proposal {
    /// The order's version when this was proposed; empty for a proposal
    /// stored before proposals carried it.
    pub fn order_version(&self) -> &str {
        self.details
            .get(ORDER_VERSION)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "unknown action `{0}` (known: request_credit_review, open_dispute_case, request_master_data_change, request_delivery_date_change)"
)]
pub struct UnknownAction(pub String);

impl std::str::FromStr for Action {
    type Err = UnknownAction;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Action::ALL
            .into_iter()
            .find(|action| action.as_str() == name)
            .ok_or_else(|| UnknownAction(name.to_string()))
    }
}
