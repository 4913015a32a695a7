//! Reading a request body with bounds on what a client can make it cost:
//! its size (`server.max_body_bytes`, 413), the time it may take to arrive
//! (`server.request_timeout_ms`, 408), and the memory all bodies being read
//! or handled hold at once (`server.body_bytes_in_flight`, 503 with
//! `Retry-After`). actix bounds the time to the end of the headers
//! (`client_request_timeout`) but not the body, and a body counts against
//! no budget: a client that sends headers and part of a body and stops
//! would otherwise hold its buffer, and its connection, without end.
//!
//! Memory is reserved before it is allocated: the buffer grows by doubling,
//! and the part of its capacity beyond the first [`UNCOUNTED_BYTES`] is
//! taken from one process-wide budget of bytes (a semaphore of permits, one
//! per byte) and given back when the body is dropped. Small bodies, which
//! is every ordinary JSON-RPC call, never wait for the budget, so a budget
//! full of large bodies cannot shut out a normal request; what they cost
//! together is bounded by the calls in flight (`server.max_calls_in_flight`).
//! An answer given before the body was read to its end closes the
//! connection (`Connection: close`): the rest is never read. actix closes
//! such a connection only if the handler's payload is still alive when the
//! answer's body has been written (a chunked payload dropped early is
//! drained instead, which for a body that stalls never ends), so the
//! answer's body carries the payload along ([`close_if_unread`]).

use super::error_response::{error_response, unavailable_for};
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use futures_util::StreamExt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The first bytes of each body's buffer, not counted against the budget.
pub const UNCOUNTED_BYTES: usize = 16 * 1024;

/// Seconds a client refused for a full budget is told to wait.
const RETRY_AFTER_SECS: u32 = 1;

/// The bounds, shared by every request of the process.
#[derive(Clone)]
pub struct BodyLimits {
    max_bytes: usize,
    timeout: Duration,
    /// One permit per byte of body buffers beyond their uncounted start.
    budget: Arc<Semaphore>,
    budget_bytes: usize,
}

impl BodyLimits {
    /// A body of at most `max_bytes`, arriving within `timeout`, from a
    /// budget of `budget_bytes` for all bodies together.
    pub fn new(max_bytes: usize, timeout: Duration, budget_bytes: usize) -> Self {
        let budget_bytes = budget_bytes.min(Semaphore::MAX_PERMITS);
        BodyLimits {
            max_bytes,
            timeout,
            budget: Arc::new(Semaphore::new(budget_bytes)),
            budget_bytes,
        }
    }
}

/// Why a body was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRefused {
    /// Over `max_bytes`, declared or sent.
    TooLarge(usize),
    /// Not all there within the timeout.
    TimedOut(Duration),
    /// The budget of bytes in flight is spent.
    Busy(usize),
    /// The connection broke or the framing was invalid.
    Unreadable,
}

impl BodyRefused {
    /// The HTTP answer (a JSON body in the JSON-RPC error shape); the
    /// handler closes the connection after it ([`close_if_unread`]), since
    /// the rest of the body is never read.
    pub fn answer(self) -> HttpResponse {
        match self {
            BodyRefused::TooLarge(limit) => error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("request body exceeds the limit of {limit} bytes"),
            ),
            BodyRefused::TimedOut(timeout) => error_response(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} ms",
                    timeout.as_millis()
                ),
            ),
            BodyRefused::Busy(budget) => {
                crate::telemetry::metrics::limit_refused("body_bytes_in_flight");
                unavailable_for(
                    RETRY_AFTER_SECS,
                    format!(
                        "the service is reading as many large request bodies as it holds at once \
                         ({budget} bytes); retry in {RETRY_AFTER_SECS} s"
                    ),
                )
            }
            BodyRefused::Unreadable => error_response(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            ),
        }
    }
}

/// A body read to its end; its share of the budget goes back when dropped.
pub struct Body {
    bytes: Vec<u8>,
    _reserved: Option<OwnedSemaphorePermit>,
}

impl std::ops::Deref for Body {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// The buffer and the budget it has taken so far.
struct Buffer<'a> {
    limits: &'a BodyLimits,
    bytes: Vec<u8>,
    reserved: Option<OwnedSemaphorePermit>,
}

impl Buffer<'_> {
    /// Make room for `more` bytes: double the capacity (at most to
    /// `ceiling`), taking the counted part of the growth from the budget
    /// first.
    fn make_room(&mut self, more: usize, ceiling: usize) -> Result<(), BodyRefused> {
        let needed = self.bytes.len() + more;
        let capacity = self.bytes.capacity();
        if needed <= capacity {
            return Ok(());
        }
        let grown = needed.max(capacity.saturating_mul(2).min(ceiling));
        let counted = |capacity: usize| capacity.saturating_sub(UNCOUNTED_BYTES);
        let growth = counted(grown) - counted(capacity);
        if growth > 0 {
            let permits =
                u32::try_from(growth).map_err(|_| BodyRefused::Busy(self.limits.budget_bytes))?;
            let permit = Arc::clone(&self.limits.budget)
                .try_acquire_many_owned(permits)
                .map_err(|_| BodyRefused::Busy(self.limits.budget_bytes))?;
            match &mut self.reserved {
                Some(reserved) => reserved.merge(permit),
                None => self.reserved = Some(permit),
            }
        }
        self.bytes.reserve_exact(grown - self.bytes.len());
        Ok(())
    }
}

