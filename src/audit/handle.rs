//! The audit room's handle ([`Audit`]) and how one message is recorded:
//! checked against what the service accepts, then into the outbox (a task
//! of its own stores it, so no caller waits) when an `auditlog` service is
//! bound, else a `type: audit` log line. A leaf below `mod.rs` (the start,
//! security events, the configuration), `access_log` and `with_change`,
//! which all record through it.

use super::message::{self, AuditMessage};
use super::outbox::{self, Outbox};
use super::security_gate;
use super::settings::AuditSettings;
use super::shared_counts::SharedCounts;
use std::sync::Arc;
use std::time::Instant;

/// Lines about dropped messages: one per interval.
static DROPPED_LINES: crate::telemetry::throttle::Throttle =
    crate::telemetry::throttle::Throttle::new(std::time::Duration::from_secs(10));

pub(super) struct Inner {
    /// Durable place of messages (when bound) and of what is remembered
    /// between starts.
    pub(super) outbox: Arc<Outbox>,
    /// Whether an `auditlog` binding sends the messages; else they are
    /// log lines.
    pub(super) bound: bool,
    pub(super) wake: Arc<tokio::sync::Notify>,
    pub(super) counts: Arc<SharedCounts>,
    pub(super) gate: security_gate::SecurityGate,
    /// Data accesses one request records at most (`audit.max_data_accesses_per_request`).
    pub(super) max_data_accesses: usize,
}

impl Inner {
    /// Count and report how storing one message of `kind` went; wake the
    /// sender when it was queued.
    pub(super) fn settle_stored(
        &self,
        kind: message::Kind,
        stored: Result<outbox::Stored, outbox::OutboxError>,
    ) {
        match stored {
            Ok(outbox::Stored::Queued) => {
                crate::telemetry::metrics::audit_message("queued");
                self.counts.queued_one();
                self.wake.notify_one();
            }
            Ok(outbox::Stored::Full) => {
                crate::telemetry::metrics::audit_message("dropped");
                if let Some(held_back) = DROPPED_LINES.admit("full", Instant::now()) {
                    tracing::error!(
                        audit.kind = kind.path(),
                        dropped_not_logged = held_back,
                        "audit outbox full (audit.max_queued): message dropped"
                    );
                }
            }
            Err(error) => {
                crate::telemetry::metrics::audit_message("dropped");
                tracing::error!(%error, audit.kind = kind.path(), "audit message could not be stored");
            }
        }
    }
}

/// `message` encoded and checked, or `None` (dropped, logged, counted):
/// the service would refuse it.
pub(super) fn checked(message: &AuditMessage) -> Option<message::Encoded> {
    match message.encode() {
        Ok(encoded) => Some(encoded),
        Err(error) => {
            crate::telemetry::metrics::audit_message("dropped");
            tracing::error!(%error, audit.kind = message.kind().path(), "audit message not recorded");
            None
        }
    }
}

/// The audit room's handle: cheap to clone, shared by every room that
/// reports events.
#[derive(Clone)]
pub struct Audit(pub(super) Arc<Inner>);

impl std::fmt::Debug for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Audit")
            .field("bound", &self.0.bound)
            .finish()
    }
}

impl Default for Audit {
    /// Log lines only, nothing remembered (commands, unit tests).
    fn default() -> Self {
        Audit::new(&AuditSettings::default(), Outbox::memory(0), false)
    }
}

impl Audit {
    pub(super) fn new(settings: &AuditSettings, outbox: Outbox, bound: bool) -> Audit {
        Audit(Arc::new(Inner {
            outbox: Arc::new(outbox),
            bound,
            wake: Arc::new(tokio::sync::Notify::new()),
            counts: Arc::new(SharedCounts::default()),
            gate: security_gate::SecurityGate::new(
                settings.window(),
                settings.max_security_event_keys,
            ),
            max_data_accesses: settings.max_data_accesses_per_request,
        }))
    }

    /// Record `message`: into the outbox when bound (stored by a task of
    /// its own, so the caller never waits), else as a `type: audit` log
    /// line. A message the service would refuse is dropped here, logged.
    pub fn record(&self, message: AuditMessage) {
        if let Some(encoded) = checked(&message) {
            self.record_encoded(encoded);
        }
    }

    /// [`Audit::record`], returning once the message is in the outbox (or
    /// logged, or dropped as `record` would): for a command that ends
    /// right after it, and for an erasure, which answers once its audit
    /// message is kept.
    pub async fn record_and_wait(&self, message: AuditMessage) {
        let Some(encoded) = checked(&message) else {
            return;
        };
        if self.logged_unbound(&encoded) {
            return;
        }
        let stored = self.0.outbox.put(&encoded, crate::db::now_ms()).await;
        self.0.settle_stored(encoded.kind, stored);
    }

    /// Without a binding, `encoded` written as a `type: audit` log line:
    /// whether it was (and needs no outbox).
    fn logged_unbound(&self, encoded: &message::Encoded) -> bool {
        if self.0.bound {
            return false;
        }
        crate::telemetry::metrics::audit_message("logged");
        tracing::info!(
            log.type = "audit",
            audit.kind = encoded.kind.path(),
            audit.message = %encoded.body,
            "audit"
        );
        true
    }

    /// Record a message checked before ([`Audit::record`]).
    pub(super) fn record_encoded(&self, encoded: message::Encoded) {
        if self.logged_unbound(&encoded) {
            return;
        }
        let inner = Arc::clone(&self.0);
        tokio::spawn(async move {
            let stored = inner.outbox.put(&encoded, crate::db::now_ms()).await;
            inner.settle_stored(encoded.kind, stored);
        });
    }
}
