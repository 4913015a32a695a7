use super::AppState;
use super::call_ids::CallIds;
use super::error_response::error_response;
use super::headers::{header_text, logged};
use super::quota::{QuotaRefused, Requester};
use super::request_log::{self, CallFacts};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use std::time::Duration;

/// Frame each JSON-RPC response as one SSE `data:` event; the stream ends
/// after the final status. A client that goes away drops the stream; the
/// task's turn goes on.
/// A `: keep-alive` comment every `keep_alive` keeps proxies from closing a
/// quiet stream.
fn server_sent_events(stream: crate::rpc::EventStream, keep_alive: Duration) -> HttpResponse {
    let body = futures_util::stream::unfold(Some(stream), move |state| async move {
        let mut stream = state?;
        tokio::select! {
            next = stream.next() => {
                let json = next?;
                let mut frame = Vec::with_capacity(json.len() + 8);
                frame.extend_from_slice(b"data: ");
                frame.extend_from_slice(&json);
                frame.extend_from_slice(b"\n\n");
                Some((Ok::<_, actix_web::Error>(web::Bytes::from(frame)), Some(stream)))
            }
            _ = tokio::time::sleep(keep_alive) => {
                Some((Ok(web::Bytes::from_static(b": keep-alive\n\n")), Some(stream)))
            }
        }
    });
    HttpResponse::Ok()
        .content_type("text/event-stream; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body)
}

/// Whether a Content-Type is JSON (`application/json`, `…+json`). A missing
/// header is accepted: the body decides.
fn is_json(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// With authentication off, the caller states their roles in this header
/// (the CLI's `--role`); with authentication on it is ignored and roles
/// come from the token.
const LOCAL_ROLE: &str = "x-agent-role";

/// The user id of every caller while authentication is off.
const LOCAL_USER: &str = "local-user";

/// Who calls, for the rule book: the token's person (or none for a
/// technical token) and roles; with authentication off, a local user with
/// the roles of `X-Agent-Role`.
fn caller(
    principal: Option<&crate::auth::Principal>,
    token: Option<&crate::auth::BearerToken>,
    authentication_on: bool,
    stated_roles: Option<String>,
) -> Result<crate::agent::Caller, String> {
    if let Some(principal) = principal {
        let person = principal.kind == crate::auth::TokenKind::User;
        return Ok(crate::agent::Caller {
            user_id: person.then(|| principal.user_id.clone()),
            approver_key: super::owner::person_key(Some(principal)),
            roles: principal.roles.clone(),
            user_token: token.filter(|_| person).cloned(),
        });
    }
    if authentication_on {
        return Ok(crate::agent::Caller::default());
    }
    let roles = stated_roles
        .iter()
        .flat_map(|names| names.split(','))
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::parse::<crate::roles::BusinessRole>)
        .collect::<Result<_, _>>()
        .map_err(|error| format!("X-Agent-Role: {error}"))?;
    Ok(crate::agent::Caller {
        user_id: Some(LOCAL_USER.to_string()),
        approver_key: None,
        roles,
        user_token: None,
    })
}

/// The tenant and user a call's spans carry: the token's tenant, and the
/// person's id for a user token only (a technical token is no user; its
/// client id is `auth.client_id` on the `authenticate` span).
fn caller_tags(principal: &crate::auth::Principal) -> crate::telemetry::CallerTags {
    crate::telemetry::CallerTags {
        tenant_id: principal.tenant.clone(),
        user_id: (principal.kind == crate::auth::TokenKind::User)
            .then(|| principal.user_id.clone()),
    }
}

/// Whose bucket a request takes from: the owner its tasks get (a person's
/// user id, an application's client id) and the token's tenant; with
/// authentication off, the instance's.
fn requester<'a>(
    principal: Option<&'a crate::auth::Principal>,
    scope: &'a crate::tasks::OwnerScope,
) -> Requester<'a> {
    match (principal, scope.owner()) {
        (Some(principal), Some(caller)) => Requester::Caller {
            caller,
            tenant: principal.tenant.as_deref(),
        },
        _ => Requester::Local,
    }
}

