//! One request body in, one reply out: the JSON-RPC envelope, the version
//! the request speaks (`a2a::v1::negotiate`), then that version's codec
//! decodes it into a call, [`run`] carries it out and the codec writes the
//! answer, or the refusal in the version's error shape. Knows no HTTP:
//! `http/` hands the body in and frames what comes back.

use super::call::{Action, Call, Outcome};
use super::context::RpcContext;
use super::errors::{self, CallError};
use super::reply::{Encoded, RpcReply, TaskIds};
use super::run::run;
use super::stream_slots::{StreamLimitReached, StreamSlot};
use super::{v1, v03};
use crate::a2a::RpcRequest;
use crate::a2a::jsonrpc::{self, RpcError};
use crate::a2a::v1::version::{WireVersion, requested_version};
use crate::a2a::v1::{A2aError, Route, negotiate};
use crate::tasks::OwnerScope;
use serde_json::Value;

/// A body that is no JSON-RPC request has no method to route by, but its
/// caller asked for a version (the header, else the query): a 1.0 caller
/// gets the 1.0 shape, the ErrorInfo first in `data`; anyone else 0.3's.
fn envelope_error(context: &RpcContext<'_>, error: RpcError) -> RpcError {
    match requested_version(context.a2a_version.header, context.a2a_version.query) {
        Ok(requested) if requested.version == WireVersion::V1_0 => {
            A2aError::from_rpc_error(&error).to_rpc_error()
        }
        _ => error,
    }
}

/// Handle one request body and always produce a JSON-RPC response.
pub async fn handle(context: &RpcContext<'_>, body: &[u8]) -> RpcReply {
    let reply = match jsonrpc::parse_request(body) {
        Err(envelope) => {
            let error = envelope_error(context, envelope.error);
            RpcReply::refused(envelope.id, None, &error, false)
        }
        Ok(request) => {
            let asked = TaskIds::of_params(request.params.as_ref());
            let mut reply = match negotiate(
                context.a2a_version.header,
                context.a2a_version.query,
                &request.method,
            ) {
                Ok(route) => answer(context, request, route).await,
                // A version the service does not speak, or a method not
                // in the version's table (named on the log line cut, as
                // the error echoes it).
                Err(refused) => RpcReply::refused(
                    request.id,
                    Some(crate::a2a::clip::clip(&request.method)),
                    &refused.to_rpc_error(),
                    false,
                ),
            };
            reply.task = std::mem::take(&mut reply.task).or(asked);
            reply
        }
    };
    let span = tracing::Span::current();
    span.record("rpc.method", reply.method.as_deref().unwrap_or("-"));
    if let Some(id) = reply.request_id() {
        span.record("rpc.jsonrpc.request_id", id.as_str());
    }
    if let Some(code) = reply.error_code {
        span.record("rpc.jsonrpc.error_code", code);
    }
    if let Some(state) = reply.task_state {
        span.record("a2a.task.state", state);
    }
    if let Some(task_id) = &reply.task.task_id {
        span.record("a2a.task.id", task_id.as_str());
    }
    if let Some(context_id) = &reply.task.context_id {
        span.record("a2a.context.id", context_id.as_str());
    }
    reply
}

/// A request in the version `route` names: decoded, run, encoded.
async fn answer(context: &RpcContext<'_>, request: RpcRequest, route: Route) -> RpcReply {
    let RpcRequest { id, method, params } = request;
    let call = match decode(route, &method, params, !id.is_null()) {
        Ok(call) => call,
        Err(error) => return refused(route, id, method, &error),
    };
    let slot = match stream_slot(context, &call) {
        Ok(slot) => slot,
        // Past a bound: a plain error in either version (answered with 429).
        Err(limit) => {
            crate::telemetry::metrics::limit_refused(limit.label());
            let address = crate::audit::client_address(context.forwarded_for, context.peer);
            context.audit.refused(
                limit.label(),
                address.as_deref(),
                context
                    .principal
                    .map(|principal| principal.user_id.as_str()),
            );
            return RpcReply::refused(id, Some(method), &limit.rpc_error(), false);
        }
    };
    let ran = run(context, call)
        .await
        .map_err(|error| refusal(route, &error));
    let encoded = ran.and_then(|outcome| {
        let (task_state, task) = (outcome.task_state(), outcome.task_ids());
        encode(route, &id, outcome).map(|encoded| (encoded, task_state, task))
    });
    match encoded {
        Ok((encoded, task_state, task)) => {
            let encoded = match (encoded, slot) {
                (Encoded::Stream(stream), Some(slot)) => {
                    Encoded::Stream(Box::new(stream.holding(slot)))
                }
                (encoded, _) => encoded,
            };
            RpcReply::answered(id, method, encoded, task_state, task)
        }
        Err(error) => refused(route, id, method, &error),
    }
}

/// A place among the open streams for a call that opens one (`None` for
/// any other call): counted for its caller (with authentication off, the
/// one local caller counts against the instance bound only) and for the
/// task it follows or continues.
fn stream_slot(
    context: &RpcContext<'_>,
    call: &Call,
) -> Result<Option<StreamSlot>, StreamLimitReached> {
    let task = match &call.action {
        Action::Stream(params) => params.message.task_id.as_deref(),
        Action::Subscribe { task_id } => Some(task_id.as_str()),
        _ => return Ok(None),
    };
    let caller = match &context.call.scope {
        OwnerScope::Owner(owner) => Some(owner.as_str()),
        OwnerScope::Everyone => None,
    };
    context.streams.take(caller, task).map(Some)
}

/// A call refused: in the version's error shape, as a stream event where
/// 0.3 streams its errors.
/// 1.0: a call that cannot start its stream (bad params, unknown or
/// finished task) answers one plain JSON-RPC error, as a2a-python does;
/// the 1.0 clients read either, and the conformance suite counts an event
/// stream as success.
fn refused(route: Route, id: Value, method: String, error: &RpcError) -> RpcReply {
    let as_stream = route == Route::V0_3 && v03::streams_errors(&method);
    RpcReply::refused(id, Some(method), error, as_stream)
}

fn decode(
    route: Route,
    method: &str,
    params: Option<Value>,
    has_id: bool,
) -> Result<Call, RpcError> {
    match route {
        Route::V0_3 => v03::decode(method, params, has_id),
        Route::V1_0(method) => v1::decode(method, params, has_id).map_err(RpcError::from),
    }
}

fn refusal(route: Route, error: &CallError) -> RpcError {
    match route {
        Route::V0_3 => errors::v03(error),
        Route::V1_0(_) => errors::v1(error).to_rpc_error(),
    }
}

fn encode(route: Route, id: &Value, outcome: Outcome<'_>) -> Result<Encoded, RpcError> {
    match route {
        Route::V0_3 => v03::encode(id, outcome),
        Route::V1_0(_) => v1::encode(id, outcome).map_err(RpcError::from),
    }
}

#[cfg(test)]
mod tests {
    use crate::a2a::v1::Method;

    /// Every method the service dispatches is a name telemetry knows (a
    /// span name and a label of its own), none counted as `other`.
    #[test]
    fn every_dispatched_method_is_a_served_method_of_telemetry() {
        let v1 = Method::ALL.map(Method::name);
        for method in crate::a2a::v1::version::V0_3_METHODS
            .iter()
            .chain(v1.iter())
        {
            assert_eq!(
                crate::telemetry::metrics::served_method(method),
                Some(*method),
                "{method}"
            );
        }
        assert_eq!(crate::telemetry::metrics::served_method("no/such"), None);
        assert_eq!(crate::telemetry::metrics::served_method("-"), None);
    }
}
