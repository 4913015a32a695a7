//! What the client commands read out of a Task and how they print it: the
//! routing metadata, the state, the reply, the `proposal` artifact and the
//! `approval` metadata. Nothing here parses reply text.

use crate::a2a::{Part, Task, TaskState};
use crate::agent::RoutingDecision;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Width of the label column (`specialist` and a space).
const LABEL_WIDTH: usize = 12;

/// The `approval` metadata of the agent's status message (the approval
/// flow's contract): `pending`, `filed`, `already_filed`, `declined` or
/// `not_permitted`, with the action and order it is about.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub status: String,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub sales_order: Option<String>,
    /// The caller's roles as the rule book saw them.
    #[serde(default)]
    pub roles: Vec<String>,
    #[serde(default)]
    pub may_decide: Vec<String>,
}

impl Approval {
    pub fn is_pending(&self) -> bool {
        self.status == "pending"
    }

    /// One line: `pending: open_dispute_case on 4725`, `not permitted: role
    /// ar_clerk may not do request_credit_review (may decide: credit_manager)`.
    pub fn describe(&self) -> String {
        let action = self.action.as_deref().unwrap_or("the action");
        let on = self
            .sales_order
            .as_deref()
            .map(|order| format!(" on {order}"))
            .unwrap_or_default();
        match self.status.as_str() {
            "not_permitted" => {
                let role = match self.roles.as_slice() {
                    [] => "a caller without a role".to_string(),
                    [one] => format!("role {one}"),
                    many => format!("roles {}", many.join(", ")),
                };
                let deciders = if self.may_decide.is_empty() {
                    String::new()
                } else {
                    format!(" (may decide: {})", self.may_decide.join(", "))
                };
                format!("not permitted: {role} may not do {action}{on}{deciders}")
            }
            status => format!("{}: {action}{on}", status.replace('_', " ")),
        }
    }
}

/// Router scores, highest first: `credit 4.16, delivery 1.39`.
pub fn format_scores(scores: &std::collections::BTreeMap<String, f64>) -> String {
    let mut sorted: Vec<(&String, &f64)> = scores.iter().collect();
    sorted.sort_by(|a, b| b.1.total_cmp(a.1).then_with(|| a.0.cmp(b.0)));
    sorted
        .iter()
        .map(|(skill, score)| format!("{skill} {score:.2}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `proposal` data artifact, as far as a person needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalView {
    pub action: String,
    pub sales_order: Option<String>,
    pub summary: Option<String>,
}

/// Routing as the agent reported it in the status message's metadata.
#[derive(Debug, Clone, PartialEq)]
pub enum Routing {
    /// No `routing` metadata on the status message.
    NotReported,
    Reported(RoutingDecision),
}

impl Routing {
    /// The chosen skill id; `None` when none was chosen or nothing was reported.
    pub fn specialist(&self) -> Option<&str> {
        match self {
            Routing::Reported(decision) => decision.specialist.as_deref(),
            Routing::NotReported => None,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Routing::NotReported => "(not reported: no routing metadata)".into(),
            Routing::Reported(decision) => {
                format!(
                    "{}  ({}; {})",
                    decision.specialist.as_deref().unwrap_or("none"),
                    decision.basis,
                    format_scores(&decision.scores)
                )
            }
        }
    }
}

/// The parts of a task the commands print.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView {
    pub task_id: String,
    pub context_id: String,
    pub state: TaskState,
    pub reply: Option<String>,
    pub routing: Routing,
    pub proposal: Option<ProposalView>,
    pub approval: Option<Approval>,
}

fn string(data: &Map<String, Value>, key: &str) -> Option<String> {
    data.get(key).and_then(Value::as_str).map(str::to_string)
}

impl TaskView {
    pub fn of(task: &Task) -> TaskView {
        let message = task.status.message.as_ref();
        let metadata = message.and_then(|message| message.metadata.as_ref());
        let routing = metadata
            .and_then(|metadata| metadata.get("routing"))
            .and_then(|routing| serde_json::from_value(routing.clone()).ok())
            .map_or(Routing::NotReported, Routing::Reported);
        let approval = metadata
            .and_then(|metadata| metadata.get("approval"))
            .and_then(|approval| serde_json::from_value(approval.clone()).ok());
        // The latest proposal: artifacts accumulate over a task's turns.
        let proposal = task
            .artifacts
            .iter()
            .flatten()
            .filter(|artifact| artifact.name.as_deref() == Some("proposal"))
            .filter_map(|artifact| {
                artifact.parts.iter().find_map(|part| match part {
                    Part::Data(data) => Some((artifact, &data.data)),
                    _ => None,
                })
            })
            .filter_map(|(artifact, data)| {
                Some(ProposalView {
                    action: string(data, "action")?,
                    sales_order: string(data, "salesOrder"),
                    summary: string(data, "summary").or_else(|| artifact.description.clone()),
                })
            })
            .next_back();
        TaskView {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.status.state,
            reply: message
                .map(|message| message.text())
                .filter(|text| !text.is_empty()),
            routing,
            proposal,
            approval,
        }
    }

    /// The block `ask` and `triage` print: specialist, state, reply,
    /// proposal, and approval when the agent reported one.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![
            field("specialist", &self.routing.describe()),
            field("state", self.state.as_str()),
            field(
                "reply",
                self.reply
                    .as_deref()
                    .unwrap_or("(no message from the agent)"),
            ),
        ];
        if let Some(proposal) = &self.proposal {
            let summary = proposal
                .summary
                .as_deref()
                .map(|summary| format!(": {summary}"))
                .unwrap_or_default();
            lines.push(field("proposal", &format!("{}{summary}", proposal.action)));
        }
        if let Some(approval) = &self.approval {
            lines.push(field("approval", &approval.describe()));
        }
        lines
    }
}

