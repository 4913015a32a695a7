//! The request handler's room: the JSON-RPC envelope and method dispatch
//! (`dispatch`), the legacy v0.2 `tasks/send` mapping (`legacy`) and a task's
//! events as a stream of JSON-RPC responses (`event_stream`). It knows no
//! HTTP: `http/` reads the body, calls [`handle`] and frames the reply (a
//! body, or SSE for an [`EventStream`]). Every method goes through the task
//! engine (`tasks/`), push notification configs included.

mod dispatch;
mod event_stream;
mod legacy;
mod v1;

pub use dispatch::{RpcContext, RpcReply, TaskIds, VersionParameter, handle};
pub use event_stream::EventStream;
