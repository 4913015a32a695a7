//! Messages that belong to a change another room stores: the data
//! modifications of an approved action go with the ledger row's outcome.
//! When the outbox is the `audit_outbox` table of the same database, the
//! room writes them in the transaction that records the outcome
//! ([`OutboxRows::put_in`]), so the outcome is never stored without its
//! messages nor the messages without it (CAP's transactional outbox,
//! reference/audit-log.md §4). Otherwise (the memory store, no binding),
//! and when the transaction did not take them, they are recorded as any
//! message once the change is made ([`ChangeMessages::settle`]).

use super::handle::{Audit, checked};
use super::message::{AuditMessage, Encoded};
use super::outbox::{Stored, insert};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Messages for another room's transaction: the rows and the bound of
/// the outbox they go into. Empty when they are recorded after it.
#[derive(Debug, Clone, Default)]
pub struct OutboxRows {
    rows: Vec<Encoded>,
    max_queued: u64,
    /// How many a transaction queued and how many the bound dropped.
    queued: Arc<AtomicU64>,
    dropped: Arc<AtomicU64>,
}

impl PartialEq for OutboxRows {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
    }
}

impl Eq for OutboxRows {}

impl OutboxRows {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Write the rows into `audit_outbox` on `connection`, inside the
    /// caller's transaction (due at `now_ms`; past `audit.max_queued` a
    /// message is dropped, as any other).
    pub async fn put_in(
        &self,
        connection: &mut sqlx::AnyConnection,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        let (mut queued, mut dropped) = (0, 0);
        for row in &self.rows {
            match insert(&mut *connection, row, now_ms, self.max_queued).await? {
                Stored::Queued => queued += 1,
                Stored::Full => dropped += 1,
            }
        }
        self.queued.store(queued, Relaxed);
        self.dropped.store(dropped, Relaxed);
        Ok(())
    }
}

/// The messages of one change: those for its transaction, those recorded
/// after it.
#[derive(Debug)]
pub struct ChangeMessages {
    audit: Audit,
    in_transaction: OutboxRows,
    after: Vec<Encoded>,
}

impl ChangeMessages {
    /// `messages` for a change about to be stored, recorded by `audit`
    /// (each checked now; one the service would refuse is dropped, logged).
    /// With a binding and the outbox in the service's database they are for
    /// the change's transaction ([`ChangeMessages::rows`]), else recorded
    /// after it.
    pub fn new(audit: &Audit, messages: Vec<AuditMessage>) -> ChangeMessages {
        let encoded: Vec<Encoded> = messages.iter().filter_map(checked).collect();
        let transactional = audit.0.bound && audit.0.outbox.is_sql();
        let (rows, after) = if transactional {
            (encoded, Vec::new())
        } else {
            (Vec::new(), encoded)
        };
        ChangeMessages {
            audit: audit.clone(),
            in_transaction: OutboxRows {
                rows,
                max_queued: audit.0.outbox.max_queued(),
                ..OutboxRows::default()
            },
            after,
        }
    }

    /// The rows the change's transaction writes ([`OutboxRows::put_in`]).
    pub fn rows(&self) -> OutboxRows {
        self.in_transaction.clone()
    }

    /// The change was stored (`committed`) or not: count what its
    /// transaction queued and wake the sender; record the rest, and the
    /// rows no transaction took, as any message (the writes they describe
    /// happened either way).
    pub fn settle(self, committed: bool) {
        let rows = &self.in_transaction;
        let queued = rows.queued.load(Relaxed);
        let dropped = rows.dropped.load(Relaxed);
        let taken = committed && queued + dropped > 0;
        if taken {
            // The kind only names the log line of a dropped one.
            let kind = rows
                .rows
                .first()
                .map_or(super::message::Kind::DataModification, |row| row.kind);
            let stored = std::iter::repeat_n(Stored::Queued, queued as usize)
                .chain(std::iter::repeat_n(Stored::Full, dropped as usize));
            for stored in stored {
                self.audit.0.settle_stored(kind, Ok(stored));
            }
        }
        let untaken = if taken { Vec::new() } else { rows.rows.clone() };
        for encoded in untaken.into_iter().chain(self.after) {
            self.audit.record_encoded(encoded);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::message::{
        AuditObject, ChangedAttribute, Common, DataModification, DataSubject,
    };
    use crate::audit::{AuditSettings, Outbox};
    use crate::db::Database;
    use std::collections::BTreeMap;

    fn modification() -> AuditMessage {
        let ids = BTreeMap::from([("SalesOrder".to_string(), "4740".to_string())]);
        AuditMessage::DataModification(DataModification {
            common: Common::now("alice"),
            object: AuditObject {
                object_type: "API_SALES_ORDER_SRV.A_SalesOrder".into(),
                id: ids.clone(),
            },
            data_subject: DataSubject {
                subject_type: "API_BUSINESS_PARTNER.A_BusinessPartner".into(),
                role: Some("Customer".into()),
                id: ids,
            },
            attributes: vec![ChangedAttribute {
                name: "RequestedDeliveryDate".into(),
                old: None,
                new: Some("2026-12-18".into()),
            }],
            success: Some(true),
        })
    }

    /// Rows put in a transaction are stored with it: not when it rolls
    /// back, once when it commits.
    async fn stored_with_the_transaction(database: Database) {
        let audit = Audit::new(
            &AuditSettings::default(),
            Outbox::sql(database.clone(), 10),
            true,
        );
        let outbox = Outbox::sql(database.clone(), 10);
        let messages = ChangeMessages::new(&audit, vec![modification()]);
        let rows = messages.rows();
        assert!(!rows.is_empty(), "bound, SQL: for the transaction");
        let mut transaction = database.pool.begin().await.unwrap();
        rows.put_in(&mut transaction, 100).await.unwrap();
        transaction.rollback().await.unwrap();
        assert_eq!(outbox.counts().await.unwrap().queued, 0, "rolled back");
        let mut transaction = database.pool.begin().await.unwrap();
        rows.put_in(&mut transaction, 100).await.unwrap();
        transaction.commit().await.unwrap();
        messages.settle(true);
        let due = outbox.claim_due(100, 200, 10).await.unwrap();
        assert_eq!(due.len(), 1, "committed once");
        assert_eq!(due[0].kind.path(), "data-modifications");
        assert!(due[0].body.contains("\"success\":true"), "{}", due[0].body);
    }

    #[tokio::test]
    async fn sqlite_stores_the_rows_with_the_transaction_only() {
        stored_with_the_transaction(crate::db::test_support::sqlite().await).await;
    }

    #[tokio::test]
    async fn postgres_stores_the_rows_with_the_transaction_only() {
        let Some(database) = crate::db::test_support::postgres("audit rows in a transaction").await
        else {
            return;
        };
        stored_with_the_transaction(database).await;
    }

    #[test]
    fn without_a_binding_nothing_is_for_a_transaction() {
        let audit = Audit::new(&AuditSettings::default(), Outbox::memory(10), false);
        let messages = ChangeMessages::new(&audit, vec![modification()]);
        assert!(messages.rows().is_empty());
        assert_eq!(messages.after.len(), 1, "recorded after the change");
    }
}
