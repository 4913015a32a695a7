//! The business roles a caller can hold, and what each may do by default
//! (the rule book's seed; `rules.roles` replaces it per role, `src/agent/rulebook.rs`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BusinessRole {
    ArClerk,
    CreditManager,
    MasterDataSpecialist,
    Viewer,
    /// Reads every filed action (`GET /actions`; the rule book's
    /// `rules.ledger_readers`), files nothing.
    Auditor,
    /// Erases one user's data of their own tenant (`POST /users/erase`,
    /// docs/personal-data.md), files nothing.
    DataProtectionOfficer,
}

impl BusinessRole {
    pub const ALL: [BusinessRole; 6] = [
        BusinessRole::ArClerk,
        BusinessRole::CreditManager,
        BusinessRole::MasterDataSpecialist,
        BusinessRole::Viewer,
        BusinessRole::Auditor,
        BusinessRole::DataProtectionOfficer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BusinessRole::ArClerk => "ar_clerk",
            BusinessRole::CreditManager => "credit_manager",
            BusinessRole::MasterDataSpecialist => "master_data_specialist",
            BusinessRole::Viewer => "viewer",
            BusinessRole::Auditor => "auditor",
            BusinessRole::DataProtectionOfficer => "data_protection_officer",
        }
    }

    /// The actions (by name) this role may have filed, as seeded. Only the
    /// rule book reads this; everything else (approvals, the extended card)
    /// asks the rule book in force, which `rules.roles` may have changed.
    pub fn seed_actions(self) -> &'static [&'static str] {
        match self {
            BusinessRole::ArClerk => &["open_dispute_case", "request_delivery_date_change"],
            BusinessRole::CreditManager => &["request_credit_review", "open_dispute_case"],
            BusinessRole::MasterDataSpecialist => &["request_master_data_change"],
            BusinessRole::Viewer | BusinessRole::Auditor | BusinessRole::DataProtectionOfficer => {
                &[]
            }
        }
    }
}

impl BusinessRole {
    /// Whether the role reads every filed action, as seeded (the rule
    /// book's `rules.ledger_readers` may name others).
    pub fn seed_reads_every_action(self) -> bool {
        self == BusinessRole::Auditor
    }

    /// Whether the role erases a user's data (`POST /users/erase`): only
    /// the data protection officer, of their own tenant.
    pub fn erases_users(self) -> bool {
        self == BusinessRole::DataProtectionOfficer
    }
}

impl BusinessRole {
    /// Decisions beyond filing this role may take when it approves, as
    /// seeded: a credit manager releases a credit block within the
    /// policy's 5 percent (`release_credit_block`). Only the rule book
    /// reads this; `rules.decisions` may have changed it.
    pub fn seed_decisions(self) -> &'static [&'static str] {
        match self {
            BusinessRole::CreditManager => &["release_credit_block"],
            _ => &[],
        }
    }
}

impl fmt::Display for BusinessRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "unknown role `{0}` (known: ar_clerk, credit_manager, master_data_specialist, viewer, auditor, data_protection_officer)"
)]
pub struct UnknownRole(pub String);

impl FromStr for BusinessRole {
    type Err = UnknownRole;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        BusinessRole::ALL
            .into_iter()
            .find(|role| role.as_str() == name)
            .ok_or_else(|| UnknownRole(name.to_string()))
    }
}
