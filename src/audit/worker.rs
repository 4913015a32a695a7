//! The one sender per instance: takes due messages from the outbox, sends
//! each, and settles it by the answer: accepted → deleted; 429, 5xx, a
//! network error → tried again after an exponential wait (1 s, 2 s, 4 s …
//! up to `audit.retry_max_secs`; a `Retry-After` is honoured); any other
//! 4xx → kept aside with the reason. Nothing is ever given up silently.

use super::client::{AuditClient, Sent};
use super::outbox::Outbox;
use super::shared_counts::SharedCounts;
use std::sync::Arc;
use std::time::Duration;

/// Messages taken per round.
const BATCH: usize = 20;
/// How long a taken message is this worker's before another may take it.
const CLAIM: Duration = Duration::from_secs(60);

pub struct Worker {
    pub outbox: Arc<Outbox>,
    pub client: AuditClient,
    pub wake: Arc<tokio::sync::Notify>,
    pub counts: Arc<SharedCounts>,
    pub retry_max: Duration,
    pub poll_interval: Duration,
}

/// The wait before attempt `attempts + 1`.
pub fn backoff(attempts: u32, retry_after: Option<Duration>, most: Duration) -> Duration {
    let exponential = Duration::from_secs(1u64 << attempts.min(20)).min(most);
    retry_after.map_or(exponential, |after| {
        after.max(exponential).min(most.max(after))
    })
}

impl Worker {
    /// Run until the runtime stops.
    pub fn spawn(self) {
        tokio::spawn(async move { self.run().await });
    }

    async fn run(self) {
        loop {
            self.outbox.until_reachable().await;
            let sent_some = match self.round().await {
                Ok(taken) => taken > 0,
                Err(error) => {
                    tracing::warn!(%error, "audit outbox: reading due messages failed");
                    false
                }
            };
            if let Ok(counts) = self.outbox.counts().await {
                self.counts.set(counts);
            }
            if !sent_some {
                let _ = tokio::time::timeout(self.poll_interval, self.wake.notified()).await;
            }
        }
    }

    /// One round: the due messages taken and settled; how many.
    async fn round(&self) -> Result<usize, super::outbox::OutboxError> {
        let now = crate::db::now_ms();
        let taken = self
            .outbox
            .claim_due(now, now + CLAIM.as_millis() as i64, BATCH)
            .await?;
        for message in &taken {
            match self.client.send(message.kind, &message.body).await {
                Sent::Accepted => {
                    self.outbox.sent(&message.id).await?;
                    crate::telemetry::metrics::audit_message("sent");
                }
                Sent::Retry { reason, after } => {
                    let wait = backoff(message.attempts, after, self.retry_max);
                    let due = crate::db::now_ms() + wait.as_millis() as i64;
                    self.outbox.retry_at(&message.id, due, &reason).await?;
                    crate::telemetry::metrics::audit_message("retried");
                    tracing::info!(
                        audit.kind = message.kind.path(),
                        attempts = message.attempts + 1,
                        retry_in_ms = wait.as_millis() as u64,
                        %reason,
                        "audit message not yet accepted; will try again"
                    );
                }
                Sent::Refused { reason } => {
                    self.outbox.keep_aside(&message.id, &reason).await?;
                    crate::telemetry::metrics::audit_message("kept_aside");
                    tracing::error!(
                        audit.kind = message.kind.path(),
                        audit.id = %message.id,
                        %reason,
                        "audit message refused by the Audit Log Service; kept aside in the outbox"
                    );
                }
            }
        }
        Ok(taken.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_to_the_most_and_honour_retry_after() {
        let most = Duration::from_secs(300);
        assert_eq!(backoff(0, None, most), Duration::from_secs(1));
        assert_eq!(backoff(3, None, most), Duration::from_secs(8));
        assert_eq!(backoff(30, None, most), most);
        assert_eq!(
            backoff(0, Some(Duration::from_secs(7)), most),
            Duration::from_secs(7)
        );
    }
}
