//! The one way the client commands write to standard output. Rust ignores
//! SIGPIPE, so a reader that went away (`… | head`) makes a write fail with
//! `BrokenPipe`, and `println!` would panic on it (exit 101). Here it ends the
//! command quietly instead, with the exit code of a Unix tool that SIGPIPE
//! ended (141 = 128 + 13), so `set -o pipefail` still sees an unfinished run.

use super::error::CliError;
pub use super::error::EXIT_STDOUT_CLOSED;
use std::io::Write;

/// Write `text` as is, and flush (the error surfaces here, not at exit).
pub fn out(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::BrokenPipe => CliError::StdoutClosed,
            _ => CliError::Write {
                path: "standard output".into(),
                reason: error.to_string(),
            },
        })
}

/// Write `text` and a newline.
pub fn line(text: &str) -> Result<(), CliError> {
    out(&format!("{text}\n"))
}
