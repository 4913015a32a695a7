//! The wire: A2A 0.3 and 1.0 over JSON-RPC and SSE, the agent card, every
//! JSON-RPC error, the HTTP guards and slow clients, and the official Python
//! SDKs talking to the service.

pub(crate) mod a2a_v1;
#[cfg(feature = "conformance")]
mod a2a_v1_conformance;
pub(crate) mod a2a_v1_schema;
pub(crate) mod a2a_v1_streaming;
mod card;
mod interop;
mod jsonrpc_errors;
mod jsonrpc_fuzz;
mod overload;
mod slow_bodies;
mod stream_bounds;
pub(crate) mod streaming;
mod transport;
