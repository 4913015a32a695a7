//! What a specialist is: its skill ([`Skill`], for the card, the router and
//! the rule book) and the handler it provides ([`Specialist`]). The seam
//! every specialist file implements, in a leaf below the registry in
//! `mod.rs`, which lists those files.

use crate::agent::Reply;
use crate::agent::language::Language;
use crate::agent::proposal::Action;
use crate::backend::{BackendError, OrderSource, SalesOrder};
use async_trait::async_trait;

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
