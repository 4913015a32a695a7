//! The audit trail an SAP customer's auditors read: messages for the SAP
//! Audit Log Service (write API v2, reference/audit-log.md), built as
//! typed structs (`message`), written durably to an outbox (`outbox`, the
//! service's database or memory) so that no caller waits for the auditor
//! and nothing is lost while it is away, and sent by one worker per
//! instance (`worker`, `client`) when an `auditlog` service is bound
//! (`binding`). Without a binding every message is a `type: audit` log
//! line instead: the same events, visible locally. Security events of
//! refused requests go through a gate (`security_gate`) so that a flood
//! of bad tokens writes one event per reason and address per minute.
//! Other rooms hand their events to [`Audit`]; this room imports nothing
//! of theirs (docs/audit.md).

mod binding;
mod client;
mod erasure;
mod message;
mod outbox;
mod security_gate;
mod settings;
mod shared_counts;
mod worker;

pub use binding::{AuditBinding, BindingError};
pub use client::ClientError;
pub use erasure::{ErasedCounts, ErasedUser, user_data_erased};
pub use message::{
    AuditMessage, AuditObject, ChangedAttribute, Common, ConfigurationChange, SecurityEvent,
    shortened,
};
pub use outbox::{Outbox, OutboxCounts};
pub use settings::AuditSettings;

use crate::db::Database;
use shared_counts::SharedCounts;
use std::sync::Arc;
use std::time::Instant;

/// The client address a security event names: the first address of
/// `X-Forwarded-For` (Cloud Foundry's router sets it) when it is an IP
/// address, else the peer's.
pub fn client_address(
    forwarded_for: Option<&str>,
    peer: Option<std::net::IpAddr>,
) -> Option<String> {
    forwarded_for
        .and_then(|value| value.split(',').next())
        .and_then(|address| address.trim().parse::<std::net::IpAddr>().ok())
        .or(peer)
        .map(|address| address.to_string())
}

