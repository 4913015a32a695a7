//! Owner keys of the form before they named their identity service and
//! tenant (`user:<id>`, `client:<id>`: task owners, and ledger approvers
//! since migration 0011), brought to the new form at start. Which form is
//! right is a fact of the bindings, not of the rows, so the caller decides
//! ([`Database::adopt_legacy_owners`] with the one bound service's prefix,
//! or [`Database::count_legacy_owners`] when it cannot tell). Tested where
//! the rows are read: `tasks/sql` and `agent/ledger/sql`. Each run is
//! one `UPDATE` per table; a key of the new form never starts with `user:`
//! or `client:`, so a second run (a restart, two instances at once)
//! changes nothing.

use super::database::Database;
use sqlx::Row;

/// Where keys of the old form are.
const TABLES: [(&str, &str); 2] = [("tasks", "owner"), ("action_ledger", "approver_key")];

/// Keys of the old form, per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LegacyOwners {
    pub tasks: u64,
    pub ledger_rows: u64,
}

impl LegacyOwners {
    fn from_counts(counts: [u64; 2]) -> LegacyOwners {
        LegacyOwners {
            tasks: counts[0],
            ledger_rows: counts[1],
        }
    }
}

/// The old form: a kind, `:`, the id.
fn legacy(column: &str) -> String {
    format!("({column} LIKE 'user:%' OR {column} LIKE 'client:%')")
}

impl Database {
    /// Put `key_prefix` (`ias:<tenant>:`) in front of every key of the old
    /// form; how many rows changed.
    pub async fn adopt_legacy_owners(&self, key_prefix: &str) -> Result<LegacyOwners, sqlx::Error> {
        let mut counts = [0; 2];
        for (count, (table, column)) in counts.iter_mut().zip(TABLES) {
            let update = format!(
                "UPDATE {table} SET {column} = $1 || {column} WHERE {}",
                legacy(column)
            );
            *count = sqlx::query(&update)
                .bind(key_prefix)
                .execute(&self.pool)
                .await?
                .rows_affected();
        }
        Ok(LegacyOwners::from_counts(counts))
    }

    /// How many keys of the old form there are (left as they are).
    pub async fn count_legacy_owners(&self) -> Result<LegacyOwners, sqlx::Error> {
        let mut counts = [0; 2];
        for (count, (table, column)) in counts.iter_mut().zip(TABLES) {
            let select = format!("SELECT COUNT(*) FROM {table} WHERE {}", legacy(column));
            let row = sqlx::query(&select).fetch_one(&self.pool).await?;
            *count = u64::try_from(row.try_get::<i64, _>(0)?).unwrap_or(0);
        }
        Ok(LegacyOwners::from_counts(counts))
    }
}
