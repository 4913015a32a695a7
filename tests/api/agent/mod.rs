//! What the agent answers: the specialists' walkthrough on each order source,
//! routing, languages, several orders in one request, the blocked-orders
//! query (of a customer named by name too), and approvals filed once in the ledger.

mod approvals;
mod batch;
mod blocked_orders;
mod customer_names;
mod languages;
mod languages_es;
mod ledger_key;
mod routing;
pub(crate) mod sources;
mod specialists;
