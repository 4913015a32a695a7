//! One turn's view of S/4HANA: one user, one target, and the orders the
//! turn read, kept for it alone (never shared with another user or turn).
//! The source (`source`) makes one per turn; it reads through `reads`.

use super::loaded::{AddressCheck, Loaded};
use super::shared::S4Shared;
use super::transport::Target;
use super::{customers, reads};
use crate::audit::AccessLog;
use crate::backend::{
    BackendError, BlockedQuery, CreditAccount, Customer, Incompletion, OrderSource, PriceCondition,
    ReadingUser, SalesOrder, SourceInfo,
};
use crate::secret::BearerToken;
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

/// Whom the audit log names when the source reads with its own identity
/// (direct mode without a user, `diagnose`).
const SOURCE_IDENTITY: &str = "order-exception-agent";

/// One turn's view of S/4HANA: one user, one target, the turn's data
/// accesses.
pub struct S4Reader {
    shared: Arc<S4Shared>,
    user: Option<BearerToken>,
    target: tokio::sync::OnceCell<Target>,
    loaded: Mutex<HashMap<String, Loaded>>,
    accesses: AccessLog,
}

impl S4Reader {
    /// A reader for `user` (no token: the source's own identity) with
    /// nothing read yet.
    pub(super) fn new(shared: Arc<S4Shared>, user: ReadingUser<'_>) -> Self {
        let accesses = AccessLog::new(&shared.audit, user.user_id.unwrap_or(SOURCE_IDENTITY));
        S4Reader {
            shared,
            user: user.token.cloned(),
            target: tokio::sync::OnceCell::new(),
            loaded: Mutex::new(HashMap::new()),
            accesses,
        }
    }

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
                &self.accesses,
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
    fn describe(&self) -> SourceInfo {
        self.shared.describe()
    }

    fn as_user(self: Arc<Self>, user: ReadingUser<'_>) -> Arc<dyn OrderSource> {
        Arc::new(S4Reader::new(Arc::clone(&self.shared), user))
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
        reads::credit_account(&self.shared, target, &self.accesses, customer).await
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
        let gaps = reads::gaps(
            &self.shared,
            target,
            &self.accesses,
            &loaded.order,
            &loaded.partners,
        )
        .await?;
        loaded.addresses = AddressCheck::Read(gaps.clone());
        self.keep(sales_order, &loaded);
        Ok(gaps)
    }

    /// The orders are kept for the turn: their specialists read none of
    /// them, nor the addresses the query checked, again.
    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError> {
        let target = self.target().await?;
        let found = reads::blocked_orders(&self.shared, target, &self.accesses, query).await?;
        Ok(found
            .iter()
            .map(|loaded| {
                self.keep(&loaded.order.sales_order, loaded);
                loaded.noted(&self.shared)
            })
            .collect())
    }

    async fn customers_named(
        &self,
        part: &str,
        limit: usize,
    ) -> Result<Vec<Customer>, BackendError> {
        let target = self.target().await?;
        customers::customers_named(&self.shared, target, part, limit).await
    }
}
