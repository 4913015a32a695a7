//! The deployment files: `manifest.yml`, `deploy/`, `xs-security.json`,
//! `destinations/`, `Dockerfile`, `joule/` and the deploy guide
//! (`docs/deploy-btp.md`), parsed and checked against the code; the README
//! and `docs/` held against the repository (links, settings, the front
//! page); the Joule dialog function evaluated on real answers of the running
//! service; and the service binary checked for what the cflinuxfs4 stack
//! offers.

mod binary;
mod docs;
mod files;
mod joule_contract;
mod spel;
mod support;
