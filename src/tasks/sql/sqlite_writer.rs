//! The task writer of a SQLite file: one thread that owns its own SQLite
//! connection, takes every task write waiting, runs them in one
//! transaction, answers each caller, and checkpoints the WAL between
//! batches.
//!
//! Why not the group commit of `group_commit` on a sqlx connection, as
//! PostgreSQL does: there each write crossed four threads (the actix
//! worker, the writer task on the tokio runtime, sqlx's worker thread of
//! the connection and back), SQLite's own work was a third of the cost of
//! a stored task and the hand-offs the rest (measured in bench/README.md).
//! Here a write crosses to this thread and its answer comes back: SQLite
//! runs in-process, so there is nothing to wait for that a thread of the
//! async runtime could use in between.
//!
//! How the WAL stays short: it only starts over when every frame of it is
//! in the database file, and a checkpoint that runs while this thread
//! writes never quite catches up; before, another connection held the
//! writer off for it (SQLite's RESTART checkpoint, milliseconds that every
//! caller of the next batch waited for). A whole checkpoint between two
//! batches on this thread is no better: copying a few hundred pages and
//! syncing took 7 ms, the p99. So a second thread with its own connection
//! (the copier) copies the bulk while this thread goes on writing, and
//! tells when what is left is short; this thread then copies that short
//! tail between two batches (nothing writes meanwhile, so it completes)
//! and the next batch starts the WAL over.
//!
//! Bodies are written packed (`packed_body`), packed by the caller before
//! the write crosses to this thread.
//!
//! Under load this thread sleeps a moment before a batch, so that it holds
//! more rows (`Gathering`): a commit writes the same few pages whatever its
//! rows.
//!
//! Reads, the ledger and the push config edits stay on the sqlx pool of
//! `db::Database` (WAL lets them read while this thread writes; a write
//! there waits for this thread's transaction, and this thread for theirs,
//! through SQLite's busy timeout).

use super::group_commit::{MAX_BATCH, OutcomeSender, Write, WriteOutcome};
use super::packed_body::pack;
use crate::db::now_ms;
use crate::tasks::store::StoreFault;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::time::{Duration, Instant};

/// Where the store sends its writes.
pub(super) type Writes = Sender<(PackedWrite, OutcomeSender)>;

/// A write with its body packed for the file.
pub(super) struct PackedWrite {
    write: Write,
    packed_body: Vec<u8>,
}

impl From<Write> for PackedWrite {
    fn from(write: Write) -> Self {
        let (Write::Create { body, .. } | Write::Update { body, .. }) = &write;
        let packed_body = pack(body);
        PackedWrite { write, packed_body }
    }
}

/// The copier copies the WAL into the database file after this many rows
/// written since it last did (1 to 2 MB of WAL).
const COPY_AFTER_ROWS: usize = 512;

/// What one row adds to the WAL under load, at most: 2.5 frames of 4 kB
/// for the row and its indexes, 13 kB with the pages they share (see
/// `run`).
const WAL_BYTES_PER_ROW: u64 = 13 * 1024;

/// The WAL starts over after this many rows: when the copier has not got
/// the tail short by twice this many, the writer copies the rest itself,
/// so the WAL stays under `2 × rows × WAL_BYTES_PER_ROW` on any disk, and
/// the rows are chosen from `store.sqlite_wal_limit_mb` (64 MB: 2 520
/// rows). Starting over costs this thread a checkpoint of its own with two
/// fsyncs, milliseconds each where syncs are slow, so restarting less often
/// shortens the p99 there (measured in bench/README.md); but the WAL and
/// the file must fit the disk (256 MB on Cloud Foundry by default), and
/// fitting the disk comes first.
fn restart_after_rows(wal_limit_bytes: u64) -> usize {
    usize::try_from(wal_limit_bytes / (2 * WAL_BYTES_PER_ROW))
        .unwrap_or(usize::MAX)
        .max(256)
}

/// How long the writer sleeps before a batch when it gathers (`Gathering`):
/// 200 to 300 µs made the fewest bytes per task at the most requests per
/// second at 16 callers; 500 µs and more cost requests (callers waited).
const GATHER_WINDOW: Duration = Duration::from_micros(250);

