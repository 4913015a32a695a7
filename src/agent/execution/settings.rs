//! `actions.*`: who carries approved actions out and how (the ledger only,
//! the default; or S/4HANA), the note's text id, whether a delivery date
//! change also clears the delivery block, and the retry job's bounds.

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
    /// The sales order text id of the agent's notes (customizing).
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
            note_text_id: "0001".into(),
            note_language: "EN".into(),
            max_attempts: 5,
            retry_base_ms: 2_000,
            lease_ms: 60_000,
            retry_interval_ms: 1_000,
        }
    }
}
