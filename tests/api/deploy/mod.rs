//! The real binary and what ships with it: how Cloud Foundry starts and
//! stops it (`process`), bad settings stopping `serve`, its client commands
//! (`cli`, `closed_stdout`); the deployment files: `manifest.yml`, `deploy/`,
//! `xs-security.json`, `destinations/`, `Dockerfile`, `joule/` and the deploy
//! guide (`docs/deploy-btp.md`), parsed and checked against the code; the
//! README and `docs/` held against the repository (links, settings, the front
//! page); the Joule dialog function evaluated on real answers of the running
//! service; and the service binary checked for what the cflinuxfs4 stack
//! offers.

mod bad_settings;
mod binary;
mod cli;
mod closed_stdout;
mod docs;
mod files;
mod guide;
mod joule_contract;
mod process;
mod spel;
mod support;
