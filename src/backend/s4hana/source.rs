//! The S/4HANA order source: what `setup` builds and the agent holds. A
//! question is answered by a fresh reader (`reader`) of the caller's;
//! `writes` adds the source's writes.

use super::reader::S4Reader;
use super::shared::S4Shared;
use crate::backend::{
    BackendError, BlockedQuery, CreditAccount, Customer, Incompletion, OrderSource, PriceCondition,
    SalesOrder, SourceInfo,
};
use crate::secret::BearerToken;
use async_trait::async_trait;
use std::sync::Arc;

pub struct S4HanaSource {
    pub(super) shared: Arc<S4Shared>,
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
        S4Reader::new(Arc::clone(&self.shared), user)
    }
}

#[async_trait]
impl OrderSource for S4HanaSource {
    fn describe(&self) -> SourceInfo {
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

    async fn customers_named(
        &self,
        part: &str,
        limit: usize,
    ) -> Result<Vec<Customer>, BackendError> {
        self.reader(None).customers_named(part, limit).await
    }
}
