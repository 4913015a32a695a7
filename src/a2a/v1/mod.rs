//! A2A 1.0 beside 0.3.0: the ProtoJSON types of `lf.a2a.v1` (the normative
//! `a2a.proto` at `v1.0.0`), the 1.0 error model, version negotiation, and
//! the mapping onto the engine's model (the 0.3 types). Nothing here knows
//! HTTP, the engine or the stores; nothing is wired in yet.
//!
//! Why hand-written serde types rather than a crate: the official
//! `a2a-lf` (Apache-2.0, MSRV 1.85, so its licence and MSRV would fit) was
//! read at 0.4.2. Its types write correct ProtoJSON, but they do not read
//! what `a2a-1.0.md` §3 asks a server to accept: snake_case field names and
//! integer enums (its enums read names only, its structs have no aliases),
//! and, like any serde derive, they read a JSON array into a struct by
//! position. It also brings `chrono` and `base64` 0.23 beside the `time`
//! crate we use, its API is pre-1.0 and changing from release to release,
//! and errors would not name the field the way our 0.3 params do
//! (`params.message.parts[0]: …`). About forty small structs, written
//! against the proto and checked against the generated JSON Schema
//! (`tests/schema/a2a-v1.0.json`), cost less than adapting around those gaps,
//! and they keep the protocol room self-contained like the 0.3 types.
//!
//! - [`protojson`]: the encoding rules, once (objects only, enums, oneofs,
//!   `int32`, `Timestamp`, `bytes`).
//! - [`types`], [`requests`], [`card`]: the messages of `a2a.proto`.
//! - [`error`]: codes, `ErrorInfo`, `error.data`.
//! - [`version`]: which version a request speaks; [`supported`]: the
//!   versions this agent speaks.
//! - [`convert`]: 0.3 ↔ 1.0, and what each direction loses.

pub mod agent_card;
pub mod convert;
pub mod error;
pub mod protojson;
pub mod requests;
pub mod supported;
pub mod types;
pub mod version;

pub use agent_card::AgentCard;
pub use convert::V03StreamEvent;
pub use error::{A2aError, ErrorCode};
pub use protojson::Timestamp;
pub use requests::*;
pub use types::*;
pub use version::{Method, Route, negotiate};
