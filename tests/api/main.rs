//! Black-box tests: the service on an ephemeral loopback port, real HTTP.

mod approvals;
mod auth;
mod budget;
mod card;
mod cli;
mod connectivity_proxy;
mod deploy;
mod destination_double;
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
mod s4hana_double;
mod s4hana_double_contract;
mod specialists;
mod streaming;
mod telemetry;
mod telemetry_grpc;
mod transport;
