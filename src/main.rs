use clap::{Parser, Subcommand};
use order_exception_agent::config::Settings;
use order_exception_agent::startup::Application;
use std::path::PathBuf;
use std::process::ExitCode;

/// A2A agent for SAP Joule that explains blocked sales orders.
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    /// A TOML settings file (overridden by AGENT__… variables).
    #[arg(long, global = true, env = "AGENT_CONFIG")]
    config: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the A2A endpoint (the default).
    ///
    /// Example: PORT=8080 order-exception-agent serve
    Serve,
    /// List the action ledger (the store the settings name, as `serve` would open it).
    ///
    /// Example: DATABASE_URL=postgres://… order-exception-agent actions --json
    Actions {
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    order_exception_agent::telemetry::init();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(cli.config).await,
        Command::Actions { json } => actions(cli.config, json).await,
    }
}

async fn actions(config: Option<PathBuf>, json: bool) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let stores = match order_exception_agent::startup::open_stores(&settings).await {
        Ok(stores) => stores,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let entries = match stores.ledger.list().await {
        Ok(entries) => entries,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    if json {
        println!("{}", serde_json::json!({ "actions": entries }));
        return ExitCode::SUCCESS;
    }
    println!("{} filed action(s) in {}", entries.len(), stores.location);
    for entry in entries {
        println!(
            "{}  order {:<6} {:<30} by {} as {}  (task {}, context {})",
            entry.approved_at,
            entry.sales_order,
            entry.action,
            entry.approved_by,
            entry.approver_role,
            entry.task_id,
            entry.context_id
        );
    }
    ExitCode::SUCCESS
}

async fn serve(config: Option<PathBuf>) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let application = match Application::build(settings).await {
        Ok(application) => application,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(
        port = application.port(),
        public_url = application.public_url(),
        "listening on port {}; agent card at {}.well-known/agent-card.json",
        application.port(),
        application.public_url()
    );
    match application.run_until_stopped().await {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: server failed: {error}");
            ExitCode::FAILURE
        }
    }
}
