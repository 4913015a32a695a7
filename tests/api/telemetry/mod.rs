//! What the real binary exports: traces, metrics and logs over OTLP/HTTP and
//! gRPC, the spans of S/4HANA reads and approved actions, and what the
//! on-call engineer starts from.

mod actions_telemetry;
mod bounded_logs;
mod caller_tags;
mod oncall;
mod oncall_actions;
mod otlp_grpc;
mod otlp_http;
pub(crate) mod s4hana_telemetry;
