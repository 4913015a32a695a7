//! Whether the database answers, known without asking it. A PostgreSQL
//! store found unreachable (connection refused, a pool that timed out, a
//! connection cut) is checked at once by a probe on a connection of its
//! own; when the probe cannot reach it either, the store is marked down:
//! every statement then fails at once, and those already waiting are
//! released, instead of each waiting out the pool's 5 s acquire timeout.
//! The probe tries again every second (`SELECT 1`) and marks it up when it
//! answers. One log line says when it went down and one when it came back,
//! never one per request.
//!
//! Why a probe of its own and not the pool's errors alone: a pool that
//! timed out may only be saturated; the probe's own connection tells a
//! busy database (it connects) from a gone one (it does not), so a busy
//! store is never refused. SQLite has no server to lose: its availability
//! is always up (a full disk is the store's `out_of_space`).

use sqlx::AnyConnection;
use sqlx::Connection;
use sqlx::any::AnyConnectOptions;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::runtime::Handle;
use tokio::sync::watch;

/// How often a database marked down is tried again.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);
/// How long one probe (connect and `SELECT 1`) may take: a database that
/// does not answer within it is taken as unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// The answer while the database is known down; what the database said
/// when it was found down went to the log with the transition.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{location} is unreachable (known down; tried again every second)")]
pub struct DatabaseDown {
    location: String,
}

impl DatabaseDown {
    /// Whether `error` (or one of its causes) is this answer.
    pub fn is_in(error: &(dyn std::error::Error + 'static)) -> bool {
        let mut cause = Some(error);
        while let Some(error) = cause {
            if error.is::<DatabaseDown>() {
                return true;
            }
            if let Some(sqlx::Error::AnyDriverError(inner)) = error.downcast_ref::<sqlx::Error>()
                && inner.is::<DatabaseDown>()
            {
                return true;
            }
            cause = error.source();
        }
        false
    }
}

/// A database's known state, shared by every clone of its `Database`.
#[derive(Clone)]
pub struct Availability(Arc<Inner>);

struct Inner {
    /// `true` while known down.
    down: watch::Sender<bool>,
    /// A probe runs (at most one).
    probing: AtomicBool,
    /// How the probe connects; `None`: never down (SQLite).
    probe: Option<AnyConnectOptions>,
    /// Where the probe runs: the runtime that opened the database, which
    /// lives as long as the service (an actix worker's may end sooner).
    runtime: Option<Handle>,
    location: String,
}

impl Availability {
    /// A PostgreSQL database reached with `options`, probed when found
    /// unreachable.
    pub(super) fn probed(options: AnyConnectOptions, location: &str) -> Availability {
        Availability::with(Some(options), location)
    }

    /// A database with no server to lose (SQLite): never down.
    pub(super) fn always_up(location: &str) -> Availability {
        Availability::with(None, location)
    }

    fn with(probe: Option<AnyConnectOptions>, location: &str) -> Availability {
        Availability(Arc::new(Inner {
            down: watch::Sender::new(false),
            probing: AtomicBool::new(false),
            probe,
            runtime: Handle::try_current().ok(),
            location: location.to_string(),
        }))
    }

    /// Whether the database is known down now.
    pub fn is_down(&self) -> bool {
        *self.0.down.borrow()
    }

    fn down_error(&self) -> DatabaseDown {
        DatabaseDown {
            location: self.0.location.clone(),
        }
    }

    /// `work`, unless the database is known down (then at once) or found
    /// down while `work` waits (then as soon as it is).
    pub async fn unless_down<T, E>(&self, work: impl Future<Output = Result<T, E>>) -> Result<T, E>
    where
        E: From<DatabaseDown>,
    {
        if self.0.probe.is_none() {
            return work.await;
        }
        let mut down = self.0.down.subscribe();
        if *down.borrow_and_update() {
            return Err(self.down_error().into());
        }
        tokio::select! {
            outcome = work => outcome,
            _ = down.wait_for(|down| *down) => Err(self.down_error().into()),
        }
    }

    /// Note what a statement failed with: an error that may mean the
    /// database is gone has the probe look (unless one looks already).
    pub fn observe(&self, error: &sqlx::Error) {
        if self.0.probe.is_none() || !unreachable(error) {
            return;
        }
        if self.0.probing.swap(true, Ordering::AcqRel) {
            return;
        }
        let probing = Probing(self.clone());
        let reason = error.to_string();
        let run = async move { probing.run(reason).await };
        match self
            .0
            .runtime
            .clone()
            .or_else(|| Handle::try_current().ok())
        {
            Some(runtime) => {
                runtime.spawn(run);
            }
            // No runtime to probe on: nothing is marked, the flag is freed.
            None => drop(run),
        }
    }

    /// Returns once the database is not known down.
    pub async fn until_up(&self) {
        let mut down = self.0.down.subscribe();
        let _ = down.wait_for(|down| !*down).await;
    }

