//! The test doubles, real servers on loopback, and their contract tests:
//! S/4HANA (OData V2), the BTP Destination service, the connectivity proxy,
//! the SAP Audit Log Service, and the OTLP collector the telemetry tests read.

pub(crate) mod audit_log;
pub(crate) mod connectivity_proxy;
mod contract;
pub(crate) mod destination;
pub(crate) mod otlp;
pub(crate) mod s4hana;
