//! The binary's command line (clap): `serve`, the default, and the client
//! commands. It lives in the library so `main.rs` only parses and runs it,
//! and so the commands stay private to the crate.

use super::{actions, ask, card_command, diagnose, erase_user, eval, finish, serve, triage};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// A2A agent for SAP Joule that explains blocked sales orders, and a client
/// for it (card, ask, triage, eval).
#[derive(Parser)]
#[command(version, about, long_about = None, after_help = TOP_EXAMPLES)]
pub struct CommandLine {
    /// A TOML settings file for `serve` (overridden by AGENT__… variables).
    #[arg(long, global = true, env = "AGENT_CONFIG")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve the A2A endpoint (the default).
    ///
    /// Example: PORT=8080 order-exception-agent serve
    Serve,

    /// Fetch the agent card and print its name, protocol, endpoint and skills.
    #[command(after_help = card_command::EXAMPLES)]
    Card(card_command::CardArgs),

    /// Send one message (message/send) and print the specialist, state,
    /// reply, proposal and what to do next.
    #[command(after_help = ask::EXAMPLES)]
    Ask(ask::AskArgs),

    /// Send every blocked order of the demo data, approve the named ones in
    /// the same tasks, and print one block per order.
    #[command(after_help = triage::EXAMPLES)]
    Triage(triage::TriageArgs),

    /// Run a routing evaluation set: OK/MISS per case, the accuracy, a JSON
    /// report, and a non-zero exit below the threshold.
    #[command(after_help = eval::EXAMPLES)]
    Eval(eval::EvalArgs),

    /// Check the S/4HANA connection step by step (destination, token
    /// exchange, $metadata of each service, one sample read): one line per
    /// step, exit 0 when all pass.
    #[command(after_help = diagnose::EXAMPLES)]
    Diagnose(diagnose::DiagnoseArgs),

    /// List the action ledger (the store the settings name, as `serve` would open it).
    ///
    /// Example: DATABASE_URL=postgres://… order-exception-agent actions --json
    Actions {
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },

    /// Erase one user's data in the store the settings name: their tasks,
    /// contexts and push configs deleted, their action ledger rows kept
    /// with the approver replaced by `erased`; audit-logged.
    #[command(after_help = erase_user::EXAMPLES)]
    EraseUser(erase_user::EraseUserArgs),
}

const TOP_EXAMPLES: &str = "\
Examples:
  order-exception-agent                      serve on PORT (default 8080)
  order-exception-agent card                 the card of an in-process agent
  order-exception-agent ask \"why is order 4711 blocked by credit\"
  order-exception-agent triage --approve 4725
  order-exception-agent eval --url http://127.0.0.1:8080/

Without --url, card, ask, triage and eval start the agent in this process on
a loopback port (embedded demo data, authentication off). Exit codes of these
commands: 0 done, 1 eval below its threshold, 2 bad arguments or input file,
3 the agent could not be reached or answered with an error, 141 stdout was
closed early (… | head). `serve` exits 2 on bad settings, 1 on other
failures to start.";

impl CommandLine {
    /// Runs the command given (`serve` when none is) and gives its exit code.
    pub async fn run(self) -> ExitCode {
        let command = self.command.unwrap_or(Command::Serve);
        // `serve` sets up its logging from its settings.
        match command {
            Command::Serve => {}
            Command::EraseUser(_) => crate::telemetry::init_with_default(super::ERASE_LOG),
            _ => crate::telemetry::init_with_default(super::QUIET_LOG),
        }
        match command {
            Command::Serve => serve::serve(self.config).await,
            Command::Card(args) => finish(card_command::run(args).await),
            Command::Ask(args) => finish(ask::run(args).await),
            Command::Triage(args) => finish(triage::run(args).await),
            Command::Eval(args) => finish(eval::run(args).await),
            Command::Actions { json } => actions::run(self.config, json).await,
            Command::Diagnose(args) => diagnose::run(self.config, args).await,
            Command::EraseUser(args) => erase_user::run(self.config, args).await,
        }
    }
}
