//! The data accesses of one request: a read of personal data made for a
//! user is one `data-accesses` message (reference/audit-log.md §2.4,
//! §3.1) with the channel `A2A`. A request that reads the same data of
//! the same subject twice (an order asked about twice in a batch, its
//! partners shared by several orders) records it once, and a request
//! records at most `audit.max_data_accesses_per_request` of them, so that
//! "show me all blocked orders" cannot fill the outbox; past the bound a
//! read is logged as an error and counted `dropped`, never silently lost.
//! The reading room names the object, the subject and the attributes;
//! this one only dedupes, bounds and records.

use super::handle::Audit;
use super::message::{
    AuditMessage, AuditObject, Common, DataAccess, DataSubject, ReadAttribute, shortened,
};
use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Instant;

/// Where the data went: to the caller of the A2A endpoint.
pub const CHANNEL: &str = "A2A";

/// Lines about data accesses past the bound: one per interval.
static PAST_THE_BOUND: crate::telemetry::throttle::Throttle =
    crate::telemetry::throttle::Throttle::new(std::time::Duration::from_secs(10));

/// The data accesses of one request, made for one user.
pub struct AccessLog {
    audit: Audit,
    /// The user the data was read for (cut at 200 characters).
    user: String,
    /// What was recorded already: object, subject and attributes.
    recorded: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for AccessLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessLog")
            .field("user", &self.user)
            .finish()
    }
}

impl AccessLog {
    /// The data accesses of one request, read for `user`, recorded by
    /// `audit`.
    pub fn new(audit: &Audit, user: &str) -> AccessLog {
        AccessLog {
            audit: audit.clone(),
            user: shortened(user, 200),
            recorded: Mutex::new(HashSet::new()),
        }
    }

    /// `attributes` of `object`, personal data of `subject`, were read:
    /// one message, unless this request recorded the same read before or
    /// has recorded as many as it may.
    pub fn read(&self, object: AuditObject, subject: DataSubject, attributes: &[&str]) {
        let seen = format!(
            "{}|{:?}|{}|{:?}|{}",
            object.object_type,
            object.id,
            subject.subject_type,
            subject.id,
            attributes.join(",")
        );
        {
            let mut recorded = self
                .recorded
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if recorded.contains(&seen) {
                return;
            }
            if recorded.len() >= self.audit.0.max_data_accesses {
                crate::telemetry::metrics::audit_message("dropped");
                if let Some(held_back) = PAST_THE_BOUND.admit("accesses", Instant::now()) {
                    tracing::error!(
                        audit.kind = "data-accesses",
                        bound = self.audit.0.max_data_accesses,
                        dropped_not_logged = held_back,
                        "a request read more personal data than audit.max_data_accesses_per_request: data access not recorded"
                    );
                }
                return;
            }
            recorded.insert(seen);
        }
        self.audit.record(AuditMessage::DataAccess(DataAccess {
            common: Common::now(&self.user),
            object,
            data_subject: subject,
            attributes: attributes
                .iter()
                .map(|name| ReadAttribute {
                    name: name.to_string(),
                    successful: None,
                })
                .collect(),
            channel: Some(CHANNEL.into()),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AuditSettings;
    use std::collections::BTreeMap;

    fn partner(id: &str) -> (AuditObject, DataSubject) {
        let ids = BTreeMap::from([("BusinessPartner".to_string(), id.to_string())]);
        (
            AuditObject {
                object_type: "API_BUSINESS_PARTNER.A_BusinessPartner".into(),
                id: ids.clone(),
            },
            DataSubject {
                subject_type: "API_BUSINESS_PARTNER.A_BusinessPartner".into(),
                role: Some("Customer".into()),
                id: ids,
            },
        )
    }

    #[test]
    fn a_read_is_recorded_once_a_request_and_the_request_is_bounded() {
        let settings = AuditSettings {
            max_data_accesses_per_request: 2,
            ..AuditSettings::default()
        };
        let audit = Audit::new(&settings, crate::audit::Outbox::memory(10), false);
        let log = AccessLog::new(&audit, "alice");
        let (object, subject) = partner("10023");
        log.read(object.clone(), subject.clone(), &["CreditLimitAmount"]);
        log.read(object.clone(), subject.clone(), &["CreditLimitAmount"]);
        assert_eq!(log.recorded.lock().unwrap().len(), 1, "the same read once");
        log.read(object, subject, &["StreetName"]);
        let (object, subject) = partner("10051");
        log.read(object, subject, &["StreetName"]);
        assert_eq!(log.recorded.lock().unwrap().len(), 2, "at most the bound");
        // Another request starts afresh.
        let (object, subject) = partner("10051");
        let next = AccessLog::new(&audit, "alice");
        next.read(object, subject, &["StreetName"]);
        assert_eq!(next.recorded.lock().unwrap().len(), 1);
    }
}
