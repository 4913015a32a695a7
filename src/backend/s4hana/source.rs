//! The S/4HANA order source: what `setup` builds and the agent holds. A
//! question is answered by a fresh reader (`reader`) of the caller's;
//! `writes` adds the source's writes.

use super::reader::S4Reader;
use super::shared::S4Shared;
use crate::backend::{
    BackendError, BlockedQuery, CreditAccount, Customer, Incompletion, OrderSource, PriceCondition,
    ReadingUser, SalesOrder, SourceInfo,
};
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

    fn reader(&self, user: ReadingUser<'_>) -> S4Reader {
        S4Reader::new(Arc::clone(&self.shared), user)
    }
}

#[async_trait]
impl OrderSource for S4HanaSource {
    fn describe(&self) -> SourceInfo {
        self.shared.describe()
    }

    fn as_user(self: Arc<Self>, user: ReadingUser<'_>) -> Arc<dyn OrderSource> {
        Arc::new(self.reader(user))
    }

    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError> {
        self.reader(ReadingUser::default())
            .sales_order(sales_order)
            .await
    }

    async fn sales_order_fields(
        &self,
        sales_order: &str,
    ) -> Result<Option<SalesOrder>, BackendError> {
        self.reader(ReadingUser::default())
            .sales_order_fields(sales_order)
            .await
    }

    async fn credit_account(&self, customer: &str) -> Result<Option<CreditAccount>, BackendError> {
        self.reader(ReadingUser::default())
            .credit_account(customer)
            .await
    }

    async fn list_price(
        &self,
        customer: &str,
        material: &str,
    ) -> Result<Option<PriceCondition>, BackendError> {
        self.reader(ReadingUser::default())
            .list_price(customer, material)
            .await
    }

    async fn incompletion(&self, sales_order: &str) -> Result<Vec<Incompletion>, BackendError> {
        self.reader(ReadingUser::default())
            .incompletion(sales_order)
            .await
    }

    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError> {
        self.reader(ReadingUser::default())
            .blocked_orders(query)
            .await
    }

    async fn customers_named(
        &self,
        part: &str,
        limit: usize,
    ) -> Result<Vec<Customer>, BackendError> {
        self.reader(ReadingUser::default())
            .customers_named(part, limit)
            .await
    }
}
