//! The seam the specialists read through ([`OrderSource`]) and the
//! normalised types it answers with: orders, items, credit, prices,
//! missing fields, blocks, and how a read fails. A leaf of its own because
//! every source (`embedded`, `s4hana/`) and the block rules implement or
//! fill them, while `mod.rs` re-exports those sources.

use super::amount::Amount;
use super::subject::Subject;
use crate::secret::BearerToken;
use std::sync::Arc;

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
    /// What [`BlockRules::classify`](super::BlockRules::classify) made of the status and block fields.
    #[serde(skip)]
    pub blocks: Blocks,
    /// S/4HANA's ETag of the order as read (`__metadata.etag`), for a
    /// write's `If-Match`; empty for the embedded data.
    #[serde(skip)]
    pub etag: String,
    /// When the order last changed, as the embedded data states it (S/4HANA's
    /// reads leave it empty: the ETag, made from the same field with a finer
    /// precision, stands for it). See [`SalesOrder::version`].
    #[serde(default)]
    pub last_change_date_time: String,
    /// Block codes the order carries that no configured rule counts as a
    /// block (set by [`BlockRules::classify`](super::BlockRules::classify)): the answer names them rather
    /// than claim the order has no block.
    #[serde(skip)]
    pub unconfigured_blocks: Vec<UnconfiguredBlock>,
}

/// A block code on an order that the `backend.blocks` settings do not
/// count as any kind of block the specialists explain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnconfiguredBlock {
    pub field: BlockField,
    /// The code as S/4HANA sends it (`Q1`).
    pub code: String,
}

/// Which block field of the order carries an unconfigured code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockField {
    /// `HeaderBillingBlockReason`.
    Billing,
    /// `DeliveryBlockReason` (only when `delivery_block_codes` is a list).
    Delivery,
}

impl BlockField {
    /// The setting that lists the codes this agent explains for the field.
    pub fn setting(self) -> &'static str {
        match self {
            BlockField::Billing => "backend.blocks.price_dispute_billing_blocks",
            BlockField::Delivery => "backend.blocks.delivery_block_codes",
        }
    }

    /// That setting's environment variable.
    pub fn env(self) -> &'static str {
        match self {
            BlockField::Billing => "AGENT__BACKEND__BLOCKS__PRICE_DISPUTE_BILLING_BLOCKS",
            BlockField::Delivery => "AGENT__BACKEND__BLOCKS__DELIVERY_BLOCK_CODES",
        }
    }
}

/// The kinds of block an order has, by the configured rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Blocks {
    pub credit: bool,
    pub price_dispute: bool,
    pub delivery: bool,
}

impl SalesOrder {
    /// Which state of the order this is, for the action ledger's key: the
    /// ETag when S/4HANA sent one, else `LastChangeDateTime`. Every change
    /// of the order gives a new one; compared verbatim, never parsed.
    pub fn version(&self) -> &str {
        if self.etag.is_empty() {
            &self.last_change_date_time
        } else {
            &self.etag
        }
    }

    pub fn credit_blocked(&self) -> bool {
        self.blocks.credit
    }

    pub fn price_disputed(&self) -> bool {
        self.blocks.price_dispute
    }

