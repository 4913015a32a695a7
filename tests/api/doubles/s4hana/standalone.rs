//! The S/4HANA double as a process of its own on loopback, for
//! `bench/s4hana.sh`: an ignored test that serves the demo data until it is
//! killed. A test rather than an example or a binary because the double is
//! a module of this test crate (with its model, store and users); an
//! example would have to copy it or include it by path.
//!
//! `S4_DOUBLE_URL_FILE` names the file its URL is written to (after a
//! first read proved it answers); `S4_DOUBLE_LATENCY_MS` adds latency to
//! every request. The recording is cleared every second so memory stays
//! flat under load.
//!
//! ```sh
//! S4_DOUBLE_URL_FILE=/tmp/s4.url cargo test --test api serve_the_s4_double -- --ignored
//! ```

use super::S4Double;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "serves until killed: bench/s4hana.sh runs it"]
async fn serve_the_s4_double_until_killed() {
    let s4 = S4Double::start().await;
    let latency = std::env::var("S4_DOUBLE_LATENCY_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        .unwrap_or(0);
    let answer = crate::helpers::http_client()
        .get(format!(
            "{}/$metadata",
            s4.service_url("API_SALES_ORDER_SRV")
        ))
        .send()
        .await
        .expect("the double answers");
    assert_eq!(answer.status().as_u16(), 401, "it wants credentials");
    s4.set_latency(Duration::from_millis(latency));
    if let Ok(file) = std::env::var("S4_DOUBLE_URL_FILE") {
        std::fs::write(&file, &s4.url).expect("the URL file is written");
    }
    println!("S/4HANA double at {} (latency {latency} ms)", s4.url);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        s4.clear_requests();
    }
}
