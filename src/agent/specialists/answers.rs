//! The answers every specialist gives alike: a proposal, "not found", "not
//! my kind of block" (with the block codes no setting counts), and text
//! from outside quoted. Used by the specialist files and the registry in
//! `mod.rs`, so it sits below both.

use super::specialist::Specialist;
use crate::agent::language::Language;
use crate::agent::language::catalog::text as say;
use crate::agent::proposal::{ORDER_VERSION, Proposal};
use crate::agent::{Outcome, Reply};
use crate::backend::SalesOrder;
use serde_json::{Map, Value};

/// A completed answer carrying the specialist's proposal for `order`.
pub(super) fn proposing(
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
        proposal: Some(Proposal {
            action: specialist.proposes(),
            sales_order: order.sales_order.clone(),
            specialist: specialist.skill().id.into(),
            summary,
            details,
        }),
        ..Reply::new(Outcome::Completed, text)
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
pub(super) fn not_mine(order: &SalesOrder, kind: &str, language: Language) -> Reply {
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
pub(super) fn quote(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('"', "'");
    format!("\"{}\"", flat.trim())
}
