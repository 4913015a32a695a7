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
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    order_exception_agent::telemetry::init();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(cli.config).await,
    }
}

async fn serve(config: Option<PathBuf>) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let application = match Application::build(settings) {
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
