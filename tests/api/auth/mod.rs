//! Authentication on: IAS token validation against a loopback key server,
//! A2A 1.0 with users, every task and push config its creator's own,
//! erasing one user's data, and the request rates of callers and tenants.

mod a2a_v1_auth;
mod erasure;
mod forged_tokens;
mod ias_tokens;
pub(crate) mod ownership;
mod request_rates;