    pub fn delivery_blocked(&self) -> bool {
        self.blocks.delivery
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SalesOrderItem {
    pub sales_order_item: String,
    pub material: String,
    pub requested_quantity: String,
    pub net_amount: Amount,
    /// The rate of the configured price condition (`PPR0`) on the item,
    /// when the source has pricing elements (S/4HANA's
    /// `to_Item/to_PricingElement`); the embedded data has none.
    #[serde(default)]
    pub condition_rate: Option<Amount>,
}

impl SalesOrderItem {
    /// The price the order bills for the item, to set against the price
    /// list: the configured condition's rate, else the item's net amount.
    pub fn billed_price(&self) -> Amount {
        self.condition_rate.unwrap_or(self.net_amount)
    }
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

/// A customer as its master record names it: S/4HANA's `A_Customer`
/// (`Customer`, `CustomerName`), the embedded `customers.json`. The number
/// is the orders' `SoldToParty`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Customer {
    pub customer: String,
    pub customer_name: String,
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
    /// Bad S/4HANA settings (at start, or a destination that cannot work).
    #[error("the S/4HANA connection is not set up right: {0}")]
    Settings(String),
    /// S/4HANA answered 403 for this object (`sales order 4711`).
    #[error("S/4HANA does not let you see {0}")]
    Forbidden(Subject),
    /// A timeout, a connection failure or a 5xx (after the retries).
    #[error("S/4HANA did not answer in time ({0})")]
    NoAnswer(String),
    /// The caller has no user token: S/4HANA is read only as a person.
    #[error("no user identity to read S/4HANA with")]
    NoUser,
    /// The user's identity was not accepted (a failed exchange,
    /// `authTokens[0].error`, or S/4HANA's 401).
    #[error("S/4HANA did not accept your identity: {0}")]
    Identity(String),
}

/// How a failed read ends the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The answer is a refusal (A2A `rejected`).
    Rejected,
    /// The answer is a failure (A2A `failed`).
    Failed,
}

impl BackendError {
    /// At start: the data folder `backend.data_dir` names is missing a file
    /// or holds an invalid one, or the S/4HANA settings cannot work (a bad
    /// setting, not an outage).
    pub fn is_bad_settings(&self) -> bool {
        match self {
            BackendError::InvalidData { .. } | BackendError::Settings(_) => true,
            BackendError::Unavailable(_)
            | BackendError::Forbidden(_)
            | BackendError::NoAnswer(_)
            | BackendError::NoUser
            | BackendError::Identity(_) => false,
        }
    }

    /// The class of the failure, as a failed span's `error.type` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            BackendError::Unavailable(_) => "unavailable",
            BackendError::InvalidData { .. } => "invalid_data",
            BackendError::Settings(_) => "settings",
            BackendError::Forbidden(_) => "forbidden",
            BackendError::NoAnswer(_) => "no_answer",
            BackendError::NoUser => "no_user",
            BackendError::Identity(_) => "identity",
        }
    }

    /// What the user is told, and whether it is a refusal or a failure.
    /// The details (status, transaction id) are in the log and the span.
    pub fn for_the_user(&self) -> (Refusal, String) {
        match self {
            BackendError::Forbidden(what) => (
                Refusal::Rejected,
                format!("S/4HANA does not let you see {what}."),
            ),
            BackendError::NoAnswer(_) => (
                Refusal::Failed,
                "S/4HANA did not answer in time; please try again.".into(),
            ),
            BackendError::NoUser => (
                Refusal::Rejected,
                "I read S/4HANA only as the person asking, and this request carries no user \
                 identity (a technical caller). Please ask as a signed-in user."
                    .into(),
            ),
            BackendError::Identity(reason) => (
                Refusal::Failed,
                format!(
                    "S/4HANA did not accept your identity ({reason}). Nothing was read; ask your \
                     administrator to check the S/4HANA connection (order-exception-agent diagnose)."
                ),
            ),
            BackendError::Settings(reason) => (
                Refusal::Failed,
                format!(
                    "The S/4HANA connection is not set up right ({reason}). Please tell your administrator."
                ),
            ),
            BackendError::Unavailable(_) | BackendError::InvalidData { .. } => (
                Refusal::Failed,
                format!(
                    "The order data could not be read right now ({self}). Please try again later."
                ),
            ),
        }
    }
}

/// Who a turn reads as: the person's own token (S/4HANA is read with it)
/// and their user id (the audit log names whom personal data was read
/// for). Both `None` for the source's own identity.
#[derive(Clone, Copy, Default)]
pub struct ReadingUser<'a> {
    pub token: Option<&'a BearerToken>,
    pub user_id: Option<&'a str>,
}

/// Whose identity the source reads with, for `GET /health`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadIdentity {
    /// The embedded demo data: no system, no user.
    None,
    /// Every read is made as the person asking (principal propagation).
    CallingUser,
    /// One technical user for every caller (direct mode, a
    /// `BasicAuthentication` or `NoAuthentication` destination).
    TechnicalUser,
    /// A destination not looked up yet: its type decides.
    NotYetKnown,
}

/// What `GET /health` says about the order source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SourceInfo {
    /// `embedded` or `s4hana`.
    pub source: &'static str,
    pub identity: ReadIdentity,
    /// `direct` or `destination` (S/4HANA only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection: Option<&'static str>,
    /// The destination's name (destination mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination: Option<String>,
    /// The destination's `Authentication` as last looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authentication: Option<String>,
}

