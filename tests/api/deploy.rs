//! The deployment files (issue 6): `manifest.yml`, `deploy/`,
//! `xs-security.json`, `destinations/`, `Dockerfile`, `joule/` and the README's
//! deploy section, parsed and checked against the code; the Joule dialog
//! function evaluated on real answers of the running service; and the
//! release binary checked for what the cflinuxfs4 stack offers.

mod binary;
mod files;
mod joule_contract;
mod spel;
mod support;
