//! Black-box tests: the service on an ephemeral loopback port, real HTTP.

mod approvals;
mod auth;
mod bad_settings;
mod budget;
mod card;
mod cli;
mod closed_stdout;
mod deploy;
mod dropped_connections;
mod durability;
mod helpers;
mod interop;
mod jsonrpc_errors;
mod key_server;
mod lifecycle;
mod otlp;
mod process;
mod push;
mod routing;
mod slow_bodies;
mod specialists;
mod streaming;
mod telemetry;
mod telemetry_grpc;
mod transport;