/// A wait pays when it brings at least this many rows (with 3 callers or
/// fewer it cannot; at 16 callers on 2 cores a wait brought about 4; with
/// 4 here instead of 3 the writer backed off too often at 16 callers).
const PAYING_ROWS: usize = 3;

/// After waits that did not pay, the writer tries again after at most this
/// many batches.
const MAX_BACKOFF: u32 = 128;

/// A batch that ended longer ago than this is not part of the load the
/// next write comes with.
const STILL_BUSY: Duration = Duration::from_millis(1);

/// When no write came for this long, this thread copies whatever is left
/// itself (nobody waits) and the WAL starts over.
const CHECKPOINT_WHEN_QUIET: Duration = Duration::from_millis(50);

/// The tail is short when fewer frames than this (256 kB) are left.
const SHORT_TAIL_FRAMES: i64 = 64;

/// The copier copies at most this many times in a row when asked (each
/// copies what the writer added during the one before).
const COPY_ROUNDS: usize = 8;

/// A short tail is fresh while fewer rows than this were written since
/// the copy that left it.
const FRESH_TAIL_ROWS: usize = 64;

/// The longest the writer waits for a copier that is still at it when the
/// WAL must start over.
const COPIER_WAIT: Duration = Duration::from_secs(10);

/// Starts the writer thread on `connection` and the copier thread on
/// `copier` (two connections of `db::sqlite::writer_connection` to `file`).
pub(super) fn start(
    connection: Connection,
    copier: Connection,
    file: &Path,
    wal_limit_bytes: u64,
) -> std::io::Result<Writes> {
    // A WAL that grew past the limit once (a long read held it) is cut
    // back to it when it starts over.
    for keeper in [&connection, &copier] {
        keeper
            .execute_batch(&format!("PRAGMA journal_size_limit = {wal_limit_bytes};"))
            .map_err(std::io::Error::other)?;
    }
    start_with(
        connection,
        copier,
        file,
        restart_after_rows(wal_limit_bytes),
    )
}

/// `start`, with the WAL starting over after `restart_after_rows`.
fn start_with(
    connection: Connection,
    copier: Connection,
    file: &Path,
    restart_after_rows: usize,
) -> std::io::Result<Writes> {
    let (writes, queue) = std::sync::mpsc::channel();
    let (start_copy, copy_requests) = std::sync::mpsc::sync_channel(1);
    let (reports, copied) = std::sync::mpsc::channel();
    let database_file = std::fs::File::open(file)?;
    std::thread::Builder::new()
        .name("sqlite-copier".into())
        .spawn(move || copy_when_asked(copier, database_file, copy_requests, reports))?;
    let wal = WalKeeper::new(start_copy, copied, restart_after_rows);
    std::thread::Builder::new()
        .name("sqlite-writer".into())
        .spawn(move || run(connection, queue, wal))?;
    Ok(writes)
}

