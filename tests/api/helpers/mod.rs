//! The tests' furniture, in one place so no test file builds its own:
//!
//! - [`TestApp`]: the real service on an ephemeral loopback port, built by
//!   one builder ([`TestApp::builder`]: settings, store, authentication with
//!   the key server, webhooks on loopback, Joule callbacks, an agent of the
//!   test's own); every JSON-RPC answer checked against the A2A schema;
//! - [`binary`]: the real binary as Cloud Foundry starts it;
//! - [`ScriptedAgent`]: the one agent a test scripts (delays, a question
//!   first, a panic);
//! - [`wait_until`]: the one deadline loop;
//! - [`own_postgres`]: a PostgreSQL cluster of a test's own, to crash;
//! - stubs of the external services, real HTTP servers on loopback:
//!   [`key_server`] (IAS/XSUAA keys and tokens), [`destination`] (the BTP
//!   Destination service), [`webhook`] (push receivers).
//!
//! The crate's items the tests name are re-exported at the end of this file:
//! when a module moves in `src/`, its path changes here and nowhere else.

mod agent;
mod app;
pub mod binary;
mod dates;
pub mod destination;
pub mod key_server;
pub mod own_postgres;
mod schema;
mod task;
mod wait;
pub mod webhook;

pub use agent::ScriptedAgent;
pub use app::{Store, TestApp, TestAppBuilder, http_client, postgres_url, unthrottled};
pub use dates::{DeliveryDay, delivery_day, delivery_day_in};
pub use schema::assert_schema;
pub use task::{approval, routed_to, state, status_text, user_message};
pub use wait::wait_until;

// The crate's items the tests name (the one place for their paths).
pub use order_exception_agent::{
    ActionKey, Agent, Application, AuthSettings, BusinessRole, Clock, GuardSettings, Outcome,
    Reply, STILL_WORKING, STILL_WORKING_ASK_AGAIN, STILL_WORKING_READ_LATER, Settings, Skill,
    StoreBackend, TrailingSlash, Turn, delivery_client, isolated_postgres_schema,
    refused_resolution,
};
