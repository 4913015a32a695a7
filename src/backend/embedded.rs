//! The demo data set from `data/`, compiled into the binary (or read from a
//! folder with the same files). Its customers have the names of the S/4
//! demo records (`customers.json`, as `A_Customer` names them).

use super::{
    BackendError, BlockRules, BlockedQuery, CreditAccount, Customer, Incompletion, MAX_NAME_PART,
    OrderSource, PriceCondition, ReadingUser, SalesOrder,
};
use async_trait::async_trait;
use serde::de::DeserializeOwned;
use std::path::Path;
use std::sync::Arc;

const ORDERS: &str = include_str!("../../data/orders.json");
const CREDIT: &str = include_str!("../../data/credit.json");
const PRICES: &str = include_str!("../../data/prices.json");
const INCOMPLETION: &str = include_str!("../../data/incompletion.json");
const CUSTOMERS: &str = include_str!("../../data/customers.json");

#[derive(Debug, Clone)]
pub struct EmbeddedOrders {
    orders: Vec<SalesOrder>,
    credit: Vec<CreditAccount>,
    prices: Vec<PriceCondition>,
    incompletion: Vec<Incompletion>,
    /// In number order.
    customers: Vec<Customer>,
    /// Simulated backend latency per read (demos of the async path).
    latency: std::time::Duration,
}

fn parse<T: DeserializeOwned>(file: &str, text: &str) -> Result<Vec<T>, BackendError> {
    serde_json::from_str(text).map_err(|error| BackendError::InvalidData {
        file: file.to_string(),
        reason: error.to_string(),
    })
}

impl EmbeddedOrders {
    /// The data compiled into the binary.
    pub fn demo() -> Result<Self, BackendError> {
        Self::from_texts([ORDERS, CREDIT, PRICES, INCOMPLETION, CUSTOMERS])
    }

    /// The same five files from a folder. `customers.json` came later than
    /// the other four: a folder without it still loads, its customers have
    /// no names (a customer asked for by name is then "nobody"), and the
    /// start says so once.
    pub fn from_dir(dir: &Path) -> Result<Self, BackendError> {
        let failed = |name: &str, error: std::io::Error| BackendError::InvalidData {
            file: dir.join(name).display().to_string(),
            reason: error.to_string(),
        };
        let read =
            |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| failed(name, e));
        let customers = match std::fs::read_to_string(dir.join("customers.json")) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                tracing::warn!(
                    folder = %dir.display(),
                    "backend.data_dir has no customers.json: customers have no names, so none is found by name"
                );
                "[]".to_string()
            }
            Err(error) => return Err(failed("customers.json", error)),
        };
        Self::from_texts([
            &read("orders.json")?,
            &read("credit.json")?,
            &read("prices.json")?,
            &read("incompletion.json")?,
            &customers,
        ])
    }

    /// From the texts of `orders.json`, `credit.json`, `prices.json`,
    /// `incompletion.json` and `customers.json`.
    fn from_texts(
        [orders, credit, prices, incompletion, customers]: [&str; 5],
    ) -> Result<Self, BackendError> {
        let mut orders: Vec<SalesOrder> = parse("orders.json", orders)?;
        orders.sort_by(|a, b| a.sales_order.cmp(&b.sales_order));
        let mut customers: Vec<Customer> = parse("customers.json", customers)?;
        customers.sort_by(|a, b| a.customer.cmp(&b.customer));
        let rules = BlockRules::default();
        for order in &mut orders {
            rules.classify(order);
        }
        Ok(EmbeddedOrders {
            orders,
            credit: parse("credit.json", credit)?,
            prices: parse("prices.json", prices)?,
            incompletion: parse("incompletion.json", incompletion)?,
            customers,
            latency: std::time::Duration::ZERO,
        })
    }

    /// Classify the orders' blocks by these rules (`backend.blocks`).
    pub fn with_rules(mut self, rules: &BlockRules) -> Self {
        for order in &mut self.orders {
            rules.classify(order);
        }
        self
    }

    /// Every read waits this long first, like a slow S/4HANA would.
    pub fn with_latency(mut self, latency: std::time::Duration) -> Self {
        self.latency = latency;
        self
    }

    async fn delay(&self) {
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency).await;
        }
    }

    fn is_incomplete(&self, order: &SalesOrder) -> bool {
        self.incompletion
            .iter()
            .any(|entry| entry.sales_order == order.sales_order)
    }
}

#[async_trait]
impl OrderSource for EmbeddedOrders {
    /// The demo data is the same for every user.
    fn as_user(self: Arc<Self>, _user: ReadingUser<'_>) -> Arc<dyn OrderSource> {
        self
    }

    #[tracing::instrument(name = "backend.read", skip_all, fields(otel.name = "backend.read", backend.object = "sales_order"))]
    async fn sales_order(&self, sales_order: &str) -> Result<Option<SalesOrder>, BackendError> {
        self.delay().await;
        Ok(self
            .orders
            .iter()
            .find(|order| order.sales_order == sales_order)
            .cloned())
    }