/// The answer past a quota, before the body is read: -32029 (`id: null`,
/// no request was read) with 429, or 503 when the table of rates is full;
/// `Retry-After` the error's wait. Counted by limit, and once on the
/// request line and span like any call.
fn quota_refused(refused: &QuotaRefused, facts: &mut CallFacts) -> HttpResponse {
    crate::telemetry::metrics::limit_refused(refused.label());
    let error = refused.rpc_error();
    tracing::Span::current().record("rpc.jsonrpc.error_code", error.code);
    facts.error_code = Some(error.code);
    let body = crate::a2a::jsonrpc::error_bytes(&serde_json::Value::Null, &error);
    facts.error_message = Some(error.message);
    let status = if refused.is_capacity() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::TOO_MANY_REQUESTS
    };
    limit_reached(status, refused.retry_after_secs(), body)
}

/// A refusal past a limit: `status`, `Retry-After: seconds`, the JSON-RPC
/// error `body`.
fn limit_reached(status: StatusCode, seconds: u64, body: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::RETRY_AFTER, seconds))
        .content_type("application/json")
        .body(body)
}

/// The `A2A-Version` query parameter (name case-insensitive), if any.
fn a2a_version_query(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name.eq_ignore_ascii_case(crate::a2a::v1::version::VERSION_PARAMETER))
        .map(|(_, value)| value.into_owned())
}

/// POST / — the JSON-RPC endpoint. Transport problems (content type, size)
/// are HTTP errors; everything from the body on is a JSON-RPC answer with 200.
/// One server span per request, the child of the caller's `traceparent`,
/// named by its method (`message/send`, `SendMessage`; `jsonrpc` when the
/// method is unreadable or not served), with OpenTelemetry's HTTP server
/// attributes.
pub async fn json_rpc(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    use tracing::Instrument;
    let ids = CallIds::of(request.headers());
    let span = tracing::info_span!(
        "jsonrpc",
        otel.name = "jsonrpc",
        otel.kind = "server",
        rpc.system = "jsonrpc",
        http.request.method = tracing::field::Empty,
        http.route = "/",
        url.path = tracing::field::Empty,
        url.scheme = tracing::field::Empty,
        server.address = tracing::field::Empty,
        server.port = tracing::field::Empty,
        client.address = tracing::field::Empty,
        network.protocol.version = tracing::field::Empty,
        user_agent.original = tracing::field::Empty,
        rpc.method = tracing::field::Empty,
        rpc.jsonrpc.request_id = tracing::field::Empty,
        rpc.jsonrpc.error_code = tracing::field::Empty,
        a2a.task.state = tracing::field::Empty,
        a2a.task.id = tracing::field::Empty,
        a2a.context.id = tracing::field::Empty,
        http.response.status_code = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_description = tracing::field::Empty,
        correlation_id = tracing::field::Empty,
        sap.correlation_id = tracing::field::Empty,
        sap.conversation_id = tracing::field::Empty,
        sap.tenancy.tenant_id = tracing::field::Empty,
        user.id = tracing::field::Empty,
    );
    if !span.is_disabled() {
        record_http_server(&span, &request);
    }
    if let Some(correlation) = &ids.correlation_id {
        span.record("correlation_id", correlation.as_str());
        span.record("sap.correlation_id", correlation.as_str());
    }
    if let Some(conversation) = &ids.conversation_id {
        span.record("sap.conversation_id", conversation.as_str());
    }
    crate::telemetry::propagation::adopt_remote_parent(
        &span,
        &super::headers::TraceHeaders(request.headers()),
    );
    let started = std::time::Instant::now();
    let mut facts = CallFacts::default();
    let mut payload = payload;
    // Boxed: the call's future is large (the token check, the body, the
    // engine's call), and actix moves the handler's future by value; a
    // pointer is what moves (bench/README.md, "What was tried").
    let response = Box::pin(json_rpc_in_span(
        &request,
        &mut payload,
        state,
        ids,
        &mut facts,
    ))
    .instrument(span.clone())
    .await;
    // An answer before the body's end (401, 408, 413, 503, …) closes.
    let response = super::body::close_if_unread(response, payload, facts.request_bytes.is_some());
    // An integer attribute, as OpenTelemetry's conventions have it
    // (tracing-opentelemetry exports unsigned values as strings).
    span.record(
        "http.response.status_code",
        i64::from(response.status().as_u16()),
    );
    mark_failure(&span, response.status(), &facts);
    if let Some(method) = facts
        .rpc_method
        .as_deref()
        .and_then(crate::telemetry::metrics::served_method)
    {
        crate::telemetry::propagation::rename(&span, method);
    }
    // Every call is counted, those refused before any JSON-RPC answer too
    // (by their HTTP status: 401, 403, 413, 415, 503, …).
    let status = response.status();
    let refused =
        (status.is_client_error() || status.is_server_error()).then(|| i64::from(status.as_u16()));
    crate::telemetry::metrics::request(
        facts.rpc_method.as_deref().unwrap_or("-"),
        facts.error_code.or(refused),
        started.elapsed().as_secs_f64(),
        facts.tags.tenant_id.as_deref(),
    );
    span.in_scope(|| request_log::log(&request, &response, &facts, started));
    response
}

