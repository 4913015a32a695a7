//! `order-exception-agent actions`: the action ledger of the store the
//! settings name (as `serve` would open it), as a table or JSON.

use crate::config::Settings;
use std::path::PathBuf;
use std::process::ExitCode;

pub async fn run(config: Option<PathBuf>, json: bool) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let stores = match crate::startup::open_stores(&settings).await {
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
