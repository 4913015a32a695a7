//! Authentication on: IAS token validation against a loopback key server,
//! A2A 1.0 with users, and every task and push config its creator's own.

mod a2a_v1_auth;
mod forged_tokens;
mod ias_tokens;
pub(crate) mod ownership;
