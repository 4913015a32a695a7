//! The one deadline loop of the tests: poll until something holds or a
//! generous limit passes, then let the caller assert with what it saw. No
//! test sleeps in a hand-written loop of its own.

use std::time::{Duration, Instant};

/// How often [`wait_until`] asks.
const POLL: Duration = Duration::from_millis(50);

/// Ask `done` every 50 ms until it says yes or `limit` has passed; returns
/// its last answer. `done` may await (a JSON-RPC call, a metrics scrape) and
/// may keep what it saw in a captured variable; the caller asserts what it
/// waited for, with the detail it has.
pub async fn wait_until(limit: Duration, mut done: impl AsyncFnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done().await {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}
