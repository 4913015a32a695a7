//! order-exception-agent: an A2A agent (0.3.0 and 1.0 on one endpoint) that
//! SAP Joule calls to explain blocked sales orders. See `README.md`.

pub mod a2a;
pub mod agent;
#[cfg(test)]
mod architecture_check;
pub mod auth;
pub mod backend;
pub mod btp;
pub mod cli;
pub mod clock;
pub mod cloud_foundry;
pub mod config;
pub mod db;
pub mod http;
pub mod loopback;
pub mod push;
pub mod roles;
pub mod rpc;
pub mod secret;
pub mod startup;
pub mod tasks;
pub mod telemetry;
