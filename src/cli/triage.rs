//! `triage`: ask the agent for every blocked order in one request ("show
//! me all blocked orders"), so `--url` works against any backend; approve
//! the named ones in the same task with one answer; print one block per
//! order from the structured results.

use super::batch_view::{OrderResult, approvals, order_results};
use super::output::{Approval, field, indented};
use super::{AgentArgs, CliError, parse_roles, print};
use std::collections::BTreeMap;

pub const DEFAULT_ROLE: &str = "ar_clerk";

/// What `triage` asks the agent.
pub const REQUEST: &str = "show me all blocked orders";

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent triage
  order-exception-agent triage --approve 4725
  order-exception-agent triage --role credit_manager --approve 4711
  order-exception-agent triage --url http://127.0.0.1:8080/ --approve 4725,4740

The agent is asked \"show me all blocked orders\" in one request and answers
per order, from its own backend (the demo data in-process, S/4HANA behind
--url if it reads S/4HANA). When it offers approvals for orders named by
--approve, \"approve <orders>\" is sent in the same task.

Roles: --role is sent as the X-Agent-Role header, which only a server with
authentication off reads (the in-process one, or `cargo run` without identity
settings). With authentication on, pass a token (--token or AGENT_TOKEN): the
roles come from the token's IAS `groups` (or XSUAA scopes) and --role is
ignored. See docs/authentication.md.";

#[derive(Debug, Clone, clap::Args)]
pub struct TriageArgs {
    #[command(flatten)]
    pub target: AgentArgs,

    /// Approve the agent's proposal for these orders (repeat, or separate
    /// with commas or spaces) when it asks for an approval.
    #[arg(long, value_name = "ORDER", num_args = 1.., value_delimiter = ',')]
    pub approve: Vec<String>,

    /// Act in these roles (comma-separated), sent as X-Agent-Role; only read
    /// by a server with authentication off.
    #[arg(long, value_name = "ROLE", default_value = DEFAULT_ROLE)]
    pub role: String,
}

/// The block printed for one order: its result, and what the approval
/// answer did to it.
fn order_block(result: &OrderResult, decided: Option<&Approval>, wanted: bool) -> String {
    let mut block = format!(
        "\n== {} ({}, {})\n",
        result.order,
        result.specialist.as_deref().unwrap_or("no specialist"),
        result.state.replace('_', " ")
    );
    let mut lines = vec![field("reply", &result.explanation)];
    if let Some(proposal) = result.proposal_line() {
        lines.push(field("proposal", &proposal));
    }
    let pending = result.approval.as_ref().is_some_and(Approval::is_pending);
    if let Some(approval) = &result.approval {
        lines.push(field("approval", &approval.describe()));
    }
    match decided {
        Some(decided) => lines.push(field("approval", &decided.describe())),
        None if pending => lines.push(field(
            "next",
            &format!(
                "not approved: run with --approve {} to approve it",
                result.order
            ),
        )),
        None if wanted => lines.push(field(
            "note",
            &format!(
                "--approve {}: the agent asked for no approval on this order",
                result.order
            ),
        )),
        None => {}
    }
    block.push_str(&indented(&lines, 2));
    block
}

/// The closing line's key for one order: its final approval status, or
/// its state.
fn outcome(result: &OrderResult, decided: Option<&Approval>) -> String {
    match decided.or(result.approval.as_ref()) {
        Some(approval) => approval.status.replace('_', " "),
        None => result.state.replace('_', " "),
    }
}

pub async fn run(args: TriageArgs) -> Result<u8, CliError> {
    let roles = parse_roles(&args.role)?;
    let approve: Vec<String> = args
        .approve
        .iter()
        .map(|order| order.trim().to_string())
        .filter(|order| !order.is_empty())
        .collect();
    let connection = args.target.connect(Some(roles.clone())).await?;
    let client = &connection.client;
    let task = client.send_text(REQUEST, None, None).await?;
    let Some((summary, results, not_listed)) = order_results(&task) else {
        // No per-order results: no blocked order, or the agent could not list them.
        let reply = task
            .status
            .message
            .as_ref()
            .map(|message| message.text())
            .unwrap_or_default();
        print::line(&format!(
            "Triage of the blocked orders as {roles} at {}\n{}\n{}",
            connection.describe(),
            field("state", task.status.state.as_str()),
            field("reply", &reply)
        ))?;
        return Ok(0);
    };
    if let Some(unknown) = approve
        .iter()
        .find(|wanted| !results.iter().any(|result| &result.order == *wanted))
    {
        let listed: Vec<&str> = results.iter().map(|r| r.order.as_str()).collect();
        return Err(CliError::Input(format!(
            "--approve {unknown}: not a blocked order the agent listed (blocked: {})",
            listed.join(", ")
        )));
    }
    print::line(&format!(
        "Triage of {} blocked orders as {roles} at {}",
        results.len(),
        connection.describe()
    ))?;
    let mut head = vec![
        field("you", REQUEST),
        field("summary", &summary),
        field("state", task.status.state.as_str()),
    ];
    if not_listed > 0 {
        head.push(field(
            "note",
            &format!("{not_listed} more blocked orders were not looked at (the agent's bound)"),
        ));
    }
    head.push(field("task", &task.id));
    print::out(&indented(&head, 0))?;

    // One answer approves every named order that waits.
    let offered: Vec<&str> = results
        .iter()
        .filter(|r| r.approval.as_ref().is_some_and(Approval::is_pending))
        .map(|r| r.order.as_str())
        .filter(|order| approve.iter().any(|wanted| wanted == order))
        .collect();
    let mut decided: BTreeMap<String, Approval> = BTreeMap::new();
    let mut follow_up = None;
    if !offered.is_empty() {
        let answer_text = format!("approve {}", offered.join(", "));
        let answer = client
            .send_text(&answer_text, Some(&task.context_id), Some(&task.id))
            .await?;
        for approval in approvals(&answer) {
            if let Some(order) = approval.sales_order.clone() {
                decided.insert(order, approval);
            }
        }
        follow_up = Some((answer_text, answer.status.state));
    }
    let mut outcomes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for result in &results {
        let wanted = approve.contains(&result.order);
        let decision = decided.get(&result.order);
        print::out(&order_block(result, decision, wanted))?;
        outcomes
            .entry(outcome(result, decision))
            .or_default()
            .push(result.order.clone());
    }
    if let Some((text, state)) = follow_up {
        print::out(&format!(
            "\n{}",
            indented(&[field("you", &text), field("state", state.as_str())], 0)
        ))?;
    }
    let closing: Vec<String> = outcomes
        .iter()
        .map(|(outcome, orders)| format!("{outcome} {}", orders.join(", ")))
        .collect();
    print::line(&format!(
        "\n{} orders: {}",
        results.len(),
        closing.join("; ")
    ))?;
    Ok(0)
}
