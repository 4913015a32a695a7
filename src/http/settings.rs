//! The server settings (`server.*`): where to listen, the public URL,
//! workers, shutdown, request limits, connections, calls in flight, open
//! streams, SSE keep-alive, request-rate quotas (`server.quota.*`, whose
//! type lives in `quota/`). Kept in the HTTP room
//! with the conversions the server uses; `config.rs` only layers them.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How often actix refreshes the clock its head timer reads (actix-http's
/// date service).
const ACTIX_CLOCK_STEP: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerSettings {
    /// The listen address; unset: see [`ServerSettings::host`].
    pub host: Option<String>,
    pub port: u16,
    /// The JSON-RPC endpoint as callers see it (agent card `url`).
    pub public_url: Option<String>,
    /// actix worker threads; unset = one per physical core.
    pub workers: Option<usize>,
    /// Seconds to finish in-flight requests after SIGTERM (CF kills after 10).
    pub shutdown_timeout_secs: u64,
    /// A larger request body gets 413.
    pub max_body_bytes: usize,
    /// A request's body must arrive within this after its headers; else
    /// 408 and the connection is closed.
    pub request_timeout_ms: u64,
    /// A new connection's first request head must arrive within this after
    /// it opened; else 408 and the connection is closed. Short, because a
    /// connection that sends nothing holds a connection slot.
    pub head_timeout_ms: u64,
    /// Bytes all request bodies being read or handled may hold at once
    /// (beyond the first 16 KiB of each, which always fit); a body that
    /// needs more gets 503 with `Retry-After`.
    pub body_bytes_in_flight: usize,
    /// Open connections at most (split over the workers); more wait to be
    /// accepted.
    pub max_connections: usize,
    /// JSON-RPC calls being handled at once at most (from before the body
    /// is read until the answer is produced; an event stream counts until
    /// its first answer, then against `max_streams`); past it 503 with
    /// `Retry-After`.
    pub max_calls_in_flight: usize,
    /// Open event streams at most, within half of `max_connections`: the
    /// other half stays for short calls and `GET /health`.
    pub max_streams: usize,
    /// Open event streams one caller (a person, or a technical client by
    /// its client id) may hold; not counted with authentication off.
    pub streams_per_caller: usize,
    /// Open event streams on one task (subscriptions, and streamed messages
    /// that continue it).
    pub streams_per_task: usize,
    /// A `: keep-alive` comment on quiet SSE streams this often.
    pub sse_keep_alive_ms: u64,
    /// Requests a second per caller, per tenant, per instance.
    pub quota: super::QuotaSettings,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            host: None,
            port: 8080,
            public_url: None,
            workers: None,
            shutdown_timeout_secs: 5,
            max_body_bytes: 1024 * 1024,
            request_timeout_ms: 10_000,
            head_timeout_ms: 2_000,
            body_bytes_in_flight: 16 * 1024 * 1024,
            max_connections: 2048,
            max_calls_in_flight: 512,
            max_streams: 256,
            streams_per_caller: 8,
            streams_per_task: 4,
            sse_keep_alive_ms: 15_000,
            quota: super::QuotaSettings::default(),
        }
    }
}

impl ServerSettings {
    /// The address to listen on: `server.host`, else every address
    /// (`0.0.0.0`) when others must reach the instance (`reachable`: on
    /// Cloud Foundry, or with authentication on), else loopback only
    /// (`127.0.0.1`): with authentication off the caller names their own
    /// roles, so only this machine may call unless told otherwise.
    pub fn host(&self, reachable: bool) -> &str {
        match &self.host {
            Some(host) => host,
            None if reachable => "0.0.0.0",
            None => "127.0.0.1",
        }
    }

    /// `host:port` to bind.
    pub fn address(&self, reachable: bool) -> String {
        format!("{}:{}", self.host(reachable), self.port)
    }

    /// The body within this after the headers (at least 1 ms).
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms.max(1))
    }

    /// actix's head timer (a connection's first request head):
    /// `head_timeout_ms` plus the step of actix's clock. actix sets the
    /// deadline from a clock it refreshes every 500 ms, so with the setting
    /// alone it could fire up to 500 ms early: at a setting of 500 ms,
    /// sometimes before the headers that arrived with the connection were
    /// read.
    pub fn head_timeout(&self) -> Duration {
        Duration::from_millis(self.head_timeout_ms.max(1)) + ACTIX_CLOCK_STEP
    }

    /// JSON-RPC calls handled at once at most (at least 1).
    pub fn calls_in_flight(&self) -> usize {
        self.max_calls_in_flight.max(1)
    }

    /// The `: keep-alive` period of quiet SSE streams (at least 100 ms).
    pub fn sse_keep_alive(&self) -> Duration {
        Duration::from_millis(self.sse_keep_alive_ms.max(100))
    }

    /// actix worker threads: the setting, else the available parallelism
    /// (2 when unknown, actix's own default), within 1..=512.
    pub fn workers(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
            .clamp(1, 512)
    }

    /// The bounds on open event streams: the settings, the total within
    /// half of `max_connections`, each at least 1.
    pub fn stream_limits(&self) -> crate::rpc::StreamLimits {
        crate::rpc::StreamLimits {
            open: self.max_streams.min(self.max_connections / 2).max(1),
            per_caller: self.streams_per_caller.max(1),
            per_task: self.streams_per_task.max(1),
        }
    }

    /// actix counts connections per worker: `max_connections` split over
    /// `workers`, at least one each.
    pub fn connections_per_worker(&self, workers: usize) -> usize {
        self.max_connections.div_ceil(workers).max(1)
    }
}
