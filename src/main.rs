use clap::{Parser, Subcommand};
use order_exception_agent::cli;
use order_exception_agent::config::{ProcessEnv, Settings};
use order_exception_agent::startup::{self, Application};
use order_exception_agent::telemetry;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// jemalloc instead of glibc's malloc: the request path allocates many
/// short-lived buffers, and glibc spent a quarter of the service's time in
/// `malloc`/`free` under load (bench/README.md). Options: `.cargo/config.toml`.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// A2A agent for SAP Joule that explains blocked sales orders, and a client
/// for it (card, ask, triage, eval).
#[derive(Parser)]
#[command(version, about, long_about = None, after_help = TOP_EXAMPLES)]
struct Cli {
    /// A TOML settings file for `serve` (overridden by AGENT__… variables).
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

    /// Fetch the agent card and print its name, protocol, endpoint and skills.
    #[command(after_help = cli::card_command::EXAMPLES)]
    Card(cli::card_command::CardArgs),

    /// Send one message (message/send) and print the specialist, state,
    /// reply, proposal and what to do next.
    #[command(after_help = cli::ask::EXAMPLES)]
    Ask(cli::ask::AskArgs),

    /// Send every blocked order of the demo data, approve the named ones in
    /// the same tasks, and print one block per order.
    #[command(after_help = cli::triage::EXAMPLES)]
    Triage(cli::triage::TriageArgs),

    /// Run a routing evaluation set: OK/MISS per case, the accuracy, a JSON
    /// report, and a non-zero exit below the threshold.
    #[command(after_help = cli::eval::EXAMPLES)]
    Eval(cli::eval::EvalArgs),

    /// Check the S/4HANA connection step by step (destination, token
    /// exchange, $metadata of each service, one sample read): one line per
    /// step, exit 0 when all pass.
    #[command(after_help = cli::diagnose::EXAMPLES)]
    Diagnose(cli::diagnose::DiagnoseArgs),

    /// List the action ledger (the store the settings name, as `serve` would open it).
    ///
    /// Example: DATABASE_URL=postgres://… order-exception-agent actions --json
    Actions {
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
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

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve);
    // `serve` sets up its logging from its settings.
    if !matches!(command, Command::Serve) {
        order_exception_agent::telemetry::init_with_default(cli::QUIET_LOG);
    }
    match command {
        Command::Serve => serve(cli.config).await,
        Command::Card(args) => cli::finish(cli::card_command::run(args).await),
        Command::Ask(args) => cli::finish(cli::ask::run(args).await),
        Command::Triage(args) => cli::finish(cli::triage::run(args).await),
        Command::Eval(args) => cli::finish(cli::eval::run(args).await),
        Command::Actions { json } => cli::actions::run(cli.config, json).await,
        Command::Diagnose(args) => cli::diagnose::run(cli.config, args).await,
    }
}

async fn serve(config: Option<PathBuf>) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            cli::error_line(&error);
            return ExitCode::from(startup::EXIT_BAD_SETTINGS);
        }
    };
    let telemetry =
        telemetry::init_service(&settings.telemetry, &settings.cloud_foundry, &ProcessEnv);
    let application = match Application::build(settings).await {
        Ok(application) => application,
        Err(error) => {
            // Bad settings exit 2 whichever check found them; other failures 1.
            cli::error_line(&error);
            telemetry.shutdown(TELEMETRY_FLUSH).await;
            return ExitCode::from(error.exit_code());
        }
    };
    tracing::info!(
        port = application.port(),
        public_url = application.public_url(),
        "listening on port {}; agent card at {}.well-known/agent-card.json",
        application.port(),
        application.public_url()
    );
    let code = match application.run_until_stopped().await {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            cli::error_line(&format!("server failed: {error}"));
            ExitCode::from(startup::EXIT_START_FAILED)
        }
    };
    // After the server's own shutdown (about 5 s): inside CF's 10 s window.
    telemetry.shutdown(TELEMETRY_FLUSH).await;
    code
}

/// How long pending spans may take to export at shutdown.
const TELEMETRY_FLUSH: Duration = Duration::from_secs(2);
