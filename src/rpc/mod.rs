//! The request handler's room: one handler, two codecs. `handle` reads the
//! JSON-RPC envelope and the version a request speaks; that version's
//! codec (`v03`, with the v0.2 `tasks/send` mapping in `legacy`; `v1`)
//! decodes it into the one call type (`call`), `run` carries the call out
//! on the task engine (`tasks/`), and the codec writes the outcome: a
//! result, or a task's events as a stream of JSON-RPC responses
//! (`event_stream`), as many at once as `stream_slots` admits. Why a call is refused is mapped to each version's
//! error in one place (`errors`). It knows no HTTP: `http/` reads the body,
//! calls [`handle`] and frames the reply (a body, or SSE for an
//! [`EventStream`]).

mod call;
mod context;
mod errors;
mod event_stream;
mod handle;
mod legacy;
mod reply;
mod run;
mod stream_slots;
mod v03;
mod v1;

pub use context::{RpcContext, VersionParameter};
pub use event_stream::EventStream;
pub use handle::handle;
pub use reply::TaskIds;
pub use stream_slots::{LIMIT_REACHED, StreamLimits, StreamSlots};
