//! The audit trail an SAP customer's auditors read: messages for the SAP
//! Audit Log Service (write API v2, reference/audit-log.md), built as
//! typed structs (`message`), written durably to an outbox (`outbox`, the
//! service's database or memory) so that no caller waits for the auditor
//! and nothing is lost while it is away, and sent by one worker per
//! instance (`worker`, `client`) when an `auditlog` service is bound
//! (`binding`). Without a binding every message is a `type: audit` log
//! line instead: the same events, visible locally. The handle every room
//! holds, and how one message is recorded, is `handle`. Security events of
//! refused requests go through a gate (`security_gate`) so that a flood
//! of bad tokens writes one event per reason and address per minute.
//! The reads of personal data a request makes are data accesses, at most
//! one per object, subject and attributes a request and a bounded number
//! of them (`access_log`); the writes of an approved action are data
//! modifications that go into the outbox in the transaction of the ledger
//! row they belong to (`with_change`).
//! Other rooms hand their events to [`Audit`]; this room imports nothing
//! of theirs (docs/audit.md).

mod access_log;
mod binding;
mod client;
mod erasure;
mod handle;
mod message;
mod outbox;
mod security_gate;
mod settings;
mod shared_counts;
mod with_change;
mod worker;

pub use access_log::AccessLog;
pub use binding::{AuditBinding, BindingError};
pub use client::ClientError;
pub use erasure::{ErasedCounts, ErasedUser, user_data_erased};
pub use handle::Audit;
pub use message::{
    AuditMessage, AuditObject, ChangedAttribute, Common, ConfigurationChange, DataModification,
    DataSubject, SecurityEvent, shortened,
};
pub use outbox::{Outbox, OutboxCounts};
pub use settings::AuditSettings;
pub use with_change::{ChangeMessages, OutboxRows};

use crate::db::Database;
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

impl Audit {
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