    fn mark(&self, down: bool, reason: &str) {
        let changed = self.0.down.send_if_modified(|now| {
            let changed = *now != down;
            *now = down;
            changed
        });
        if !changed {
            return;
        }
        if down {
            tracing::error!(
                database = %self.0.location,
                %reason,
                "database unreachable: store calls fail at once until it answers (probed every second)"
            );
        } else {
            tracing::warn!(database = %self.0.location, "database reachable again: store calls go through");
        }
    }
}

/// The one probe running; when it ends (or its runtime does), the next
/// error may start another, and a database it left marked down is no
/// longer refused unseen: the next statement tries it for real.
struct Probing(Availability);

impl Probing {
    async fn run(self, first_reason: String) {
        let Some(options) = self.0.0.probe.clone() else {
            return;
        };
        let mut reason = first_reason;
        loop {
            match answers(&options).await {
                // A server that answers, even with a refusal (a password,
                // a database closed to connections), is not down: such
                // calls fail at once on their own.
                Ok(()) => {
                    self.0.mark(false, "");
                    return;
                }
                Err(error) if !unreachable(&error) => {
                    self.0.mark(false, "");
                    return;
                }
                Err(error) => {
                    if !self.0.is_down() {
                        self.0.mark(true, &format!("{reason}; probe: {error}"));
                    }
                    reason = error.to_string();
                }
            }
            tokio::time::sleep(PROBE_INTERVAL).await;
        }
    }
}

impl Drop for Probing {
    fn drop(&mut self) {
        let inner = &self.0.0;
        if *inner.down.borrow() && !std::thread::panicking() {
            // Ended while down (its runtime stopped): refuse nothing unseen.
            inner.down.send_replace(false);
        }
        inner.probing.store(false, Ordering::Release);
    }
}

/// Whether the database answers a fresh connection's `SELECT 1` in time.
async fn answers(options: &AnyConnectOptions) -> Result<(), sqlx::Error> {
    let probe = async {
        let mut connection = AnyConnection::connect_with(options).await?;
        sqlx::query("SELECT 1").execute(&mut connection).await?;
        connection.close().await
    };
    tokio::time::timeout(PROBE_TIMEOUT, probe)
        .await
        .unwrap_or(Err(sqlx::Error::PoolTimedOut))
}

/// Whether `error` may mean the database is gone (rather than a statement
/// that is wrong): a pool that timed out, an I/O error, a connection the
/// server ended, a server that is starting or shutting down (57P01–03).
fn unreachable(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::PoolTimedOut) || super::reconnect::connection_lost(error)
}

/// As the error sqlx's callers get, so each maps it as it maps any
/// database that does not answer.
impl From<DatabaseDown> for sqlx::Error {
    fn from(down: DatabaseDown) -> Self {
        sqlx::Error::AnyDriverError(Box::new(down))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    /// A port nothing listens on: bound, then closed.
    fn closed_port() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("its address").port();
        drop(listener);
        port
    }

    /// A database that refuses connections is marked down by the probe
    /// the first unreachable error started; while down, work is refused
    /// at once with `DatabaseDown`, and work already waiting is released.
    #[tokio::test]
    async fn an_unreachable_database_is_marked_down_and_refused_at_once() {
        sqlx::any::install_default_drivers();
        let url = format!("postgres://nobody@127.0.0.1:{}/none", closed_port());
        let options = AnyConnectOptions::from_str(&url).expect("parses");
        let availability = Availability::probed(options, "PostgreSQL test");
        assert!(!availability.is_down());
        let waiting = availability.clone();
        let waiter = tokio::spawn(async move {
            waiting
                .unless_down(std::future::pending::<Result<(), sqlx::Error>>())
                .await
        });
        availability.observe(&sqlx::Error::RowNotFound);
        assert!(
            !availability.0.probing.load(Ordering::Acquire),
            "not a reachability error"
        );
        availability.observe(&sqlx::Error::PoolTimedOut);
        let released = waiter.await.expect("the waiter ends");
        let error = released.expect_err("released as down");
        assert!(DatabaseDown::is_in(&error), "{error}");
        assert!(availability.is_down());
        let refused = availability
            .unless_down(async { Ok::<_, sqlx::Error>(()) })
            .await
            .expect_err("refused while down");
        assert!(DatabaseDown::is_in(&refused), "{refused}");
        assert!(refused.to_string().contains("PostgreSQL test"), "{refused}");
    }

    /// SQLite's availability never refuses and never probes.
    #[tokio::test]
    async fn an_always_up_database_is_never_refused() {
        let availability = Availability::always_up("SQLite test");
        availability.observe(&sqlx::Error::PoolTimedOut);
        assert!(!availability.is_down());
        assert_eq!(
            availability
                .unless_down(async { Ok::<_, sqlx::Error>(7) })
                .await
                .expect("goes through"),
            7
        );
    }
}
