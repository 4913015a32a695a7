//! What `triage` reads out of a batch answer: the `orders` data artifact
//! (one result per order) and the per-order `approvals` metadata of the
//! agent's status message. Nothing here parses reply text.

use super::output::Approval;
use crate::a2a::{Part, Task};
use serde::Deserialize;
use serde_json::Value;

/// One order's result as the agent reported it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderResult {
    pub order: String,
    #[serde(default)]
    pub specialist: Option<String>,
    pub state: String,
    #[serde(default)]
    pub explanation: String,
    #[serde(default)]
    pub proposal: Option<Value>,
    #[serde(default)]
    pub approval: Option<Approval>,
}

impl OrderResult {
    /// `request_credit_review: Request a credit review for sales order 4711`.
    pub fn proposal_line(&self) -> Option<String> {
        let proposal = self.proposal.as_ref()?;
        let action = proposal.get("action")?.as_str()?;
        let summary = proposal
            .get("summary")
            .and_then(Value::as_str)
            .map(|summary| format!(": {summary}"))
            .unwrap_or_default();
        Some(format!("{action}{summary}"))
    }
}

/// The latest `orders` artifact of a task, if it has one.
pub fn order_results(task: &Task) -> Option<(String, Vec<OrderResult>, u64)> {
    let data = task
        .artifacts
        .iter()
        .flatten()
        .filter(|artifact| artifact.name.as_deref() == Some("orders"))
        .filter_map(|artifact| {
            artifact.parts.iter().find_map(|part| match part {
                Part::Data(data) => Some(&data.data),
                _ => None,
            })
        })
        .next_back()?;
    let orders = serde_json::from_value(data.get("orders")?.clone()).ok()?;
    let summary = data.get("summary")?.as_str()?.to_string();
    let not_listed = data.get("notListed").and_then(Value::as_u64).unwrap_or(0);
    Some((summary, orders, not_listed))
}

/// The status message's per-order `approvals` metadata.
pub fn approvals(task: &Task) -> Vec<Approval> {
    task.status
        .message
        .as_ref()
        .and_then(|message| message.metadata.as_ref())
        .and_then(|metadata| metadata.get("approvals"))
        .and_then(|notes| serde_json::from_value(notes.clone()).ok())
        .unwrap_or_default()
}
