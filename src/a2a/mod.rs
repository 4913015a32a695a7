//! The A2A protocol only: the 0.3.0 serde types, the JSON-RPC envelope and
//! its errors, and the agent card; `v1` holds the 1.0 layer beside them.
//! Nothing here depends on the rest of the crate.

pub mod agent_card;
pub mod clip;
pub mod decode;
pub mod jsonrpc;
pub mod types;
pub mod v1;

pub use jsonrpc::{RpcError, RpcRequest};
pub use types::*;
