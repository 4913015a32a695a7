//! One file per specialist. Each provides its skill (for the card, the router
//! and the rule book) and a handler that checks its own input.
//! Adding a specialist: one file here and one line in [`all`].

mod credit;
mod delivery;
mod masterdata;
mod pricing;

use super::{Action, Outcome, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;

/// What a specialist tells the card and the router about itself.
#[derive(Debug)]
pub struct Skill {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub tags: &'static [&'static str],
    pub examples: &'static [&'static str],
    /// Words clerks use for the same thing; the router only.
    pub synonyms: &'static [&'static str],
}

/// The facts a specialist gets: the user's words and the order they name.
#[derive(Debug, Clone, Copy)]
pub struct Case<'a> {
    pub text: &'a str,
    pub sales_order: Option<&'a str>,
}

#[async_trait]
pub trait Specialist: Send + Sync {
    fn skill(&self) -> &'static Skill;

    /// The one action this specialist may propose.
    fn proposes(&self) -> Action;

    async fn handle(&self, case: Case<'_>, orders: &dyn OrderSource)
    -> Result<Reply, BackendError>;
}

/// Every specialist, in card order.
pub fn all() -> Vec<Box<dyn Specialist>> {
    vec![
        Box::new(credit::Credit),
        Box::new(pricing::Pricing),
        Box::new(masterdata::MasterData),
        Box::new(delivery::Delivery),
    ]
}

/// The order a case names, or the reply that ends the turn without one.
async fn require_order(
    case: Case<'_>,
    orders: &dyn OrderSource,
) -> Result<Result<SalesOrder, Reply>, BackendError> {
    let Some(number) = case.sales_order else {
        return Ok(Err(Reply::new(
            Outcome::InputRequired,
            "Which sales order is it? Please give its number (a four-digit number such as 4711).",
        )));
    };
    Ok(match orders.sales_order(number).await? {
        Some(order) => Ok(order),
        None => Err(not_found(number)),
    })
}

pub(crate) fn not_found(number: &str) -> Reply {
    Reply::new(
        Outcome::Failed,
        format!("Sales order {number} not found. Please check the number."),
    )
}

/// "not my kind of block", with what the order's own note says instead.
fn not_mine(order: &SalesOrder, what: &str) -> Reply {
    let note = if order.block_note.is_empty() {
        " It has no block.".to_string()
    } else {
        format!(" Its block note reads: \"{}\"", order.block_note)
    };
    Reply::new(
        Outcome::Rejected,
        format!("Sales order {} is not {what}.{note}", order.sales_order),
    )
}

/// Text from outside (customer notes) as a quotation on one line, so it reads
/// as data and cannot pose as our own words.
fn quote(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('"', "'");
    format!("\"{}\"", flat.trim())
}
