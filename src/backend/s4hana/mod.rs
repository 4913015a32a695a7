//! The S/4HANA order source: OData V2 reads of the released APIs
//! (`reference/s4hana.md` §1), as the calling user, mapped to the
//! normalised order the specialists read.
//!
//! Round trips per question: the order with its items, texts and partners
//! in one `$expand`/`$select` read; then what the answer needs of it, each
//! part with the reads it alone takes: the partners' addresses (in
//! parallel) only where the block note or the incompletion is asked for,
//! the credit limit and the open items in parallel, the price list in the
//! two-query pattern. What counts as which block is [`BlockRules`]. A turn
//! gets its own reader ([`OrderSource::as_user`]): the user's token, the
//! resolved target and the orders once read (by number or by the
//! blocked-orders query) stay in it and are never shared with another user
//! or turn.

pub mod connectivity;
pub mod diagnose;
mod odata;
mod reads;
pub mod setup;
pub mod transport;
pub mod writes;

use crate::backend::{
    BackendError, BlockRules, BlockedQuery, CreditAccount, Incompletion, OrderSource,
    PriceCondition, SalesOrder,
};
use crate::secret::BearerToken;
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use transport::{Target, Transport};

pub use setup::build;

/// What every reader shares: the transport and the rules.
pub struct S4Shared {
    pub transport: Transport,
    pub rules: BlockRules,
    pub settings: crate::backend::S4HanaSettings,
}

pub struct S4HanaSource {
    shared: Arc<S4Shared>,
}

impl S4HanaSource {
    pub fn new(shared: S4Shared) -> Self {
        S4HanaSource {
            shared: Arc::new(shared),
        }
    }

    pub fn shared(&self) -> &Arc<S4Shared> {
        &self.shared
    }

    fn reader(&self, user: Option<&BearerToken>) -> S4Reader {
        S4Reader {
            shared: Arc::clone(&self.shared),
            user: user.cloned(),
            target: tokio::sync::OnceCell::new(),
            loaded: Mutex::new(HashMap::new()),
        }
    }
}

/// One order as read: the order (its block note of its own fields), the
/// partners whose addresses are checked, and how far that check got.
#[derive(Clone)]
pub(crate) struct Loaded {
    order: SalesOrder,
    partners: Vec<reads::PartnerAddress>,
    addresses: AddressCheck,
}

/// The check of an order's partner addresses for missing fields.
#[derive(Clone)]
pub(crate) enum AddressCheck {
    /// Not made yet: nothing asked for it.
    NotRead,
    /// Made: the gaps found (none: complete).
    Read(Vec<Incompletion>),
    /// The addresses could not be read; the block note goes without.
    Failed,
}

impl Loaded {
    /// The order with its whole block note, as far as the addresses are
    /// known.
    fn noted(&self, shared: &S4Shared) -> SalesOrder {
        let mut order = self.order.clone();
        if let AddressCheck::Read(gaps) = &self.addresses {
            order.block_note = reads::block_note(shared, &order, gaps);
        }
        order
    }
}

/// One turn's view of S/4HANA: one user, one target.
pub struct S4Reader {
    shared: Arc<S4Shared>,
    user: Option<BearerToken>,
    target: tokio::sync::OnceCell<Target>,
    loaded: Mutex<HashMap<String, Loaded>>,
}

impl S4Reader {
    async fn target(&self) -> Result<&Target, BackendError> {
        self.target
            .get_or_try_init(|| self.shared.transport.target(self.user.as_ref()))
            .await
    }

    fn cached(&self, number: &str) -> Option<Loaded> {
        self.loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(number)
            .cloned()
    }

    fn keep(&self, number: &str, loaded: &Loaded) {
        self.loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(number.to_string(), loaded.clone());
    }

    /// The order as this turn read it, else one read of it (no addresses).
    async fn load(&self, number: &str) -> Result<Option<Loaded>, BackendError> {
        if let Some(loaded) = self.cached(number) {
            return Ok(Some(loaded));
        }
        let target = self.target().await?;
        let Some(loaded) = reads::sales_order(&self.shared, target, number).await? else {
            return Ok(None);
        };
        self.keep(number, &loaded);
        Ok(Some(loaded))
    }

    /// The order with its partners' addresses checked, unless that check
    /// was made (or failed) before in this turn.
    async fn load_checked(&self, number: &str) -> Result<Option<Loaded>, BackendError> {
        let Some(mut loaded) = self.load(number).await? else {
            return Ok(None);
        };
        if matches!(loaded.addresses, AddressCheck::NotRead) {
            let target = self.target().await?;
            loaded.addresses = match reads::gaps(
                &self.shared,
                target,
                &loaded.order,
                &loaded.partners,
            )
            .await
            {
                Ok(gaps) => AddressCheck::Read(gaps),
                Err(error) => {
                    tracing::warn!(%error, sales_order = number, "the partner addresses could not be read");
                    AddressCheck::Failed
                }
            };
            self.keep(number, &loaded);
        }
        Ok(Some(loaded))
    }
}