    #[tracing::instrument(name = "backend.read", skip_all, fields(otel.name = "backend.read", backend.object = "credit_account"))]
    async fn credit_account(&self, customer: &str) -> Result<Option<CreditAccount>, BackendError> {
        self.delay().await;
        Ok(self
            .credit
            .iter()
            .find(|account| account.business_partner == customer)
            .cloned())
    }

    #[tracing::instrument(name = "backend.read", skip_all, fields(otel.name = "backend.read", backend.object = "price_condition"))]
    async fn list_price(
        &self,
        customer: &str,
        material: &str,
    ) -> Result<Option<PriceCondition>, BackendError> {
        self.delay().await;
        Ok(self
            .prices
            .iter()
            .find(|price| price.customer == customer && price.material == material)
            .cloned())
    }

    #[tracing::instrument(name = "backend.read", skip_all, fields(otel.name = "backend.read", backend.object = "incompletion"))]
    async fn incompletion(&self, sales_order: &str) -> Result<Vec<Incompletion>, BackendError> {
        self.delay().await;
        Ok(self
            .incompletion
            .iter()
            .filter(|entry| entry.sales_order == sales_order)
            .cloned()
            .collect())
    }

    #[tracing::instrument(name = "backend.read", skip_all, fields(otel.name = "backend.read", backend.object = "blocked_orders"))]
    async fn blocked_orders(&self, query: &BlockedQuery) -> Result<Vec<SalesOrder>, BackendError> {
        self.delay().await;
        let mut found: Vec<SalesOrder> = self
            .orders
            .iter()
            .filter(|order| {
                query
                    .customer
                    .as_ref()
                    .is_none_or(|customer| &order.sold_to_party == customer)
                    && query.wants(order.blocks, self.is_incomplete(order))
            })
            .cloned()
            .collect();
        found.sort_by(|a, b| a.sales_order.cmp(&b.sales_order));
        found.truncate(query.limit);
        Ok(found)
    }

    #[tracing::instrument(name = "backend.read", skip_all, fields(otel.name = "backend.read", backend.object = "customers"))]
    async fn customers_named(
        &self,
        part: &str,
        limit: usize,
    ) -> Result<Vec<Customer>, BackendError> {
        self.delay().await;
        if part.chars().count() > MAX_NAME_PART {
            return Ok(Vec::new());
        }
        let part = part.to_lowercase();
        Ok(self
            .customers
            .iter()
            .filter(|customer| customer.customer_name.to_lowercase().contains(&part))
            .take(limit)
            .cloned()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn demo_data_loads_and_lists_the_four_blocked_orders() {
        let orders = EmbeddedOrders::demo().unwrap();
        let blocked: Vec<String> = orders
            .blocked_orders(&BlockedQuery::any(100))
            .await
            .unwrap()
            .into_iter()
            .map(|order| order.sales_order)
            .collect();
        assert_eq!(blocked, ["4711", "4723", "4725", "4740"]);
    }

    #[tokio::test]
    async fn customers_are_found_by_a_part_of_their_name_in_any_case() {
        let orders = EmbeddedOrders::demo().unwrap();
        let numbers = |found: Vec<Customer>| -> Vec<String> {
            found
                .into_iter()
                .map(|customer| customer.customer)
                .collect()
        };
        let named = |part: &'static str, limit| {
            let orders = orders.clone();
            async move { numbers(orders.customers_named(part, limit).await.unwrap()) }
        };
        assert_eq!(named("nordWIND", 10).await, ["10023"]);
        assert_eq!(named("e", 10).await, ["10023", "10051", "10077"]);
        assert_eq!(named("e", 2).await, ["10023", "10051"]);
        assert_eq!(named("ACME", 10).await, Vec::<String>::new());
    }

    #[tokio::test]
    async fn a_folder_of_the_four_older_files_loads_with_no_names() {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        let folder = std::env::temp_dir().join(format!("agent-data-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&folder).unwrap();
        for file in [
            "orders.json",
            "credit.json",
            "prices.json",
            "incompletion.json",
        ] {
            std::fs::copy(source.join(file), folder.join(file)).unwrap();
        }
        let loaded = EmbeddedOrders::from_dir(&folder);
        std::fs::write(folder.join("customers.json"), "not json").unwrap();
        let broken = EmbeddedOrders::from_dir(&folder);
        let _ = std::fs::remove_dir_all(&folder);
        let orders = loaded.unwrap();
        assert_eq!(
            orders.orders.len(),
            EmbeddedOrders::demo().unwrap().orders.len()
        );
        assert!(
            orders
                .customers_named("Nordwind", 10)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(broken.is_err(), "a customers.json that is there must parse");
    }
}