/// `label       value`, the label padded to one column (and never touching
/// the value).
pub fn field(label: &str, value: &str) -> String {
    format!("{label:<width$} {value}", width = LABEL_WIDTH - 1)
}

/// Each line indented by `indent` spaces.
pub fn indented(lines: &[String], indent: usize) -> String {
    let pad = " ".repeat(indent);
    lines.iter().map(|line| format!("{pad}{line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(value: Value) -> Task {
        serde_json::from_value(value).unwrap()
    }

    fn answered(metadata: Value, artifacts: Value) -> Task {
        task(json!({
            "kind": "task", "id": "t-1", "contextId": "c-1",
            "status": { "state": "input-required", "message": {
                "kind": "message", "role": "agent", "messageId": "m-1",
                "parts": [{ "kind": "text", "text": "Open a dispute case for order 4725? Reply approve or reject." }],
                "metadata": metadata } },
            "artifacts": artifacts
        }))
    }

    #[test]
    fn the_view_reads_routing_proposal_and_approval_from_structured_data() {
        let view = TaskView::of(&answered(
            json!({
                "routing": { "specialist": "pricing", "basis": "text",
                             "scores": { "credit": 0.0, "pricing": 5.5 } },
                "approval": { "status": "pending", "action": "open_dispute_case", "salesOrder": "4725" }
            }),
            json!([
                { "artifactId": "a-1", "name": "proposal", "parts": [{ "kind": "data", "data": { "action": "request_credit_review" } }] },
                { "artifactId": "a-2", "name": "proposal", "description": "Open a dispute case for sales order 4725",
                  "parts": [{ "kind": "data", "data": { "action": "open_dispute_case", "salesOrder": "4725" } }] }
            ]),
        ));
        assert_eq!(view.routing.specialist(), Some("pricing"));
        assert_eq!(view.state, TaskState::InputRequired);
        let proposal = view.proposal.as_ref().unwrap();
        assert_eq!(proposal.action, "open_dispute_case", "the latest proposal");
        assert_eq!(
            proposal.summary.as_deref(),
            Some("Open a dispute case for sales order 4725")
        );
        assert!(view.approval.as_ref().unwrap().is_pending());
        let lines = view.lines().join("\n");
        assert!(
            lines.contains("specialist  pricing  (text; pricing 5.50, credit 0.00)"),
            "{lines}"
        );
        assert!(
            lines.contains("approval    pending: open_dispute_case on 4725"),
            "{lines}"
        );
        assert!(
            lines.contains("proposal    open_dispute_case: Open a dispute case"),
            "{lines}"
        );
    }

    #[test]
    fn without_metadata_nothing_is_guessed_from_the_text() {
        let view = TaskView::of(&answered(Value::Null, Value::Null));
        assert_eq!(view.routing, Routing::NotReported);
        assert_eq!(view.approval, None);
        assert_eq!(view.proposal, None);
        let lines = view.lines().join("\n");
        assert!(lines.contains("no routing metadata"), "{lines}");
        assert!(!lines.contains("approval"), "{lines}");
    }

    #[test]
    fn a_refused_approval_names_the_role_and_who_may_decide() {
        let approval: Approval = serde_json::from_value(json!({
            "status": "not_permitted", "action": "request_credit_review", "salesOrder": "4711",
            "roles": ["ar_clerk"], "mayDecide": ["credit_manager"]
        }))
        .unwrap();
        assert_eq!(
            approval.describe(),
            "not permitted: role ar_clerk may not do request_credit_review on 4711 (may decide: credit_manager)"
        );
        let filed: Approval = serde_json::from_value(
            json!({ "status": "already_filed", "action": "open_dispute_case", "salesOrder": "4725" }),
        )
        .unwrap();
        assert_eq!(filed.describe(), "already filed: open_dispute_case on 4725");
    }
}