#[async_trait]
impl OrderSource for S4Reader {
    fn describe(&self) -> crate::backend::SourceInfo {
        self.shared.describe()
    }

    fn as_user(self: Arc<Self>, user: Option<&BearerToken>) -> Arc<dyn OrderSource> {
        Arc::new(
            S4HanaSource {
                shared: Arc::clone(&self.shared),
            }
            .reader(user),
        )
    }

    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError> {
        Ok(self
            .load_checked(sales_order)
            .await?
            .map(|loaded| loaded.noted(&self.shared)))
    }

    async fn sales_order_fields(
        &self,
        sales_order: &str,
    ) -> Result<Option<SalesOrder>, BackendError> {
        Ok(self.load(sales_order).await?.map(|loaded| loaded.order))
    }

    async fn credit_account(&self, customer: &str) -> Result<Option<CreditAccount>, BackendError> {
        let target = self.target().await?;
        reads::credit_account(&self.shared, target, customer).await
    }

    async fn list_price(
        &self,
        customer: &str,
        material: &str,
    ) -> Result<Option<PriceCondition>, BackendError> {
        let target = self.target().await?;
        reads::list_price(&self.shared, target, customer, material).await
    }

    async fn incompletion(&self, sales_order: &str) -> Result<Vec<Incompletion>, BackendError> {
        let Some(mut loaded) = self.load(sales_order).await? else {
            return Ok(Vec::new());
        };
        if let AddressCheck::Read(gaps) = loaded.addresses {
            return Ok(gaps);
        }
        // Not checked yet, or the check failed for the block note: the
        // incompletion is the answer, so a failure speaks.
        let target = self.target().await?;
        let gaps = reads::gaps(&self.shared, target, &loaded.order, &loaded.partners).await?;
        loaded.addresses = AddressCheck::Read(gaps.clone());
        self.keep(sales_order, &loaded);
        Ok(gaps)
    }

    /// The orders are kept for the turn: their specialists read none of
    /// them, nor the addresses the query checked, again.
    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError> {
        let target = self.target().await?;
        let found = reads::blocked_orders(&self.shared, target, query).await?;
        Ok(found
            .iter()
            .map(|loaded| {
                self.keep(&loaded.order.sales_order, loaded);
                loaded.noted(&self.shared)
            })
            .collect())
    }
}

impl S4Shared {
    fn describe(&self) -> crate::backend::SourceInfo {
        use crate::backend::{ReadIdentity, SourceInfo};
        match &self.transport.connection {
            transport::Connection::Direct { .. } => SourceInfo {
                source: "s4hana",
                identity: ReadIdentity::TechnicalUser,
                connection: Some("direct"),
                destination: None,
                authentication: None,
            },
            transport::Connection::Destination { service, name, .. } => {
                let seen = service.authentication_seen(name);
                let identity = match &seen {
                    None => ReadIdentity::NotYetKnown,
                    Some(kind) if crate::btp::FoundDestination::type_propagates_user(kind) => {
                        ReadIdentity::CallingUser
                    }
                    Some(_) => ReadIdentity::TechnicalUser,
                };
                SourceInfo {
                    source: "s4hana",
                    identity,
                    connection: Some("destination"),
                    destination: Some(name.clone()),
                    authentication: seen,
                }
            }
        }
    }
}

#[async_trait]
impl OrderSource for S4HanaSource {
    fn describe(&self) -> crate::backend::SourceInfo {
        self.shared.describe()
    }

    fn as_user(self: Arc<Self>, user: Option<&BearerToken>) -> Arc<dyn OrderSource> {
        Arc::new(self.reader(user))
    }

    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError> {
        self.reader(None).sales_order(sales_order).await
    }

    async fn sales_order_fields(
        &self,
        sales_order: &str,
    ) -> Result<Option<SalesOrder>, BackendError> {
        self.reader(None).sales_order_fields(sales_order).await
    }

    async fn credit_account(&self, customer: &str) -> Result<Option<CreditAccount>, BackendError> {
        self.reader(None).credit_account(customer).await
    }

    async fn list_price(
        &self,
        customer: &str,
        material: &str,
    ) -> Result<Option<PriceCondition>, BackendError> {
        self.reader(None).list_price(customer, material).await
    }

    async fn incompletion(&self, sales_order: &str) -> Result<Vec<Incompletion>, BackendError> {
        self.reader(None).incompletion(sales_order).await
    }

    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError> {
        self.reader(None).blocked_orders(query).await
    }
}
