//! Logging: readable text on stderr, filtered by `RUST_LOG` (default `info`).
//! OpenTelemetry export and SAP's JSON log format come with the ops issue.

use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

/// The filter of the service when `RUST_LOG` is not set.
pub const SERVICE_LOG: &str = "info,actix_server=warn";

/// Install the global subscriber once; later calls (tests) are no-ops.
pub fn init() {
    init_with_default(SERVICE_LOG);
}

/// Like `init`, with another filter when `RUST_LOG` is not set (the client
/// commands log warnings only).
pub fn init_with_default(default_filter: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}
