//! How many JSON-RPC calls are being handled at once, and the refusal past
//! `server.max_calls_in_flight`. Connections are many and cheap (idle ones
//! must not shut `GET /health` out), so they do not bound the work: without
//! this a burst of calls would all be read, authenticated and run at once,
//! and every answer would come late. A place is taken before anything of
//! the call is read (its token, its body) and given back when its answer
//! is produced; an event stream gives it back with its first answer and
//! is bounded by its own slots from then on (`rpc::StreamSlots`). A call
//! past the bound gets 503 with `Retry-After` at once, before anything is
//! acknowledged. `/health` and the card are never counted.

use super::error_response::error_response;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Seconds a shed caller is told to wait: calls in flight end within the
/// blocking budget, most within milliseconds.
const RETRY_AFTER_SECS: u32 = 1;

/// The places for calls in flight. Cheap to clone: the places are shared.
#[derive(Debug, Clone)]
pub struct CallsInFlight {
    places: Arc<Semaphore>,
    most: usize,
}

/// One call's place, given back when dropped.
#[derive(Debug)]
pub struct CallInFlight {
    _place: OwnedSemaphorePermit,
}

impl CallsInFlight {
    /// At most `most` calls at once (at least 1).
    pub fn new(most: usize) -> CallsInFlight {
        let most = most.clamp(1, Semaphore::MAX_PERMITS);
        CallsInFlight {
            places: Arc::new(Semaphore::new(most)),
            most,
        }
    }

    /// A place for one call, or the 503 that sheds it.
    pub fn enter(&self) -> Result<CallInFlight, HttpResponse> {
        Arc::clone(&self.places)
            .try_acquire_owned()
            .map(|place| CallInFlight { _place: place })
            .map_err(|_| self.refusal())
    }

    /// (calls in flight, the most), for `GET /health`.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.most - self.places.available_permits(), self.most)
    }

    fn refusal(&self) -> HttpResponse {
        crate::telemetry::metrics::shed("server.max_calls_in_flight");
        let mut response = error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the service is handling as many calls as it takes at once ({}, \
                 server.max_calls_in_flight); retry in {RETRY_AFTER_SECS} s",
                self.most
            ),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_most_a_call_is_shed_and_a_place_given_back_is_taken_again() {
        let calls = CallsInFlight::new(2);
        let first = calls.enter().expect("a place");
        let _second = calls.enter().expect("a place");
        assert_eq!(calls.in_flight(), (2, 2));
        let shed = calls.enter().expect_err("no place left");
        assert_eq!(shed.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(shed.headers()[header::RETRY_AFTER], "1");
        drop(first);
        assert_eq!(calls.in_flight(), (1, 2));
        assert!(calls.enter().is_ok());
    }
}
