//! One file per specialist. Each provides its skill (for the card, the router
//! and the rule book) and a handler that checks its own input.
//! Adding a specialist: one file here and one line in [`all`].

mod credit;
mod delivery;
mod masterdata;
mod pricing;

use super::language::Language;
use super::language::catalog::text as say;
use super::{Action, ORDER_VERSION, Outcome, Proposal, Reply};
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;
use serde_json::{Map, Value};

/// What a specialist tells the card and the router about itself, in
/// English; the words of other languages, and more words clerks use for
/// the same thing, are in the vocabulary files (`data/lang/*.toml`).
#[derive(Debug)]
pub struct Skill {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub tags: &'static [&'static str],
    pub examples: &'static [&'static str],
}

#[async_trait]
pub trait Specialist: Send + Sync {
    fn skill(&self) -> &'static Skill;

    /// The one action this specialist may propose.
    fn proposes(&self) -> Action;

    /// The kind of block this specialist explains: a batch sends each
    /// order to the specialist of its own block.
    fn handles(&self) -> crate::backend::BlockKind;

    /// Whether the answer for `order`, as its own fields show it
    /// ([`OrderSource::sales_order_fields`]), needs no more of the order:
    /// its block of this specialist's kind shows in those fields and the
    /// answer quotes no block note. Then the specialist's own reads start
    /// without waiting for the rest of the order (S/4HANA: the partners'
    /// addresses). By default the answer gets the whole order.
    fn answers_from_fields(&self, _order: &SalesOrder) -> bool {
        false
    }

    /// Explain an existing order's block, or reject it when the block is not
    /// this specialist's kind, in `language` (the language the user is
    /// answered in: its catalog's words, its numbers and dates).
    async fn explain(
        &self,
        order: &SalesOrder,
        orders: &dyn OrderSource,
        language: Language,
    ) -> Result<Reply, BackendError>;
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

/// A completed answer carrying the specialist's proposal for `order`.
fn proposing(
    specialist: &dyn Specialist,
    order: &SalesOrder,
    text: String,
    summary: String,
    mut details: Map<String, Value>,
) -> Reply {
    if !order.version().is_empty() {
        details.insert(
            ORDER_VERSION.into(),
            Value::String(order.version().to_string()),
        );
    }
    Reply {
        outcome: Outcome::Completed,
        text,
        proposal: Some(Proposal {
            action: specialist.proposes(),
            sales_order: order.sales_order.clone(),
            specialist: specialist.skill().id.into(),
            summary,
            details,
        }),
        routing: None,
        approval: None,
        artifacts: Vec::new(),
        artifact_chunks: Vec::new(),
        batch: None,
        #[cfg(feature = "conformance")]
        message_only: false,
        #[cfg(feature = "conformance")]
        answer_artifact: true,
    }
}

pub(crate) fn not_found(number: &str, language: Language) -> Reply {
    Reply::new(
        Outcome::Failed,
        say(language, "not-found", &[("order", number.into())]),
    )
}

/// "not my kind of block" (`kind`: the specialist's skill id), with what
/// the order's own note says instead, and the block codes it carries that
/// no setting counts (never "It has no block" for an order S/4HANA shows a
/// block on).
fn not_mine(order: &SalesOrder, kind: &str, language: Language) -> Reply {
    let mut text = say(
        language,
        "not-mine",
        &[
            ("order", order.sales_order.as_str().into()),
            ("kind", kind.into()),
        ],
    );
    if !order.block_note.is_empty() {
        text.push(' ');
        text.push_str(&say(
            language,
            "block-note-reads",
            &[("note", order.block_note.as_str().into())],
        ));
    }
    match unconfigured_blocks(order, language) {
        Some(unconfigured) => {
            text.push(' ');
            text.push_str(&unconfigured);
        }
        None if order.block_note.is_empty() => {
            text.push(' ');
            text.push_str(&say(language, "no-block", &[]));
        }
        None => {}
    }
    Reply::new(Outcome::Rejected, text)
}

/// The sentence naming the block codes `order` carries that the
/// `backend.blocks` settings do not count, with the setting to change;
/// `None` when there are none.
pub(crate) fn unconfigured_blocks(order: &SalesOrder, language: Language) -> Option<String> {
    let sentences: Vec<String> = order
        .unconfigured_blocks
        .iter()
        .map(|block| {
            let field = match block.field {
                crate::backend::BlockField::Billing => "billing",
                crate::backend::BlockField::Delivery => "delivery",
            };
            say(
                language,
                "unconfigured-block",
                &[
                    ("field", field.into()),
                    ("code", block.code.as_str().into()),
                    ("setting", block.field.setting().into()),
                    ("env", block.field.env().into()),
                ],
            )
        })
        .collect();
    (!sentences.is_empty()).then(|| sentences.join(" "))
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
