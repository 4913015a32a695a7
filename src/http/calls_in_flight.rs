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

use super::error_response::unavailable_for;
use actix_web::HttpResponse;
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

/// A call past the bound: answered 503 with `Retry-After` ([`Shed::answer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the service is handling as many calls as it takes at once ({most}, \
     server.max_calls_in_flight); retry in {RETRY_AFTER_SECS} s"
)]
pub struct Shed {
    most: usize,
}

impl Shed {
    /// 503 with `Retry-After` and the reason, in the body of every HTTP
    /// refusal.
    pub fn answer(self) -> HttpResponse {
        unavailable_for(RETRY_AFTER_SECS, self.to_string())
    }
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

    /// A place for one call, or the call is shed (and counted).
    pub fn enter(&self) -> Result<CallInFlight, Shed> {
        Arc::clone(&self.places)
            .try_acquire_owned()
            .map(|place| CallInFlight { _place: place })
            .map_err(|_| {
                crate::telemetry::metrics::limit_refused("calls_in_flight");
                Shed { most: self.most }
            })
    }

    /// (calls in flight, the most), for `GET /health`.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.most - self.places.available_permits(), self.most)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::{StatusCode, header};

    #[test]
    fn past_the_most_a_call_is_shed_and_a_place_given_back_is_taken_again() {
        let calls = CallsInFlight::new(2);
        let first = calls.enter().expect("a place");
        let _second = calls.enter().expect("a place");
        assert_eq!(calls.in_flight(), (2, 2));
        let shed = calls.enter().expect_err("no place left").answer();
        assert_eq!(shed.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(shed.headers().get(header::RETRY_AFTER).unwrap(), "1");
        drop(first);
        assert_eq!(calls.in_flight(), (1, 2));
        assert!(calls.enter().is_ok());
    }
}
