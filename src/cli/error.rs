//! How a client command fails, and the exit code each failure ends the
//! binary with. Its own file because every command returns it and
//! `print.rs` makes one of it (standard output closed), while `mod.rs`
//! wires the commands: the error sits below both.

use super::client::ClientError;
use crate::backend::BackendError;
use crate::startup::StartupError;

/// Exit code of a command whose standard output was closed before it was done.
pub const EXIT_STDOUT_CLOSED: u8 = 141;

pub const EXIT_BELOW_THRESHOLD: u8 = 1;
pub const EXIT_INPUT: u8 = 2;
pub const EXIT_AGENT: u8 = 3;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("cannot start the in-process agent: {0}")]
    Local(#[from] StartupError),
    #[error("cannot read the demo orders: {0}")]
    Orders(#[from] BackendError),
    /// Bad arguments or input files.
    #[error("{0}")]
    Input(String),
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
    /// The reader of standard output went away (`… | head`): a quiet end.
    #[error("standard output was closed")]
    StdoutClosed,
}

impl CliError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) | CliError::Write { .. } => EXIT_INPUT,
            CliError::Client(ClientError::InvalidUrl { .. }) => EXIT_INPUT,
            CliError::Client(_) | CliError::Local(_) | CliError::Orders(_) => EXIT_AGENT,
            CliError::StdoutClosed => EXIT_STDOUT_CLOSED,
        }
    }
}
