//! `actions.*`: who carries approved actions out and how (the ledger only,
//! the default; or S/4HANA), the note's text id, whether a delivery date
//! change also clears the delivery block, and the retry job's bounds. The
//! note's text id must not be the one the agent reads as the customer's
//! note (`backend.blocks.customer_note_text_id`): its own words would come
//! back as the customer's. The start refuses that ([`ActionSettings::check_note_text_id`]).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutorKind {
    /// File in the ledger only; someone does the work by hand (today's
    /// behaviour, and always with the embedded backend).
    #[default]
    Ledger,
    /// Carry the actions out in S/4HANA (needs `backend.source = s4hana`).
    S4hana,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionSettings {
    pub executor: ExecutorKind,
    /// A delivery date change also clears the order's delivery block.
    pub clear_delivery_block: bool,
    /// The sales order text id of the agent's notes (customizing; `Z001`,
    /// a customer-namespace id, by default). Never the customer's note id.
    pub note_text_id: String,
    /// The notes' language (ISO code, as the API sends it).
    pub note_language: String,
    /// Attempts in all for a transient failure, then `failed`.
    pub max_attempts: u32,
    /// The first retry's wait; it doubles per attempt.
    pub retry_base_ms: u64,
    /// How long one executor holds a row; after it, another may claim it.
    pub lease_ms: u64,
    /// How often the retry job looks for due rows.
    pub retry_interval_ms: u64,
}

impl Default for ActionSettings {
    fn default() -> Self {
        ActionSettings {
            executor: ExecutorKind::Ledger,
            clear_delivery_block: true,
            note_text_id: "Z001".into(),
            note_language: "EN".into(),
            max_attempts: 5,
            retry_base_ms: 2_000,
            lease_ms: 60_000,
            retry_interval_ms: 1_000,
        }
    }
}

/// Why the notes' text id is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "actions.note_text_id `{0}` is also backend.blocks.customer_note_text_id: the agent's notes would be read back as the customer's words; give them a text id of their own"
)]
pub struct NoteTextIdError(pub String);

impl ActionSettings {
    /// Refuse a note text id equal (ignoring case) to the text id the
    /// agent reads as the customer's note.
    pub fn check_note_text_id(&self, customer_note_text_id: &str) -> Result<(), NoteTextIdError> {
        if self
            .note_text_id
            .trim()
            .eq_ignore_ascii_case(customer_note_text_id.trim())
        {
            return Err(NoteTextIdError(self.note_text_id.clone()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendSettings;

    #[test]
    fn the_default_note_text_id_is_not_the_customers() {
        let customer = BackendSettings::default().blocks.customer_note_text_id;
        assert_eq!(
            ActionSettings::default().check_note_text_id(&customer),
            Ok(())
        );
        let same = ActionSettings {
            note_text_id: customer.to_lowercase(),
            ..ActionSettings::default()
        };
        let error = same.check_note_text_id(&customer).unwrap_err().to_string();
        assert!(error.contains("customer_note_text_id"), "{error}");
    }
}
