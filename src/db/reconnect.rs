//! A connection that PostgreSQL ended (a restart, a failover,
//! `pg_terminate_backend`) while the database stays up is replaced without
//! the caller noticing: the pool tests idle connections before handing them
//! out (sqlx's `test_before_acquire`, on by default), and a statement that
//! fails because its connection is gone is run once more on a fresh one.
//!
//! Running a statement again is safe only where running it twice cannot
//! change more than running it once: reads, idempotent updates, and the
//! writes the callers guard (the task writes are compare-and-set on the
//! version or `ON CONFLICT DO NOTHING` on the id; the ledger insert is
//! `ON CONFLICT DO NOTHING` on its key). Each caller says why at its call.
//!
//! `Database::once_more` (mod.rs) is the same behind the database's availability:
//! refused at once while the database is known down, and each failure
//! shown to it, so that one that may mean the database is gone has the
//! probe look. The audit outbox uses the plain [`once_more`]: its messages
//! wait for the database rather than fail fast.

use std::future::Future;

/// Whether `error` says the connection is gone rather than the statement
/// is wrong: an I/O error, or PostgreSQL's admin_shutdown (57P01),
/// crash_shutdown (57P02), cannot_connect_now (57P03) or a connection
/// exception (class 08). A pool that timed out is not: the database is
/// down or saturated, and trying again would only double the wait.
pub fn connection_lost(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) => true,
        sqlx::Error::Database(database) => database.code().is_some_and(|code| {
            matches!(&*code, "57P01" | "57P02" | "57P03") || code.starts_with("08")
        }),
        _ => false,
    }
}

/// Run `statement`; when it failed because its connection is gone, run it
/// once more (the pool hands out a tested or new connection). Only for
/// statements that may run twice (see the module doc).
pub async fn once_more<T, F, Fut>(statement: F) -> Result<T, sqlx::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, sqlx::Error>>,
{
    once_more_seen(statement, |_| ()).await
}

/// [`once_more`], showing each failure to `seen`.
pub(super) async fn once_more_seen<T, F, Fut>(
    mut statement: F,
    seen: impl Fn(&sqlx::Error),
) -> Result<T, sqlx::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, sqlx::Error>>,
{
    match statement().await {
        Err(error) if connection_lost(&error) => {
            seen(&error);
            tracing::warn!(%error, "database connection lost; running the statement again on a fresh one");
            let outcome = statement().await;
            if let Err(error) = &outcome {
                seen(error);
            }
            outcome
        }
        Err(error) => {
            seen(&error);
            Err(error)
        }
        outcome => outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_are_a_lost_connection_and_bad_statements_are_not() {
        let reset = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(connection_lost(&reset));
        assert!(!connection_lost(&sqlx::Error::RowNotFound));
        assert!(!connection_lost(&sqlx::Error::PoolTimedOut));
        assert!(!connection_lost(&sqlx::Error::Protocol(
            "bad message".into()
        )));
    }

    #[tokio::test]
    async fn a_lost_connection_is_tried_once_more_and_only_once() {
        let mut calls = 0;
        let outcome: Result<(), _> = once_more(|| {
            calls += 1;
            async { Err(sqlx::Error::Io(std::io::ErrorKind::BrokenPipe.into())) }
        })
        .await;
        assert!(outcome.is_err());
        assert_eq!(calls, 2);

        let mut calls = 0;
        let outcome: Result<(), _> = once_more(|| {
            calls += 1;
            async { Err(sqlx::Error::RowNotFound) }
        })
        .await;
        assert!(matches!(outcome, Err(sqlx::Error::RowNotFound)));
        assert_eq!(
            calls, 1,
            "a statement that failed on its own is not repeated"
        );
    }
}
