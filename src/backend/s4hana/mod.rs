//! The S/4HANA order source: OData V2 reads of the released APIs
//! (`reference/s4hana.md` §1), as the calling user, mapped to the
//! normalised order the specialists read.
//!
//! Round trips per question: the order with its items, texts and partners
//! in one `$expand`/`$select` read, then the partners' addresses in
//! parallel; the credit limit and the open items in parallel; the price
//! list in the two-query pattern. What counts as which block is
//! [`BlockRules`]. A turn gets its own reader ([`OrderSource::as_user`]):
//! the user's token, the resolved target and the order once read stay in
//! it and are never shared with another user.

pub mod connectivity;
pub mod diagnose;
mod odata;
mod reads;
pub mod setup;
pub mod transport;
pub mod writes;

use crate::backend::{
    BackendError, BlockRules, BlockedQuery, CreditAccount, Incompletion, OrderSource,
    PriceCondition, SalesOrder, UserToken,
};
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

    fn reader(&self, user: Option<&UserToken>) -> S4Reader {
        S4Reader {
            shared: Arc::clone(&self.shared),
            user: user.cloned(),
            target: tokio::sync::OnceCell::new(),
            loaded: Mutex::new(HashMap::new()),
        }
    }
}

/// One order as read, with the gaps of its partners' addresses (`None`:
/// the addresses could not be read).
#[derive(Clone)]
pub(crate) struct Loaded {
    order: SalesOrder,
    gaps: Option<Vec<Incompletion>>,
}

/// One turn's view of S/4HANA: one user, one target.
pub struct S4Reader {
    shared: Arc<S4Shared>,
    user: Option<UserToken>,
    target: tokio::sync::OnceCell<Target>,
    loaded: Mutex<HashMap<String, Loaded>>,
}

impl S4Reader {
    async fn target(&self) -> Result<&Target, BackendError> {
        self.target
            .get_or_try_init(|| self.shared.transport.target(self.user.as_ref()))
            .await
    }

    async fn load(&self, number: &str) -> Result<Option<Loaded>, BackendError> {
        if let Some(loaded) = self
            .loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(number)
        {
            return Ok(Some(loaded.clone()));
        }
        let target = self.target().await?;
        let Some(loaded) = reads::sales_order(&self.shared, target, number).await? else {
            return Ok(None);
        };
        self.loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(number.to_string(), loaded.clone());
        Ok(Some(loaded))
    }
}

#[async_trait]
impl OrderSource for S4Reader {
    fn describe(&self) -> crate::backend::SourceInfo {
        self.shared.describe()
    }

    fn as_user(self: Arc<Self>, user: Option<&UserToken>) -> Arc<dyn OrderSource> {
        Arc::new(
            S4HanaSource {
                shared: Arc::clone(&self.shared),
            }
            .reader(user),
        )
    }

    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError> {
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
        let Some(loaded) = self.load(sales_order).await? else {
            return Ok(Vec::new());
        };
        if let Some(gaps) = loaded.gaps {
            return Ok(gaps);
        }
        // The addresses failed while the order was read: read them again,
        // this time letting the failure speak.
        let target = self.target().await?;
        reads::gaps(
            &self.shared,
            target,
            &loaded.order,
            &reads::partners_of(&loaded.order),
        )
        .await
    }

    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError> {
        let target = self.target().await?;
        reads::blocked_orders(&self.shared, target, query).await
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

    fn as_user(self: Arc<Self>, user: Option<&UserToken>) -> Arc<dyn OrderSource> {
        Arc::new(self.reader(user))
    }

    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError> {
        self.reader(None).sales_order(sales_order).await
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
