//! `triage`: send every blocked order of the demo data, approve the named
//! ones in the same tasks, and print one block per order.

use super::output::{TaskView, field, indented};
use super::{AgentArgs, CliError, parse_roles, print};
use crate::backend::{EmbeddedOrders, OrderSource, SalesOrder};
use std::collections::BTreeMap;

pub const DEFAULT_ROLE: &str = "ar_clerk";

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent triage
  order-exception-agent triage --approve 4725
  order-exception-agent triage --role credit_manager --approve 4711
  order-exception-agent triage --url http://127.0.0.1:8080/ --approve 4725,4740

The orders are the blocked orders of the demo data built into this binary
(data/orders.json), also against --url: a remote agent's backend is not
listed. Each is sent as \"Order <number>: <block note>\"; when the agent asks
for an approval of an order named by --approve, \"approve\" is sent in the
same task.

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

/// What the agent is told about an order: its own block note.
pub fn request_text(order: &SalesOrder) -> String {
    if order.block_note.trim().is_empty() {
        format!("why is sales order {} blocked", order.sales_order)
    } else {
        format!("Order {}: {}", order.sales_order, order.block_note.trim())
    }
}

/// The blocked orders of the embedded demo data, in order-number order.
pub async fn blocked_orders() -> Result<Vec<SalesOrder>, CliError> {
    Ok(EmbeddedOrders::demo()?.blocked_orders().await?)
}

pub async fn run(args: TriageArgs) -> Result<u8, CliError> {
    let roles = parse_roles(&args.role)?;
    let orders = blocked_orders().await?;
    let approve: Vec<String> = args
        .approve
        .iter()
        .map(|order| order.trim().to_string())
        .filter(|order| !order.is_empty())
        .collect();
    if let Some(unknown) = approve
        .iter()
        .find(|wanted| !orders.iter().any(|order| &order.sales_order == *wanted))
    {
        let known: Vec<&str> = orders.iter().map(|o| o.sales_order.as_str()).collect();
        return Err(CliError::Input(format!(
            "--approve {unknown}: not a blocked order of the demo data (blocked: {})",
            known.join(", ")
        )));
    }
    let connection = args.target.connect(Some(roles.clone())).await?;
    print::line(&format!(
        "Triage of {} blocked orders (demo data) as {roles} at {}",
        orders.len(),
        connection.describe()
    ))?;
    let client = &connection.client;
    // Final approval status → orders, for the closing line.
    let mut outcomes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for order in &orders {
        let text = request_text(order);
        let task = client.send_text(&text, None, None).await?;
        let view = TaskView::of(&task);
        let mut block = format!(
            "\n== {} (customer {}, {} {})\n",
            order.sales_order,
            order.sold_to_party,
            order.total_net_amount,
            order.transaction_currency
        );
        let mut lines = vec![field("you", &text)];
        lines.extend(view.lines());
        let wanted = approve.contains(&order.sales_order);
        let mut last = view.clone();
        match &view.approval {
            Some(approval) if approval.is_pending() && wanted => {
                let answer = client
                    .send_text("approve", Some(&view.context_id), Some(&view.task_id))
                    .await?;
                let answer = TaskView::of(&answer);
                lines.push(field("you", "approve"));
                lines.extend(answer.lines());
                last = answer;
            }
            Some(approval) if approval.is_pending() => lines.push(field(
                "next",
                &format!(
                    "not approved: run with --approve {} to approve it",
                    order.sales_order
                ),
            )),
            _ if wanted => lines.push(field(
                "note",
                &format!(
                    "--approve {}: the agent asked for no approval on this order",
                    order.sales_order
                ),
            )),
            _ => {}
        }
        lines.push(field("task", &last.task_id));
        block.push_str(&indented(&lines, 2));
        print::out(&block)?;
        let outcome = match &last.approval {
            Some(approval) => approval.status.replace('_', " "),
            None => last.state.as_str().to_string(),
        };
        outcomes
            .entry(outcome)
            .or_default()
            .push(order.sales_order.clone());
    }
    let summary: Vec<String> = outcomes
        .iter()
        .map(|(outcome, orders)| format!("{outcome} {}", orders.join(", ")))
        .collect();
    print::line(&format!(
        "\n{} orders: {}",
        orders.len(),
        summary.join("; ")
    ))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_demo_data_has_four_blocked_orders_each_sent_with_its_note() {
        let orders = blocked_orders().await.unwrap();
        let numbers: Vec<&str> = orders.iter().map(|o| o.sales_order.as_str()).collect();
        assert_eq!(
            numbers,
            ["4711", "4723", "4725", "4740"],
            "4730 is not blocked"
        );
        assert_eq!(
            request_text(&orders[2]),
            "Order 4725: Pricing: customer disputes the price."
        );
    }
}
