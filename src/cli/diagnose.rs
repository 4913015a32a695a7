//! `order-exception-agent diagnose`: check the S/4HANA connection the
//! settings describe (as `serve` would build it), one line per step, for
//! an administrator locally or on Cloud Foundry (`cf ssh`). Exit codes: 0
//! every step passed, 1 a step failed, 2 bad settings.

use crate::backend::SourceKind;
use crate::backend::s4hana::{self, diagnose};
use crate::config::Settings;
use crate::startup::EXIT_BAD_SETTINGS;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent diagnose --user-token \"$IAS_TOKEN\" --order 4711
  cf ssh order-exception-agent -c 'DIAGNOSE_USER_TOKEN=… app/order-exception-agent diagnose'";

#[derive(Debug, Clone, clap::Args)]
pub struct DiagnoseArgs {
    /// A user's IAS (or XSUAA) token: the token exchange and the reads are
    /// made as this user, as for a request from Joule.
    #[arg(
        long,
        env = "DIAGNOSE_USER_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub user_token: Option<String>,
    /// The sales order of the sample read (else the list of blocked orders).
    #[arg(long, value_name = "NUMBER")]
    pub order: Option<String>,
}

pub async fn run(config: Option<PathBuf>, args: DiagnoseArgs) -> ExitCode {
    let mut out = std::io::stdout();
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            let _ = writeln!(out, "FAIL settings: {error}");
            return ExitCode::from(EXIT_BAD_SETTINGS);
        }
    };
    if settings.backend.source != SourceKind::S4hana {
        let _ = writeln!(
            out,
            "FAIL settings: backend.source is `embedded` (the demo data): set AGENT__BACKEND__SOURCE=s4hana"
        );
        return ExitCode::from(EXIT_BAD_SETTINGS);
    }
    let source = match s4hana::build(
        &settings.backend.s4hana,
        settings.backend.blocks.clone(),
        &settings.cloud_foundry,
        // A diagnosis reads no personal data but a sample order; any
        // data access it makes is a `type: audit` line.
        crate::audit::Audit::default(),
    ) {
        Ok(source) => Arc::new(source),
        Err(error) => {
            let _ = writeln!(out, "FAIL settings: {error}");
            return ExitCode::from(EXIT_BAD_SETTINGS);
        }
    };
    let _ = writeln!(out, "OK   settings: backend.source = s4hana");
    let steps = diagnose::run(&source, args.user_token.as_deref(), args.order.as_deref()).await;
    for step in &steps {
        let mark = if step.ok { "OK  " } else { "FAIL" };
        let line = step.line.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ = writeln!(out, "{mark} {}: {line}", step.name);
    }
    if steps.iter().all(|step| step.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