impl SourceInfo {
    pub fn embedded() -> Self {
        SourceInfo {
            source: "embedded",
            identity: ReadIdentity::None,
            connection: None,
            destination: None,
            authentication: None,
        }
    }
}

#[async_trait]
pub trait OrderSource: Send + Sync {
    /// What the source is and whose identity it reads with (from memory:
    /// `GET /health` never waits on a backend).
    fn describe(&self) -> SourceInfo {
        SourceInfo::embedded()
    }

    /// This source as the calling user sees it: every read of the returned
    /// source is made with `user`'s identity, and the personal data it
    /// reads is a data access for the audit log in `user`'s name (the
    /// embedded data is the same for everyone and is no one's personal
    /// data). Called once per turn.
    fn as_user(self: Arc<Self>, user: ReadingUser<'_>) -> Arc<dyn OrderSource>;

    /// The order with everything its block note names, incomplete master
    /// data included (S/4HANA: after its partners' addresses are read).
    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError>;
    /// The order as its own fields show it: the same blocks, amounts,
    /// items, partners' customer and notes as [`OrderSource::sales_order`],
    /// but the block note names only the blocks of its own fields (no
    /// incomplete master data), so no read beyond the order's is waited
    /// for (S/4HANA: one round trip, the addresses are not read). For an
    /// answer that needs no more of the order, whose own reads then start a
    /// round earlier. A later `sales_order` of the same turn reads only
    /// what is missing.
    async fn sales_order_fields(
        &self,
        sales_order: &str,
    ) -> Result<Option<SalesOrder>, BackendError> {
        self.sales_order(sales_order).await
    }
    async fn credit_account(&self, customer: &str) -> Result<Option<CreditAccount>, BackendError>;
    async fn list_price(
        &self,
        customer: &str,
        material: &str,
    ) -> Result<Option<PriceCondition>, BackendError>;
    async fn incompletion(&self, sales_order: &str) -> Result<Vec<Incompletion>, BackendError>;
    /// The open orders `query` asks for (any block or incompletion, or one
    /// kind; of one customer or all), in order-number order, at most
    /// `query.limit` of them (ask for one more than you show to learn
    /// whether there are more).
    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError>;
    /// The customers whose name contains `part`, in number order, at most
    /// `limit`. Case is ignored as far as the source can: S/4HANA compares
    /// as stored, so it is asked for `part` as typed, in lower case,
    /// capitalised and in upper case. A `part` longer than
    /// [`MAX_NAME_PART`] characters names no customer.
    async fn customers_named(
        &self,
        part: &str,
        limit: usize,
    ) -> Result<Vec<Customer>, BackendError>;
}

/// The longest name part a customer search takes, in characters: S/4HANA's
/// `CustomerName` holds 80.
pub const MAX_NAME_PART: usize = 80;

/// Which kind of block a [`BlockedQuery`] asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Credit,
    PriceDispute,
    Delivery,
    /// A partner address with a required field empty (the incompletion).
    MasterData,
}

/// A question for blocked orders: of one customer (`SoldToParty`) or all,
/// of one kind or any, at most `limit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedQuery {
    pub customer: Option<String>,
    pub kind: Option<BlockKind>,
    pub limit: usize,
}

impl BlockedQuery {
    /// Any block, every customer, at most `limit` orders.
    pub fn any(limit: usize) -> Self {
        BlockedQuery {
            customer: None,
            kind: None,
            limit,
        }
    }

    pub fn of_customer(mut self, customer: &str) -> Self {
        self.customer = Some(customer.to_string());
        self
    }

    pub fn of_kind(mut self, kind: BlockKind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// Whether an order with these blocks (and `incomplete` master data)
    /// answers the query; the customer is checked by the caller.
    pub fn wants(&self, blocks: Blocks, incomplete: bool) -> bool {
        match self.kind {
            None => blocks.credit || blocks.price_dispute || blocks.delivery || incomplete,
            Some(BlockKind::Credit) => blocks.credit,
            Some(BlockKind::PriceDispute) => blocks.price_dispute,
            Some(BlockKind::Delivery) => blocks.delivery,
            Some(BlockKind::MasterData) => incomplete,
        }
    }
}
