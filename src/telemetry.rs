//! Logging: readable text on stderr, filtered by `RUST_LOG` (default `info`).
//! OpenTelemetry export and SAP's JSON log format come with the ops issue.

use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// Install the global subscriber once; later calls (tests) are no-ops.
pub fn init() {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,actix_server=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}
