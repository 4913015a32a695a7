//! The official Rust A2A SDK as a peer for `bench/perf.sh`: the SDK's own
//! JSON-RPC router over axum, its `DefaultRequestHandler` and in-memory task
//! store, and an executor that answers the four walkthrough requests with the
//! service's own answers (`answers.json`). It exists so that the service's
//! lead over the SDK is measured in every run, not quoted; it is loopback-only
//! and not part of the service (its own crate, lock file and workspace).
//!
//! Usage: `bench-sdk-peer PORT` (listens on 127.0.0.1:PORT, path `/`).

mod answers;
mod executor;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use a2a_server::{DefaultRequestHandler, InMemoryTaskStore};

use crate::answers::Answers;
use crate::executor::WalkthroughExecutor;

/// Why the peer did not start or stopped serving.
#[derive(Debug, thiserror::Error)]
enum PeerError {
    #[error("usage: bench-sdk-peer PORT (a port number, 1-65535), got {0:?}")]
    Usage(Option<String>),
    #[error("answers.json is not a list of answers: {0}")]
    Answers(#[from] serde_json::Error),
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("serving stopped: {0}")]
    Serve(std::io::Error),
}

#[tokio::main]
async fn main() -> Result<(), PeerError> {
    let argument = std::env::args().nth(1);
    let port: u16 = argument
        .as_deref()
        .and_then(|text| text.parse().ok())
        .filter(|port| *port != 0)
        .ok_or(PeerError::Usage(argument.clone()))?;
    let executor = WalkthroughExecutor::new(Answers::embedded()?);
    let handler = Arc::new(DefaultRequestHandler::new(
        executor,
        InMemoryTaskStore::new(),
    ));
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| PeerError::Bind { address, source })?;
    axum::serve(listener, a2a_server::jsonrpc::jsonrpc_router(handler))
        .await
        .map_err(PeerError::Serve)
}
