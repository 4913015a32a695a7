//! What a read or a write of S/4HANA is about ("sales order 4711", "the
//! credit account of customer 10023"), as data: a 403 names it to the user
//! in the user's language (the agent's catalogs, `subject-*`), while logs
//! and errors keep the English of [`std::fmt::Display`].

use std::fmt;

/// The object of one S/4HANA call, for a refusal to name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// One sales order, by number.
    SalesOrder(String),
    /// The texts (notes) of one sales order.
    SalesOrderTexts(String),
    /// The sales orders a list of blocked orders reads.
    SalesOrders,
    /// A business partner's address, by partner number.
    PartnerAddress(String),
    /// A customer's credit account.
    CreditAccount(String),
    /// A customer's open items.
    OpenItems(String),
    /// A customer's price list.
    PriceList(String),
    /// The customers whose name contains these words.
    Customers(String),
    /// A whole OData service (its `$metadata` or CSRF token was refused).
    Service(String),
}

impl Subject {
    /// The catalog message that names it, and the number or name it takes
    /// as `$id` (none for [`Subject::SalesOrders`]).
    pub fn message(&self) -> (&'static str, Option<&str>) {
        match self {
            Subject::SalesOrder(id) => ("subject-sales-order", Some(id)),
            Subject::SalesOrderTexts(id) => ("subject-sales-order-texts", Some(id)),
            Subject::SalesOrders => ("subject-sales-orders", None),
            Subject::PartnerAddress(id) => ("subject-partner-address", Some(id)),
            Subject::CreditAccount(id) => ("subject-credit-account", Some(id)),
            Subject::OpenItems(id) => ("subject-open-items", Some(id)),
            Subject::PriceList(id) => ("subject-price-list", Some(id)),
            Subject::Customers(part) => ("subject-customers", Some(part)),
            Subject::Service(id) => ("subject-service", Some(id)),
        }
    }

    /// One of each kind, for the tests that hold every catalog to them.
    #[cfg(test)]
    pub fn examples() -> Vec<Subject> {
        vec![
            Subject::SalesOrder("4711".into()),
            Subject::SalesOrderTexts("4711".into()),
            Subject::SalesOrders,
            Subject::PartnerAddress("10023".into()),
            Subject::CreditAccount("10023".into()),
            Subject::OpenItems("10023".into()),
            Subject::PriceList("10023".into()),
            Subject::Customers("Nordwind".into()),
            Subject::Service("API_SALES_ORDER_SRV".into()),
        ]
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::SalesOrder(id) => write!(f, "sales order {id}"),
            Subject::SalesOrderTexts(id) => write!(f, "the texts of sales order {id}"),
            Subject::SalesOrders => f.write_str("the sales orders"),
            Subject::PartnerAddress(id) => write!(f, "the address of business partner {id}"),
            Subject::CreditAccount(id) => write!(f, "the credit account of customer {id}"),
            Subject::OpenItems(id) => write!(f, "the open items of customer {id}"),
            Subject::PriceList(id) => write!(f, "the price list of customer {id}"),
            Subject::Customers(part) => write!(f, "the customers named \"{part}\""),
            Subject::Service(id) => write!(f, "the service {id}"),
        }
    }
}