/// OpenTelemetry's HTTP server attributes of `request` (the scheme, host
/// and client as the gorouter forwards them; what the caller chose, cut to
/// a bound).
fn record_http_server(span: &tracing::Span, request: &HttpRequest) {
    span.record("http.request.method", request.method().as_str());
    span.record("url.path", &*logged(request.path()));
    let connection = request.connection_info();
    span.record("url.scheme", &*logged(connection.scheme()));
    let (address, port) = host_and_port(connection.host());
    span.record("server.address", &*logged(address));
    if let Some(port) = port {
        span.record("server.port", i64::from(port));
    }
    if let Some(client) = super::auth::client_address(request) {
        span.record("client.address", client.as_str());
    }
    let version = match request.version() {
        actix_web::http::Version::HTTP_10 => "1.0",
        actix_web::http::Version::HTTP_2 => "2",
        actix_web::http::Version::HTTP_3 => "3",
        _ => "1.1",
    };
    span.record("network.protocol.version", version);
    if let Some(agent) = header_text(request.headers(), header::USER_AGENT) {
        span.record("user_agent.original", &*logged(agent));
    }
}

/// A `Host` value's address and port: `[::1]:8080`, `example.com`.
fn host_and_port(host: &str) -> (&str, Option<u16>) {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((address, port)) => (address, port.strip_prefix(':').and_then(|p| p.parse().ok())),
            None => (host, None),
        };
    }
    match host.split_once(':') {
        Some((address, port)) => (address, port.parse().ok()),
        None => (host, None),
    }
}

/// A call answered with an error is a failed server span (JSON-RPC's
/// rule: an answer with an `error` object is an error): status ERROR with
/// the error's message, `error.type` the JSON-RPC code; a call refused
/// before any JSON-RPC answer (401, 403, 413, 503, …) has the HTTP status
/// as its `error.type`.
fn mark_failure(span: &tracing::Span, status: StatusCode, facts: &CallFacts) {
    if let Some(code) = facts.error_code {
        let message = facts.error_message.as_deref().unwrap_or("JSON-RPC error");
        crate::telemetry::status::failed(span, &code.to_string(), message);
    } else if status.is_client_error() || status.is_server_error() {
        let reason = status.canonical_reason().unwrap_or("refused");
        crate::telemetry::status::failed(
            span,
            status.as_str(),
            &format!("HTTP {} {reason}", status.as_str()),
        );
    }
}

