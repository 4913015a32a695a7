//! One file per specialist. Each provides its skill (for the card, the router
//! and the rule book) and a handler that checks its own input.
//! Adding a specialist: one file here and one line in [`all`]. What a
//! specialist is sits in `specialist`, the answers they share in `answers`.

mod answers;
mod credit;
mod delivery;
mod masterdata;
mod pricing;
mod specialist;

pub(crate) use answers::{not_found, unconfigured_blocks};
pub use specialist::{Skill, Specialist};

use super::language::Language;
use super::language::catalog::text as say;
use super::{Action, Outcome, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};

/// Every specialist, in card order.
pub fn all() -> Vec<Box<dyn Specialist>> {
    vec![
        Box::new(credit::Credit),
        Box::new(pricing::Pricing),
        Box::new(masterdata::MasterData),
        Box::new(delivery::Delivery),
    ]
}

/// Each specialist's skill id with the action it proposes: what the rule
/// book is checked against.
pub fn registry() -> Vec<(&'static str, Action)> {
    all().iter().map(|s| (s.skill().id, s.proposes())).collect()
}

/// The input checks every specialist makes (which order? does it exist?),
/// then its explanation: of the order as its own fields show it when that
/// is all the answer needs, else of the whole order.
pub async fn handle(
    specialist: &dyn Specialist,
    sales_order: Option<&str>,
    orders: &dyn OrderSource,
    language: Language,
) -> Result<Reply, BackendError> {
    let Some(number) = sales_order else {
        return Ok(Reply::new(
            Outcome::InputRequired,
            say(language, "which-order", &[]),
        ));
    };
    match order_for(specialist, number, orders).await? {
        Some(order) => specialist.explain(&order, orders, language).await,
        None => Ok(not_found(number, language)),
    }
}

/// The order `specialist` is to explain: as its own fields show it when the
/// specialist answers from them, else the whole order (which reads only
/// what the first read left out).
async fn order_for(
    specialist: &dyn Specialist,
    number: &str,
    orders: &dyn OrderSource,
) -> Result<Option<SalesOrder>, BackendError> {
    let Some(fields) = orders.sales_order_fields(number).await? else {
        return Ok(None);
    };
    if specialist.answers_from_fields(&fields) {
        return Ok(Some(fields));
    }
    orders.sales_order(number).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The English catalog names each specialist as its skill on the card
    /// does, so the questions that name them read as before.
    #[test]
    fn the_catalogs_skill_names_are_the_cards() {
        for specialist in all() {
            let skill = specialist.skill();
            assert_eq!(
                say(Language::En, "skill-name", &[("skill", skill.id.into())]),
                skill.name
            );
            assert_eq!(
                say(Language::En, "skill-kind", &[("skill", skill.id.into())]),
                skill.name.to_lowercase()
            );
            assert_ne!(
                say(Language::De, "skill-name", &[("skill", skill.id.into())]),
                skill.name
            );
        }
    }
}
