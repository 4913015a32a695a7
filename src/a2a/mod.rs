//! The A2A 0.3.0 protocol only: serde types, the JSON-RPC envelope and its
//! errors, and the agent card. Nothing here depends on the rest of the crate.

pub mod card;
pub mod decode;
pub mod jsonrpc;
pub mod types;

pub use jsonrpc::{RpcError, RpcRequest};
pub use types::*;