/// Read the whole body, within the limits. `declared` is the
/// Content-Length, if any: a larger one is refused before anything is read,
/// and the buffer never grows past it (nor is it allocated on its word).
pub async fn read(
    payload: &mut web::Payload,
    declared: Option<usize>,
    limits: &BodyLimits,
) -> Result<Body, BodyRefused> {
    let limit = limits.max_bytes;
    if declared.is_some_and(|length| length > limit) {
        return Err(BodyRefused::TooLarge(limit));
    }
    let ceiling = declared.unwrap_or(limit).max(1);
    let mut buffer = Buffer {
        limits,
        bytes: Vec::new(),
        reserved: None,
    };
    let deadline = tokio::time::Instant::now() + limits.timeout;
    loop {
        let next = tokio::time::timeout_at(deadline, payload.next())
            .await
            .map_err(|_| BodyRefused::TimedOut(limits.timeout))?;
        let Some(chunk) = next else { break };
        let chunk = chunk.map_err(|_| BodyRefused::Unreadable)?;
        if buffer.bytes.len() + chunk.len() > limit {
            return Err(BodyRefused::TooLarge(limit));
        }
        buffer.make_room(chunk.len(), ceiling)?;
        buffer.bytes.extend_from_slice(&chunk);
    }
    Ok(Body {
        bytes: buffer.bytes,
        _reserved: buffer.reserved,
    })
}

/// An answer's body that keeps the request's unread payload alive until
/// it has been written.
struct HoldingPayload {
    body: BoxBody,
    _payload: web::Payload,
}

impl MessageBody for HoldingPayload {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<web::Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}

/// `response`, closing the connection after it when the body was not read
/// to its end (`read_to_end` false: refused, or answered before reading).
/// A body read in full leaves nothing to wait for: the answer is returned
/// as it is, and the connection stays open for the next request.
pub fn close_if_unread(
    mut response: HttpResponse,
    payload: web::Payload,
    read_to_end: bool,
) -> HttpResponse {
    if read_to_end {
        return response;
    }
    response
        .head_mut()
        .set_connection_type(actix_web::http::ConnectionType::Close);
    response
        .map_body(|_, body| HoldingPayload {
            body,
            _payload: payload,
        })
        .map_into_boxed_body()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(budget: usize) -> BodyLimits {
        BodyLimits::new(1024 * 1024, Duration::from_secs(1), budget)
    }

    #[test]
    fn small_bodies_take_nothing_from_the_budget() {
        let limits = limits(0);
        let mut buffer = Buffer {
            limits: &limits,
            bytes: Vec::new(),
            reserved: None,
        };
        buffer.make_room(UNCOUNTED_BYTES, usize::MAX).unwrap();
        assert!(buffer.reserved.is_none());
        assert!(buffer.bytes.capacity() >= UNCOUNTED_BYTES);
    }

    #[test]
    fn growth_is_reserved_before_it_is_allocated_and_given_back_on_drop() {
        let limits = limits(100 * 1024);
        let mut buffer = Buffer {
            limits: &limits,
            bytes: Vec::with_capacity(UNCOUNTED_BYTES),
            reserved: None,
        };
        buffer.bytes.resize(UNCOUNTED_BYTES, b' ');
        // 16 KiB → 32 KiB: 16 KiB counted.
        buffer.make_room(1, usize::MAX).unwrap();
        let capacity = buffer.bytes.capacity();
        assert_eq!(capacity, 2 * UNCOUNTED_BYTES);
        assert_eq!(
            limits.budget.available_permits(),
            100 * 1024 - UNCOUNTED_BYTES
        );
        // Far over what is left: refused, and nothing more is taken.
        let before = limits.budget.available_permits();
        assert_eq!(
            buffer.make_room(200 * 1024, usize::MAX),
            Err(BodyRefused::Busy(100 * 1024))
        );
        assert_eq!(limits.budget.available_permits(), before);
        assert_eq!(buffer.bytes.capacity(), capacity, "nothing allocated");
        drop(buffer);
        assert_eq!(limits.budget.available_permits(), 100 * 1024);
    }

    #[test]
    fn the_buffer_does_not_outgrow_the_declared_length() {
        let limits = limits(1024 * 1024);
        let mut buffer = Buffer {
            limits: &limits,
            bytes: vec![b' '; UNCOUNTED_BYTES],
            reserved: None,
        };
        buffer.make_room(10, UNCOUNTED_BYTES + 10).unwrap();
        assert_eq!(buffer.bytes.capacity(), UNCOUNTED_BYTES + 10);
    }
}
