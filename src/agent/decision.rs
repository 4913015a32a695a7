//! Decisions beyond filing that the rule book lets a role take when it
//! approves an action: today `release_credit_block` (a credit manager
//! releases the credit block with a credit review, within the credit
//! policy's 5 percent). Seeded from [`BusinessRole::seed_decisions`];
//! `rules.decisions` replaces the roles per decision.

use super::proposal::Action;
use crate::roles::BusinessRole;
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Decision {
    /// `ReleaseCreditBlock` with an approved credit review.
    ReleaseCreditBlock,
}

impl Decision {
    pub const ALL: [Decision; 1] = [Decision::ReleaseCreditBlock];

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::ReleaseCreditBlock => "release_credit_block",
        }
    }

    /// The action whose approval the decision goes with.
    pub fn action(self) -> Action {
        match self {
            Decision::ReleaseCreditBlock => Action::RequestCreditReview,
        }
    }

    /// The bound the decision is taken within, for the card.
    pub fn bound(self) -> &'static str {
        match self {
            Decision::ReleaseCreditBlock => "within the credit policy's 5 percent",
        }
    }

    /// The roles seeded with this decision.
    pub fn seed_roles(self) -> Vec<BusinessRole> {
        BusinessRole::ALL
            .into_iter()
            .filter(|role| role.seed_decisions().contains(&self.as_str()))
            .collect()
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown decision `{0}` (known: release_credit_block)")]
pub struct UnknownDecision(pub String);

impl FromStr for Decision {
    type Err = UnknownDecision;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Decision::ALL
            .into_iter()
            .find(|decision| decision.as_str() == name)
            .ok_or_else(|| UnknownDecision(name.to_string()))
    }
}
