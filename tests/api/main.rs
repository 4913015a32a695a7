//! Black-box tests: the service on an ephemeral loopback port, real HTTP.
//! One folder per area (docs/development.md lists them); the test doubles
//! and their contract tests in `doubles/`, the furniture in `helpers/`.

mod agent;
mod audit;
mod auth;
mod deploy;
mod doubles;
mod helpers;
mod protocol;
mod push;
mod s4hana;
mod tasks;
mod telemetry;
