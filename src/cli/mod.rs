//! The client side of the binary: `card`, `ask`, `triage` and `eval` against
//! any A2A 0.3.0 endpoint (`--url`), or against this service started
//! in-process on a loopback port with the embedded demo data and
//! authentication off when no `--url` is given.
//!
//! Exit codes: 0 done; 1 `eval` below its threshold; 2 bad arguments or
//! input files; 3 the agent could not be reached or answered with an error;
//! 141 standard output was closed before the command was done (`print`).

pub mod actions;
pub mod ask;
pub mod batch_view;
pub mod card_command;
pub mod client;
pub mod command_line;
pub mod diagnose;
pub mod erase_user;
pub mod error;
pub mod eval;
pub mod local;
pub mod output;
pub mod print;
mod serve;
pub mod triage;

pub use client::A2aClient;
pub use error::{CliError, EXIT_BELOW_THRESHOLD};

use crate::roles::BusinessRole;
use std::io::Write;
use std::process::ExitCode;

/// The log filter of client commands when `RUST_LOG` is not set: warnings
/// only, and not the in-process server's "authentication is off" warning
/// (it runs on loopback for this one command).
pub const QUIET_LOG: &str = "warn,actix_server=error,order_exception_agent::startup=error";

/// The log filter of `erase-user`: the quiet one, and the `type: audit`
/// line its erasure is without an `auditlog` binding.
pub const ERASE_LOG: &str = "warn,actix_server=error,order_exception_agent::startup=error,order_exception_agent::audit=info";

/// The exit code for a command's result; an error is one line on stderr
/// (none when standard output was closed: the reader wanted no more).
pub fn finish(result: Result<u8, CliError>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(CliError::StdoutClosed) => ExitCode::from(error::EXIT_STDOUT_CLOSED),
        Err(error) => {
            error_line(&error);
            ExitCode::from(error.exit_code())
        }
    }
}

/// `error: …` as one line on stderr, whatever the error carried; a closed
/// stderr is no panic either.
pub fn error_line(error: &dyn std::fmt::Display) {
    let line = error.to_string().replace(['\n', '\r'], " ");
    let _ = writeln!(std::io::stderr(), "error: {line}");
}

/// Which agent the commands talk to (`--url`, `--token`), flattened into
/// each command's arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentArgs {
    /// The agent's JSON-RPC endpoint (the card's `url`), e.g.
    /// http://127.0.0.1:8080/. Without it the agent runs in-process on a
    /// loopback port with the embedded demo data and authentication off.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// Bearer token sent as `Authorization: Bearer …` (an IAS or XSUAA token
    /// when the agent requires authentication).
    #[arg(
        long,
        env = "AGENT_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub token: Option<String>,
}

/// A client, and the in-process agent it talks to when there is one.
pub struct Connection {
    pub client: A2aClient,
    /// `Some` when the agent runs in this process (it stops with the command).
    pub local: Option<local::LocalAgent>,
}

impl Connection {
    /// How to name the agent in output: its URL, marked when in-process.
    pub fn describe(&self) -> String {
        match &self.local {
            Some(_) => format!(
                "{} (in-process, embedded demo data, authentication off)",
                self.client.endpoint()
            ),
            None => self.client.endpoint().to_string(),
        }
    }

    /// `--url …` for a command line that continues the conversation.
    pub fn url_argument(&self) -> String {
        match &self.local {
            Some(_) => "--url <URL of a running agent>".into(),
            None => format!("--url {}", self.client.endpoint()),
        }
    }
}

impl AgentArgs {
    /// Connect to `--url`, or start the agent in-process.
    pub async fn connect(&self, roles: Option<String>) -> Result<Connection, CliError> {
        let (endpoint, local) = match &self.url {
            Some(url) => (url.clone(), None),
            None => {
                let agent = local::LocalAgent::start().await?;
                (agent.url().to_string(), Some(agent))
            }
        };
        let client = A2aClient::new(&endpoint, self.token.clone())?.with_roles(roles);
        Ok(Connection { client, local })
    }
}

/// Check comma-separated role names; returns them as the header sends them.
pub fn parse_roles(roles: &str) -> Result<String, CliError> {
    let names: Vec<&str> = roles
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    if names.is_empty() {
        return Err(CliError::Input(
            "--role needs at least one role name".into(),
        ));
    }
    for name in &names {
        name.parse::<BusinessRole>()
            .map_err(|error| CliError::Input(format!("--role: {error}")))?;
    }
    Ok(names.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_checked_and_normalized() {
        assert_eq!(
            parse_roles(" ar_clerk, credit_manager ").unwrap(),
            "ar_clerk,credit_manager"
        );
        let error = parse_roles("ar-clerk").unwrap_err();
        assert!(error.to_string().contains("unknown role `ar-clerk`"));
        assert_eq!(error.exit_code(), error::EXIT_INPUT);
        assert!(parse_roles(" , ").is_err());
    }
}
