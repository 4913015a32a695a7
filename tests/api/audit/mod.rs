//! The audit trail over real HTTP: the service bound (VCAP_SERVICES) to
//! the Audit Log Service double, authentication on against the loopback
//! key server. A refused token arrives at the double as a security event
//! with the exact JSON (one per reason and address a minute); with the
//! double answering 503 and 429 for a while nothing is lost; the
//! configuration the instance starts with is a configuration change; a
//! quota refusal names its caller; without a binding the same events are
//! `type: audit` log lines; a `standard` plan or a missing field stops
//! the start. On S/4HANA, the walkthrough's reads of personal data are
//! data accesses and its approved writes data modifications, exact and
//! each delivered once, also after the auditor was down.

mod delivery;
mod personal_data;