/// `facts` collects what the request log line says about the call.
async fn json_rpc_in_span(
    request: &HttpRequest,
    payload: &mut web::Payload,
    state: web::Data<AppState>,
    ids: CallIds,
    facts: &mut CallFacts,
) -> HttpResponse {
    // Past the calls the instance takes at once, shed before anything is
    // read; the place is given back when this returns (the answer is made).
    let _in_flight = match state.calls.enter() {
        Ok(place) => place,
        Err(shed) => {
            let address = super::auth::client_address(request);
            state
                .audit
                .refused("calls_in_flight", address.as_deref(), None);
            return shed.answer();
        }
    };
    // Who calls comes first: no body is read for an unauthenticated caller.
    let super::auth::Credentials { principal, token } =
        match super::auth::authenticate(request, &state).await {
            Ok(credentials) => credentials,
            Err(answer) => return answer,
        };
    if let Some(principal) = &principal {
        facts.user_id = Some(principal.user_id.clone());
        facts.client_id = principal.client_id.clone();
        facts.tenant_rule = principal.tenant_rule.map(|rule| rule.as_str());
        facts.tags = caller_tags(principal);
        facts.tags.record(&tracing::Span::current());
    }
    let scope = super::owner::owner_scope(principal.as_deref(), state.auth.is_some());
    // Then how often it calls: a refused request reads no body.
    if let Err(refused) = state.quotas.admit(
        requester(principal.as_deref(), &scope),
        std::time::Instant::now(),
    ) {
        let address = super::auth::client_address(request);
        state.audit.refused(
            refused.label(),
            address.as_deref(),
            principal.as_deref().map(|p| p.user_id.as_str()),
        );
        return quota_refused(&refused, facts);
    }
    if let Some(content_type) = request.headers().get(header::CONTENT_TYPE) {
        let content_type = content_type.to_str().unwrap_or("");
        if !is_json(content_type) {
            return error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Type `{content_type}` is not supported: send application/json"),
            );
        }
    }
    let declared = header_text(request.headers(), header::CONTENT_LENGTH)
        .and_then(|value| value.parse::<usize>().ok());
    let body = match super::body::read(payload, declared, &state.body_limits).await {
        Ok(body) => body,
        Err(refused) => {
            if matches!(refused, super::body::BodyRefused::Busy(_)) {
                let address = super::auth::client_address(request);
                state.audit.refused(
                    "body_bytes_in_flight",
                    address.as_deref(),
                    principal.as_deref().map(|p| p.user_id.as_str()),
                );
            }
            return refused.answer();
        }
    };
    facts.request_bytes = Some(body.len());
    let header = |name: &str| header_text(request.headers(), name).map(str::to_string);
    let caller = match caller(
        principal.as_deref(),
        token.as_ref(),
        state.auth.is_some(),
        header(LOCAL_ROLE),
    ) {
        Ok(caller) => caller,
        Err(reason) => return error_response(StatusCode::BAD_REQUEST, reason),
    };
    if facts.user_id.is_none() {
        facts.user_id = caller.user_id.clone();
    }
    let call = crate::tasks::CallContext {
        conversation_id: ids.conversation_id,
        correlation_id: ids.correlation_id,
        bearer_token: token,
        caller,
        rules: Default::default(),
        scope,
        accept_language: header("accept-language"),
        tags: facts.tags.clone(),
    };
    let version_query = a2a_version_query(request.query_string());
    let context = crate::rpc::RpcContext {
        engine: &state.engine,
        principal: principal.as_deref(),
        extended_card: state.extended_card.as_ref(),
        call,
        a2a_version: crate::rpc::VersionParameter {
            header: header_text(
                request.headers(),
                crate::a2a::v1::version::VERSION_PARAMETER,
            ),
            query: version_query.as_deref(),
        },
        streams: &state.streams,
        audit: &state.audit,
        forwarded_for: super::auth::forwarded_for(request),
        peer: request.peer_addr().map(|peer| peer.ip()),
    };
    let mut reply = crate::rpc::handle(&context, &body).await;
    facts.rpc_method = reply.method.clone();
    facts.rpc_id = reply.request_id();
    facts.task = std::mem::take(&mut reply.task);
    facts.task_state = reply.task_state;
    facts.error_code = reply.error_code;
    facts.error_message = reply.error_message.take();
    if let Some(stream) = reply.stream {
        return server_sent_events(stream, state.sse_keep_alive);
    }
    if let Some(seconds) = reply.retry_after_secs {
        return limit_reached(StatusCode::TOO_MANY_REQUESTS, seconds, reply.body);
    }
    HttpResponse::Ok()
        .content_type("application/json")
        .body(reply.body)
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn a_host_value_is_split_into_address_and_port() {
        use super::host_and_port;
        assert_eq!(
            host_and_port("agent.cfapps.eu10.hana.ondemand.com"),
            ("agent.cfapps.eu10.hana.ondemand.com", None)
        );
        assert_eq!(host_and_port("127.0.0.1:8080"), ("127.0.0.1", Some(8080)));
        assert_eq!(host_and_port("[::1]:8080"), ("::1", Some(8080)));
        assert_eq!(host_and_port("[::1]"), ("::1", None));
    }

    #[test]
    fn json_content_types() {
        assert!(is_json("application/json"));
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/json-rpc+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/x-www-form-urlencoded"));
    }
}
