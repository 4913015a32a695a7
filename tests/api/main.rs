//! Black-box tests: the service on an ephemeral loopback port, real HTTP.

mod approvals;
mod auth;
mod budget;
mod card;
mod cli;
mod deploy;
mod durability;
mod helpers;
mod interop;
mod jsonrpc_errors;
mod lifecycle;
mod otlp;
mod process;
mod push;
mod routing;
mod specialists;
mod streaming;
mod telemetry;
mod telemetry_grpc;
mod transport;