/// Why the audit room cannot start: the settings (bindings) are at fault.
#[derive(Debug, thiserror::Error)]
pub enum AuditSetupError {
    #[error(transparent)]
    Binding(#[from] BindingError),
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// Lines about dropped messages: one per interval.
static DROPPED_LINES: crate::telemetry::throttle::Throttle =
    crate::telemetry::throttle::Throttle::new(std::time::Duration::from_secs(10));

struct Inner {
    /// Durable place of messages (when bound) and of what is remembered
    /// between starts.
    outbox: Arc<Outbox>,
    /// Whether an `auditlog` binding sends the messages; else they are
    /// log lines.
    bound: bool,
    wake: Arc<tokio::sync::Notify>,
    counts: Arc<SharedCounts>,
    gate: security_gate::SecurityGate,
}

/// The audit room's handle: cheap to clone, shared by every room that
/// reports events.
#[derive(Clone)]
pub struct Audit(Arc<Inner>);

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
    fn new(settings: &AuditSettings, outbox: Outbox, bound: bool) -> Audit {
        Audit(Arc::new(Inner {
            outbox: Arc::new(outbox),
            bound,
            wake: Arc::new(tokio::sync::Notify::new()),
            counts: Arc::new(SharedCounts::default()),
            gate: security_gate::SecurityGate::new(
                settings.window(),
                settings.max_security_event_keys,
            ),
        }))
    }

    /// The audit room for these bindings: with an `auditlog` binding, an
    /// outbox in `database` (memory without one) and its worker, started
    /// here (within a Tokio runtime); without, log lines. A `standard` plan
    /// or a binding without a field it needs is refused.
    pub fn start(
        settings: &AuditSettings,
        services: &crate::cloud_foundry::VcapServices,
        database: Option<Database>,
    ) -> Result<Audit, AuditSetupError> {
        let binding = AuditBinding::from_services(services)?;
        let outbox = match database {
            Some(database) => Outbox::sql(database, settings.max_queued),
            None => Outbox::memory(settings.max_queued),
        };
        let Some(binding) = binding else {
            let audit = Audit::new(settings, outbox, false);
            audit.spawn_overdue_sweep();
            return Ok(audit);
        };
        tracing::info!(
            plan = %binding.plan,
            "audit messages go to the SAP Audit Log Service (auditlog binding)"
        );
        let client = client::AuditClient::new(binding)?;
        let audit = Audit::new(settings, outbox, true);
        worker::Worker {
            outbox: Arc::clone(&audit.0.outbox),
            client,
            wake: Arc::clone(&audit.0.wake),
            counts: Arc::clone(&audit.0.counts),
            retry_max: settings.retry_max(),
            poll_interval: settings.poll_interval(),
        }
        .spawn();
        audit.spawn_overdue_sweep();
        Ok(audit)
    }

    /// The outbox as the worker last counted it; `None` without a binding.
    pub fn outbox_counts(&self) -> Option<OutboxCounts> {
        self.0.bound.then(|| self.0.counts.get())
    }

    /// Record `message`: into the outbox when bound (stored by a task of
    /// its own, so the caller never waits), else as a `type: audit` log
    /// line. A message the service would refuse is dropped here, logged.
    pub fn record(&self, message: AuditMessage) {
        if let Some(encoded) = self.to_be_stored(&message) {
            let inner = Arc::clone(&self.0);
            tokio::spawn(async move { store(&inner, &encoded).await });
        }
    }

    /// [`Audit::record`], returning once the message is in the outbox (or
    /// logged, or dropped as `record` would): for a command that ends
    /// right after it, and for an erasure, which answers once its audit
    /// message is kept.
    pub async fn record_and_wait(&self, message: AuditMessage) {
        if let Some(encoded) = self.to_be_stored(&message) {
            store(&self.0, &encoded).await;
        }
    }

    /// `message` checked and encoded for the outbox; `None` when it was
    /// dropped (the service would refuse it) or, without a binding,
    /// written as a `type: audit` log line instead.
    fn to_be_stored(&self, message: &AuditMessage) -> Option<message::Encoded> {
        let encoded = match message.encode() {
            Ok(encoded) => encoded,
            Err(error) => {
                crate::telemetry::metrics::audit_message("dropped");
                tracing::error!(%error, audit.kind = message.kind().path(), "audit message not recorded");
                return None;
            }
        };
        if !self.0.bound {
            crate::telemetry::metrics::audit_message("logged");
            tracing::info!(
                log.type = "audit",
                audit.kind = encoded.kind.path(),
                audit.message = %encoded.body,
                "audit"
            );
            return None;
        }
        Some(encoded)
    }

    /// A request refused (a token, a role, a quota, a bound): a security
    /// event, at most one per `reason` and `address` per window, saying
    /// how many refusals it stands for. `user` is the caller when known.
    pub fn refused(&self, reason: &'static str, address: Option<&str>, user: Option<&str>) {
        let address = address.unwrap_or("-");
        if let Some(admitted) = self.0.gate.admit(reason, address, Instant::now()) {
            self.security_event(reason, &admitted, user.unwrap_or("anonymous"));
        }
    }

    /// Every window, the refusals held back in pairs that saw no further
    /// refusal, as events (the user is not known for a sum).
    fn spawn_overdue_sweep(&self) {
        let audit = self.clone();
        let window = self.0.gate.window_length();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(window);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                for (reason, admitted) in audit.0.gate.overdue(Instant::now()) {
                    audit.security_event(reason, &admitted, "anonymous");
                }
            }
        });
    }

    fn security_event(&self, reason: &str, admitted: &security_gate::Admitted, user: &str) {
        let data = serde_json::json!({
            "event": "RequestRefused",
            "reason": reason,
            "user": shortened(user, 200),
            "refusals": admitted.refusals,
            "windowSeconds": self.0.gate.window_length().as_secs(),
        });
        let ip = (admitted.address != "-" && admitted.address != security_gate::ANY_ADDRESS)
            .then(|| shortened(&admitted.address, 64));
        self.record(AuditMessage::Security(SecurityEvent {
            common: Common::now(&shortened(user, 200)),
            data: data.to_string(),
            ip,
        }));
    }

    /// The configuration this instance starts with (`(name, value)`
    /// pairs, no secret among them): a configuration change when it
    /// differs from the one the last start recorded (remembered in the
    /// database; with the memory store every start records it).
    pub async fn configuration_at_start(&self, configuration: &[(&str, String)]) {
        const NAME: &str = "configuration";
        let now: serde_json::Map<String, serde_json::Value> = configuration
            .iter()
            .map(|(name, value)| (name.to_string(), value.clone().into()))
            .collect();
        let before = match self.0.outbox.remembered(NAME).await {
            Ok(before) => before
                .and_then(|text| serde_json::from_str::<serde_json::Map<_, _>>(&text).ok())
                .unwrap_or_default(),
            Err(error) => {
                tracing::warn!(%error, "audit: the configuration last recorded cannot be read");
                Default::default()
            }
        };
        let attributes: Vec<ChangedAttribute> = configuration
            .iter()
            .filter(|(name, value)| before.get(*name).and_then(|v| v.as_str()) != Some(value))
            .map(|(name, value)| ChangedAttribute {
                name: name.to_string(),
                old: before
                    .get(*name)
                    .and_then(|v| v.as_str())
                    .map(str::to_string),
                new: Some(value.clone()),
            })
            .collect();
        if attributes.is_empty() {
            return;
        }
        self.record(AuditMessage::ConfigurationChange(ConfigurationChange {
            common: Common::now("order-exception-agent"),
            object: AuditObject {
                object_type: "order-exception-agent.configuration".into(),
                id: [("instance".to_string(), "order-exception-agent".to_string())].into(),
            },
            attributes,
            success: Some(true),
        }));
        let text = serde_json::Value::Object(now).to_string();
        if let Err(error) = self.0.outbox.remember(NAME, &text).await {
            tracing::warn!(%error, "audit: the configuration cannot be remembered");
        }
    }
}

/// Put `encoded` into the outbox and wake the sender; a full outbox or a
/// failed write drops it, counted and logged.
async fn store(inner: &Inner, encoded: &message::Encoded) {
    match inner.outbox.put(encoded, crate::db::now_ms()).await {
        Ok(outbox::Stored::Queued) => {
            crate::telemetry::metrics::audit_message("queued");
            inner.counts.queued_one();
            inner.wake.notify_one();
        }
        Ok(outbox::Stored::Full) => {
            crate::telemetry::metrics::audit_message("dropped");
            if let Some(held_back) = DROPPED_LINES.admit("full", Instant::now()) {
                tracing::error!(
                    audit.kind = encoded.kind.path(),
                    dropped_not_logged = held_back,
                    "audit outbox full (audit.max_queued): message dropped"
                );
            }
        }
        Err(error) => {
            crate::telemetry::metrics::audit_message("dropped");
            tracing::error!(%error, audit.kind = encoded.kind.path(), "audit message could not be stored");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::client_address;

    #[test]
    fn the_address_is_the_first_forwarded_ip_else_the_peer() {
        let peer = Some("10.0.0.5".parse().unwrap());
        assert_eq!(
            client_address(Some("203.0.113.7, 10.0.0.1"), peer).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(
            client_address(Some("<script>"), peer).as_deref(),
            Some("10.0.0.5")
        );
        assert_eq!(client_address(None, peer).as_deref(), Some("10.0.0.5"));
        assert_eq!(client_address(None, None), None);
    }
}
