//! `ask`: one `message/send`, printed as the specialist, state, reply,
//! proposal, approval and what to do next.

use super::output::{TaskView, field};
use super::{AgentArgs, CliError, Connection, parse_roles, print};
use crate::a2a::{Task, TaskState};

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent ask \"why is order 4711 blocked by credit\"
  order-exception-agent ask \"why is it blocked by credit\" --url http://127.0.0.1:8080/
  order-exception-agent ask 4711 --url http://127.0.0.1:8080/ --task <taskId> --context <contextId>
  order-exception-agent ask approve --url http://127.0.0.1:8080/ --task <taskId> --role ar_clerk
  AGENT_TOKEN=\"$(cat token.jwt)\" order-exception-agent ask \"order 4725\" --url https://agent.example.com/

Without --url the agent runs in this process and stops with the command; to
continue a task, run the service (cargo run --release) and pass --url.";

#[derive(Debug, Clone, clap::Args)]
pub struct AskArgs {
    /// What to ask, as a user would type it.
    pub text: String,

    #[command(flatten)]
    pub target: AgentArgs,

    /// Continue this conversation (the context id of an earlier answer).
    #[arg(long, value_name = "ID")]
    pub context: Option<String>,

    /// Continue this task (the task id of an answer that asked something back).
    #[arg(long, value_name = "ID")]
    pub task: Option<String>,

    /// Act in these roles (comma-separated: ar_clerk, credit_manager,
    /// master_data_specialist, viewer), sent as the X-Agent-Role header. Only
    /// a server with authentication off reads it; with a token the roles
    /// come from the token (IAS groups or XSUAA scopes).
    #[arg(long, value_name = "ROLE")]
    pub role: Option<String>,

    /// Print the answered task as A2A JSON.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: AskArgs) -> Result<u8, CliError> {
    let roles = args.role.as_deref().map(parse_roles).transpose()?;
    let connection = args.target.connect(roles.clone()).await?;
    let task = connection
        .client
        .send_text(&args.text, args.context.as_deref(), args.task.as_deref())
        .await?;
    if args.json {
        print::line(
            &serde_json::to_string_pretty(&task).unwrap_or_else(|error| error.to_string()),
        )?;
    } else {
        print::out(&render(&task, &connection, roles.as_deref()))?;
    }
    Ok(0)
}

/// The answer, then the ids and the command that continues.
pub fn render(task: &Task, connection: &Connection, roles: Option<&str>) -> String {
    let view = TaskView::of(task);
    let mut lines = view.lines();
    lines.push(field("task", &view.task_id));
    lines.push(field("context", &view.context_id));
    let url = connection.url_argument();
    let role = roles
        .map(|roles| format!(" --role {roles}"))
        .unwrap_or_default();
    let ids = format!("--task {} --context {}", view.task_id, view.context_id);
    let next = if view.approval.as_ref().is_some_and(|a| a.is_pending()) {
        format!(
            "approve or reject in this task: order-exception-agent ask approve {url} {ids}{role}"
        )
    } else if view.state == TaskState::InputRequired {
        format!("answer in this task: order-exception-agent ask \"<answer>\" {url} {ids}{role}")
    } else if matches!(view.state, TaskState::Submitted | TaskState::Working) {
        format!(
            "the agent is still working on it; a message with {ids} shows the task as it is then"
        )
    } else {
        format!(
            "the task is {}; ask more in this conversation: order-exception-agent ask \"<question>\" {url} --context {}{role}",
            view.state.as_str(),
            view.context_id
        )
    };
    lines.push(field("next", &next));
    if connection.local.is_some() {
        lines.push(field(
            "note",
            "the in-process agent stops with this command; to continue, run the service (cargo run --release) and pass its --url",
        ));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}
