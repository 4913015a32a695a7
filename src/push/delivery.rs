//! HTTP delivery of one notification to one webhook: judged again by the
//! guard, in A2A format (0.3: the Task JSON; 1.0: a `StreamResponse` with
//! the task, for configs set over 1.0) or Joule's (see `joule`), with the
//! config's token or credentials, retried with a doubling backoff and
//! jitter up to `push.max_attempts`, one `push.delivery` span per attempt.
//! Each attempt is counted (`a2a.push.attempts`) and each delivery once,
//! when it ends (`a2a.push.deliveries{result,reason,format}`: delivered,
//! given up with the last status class or why no answer came, refused
//! before any attempt); the give-up line names the trace, the caller's
//! correlation id, the attempts made and the last status.

use super::service::PushService;
use super::{guard, joule};
use crate::a2a::{PushNotificationConfig, PushPayload, Task, v1};
use crate::tasks::CallContext;
use crate::telemetry::outbound::{Attempt, Peer, Request};

impl PushService {
    pub(super) async fn deliver(
        &self,
        config: &PushNotificationConfig,
        task: &Task,
        call: &CallContext,
        cause: &tracing::Span,
    ) {
        // Judged again (the settings may have changed since it was stored);
        // host names are judged by the client's resolver as it connects.
        let webhook = match self.guard.check(&config.url) {
            Ok(webhook) => webhook,
            Err(reason) => {
                tracing::warn!(
                    a2a.task.id = %task.id,
                    a2a.context.id = %task.context_id,
                    push.reason = "refused_by_guard",
                    %reason,
                    "push refused"
                );
                // The host is not judged: the format is the A2A one.
                crate::telemetry::metrics::push_delivery("a2a", "refused", "refused_by_guard");
                return;
            }
        };
        let joule = self.settings.is_joule_host(&webhook.host);
        let format = if joule { "joule" } else { "a2a" };
        let encoded = match (joule, config.payload_version) {
            (true, _) => joule::envelope(task, call),
            (false, PushPayload::V0_3) => serde_json::to_vec(task),
            // Set over 1.0: a StreamResponse, `{"task": …}` (a2a-1.0.md §7).
            (false, PushPayload::V1_0) => {
                serde_json::to_vec(&v1::StreamResponse::Task(v1::Task::from(task.clone())))
            }
        };
        let body = match encoded {
            Ok(body) => body,
            Err(error) => {
                tracing::error!(a2a.task.id = %task.id, %error, "push body could not be encoded");
                crate::telemetry::metrics::push_delivery(format, "refused", "not_encodable");
                return;
            }
        };
        let joule_authorization = if joule {
            match self.joule_authorization(call).await {
                Ok(header) => Some(header),
                Err(reason) => {
                    tracing::warn!(
                        a2a.task.id = %task.id,
                        a2a.context.id = %task.context_id,
                        push.format = format,
                        push.reason = "token_exchange_failed",
                        correlation_id = call.correlation_id.as_deref().unwrap_or("-"),
                        %reason,
                        "Joule callback token not available; push given up"
                    );
                    crate::telemetry::metrics::push_delivery(
                        format,
                        "refused",
                        "token_exchange_failed",
                    );
                    return;
                }
            }
        } else {
            None
        };
        // The webhook as logs name it: scheme, host, port, path.
        let shown = guard::shown(&webhook.url);
        let mut last_failure = String::new();
        let mut last_status: Option<u16> = None;
        let mut last_reason = "no_answer";
        let mut attempts_made = 0u32;
        for attempt in 1..=self.settings.attempts() {
            let span = tracing::info_span!(
                parent: cause,
                "push.delivery",
                otel.name = "push.delivery",
                otel.kind = "client",
                a2a.task.id = task.id.as_str(),
                a2a.task.state = task.status.state.as_str(),
                push.attempt = i64::from(attempt),
                push.format = format,
                peer.service = Peer::Webhook.as_str(),
                http.request.method = tracing::field::Empty,
                server.address = tracing::field::Empty,
                server.port = tracing::field::Empty,
                url.template = tracing::field::Empty,
                http.request.resend_count = tracing::field::Empty,
                http.response.status_code = tracing::field::Empty,
                error.type = tracing::field::Empty,
                otel.status_description = tracing::field::Empty,
            );
            // The webhook's path is the caller's: no template.
            let sent = Attempt::on(
                span.clone(),
                &Request {
                    peer: Peer::Webhook,
                    method: "POST",
                    url: &webhook.url,
                    template: None,
                    resend_count: attempt - 1,
                    odata_service: None,
                },
            );
            let mut request = self
                .http
                .post(webhook.url.clone())
                .timeout(self.settings.timeout())
                .header("Content-Type", "application/json")
                .body(body.clone());
            if let Some(token) = &config.token {
                request = request.header("X-A2A-Notification-Token", token);
            }
            if let Some(header) = &joule_authorization {
                request = request.header("Authorization", header);
                for (name, value) in [
                    ("conversationid", &call.conversation_id),
                    ("x-correlationid", &call.correlation_id),
                ] {
                    if let Some(value) = value {
                        request = request.header(name, value);
                    }
                }
            } else if let Some(auth) = &config.authentication
                && let (Some(scheme), Some(credentials)) = (auth.schemes.first(), &auth.credentials)
            {
                request = request.header("Authorization", format!("{scheme} {credentials}"));
            }
            let outcome = sent.send(request).await;
            if let Err(error) = &outcome
                && let Some(refused) = guard::refused_resolution(error)
            {
                // Not a failure to retry: the resolver will refuse again.
                sent.stopped("refused_by_guard", &refused.to_string());
                let _entered = span.enter();
                tracing::warn!(
                    a2a.task.id = %task.id,
                    a2a.context.id = %task.context_id,
                    push.format = format,
                    push.reason = "refused_by_guard",
                    reason = %refused,
                    "push refused at delivery"
                );
                crate::telemetry::metrics::push_delivery(format, "refused", "refused_by_guard");
                return;
            }
            let status = outcome.as_ref().map(|r| r.status().as_u16()).ok();
            match &outcome {
                Ok(response) => sent.answered(response.status().as_u16()),
                Err(error) => sent.no_answer(error),
            }
            attempts_made = attempt;
            let delivered = status.is_some_and(|s| (200..300).contains(&s));
            crate::telemetry::metrics::push_attempt(format, delivered);
            last_status = status;
            last_reason = match (&outcome, status) {
                (_, Some(status)) => status_class(status),
                (Err(error), None) if error.is_timeout() => "timeout",
                _ => "no_answer",
            };
            let failure = match (&outcome, status) {
                _ if delivered => String::new(),
                (_, Some(status)) => format!("the webhook answered HTTP {status}"),
                (Err(error), None) => failure_of(error),
                (Ok(_), None) => "no answer".into(),
            };
            let _entered = span.enter();
            if delivered {
                tracing::info!(
                    a2a.task.id = %task.id,
                    a2a.task.state = task.status.state.as_str(),
                    push.attempt = i64::from(attempt),
                    push.status = i64::from(status.unwrap_or(0)),
                    push.format = format,
                    push.webhook = %shown,
                    "push delivery"
                );
                crate::telemetry::metrics::push_delivery(format, "delivered", "-");
                return;
            }
            tracing::warn!(
                a2a.task.id = %task.id,
                a2a.task.state = task.status.state.as_str(),
                push.attempt = i64::from(attempt),
                push.status = i64::from(status.unwrap_or(0)),
                push.format = format,
                push.webhook = %shown,
                push.failure = %failure,
                "push delivery failed"
            );
            drop(_entered);
            last_failure = failure;
            if attempt < self.settings.attempts() {
                let backoff = self.settings.retry_base() * 2u32.saturating_pow(attempt - 1);
                // Jitter: up to half the backoff, from the clock's low bits.
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.subsec_nanos())
                    .unwrap_or(0);
                let jitter = backoff.mul_f64(f64::from(nanos % 1000) / 2000.0);
                tokio::time::sleep(backoff + jitter).await;
            }
        }
        crate::telemetry::metrics::push_delivery(format, "given_up", last_reason);
        // In the turn's span (the line joins its trace in Cloud Logging),
        // and naming the trace and the caller's correlation id itself, for
        // text logs and for a trace that was not sampled.
        let trace_id = crate::telemetry::propagation::trace_id(cause);
        let _entered = cause.enter();
        tracing::warn!(
            a2a.task.id = %task.id,
            a2a.context.id = %task.context_id,
            a2a.task.state = task.status.state.as_str(),
            trace_id = trace_id.as_deref().unwrap_or("-"),
            correlation_id = call
                .correlation_id
                .as_deref()
                .or(trace_id.as_deref())
                .unwrap_or("-"),
            push.format = format,
            push.webhook = %shown,
            push.attempts = i64::from(attempts_made),
            push.status = last_status.map(i64::from),
            push.reason = last_reason,
            push.failure = %last_failure,
            "push delivery given up"
        );
    }
}

/// The class of a webhook's answer, as a given-up delivery's `reason`.
fn status_class(status: u16) -> &'static str {
    match status {
        300..=399 => "status_3xx",
        400..=499 => "status_4xx",
        500..=599 => "status_5xx",
        _ => "no_answer",
    }
}

/// Why a request got no answer, in words for the log: without the URL
/// (its query may hold a secret), and saying when the request could not
/// even be built (a header value no header can carry, in a config stored
/// before header values were judged).
fn failure_of(error: &reqwest::Error) -> String {
    let reason = crate::btp::oauth::without_url(error);
    if error.is_builder() {
        format!("the request could not be built ({reason})")
    } else {
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::failure_of;

    #[test]
    fn a_request_that_cannot_be_built_is_told_without_its_url() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let error = reqwest::Client::new()
            .post("https://hooks.example.com/cb?sig=q-secret")
            .header("X-A2A-Notification-Token", "bad\r\nvalue")
            .build()
            .expect_err("no header carries CR/LF");
        let reason = failure_of(&error);
        assert!(
            reason.starts_with("the request could not be built"),
            "{reason}"
        );
        assert!(!reason.contains("q-secret"), "{reason}");
    }
}
