//! `order-exception-agent actions`: the action ledger of the store the
//! settings name (as `serve` would open it), as a table or JSON. Exit codes
//! as `serve`'s: 2 bad settings, 1 a store that cannot be opened or read;
//! 141 when standard output was closed early.

use super::{CliError, error_line, print};
use crate::config::Settings;
use crate::startup::{EXIT_BAD_SETTINGS, EXIT_START_FAILED};
use std::path::PathBuf;
use std::process::ExitCode;

pub async fn run(config: Option<PathBuf>, json: bool) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(EXIT_BAD_SETTINGS);
        }
    };
    let stores = match crate::startup::open_stores(&settings).await {
        Ok(stores) => stores,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(error.exit_code());
        }
    };
    let entries = match stores.ledger.list().await {
        Ok(entries) => entries,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(EXIT_START_FAILED);
        }
    };
    match list(&entries, &stores.location, json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::StdoutClosed) => ExitCode::from(print::EXIT_STDOUT_CLOSED),
        Err(error) => {
            error_line(&error);
            ExitCode::from(error.exit_code())
        }
    }
}

/// `done after 1 attempt: <answer>`, `retrying (2 attempts) at …: <answer>`.
fn execution_line(entry: &crate::agent::ledger::LedgerEntry) -> String {
    let attempts = match entry.attempts {
        1 => "1 attempt".to_string(),
        n => format!("{n} attempts"),
    };
    let next = entry
        .next_attempt_at
        .as_ref()
        .map(|at| format!(", next at {at}"))
        .unwrap_or_default();
    let answer = entry
        .answer
        .as_ref()
        .map(|answer| format!(": {answer}"))
        .unwrap_or_default();
    format!("{} ({attempts}{next}){answer}", entry.state)
}

fn list(
    entries: &[crate::agent::ledger::LedgerEntry],
    location: &str,
    json: bool,
) -> Result<(), CliError> {
    if json {
        return print::line(&serde_json::json!({ "actions": entries }).to_string());
    }
    print::line(&format!("{} filed action(s) in {location}", entries.len()))?;
    for entry in entries {
        let requested = match entry.key.requested.as_str() {
            "" => String::new(),
            requested => format!(" for {requested}"),
        };
        let version = match entry.key.order_version.as_str() {
            "" => String::new(),
            version => format!("order version {version}, "),
        };
        print::line(&format!(
            "{}  order {:<6} {:<30} by {} as {}  ({version}task {}, context {})",
            entry.approved_at,
            entry.key.sales_order,
            format!("{}{requested}", entry.key.action),
            entry.approved_by,
            entry.approver_role,
            entry.task_id,
            entry.context_id
        ))?;
        print::line(&format!("    {}", execution_line(entry)))?;
    }
    Ok(())
}