/// Until every sender is gone (the store was dropped): take what waits (at
/// least one write), write it as one transaction, answer each caller; a
/// failed batch fails every write in it, nothing half-written. Between
/// batches, keep the WAL short (see the module doc).
fn run(
    mut connection: Connection,
    queue: Receiver<(PackedWrite, OutcomeSender)>,
    mut wal: WalKeeper,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut gathering = Gathering::new();
    loop {
        let first = match queue.recv_timeout(CHECKPOINT_WHEN_QUIET) {
            Ok(write) => write,
            Err(RecvTimeoutError::Timeout) => {
                wal.when_quiet(&connection);
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        };
        batch.push(first);
        batch.extend(queue.try_iter().take(MAX_BATCH - 1));
        gathering.gather(&queue, &mut batch, Instant::now());
        let rows = batch.len();
        match write_batch(&mut connection, &batch) {
            Ok(outcomes) => {
                for ((_, reply), outcome) in batch.drain(..).zip(outcomes) {
                    let _ = reply.send(Ok(outcome));
                }
            }
            Err(error) => {
                let error: StoreFault = Arc::new(error);
                for (_, reply) in batch.drain(..) {
                    let _ = reply.send(Err(Arc::clone(&error)));
                }
            }
        }
        wal.after_batch(rows, &connection);
        gathering.batch_written(rows, Instant::now());
    }
}

/// Whether the writer waits for more writes before it writes a batch.
///
/// Why wait: under load the writer is faster than its callers (it commits
/// each write nearly as it comes, a row or two per batch), and a commit
/// writes the same few pages whatever its rows (the table's last leaf, the
/// right edge of each index, page 1), so small batches write several WAL
/// frames per row. Asleep for `GATHER_WINDOW` first, the writer gathers
/// several times the rows per commit: fewer bytes per task, less CPU, and a
/// shorter p99 (measured in bench/README.md).
///
/// When: the wait must pay. With a few callers it is their latency and
/// gathers nothing, since their writes cannot come while they wait in the
/// batch: a wait after every batch of two or more cost a third to a half
/// of the requests at 2 and 4 callers. So the writer waits after a batch
/// of two or more that has just ended, and goes on waiting while a wait
/// brings `PAYING_ROWS` or more; after one that brought fewer it tries
/// again only after 1, 2, 4, … up to `MAX_BACKOFF` batches.
struct Gathering {
    previous_rows: usize,
    previous_end: Instant,
    /// Batches to write before the next try.
    skip: u32,
    /// What `skip` becomes after the next wait that does not pay.
    backoff: u32,
}

impl Gathering {
    /// Nothing written yet: the first batch does not wait.
    fn new() -> Self {
        Gathering {
            previous_rows: 0,
            previous_end: Instant::now(),
            skip: 0,
            backoff: 1,
        }
    }

    /// Sleeps `GATHER_WINDOW` and adds what came meanwhile to `batch`, when
    /// the load at `now` calls for it and the last wait paid. The clock is
    /// the caller's, so a test can say when each batch came.
    fn gather(
        &mut self,
        queue: &Receiver<(PackedWrite, OutcomeSender)>,
        batch: &mut Vec<(PackedWrite, OutcomeSender)>,
        now: Instant,
    ) {
        if batch.len() >= MAX_BATCH || !self.under_load(now) {
            return;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        let before = batch.len();
        // Asleep, not waiting on the queue: a caller's send wakes nobody.
        std::thread::sleep(GATHER_WINDOW);
        batch.extend(queue.try_iter().take(MAX_BATCH - batch.len()));
        if batch.len() - before >= PAYING_ROWS {
            self.backoff = 1;
        } else {
            self.skip = self.backoff;
            self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// The batch before had company and ended less than `STILL_BUSY`
    /// before `now`.
    fn under_load(&self, now: Instant) -> bool {
        self.previous_rows >= 2 && now.saturating_duration_since(self.previous_end) < STILL_BUSY
    }

    /// A batch of `rows` ended at `now`.
    fn batch_written(&mut self, rows: usize, now: Instant) {
        self.previous_rows = rows;
        self.previous_end = now;
    }
}

/// The writer's side of keeping the WAL short: when to ask the copier,
/// when to copy the tail itself.
struct WalKeeper {
    start_copy: SyncSender<()>,
    /// After each copy: whether what it left is short.
    copied: Receiver<bool>,
    copying: bool,
    /// The last copy left a short tail.
    tail_short: bool,
    /// Rows written since the copier was last asked or last answered.
    rows_since_copy: usize,
    rows_since_restart: usize,
    /// From `restart_after_rows`, smaller in a test.
    restart_after_rows: usize,
}

impl WalKeeper {
    /// Nothing written yet, the copier idle.
    fn new(start_copy: SyncSender<()>, copied: Receiver<bool>, restart_after_rows: usize) -> Self {
        WalKeeper {
            start_copy,
            copied,
            copying: false,
            tail_short: false,
            rows_since_copy: 0,
            rows_since_restart: 0,
            restart_after_rows,
        }
    }

    fn after_batch(&mut self, rows: usize, connection: &Connection) {
        self.rows_since_copy += rows;
        self.rows_since_restart += rows;
        // A copier that never gets the tail short, or is still at it (a
        // slow disk, a busy machine), must not let the WAL grow without
        // end: past twice the rows, this thread waits for it and copies the
        // rest itself, a longer pause for one batch. Fitting the disk comes
        // before that batch's latency.
        if self.rows_since_restart >= 2 * self.restart_after_rows {
            self.wait_for_copier();
            self.copy_the_rest(connection);
            return;
        }
        if self.copier_busy() {
            return;
        }
        if self.rows_since_restart >= self.restart_after_rows {
            let fresh_short_tail = self.tail_short && self.rows_since_copy < FRESH_TAIL_ROWS;
            if fresh_short_tail {
                // The next batch starts the WAL over.
                self.copy_the_rest(connection);
            } else {
                self.ask_the_copier();
            }
        } else if self.rows_since_copy >= COPY_AFTER_ROWS {
            self.ask_the_copier();
        }
    }

    /// Nobody waits: copy whatever is left here.
    fn when_quiet(&mut self, connection: &Connection) {
        if self.rows_since_restart > 0 && !self.copier_busy() {
            self.copy_the_rest(connection);
        }
    }

    fn copy_the_rest(&mut self, connection: &Connection) {
        checkpoint(connection);
        release_page_cache(connection);
        self.rows_since_copy = 0;
        self.rows_since_restart = 0;
        self.tail_short = false;
    }

    fn ask_the_copier(&mut self) {
        self.copying = self.start_copy.try_send(()).is_ok();
        self.tail_short = false;
        self.rows_since_copy = 0;
    }

    /// Wait until the copier is done (at most [`COPIER_WAIT`]: a copier
    /// stuck longer does not hold the writer; its checkpoint and this
    /// thread's then take turns in SQLite).
    fn wait_for_copier(&mut self) {
        if !self.copying {
            return;
        }
        match self.copied.recv_timeout(COPIER_WAIT) {
            Ok(tail_short) => self.tail_short = tail_short,
            Err(RecvTimeoutError::Timeout) => {
                tracing::warn!("the SQLite WAL copier is slow; the writer copies the rest itself");
            }
            Err(RecvTimeoutError::Disconnected) => {}
        }
        // A late answer of this copy is taken by the next `copier_busy`.
        self.copying = false;
    }

    /// Whether the copier is still at it.
    fn copier_busy(&mut self) -> bool {
        if self.copying {
            match self.copied.try_recv() {
                Ok(tail_short) => {
                    self.copying = false;
                    self.tail_short = tail_short;
                    self.rows_since_copy = 0;
                }
                Err(TryRecvError::Disconnected) => self.copying = false,
                Err(TryRecvError::Empty) => {}
            }
        }
        self.copying
    }
}

/// The copier thread: when asked, copy the WAL into the database file, again
/// while the writer adds to it, until what is left is short (or a few
/// times), and sync the database file; then say whether the tail is short.
/// Ends with the writer.
///
/// The sync is SQLite's to make, but SQLite syncs the database file only
/// at the end of a checkpoint that copied the whole WAL, which a copy
/// beside the writer never does: every page the copier wrote stayed dirty
/// until the writer's own checkpoint, whose sync then wrote tens of MB
/// (40 ms and more). Synced here, what the writer's sync writes is the tail.
fn copy_when_asked(
    connection: Connection,
    database_file: std::fs::File,
    asked: Receiver<()>,
    reports: Sender<bool>,
) {
    while asked.recv().is_ok() {
        let mut tail_short = false;
        for _ in 0..COPY_ROUNDS {
            match checkpoint(&connection) {
                Some(left) if left >= SHORT_TAIL_FRAMES => continue,
                Some(_) => tail_short = true,
                None => {}
            }
            break;
        }
        if let Err(error) = database_file.sync_data() {
            tracing::warn!(%error, "SQLite database file sync failed");
        }
        if reports.send(tail_short).is_err() {
            return;
        }
    }
}

/// Empty the writer's page cache (at each start-over of the WAL: every
/// 16 384 rows under load, after 50 ms without writes otherwise).
///
/// Why: with the pool's occasional writes in between (the lease renewals
/// and the retention sweep, every 10 s), the writer's cache grew past its
/// `cache_size` a few pages at a time and kept growing (read with
/// `sqlite3_db_status`, `SQLITE_DBSTATUS_CACHE_USED`, on the live process),
/// and that was most of the service's RSS growth over minutes; with the sweep and renewals off it
/// stayed flat. The pages were unpinned (`sqlite3_db_release_memory` freed
/// them all), so SQLite merely did not trim them; why was not found.
/// Released here, the cache holds at most what one stretch between two
/// start-overs touched: the writer reads back the right edge of the table
/// and its indexes (a few dozen pages, from the OS's cache) once per
/// stretch. The RSS stays flat under sustained load (bench/README.md).
fn release_page_cache(connection: &Connection) {
    if let Err(error) = connection.release_memory() {
        tracing::warn!(%error, "releasing the SQLite writer's page cache failed");
    }
}

/// Copy the WAL into the database file (a PASSIVE checkpoint: it never
/// holds a writer off); the frames left uncopied. On the writer's own
/// connection nothing writes meanwhile, so it catches up unless a reader
/// still reads old frames (then the next checkpoint copies the rest).
fn checkpoint(connection: &Connection) -> Option<i64> {
    // Its columns: busy (0/1), frames in the WAL, frames copied.
    let outcome = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
        Ok(row.get::<_, i64>(1)? - row.get::<_, i64>(2)?)
    });
    match outcome {
        Ok(left) => Some(left),
        Err(error) => {
            tracing::warn!(%error, "SQLite checkpoint failed");
            None
        }
    }
}

/// The batch in one transaction, each write by its own prepared statement
/// in arrival order (so a second update of a task sees the first).
fn write_batch(
    connection: &mut Connection,
    batch: &[(PackedWrite, OutcomeSender)],
) -> rusqlite::Result<Vec<WriteOutcome>> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let now = now_ms();
    let mut outcomes = Vec::with_capacity(batch.len());
    {
        let mut insert = transaction.prepare_cached(
            "INSERT INTO tasks (id, context_id, state, terminal, body, version, updated_ms, \
             lease_owner, lease_until_ms, push_configs, owner, message_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (id) DO NOTHING",
        )?;
        let mut update = transaction.prepare_cached(
            "UPDATE tasks SET state = ?2, terminal = ?3, body = ?4, version = version + 1, \
             updated_ms = ?5, lease_owner = ?6, lease_until_ms = ?7 \
             WHERE id = ?1 AND version = ?8 AND terminal = 0 \
             RETURNING version, push_configs",
        )?;
        for (PackedWrite { write, packed_body }, _) in batch {
            outcomes.push(match write {
                Write::Create {
                    id,
                    context_id,
                    state,
                    terminal,
                    body: _,
                    lease_owner,
                    lease_until,
                    push_configs,
                    owner,
                    message_id,
                } => WriteOutcome::Created(
                    insert.execute(params![
                        id,
                        context_id,
                        state,
                        terminal,
                        packed_body,
                        now,
                        lease_owner,
                        lease_until,
                        push_configs,
                        owner,
                        message_id
                    ])? == 1,
                ),
                Write::Update {
                    id,
                    state,
                    terminal,
                    body: _,
                    lease_owner,
                    lease_until,
                    expected_version,
                } => WriteOutcome::Updated(
                    update
                        .query_row(
                            params![
                                id,
                                state,
                                terminal,
                                packed_body,
                                now,
                                lease_owner,
                                lease_until,
                                expected_version
                            ],
                            |row| Ok((row.get(0)?, row.get(1)?)),
                        )
                        .optional()?,
                ),
            });
        }
    }
    transaction.commit()?;
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::super::group_commit::test_writes::{batch, create, update};
    use super::super::packed_body::unpack;
    use super::*;
    use crate::db::test_support::{TempDir, sqlite_file};
    use tokio::sync::oneshot;

    async fn writer_connection(dir: &TempDir) -> Connection {
        let db = sqlite_file(dir).await;
        let file = db.sqlite_file.clone().expect("a file");
        crate::db::sqlite_writer_connection(&file).expect("the writer's connection")
    }

    /// A task-like body of about `len` bytes that packing hardly shrinks
    /// (pseudo-random hex digits), so the rows fill pages as large tasks do.
    fn incompressible_body(len: usize) -> String {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let digits: String = (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                char::from_digit(((state >> 33) % 16) as u32, 16).unwrap()
            })
            .collect();
        format!("{{\"text\":\"{digits}\"}}")
    }

    /// Every row's id, version and body (unpacked: each body must be packed).
    fn bodies(connection: &Connection) -> Vec<(String, i64, String)> {
        let mut rows = connection
            .prepare("SELECT id, version, body FROM tasks ORDER BY id")
            .unwrap();
        rows.query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get::<_, Vec<u8>>(2)?))
        })
        .unwrap()
        .map(|row| {
            let (id, version, packed) = row.unwrap();
            (id, version, unpack(&packed).unwrap())
        })
        .collect()
    }

    /// `count` creates, as the writer's queue holds them.
    fn queued(writes: &Sender<(PackedWrite, OutcomeSender)>, count: usize) {
        for write in batch((0..count).map(|n| create(&format!("t{n}"), "{}")).collect()) {
            writes.send(write).unwrap();
        }
    }

    /// How many writes `gathering` adds to a batch of two, begun at `at`,
    /// while `ready` writes are queued; the batch then ends at `at` too.
    /// The writes are queued before and the clock is the test's, so
    /// nothing depends on how fast the machine runs the test.
    fn gathered(gathering: &mut Gathering, ready: usize, at: Instant) -> usize {
        let (writes, queue) = std::sync::mpsc::channel();
        queued(&writes, ready);
        let mut batched: Vec<(PackedWrite, OutcomeSender)> =
            batch(vec![create("first", "{}"), create("second", "{}")]);
        gathering.gather(&queue, &mut batched, at);
        gathering.batch_written(batched.len(), at);
        batched.len() - 2
    }

    /// Not for a lone caller, nor after a batch that ended a while ago.
    #[test]
    fn the_writer_gathers_only_under_load() {
        let now = Instant::now();
        let mut gathering = Gathering::new();
        assert_eq!(gathered(&mut gathering, 6, now), 0, "nothing written yet");
        gathering.batch_written(1, now);
        assert_eq!(gathered(&mut gathering, 6, now), 0, "after a batch of one");
        assert!(gathering.under_load(now), "after a batch of two");
        let later = now + STILL_BUSY + Duration::from_millis(1);
        assert!(!gathering.under_load(later), "the load is gone");
        assert_eq!(gathered(&mut gathering, 6, later), 0, "nor at `later`");
        assert_eq!(
            gathered(&mut gathering, 6, later),
            6,
            "after a batch of two"
        );
    }

    /// A wait that brings fewer than `PAYING_ROWS` writes is tried again
    /// only after 1, 2, 4, … batches; one that pays is repeated at once.
    #[test]
    fn the_writer_backs_off_while_waits_do_not_pay() {
        let now = Instant::now();
        let mut gathering = Gathering::new();
        gathering.batch_written(2, now);
        let few = PAYING_ROWS - 1;
        let mut gathered_now = |ready| gathered(&mut gathering, ready, now);
        assert_eq!(gathered_now(few), few, "the first try");
        assert_eq!(gathered_now(few), 0, "skips one batch");
        assert_eq!(gathered_now(few), few, "tries again");
        assert_eq!(gathered_now(few), 0, "skips two batches");
        assert_eq!(gathered_now(few), 0);
        assert_eq!(gathered_now(PAYING_ROWS), PAYING_ROWS, "pays");
        assert_eq!(gathered_now(few), few, "so the next waits too");
        assert_eq!(gathered_now(few), 0, "which did not pay");
    }

    /// In arrival order: a second update of a task in the same batch sees
    /// the first (and misses, at the version both read).
    #[tokio::test]
    async fn a_batch_writes_in_arrival_order() {
        let dir = TempDir::new();
        let mut connection = writer_connection(&dir).await;
        let writes = batch(vec![
            create("t", "{\"v\":1}"),
            create("t", "{\"again\":1}"),
            update("t", "{\"v\":2}", 1),
            update("t", "{\"v\":3}", 1),
        ]);
        let outcomes = write_batch(&mut connection, &writes).unwrap();
        assert!(matches!(
            &outcomes[..],
            [
                WriteOutcome::Created(true),
                WriteOutcome::Created(false),
                WriteOutcome::Updated(Some((2, configs))),
                WriteOutcome::Updated(None),
            ] if configs == "[]"
        ));
        assert_eq!(bodies(&connection), [("t".into(), 2, "{\"v\":2}".into())]);
    }

    /// A copier that never gets the tail short (here: the test answers for
    /// it and copies nothing): past twice `restart_after_rows` the writer
    /// copies the rest itself and the WAL starts over instead of growing.
    #[tokio::test]
    async fn a_copier_that_never_catches_up_does_not_let_the_wal_grow() {
        let dir = TempDir::new();
        let mut connection = writer_connection(&dir).await;
        let (start_copy, copy_requests) = std::sync::mpsc::sync_channel(1);
        let (reports, copied) = std::sync::mpsc::channel();
        let mut wal = WalKeeper::new(start_copy, copied, 64);
        let mut asked = 0;
        write_320_rows_and_check_the_wal(&dir, &mut connection, &mut wal, || {
            if copy_requests.try_recv().is_ok() {
                asked += 1;
                reports.send(false).unwrap();
            }
        });
        assert!(asked > 0, "the copier was asked");
    }

    /// 40 batches of 8 rows (320 rows, five times a `restart_after_rows` of
    /// 64) through `wal`, `after_each` after every batch; then the WAL must
    /// have started over after 128 rows and kept that size (without the
    /// writer's own copy it holds all 320 rows), and every row is stored.
    fn write_320_rows_and_check_the_wal(
        dir: &TempDir,
        connection: &mut Connection,
        wal: &mut WalKeeper,
        mut after_each: impl FnMut(),
    ) {
        let wal_file = dir.0.join("order-exception-agent.sqlite3-wal");
        let wal_bytes = || std::fs::metadata(&wal_file).map(|m| m.len()).unwrap_or(0);
        let body = incompressible_body(1_000);
        let mut sizes = Vec::new();
        for round in 0..40 {
            let writes = batch(
                (0..8)
                    .map(|i| create(&format!("t-{round}-{i}"), &body))
                    .collect(),
            );
            write_batch(connection, &writes).unwrap();
            wal.after_batch(writes.len(), connection);
            after_each();
            sizes.push(wal_bytes());
        }
        let after_128_rows = sizes[15];
        assert!(after_128_rows > 0);
        assert!(wal_bytes() < after_128_rows * 3 / 2, "WAL grew: {sizes:?}");
        assert_eq!(bodies(connection).len(), 320);
    }

    /// A copier that is still at it while the writer goes on (a slow disk):
    /// past twice `restart_after_rows` the writer waits for it and starts
    /// the WAL over, instead of writing on while the copier is busy.
    #[tokio::test]
    async fn a_slow_copier_does_not_let_the_wal_grow() {
        let dir = TempDir::new();
        let mut connection = writer_connection(&dir).await;
        let (start_copy, copy_requests) = std::sync::mpsc::sync_channel(1);
        let (reports, copied) = std::sync::mpsc::channel();
        // Answers each request a second later, having copied nothing.
        std::thread::spawn(move || {
            while copy_requests.recv().is_ok() {
                std::thread::sleep(Duration::from_secs(1));
                if reports.send(false).is_err() {
                    return;
                }
            }
        });
        let mut wal = WalKeeper::new(start_copy, copied, 64);
        write_320_rows_and_check_the_wal(&dir, &mut connection, &mut wal, || {});
    }

    /// One write that fails fails its batch: no caller is told its write
    /// is stored when it is not, and nothing of the batch is written.
    #[tokio::test]
    async fn a_failed_write_fails_its_whole_batch_and_writes_nothing() {
        let dir = TempDir::new();
        let connection = writer_connection(&dir).await;
        connection
            .execute_batch(
                "CREATE TRIGGER poison BEFORE INSERT ON tasks WHEN NEW.id = 'poison' \
                 BEGIN SELECT RAISE(ABORT, 'poisoned'); END;",
            )
            .unwrap();
        let writes = start(
            connection,
            writer_connection_again(&dir),
            &database(&dir),
            64 << 20,
        )
        .unwrap();
        let mut answers = Vec::new();
        for id in ["a", "poison", "b"] {
            let (reply, answer) = oneshot::channel();
            writes.send((create(id, "{}").into(), reply)).unwrap();
            answers.push(answer);
        }
        let mut failed = 0;
        for answer in answers {
            match answer.await.expect("answered") {
                Ok(WriteOutcome::Created(true)) => {}
                Ok(_) => panic!("a write was neither stored nor failed"),
                Err(error) => {
                    assert!(error.to_string().contains("poisoned"), "{error}");
                    failed += 1;
                }
            }
        }
        let check = writer_connection_again(&dir);
        let stored = bodies(&check);
        // The poisoned write's batch is all or nothing: whatever was
        // reported stored is there, the rest is not.
        assert!(failed >= 1);
        assert_eq!(stored.len(), 3 - failed, "{stored:?}");
        assert!(stored.iter().all(|(id, _, _)| id != "poison"));
    }

    /// `store.sqlite_wal_limit_mb` sets how often the WAL starts over, and
    /// the file is cut back to it: 20 000 rows of 2 kB (about 90 MB of WAL
    /// without checkpoints) leave a WAL near 8 MB with a limit of 8 MB.
    #[tokio::test]
    async fn the_wal_stays_near_its_limit() {
        assert_eq!(restart_after_rows(64 << 20), 2520);
        assert_eq!(restart_after_rows(1), 256);
        let dir = TempDir::new();
        let limit: u64 = 8 << 20;
        let writes = start(
            writer_connection(&dir).await,
            writer_connection_again(&dir),
            &database(&dir),
            limit,
        )
        .unwrap();
        let body = incompressible_body(2_000);
        let wal = dir.0.join("order-exception-agent.sqlite3-wal");
        let mut largest = 0;
        for round in 0..200 {
            write_round(&writes, round, &body).await;
            largest = largest.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
        }
        assert!(largest <= limit * 3 / 2, "the WAL reached {largest} bytes");
        assert_eq!(bodies(&writer_connection_again(&dir)).len(), 20_000);
    }

    /// 100 new rows of `body`, named after `round`, all stored. Packed
    /// first, then sent at once: packing is slow in a debug build, and
    /// writes that trickle in make batches of one or two.
    async fn write_round(writes: &Writes, round: usize, body: &str) {
        let round_writes: Vec<PackedWrite> = (0..100)
            .map(|i| create(&format!("t-{round}-{i}"), body).into())
            .collect();
        let answers: Vec<_> = round_writes
            .into_iter()
            .map(|write| {
                let (reply, answer) = oneshot::channel();
                writes.send((write, reply)).unwrap();
                answer
            })
            .collect();
        for answer in answers {
            assert!(matches!(answer.await, Ok(Ok(WriteOutcome::Created(true)))));
        }
    }

    fn database(dir: &TempDir) -> std::path::PathBuf {
        dir.0.join("order-exception-agent.sqlite3")
    }

    fn writer_connection_again(dir: &TempDir) -> Connection {
        crate::db::sqlite_writer_connection(&database(dir)).expect("a second connection")
    }

    /// The writer checkpoints between its batches, so the WAL starts over
    /// instead of growing with everything ever written.
    #[tokio::test]
    async fn the_wal_stays_short_under_steady_writes() {
        let dir = TempDir::new();
        let writes = start_with(
            writer_connection(&dir).await,
            writer_connection_again(&dir),
            &database(&dir),
            4096,
        )
        .unwrap();
        let body = incompressible_body(2_000);
        for round in 0..200 {
            write_round(&writes, round, &body).await;
        }
        // 20 000 rows of 2 kB: about 90 MB of WAL without checkpoints;
        // with them it starts over every 4096 rows or so.
        let wal = dir.0.join("order-exception-agent.sqlite3-wal");
        let wal_bytes = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
        assert!(wal_bytes < 48 * 1024 * 1024, "WAL is {wal_bytes} bytes");
        assert_eq!(bodies(&writer_connection_again(&dir)).len(), 20_000);
    }
}
