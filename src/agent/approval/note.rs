//! Where a proposal's approval stands ([`ApprovalNote`], [`ApprovalStatus`]):
//! what a reply and a batch's results carry, in a leaf below the approval
//! flow that writes it.

use crate::agent::ledger::LedgerEntry;
use crate::agent::proposal::Action;
use crate::roles::BusinessRole;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    /// Asked; the task waits in `input-required`.
    Pending,
    Filed,
    AlreadyFiled,
    /// The user rejected it; nothing filed.
    Declined,
    /// The caller's role (or a technical token) may not do it.
    NotPermitted,
    /// The specialist may not propose this action (rule book).
    NotProposable,
}

/// Where a proposal's approval stands; the agent message's `approval`
/// metadata, so clients never parse reply text.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalNote {
    pub status: ApprovalStatus,
    pub action: Action,
    pub sales_order: String,
    /// The caller's roles as the rule book saw them.
    pub roles: Vec<BusinessRole>,
    /// Who may decide, when the caller may not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub may_decide: Vec<BusinessRole>,
    /// The ledger row written now or found from before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<LedgerEntry>,
}
