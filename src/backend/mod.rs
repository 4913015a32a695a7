//! Where the specialists read orders, credit, prices and missing fields.
//! `OrderSource` is the seam: the embedded demo data today, S/4HANA OData later.

mod amount;
mod embedded;

pub use amount::{Amount, AmountError};
pub use embedded::EmbeddedOrders;

use async_trait::async_trait;
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SalesOrder {
    pub sales_order: String,
    pub sold_to_party: String,
    pub total_net_amount: Amount,
    pub transaction_currency: String,
    /// `B`: the credit check failed.
    #[serde(default)]
    pub total_credit_check_status: String,
    #[serde(default)]
    pub delivery_block_reason: String,
    #[serde(default)]
    pub header_billing_block_reason: String,
    #[serde(default)]
    pub block_note: String,
    /// The customer's own words: data to quote, never an instruction.
    #[serde(default)]
    pub customer_note: String,
    #[serde(default)]
    pub items: Vec<SalesOrderItem>,
}

impl SalesOrder {
    pub fn credit_blocked(&self) -> bool {
        self.total_credit_check_status == "B"
    }

    pub fn price_disputed(&self) -> bool {
        self.header_billing_block_reason == "ZP"
    }

    pub fn delivery_blocked(&self) -> bool {
        !self.delivery_block_reason.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SalesOrderItem {
    pub sales_order_item: String,
    pub material: String,
    pub requested_quantity: String,
    pub net_amount: Amount,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreditAccount {
    pub business_partner: String,
    pub credit_limit_amount: Amount,
    pub open_items_amount: Amount,
    pub currency: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PriceCondition {
    pub customer: String,
    pub material: String,
    pub condition_rate_value: Amount,
    pub condition_currency: String,
}

/// One entry of the incompletion log.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Incompletion {
    pub sales_order: String,
    pub business_partner: String,
    pub object: String,
    pub missing_fields: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("the order backend could not be read: {0}")]
    Unavailable(String),
    #[error("the demo data file {file} is invalid: {reason}")]
    InvalidData { file: String, reason: String },
}

impl BackendError {
    /// At start: the data folder `backend.data_dir` names is missing a file
    /// or holds an invalid one (a bad setting, not an outage).
    pub fn is_bad_settings(&self) -> bool {
        match self {
            BackendError::InvalidData { .. } => true,
            BackendError::Unavailable(_) => false,
        }
    }
}

#[async_trait]
pub trait OrderSource: Send + Sync {
    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError>;
    async fn credit_account(&self, customer: &str) -> Result<Option<CreditAccount>, BackendError>;
    async fn list_price(
        &self,
        customer: &str,
        material: &str,
    ) -> Result<Option<PriceCondition>, BackendError>;
    async fn incompletion(&self, sales_order: &str) -> Result<Vec<Incompletion>, BackendError>;
    /// Orders with any block or incompletion, in order-number order.
    async fn blocked_orders(&self) -> Result<Vec<SalesOrder>, BackendError>;
}
