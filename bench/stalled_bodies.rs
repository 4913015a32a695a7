//! Stalled bodies: open many connections to the service, each sending the
//! headers of a ~1 MB request and most of its body, then nothing; hold them
//! while sampling the service's RSS, and check that an ordinary request is
//! still answered. Loopback only. Run by `bench/stalled.sh`.
//!
//! Usage: bench_stalled_bodies PORT PID [CONNECTIONS] [HOLD_SECS]
//! Prints one `RESULT` line: how many connections got 503, 408, were closed
//! without an answer or were still waiting at the end, the RSS before and
//! the highest during the hold (kB), and the ordinary request's status and
//! time.

use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const DECLARED: usize = 1_000_000;
const SENT: usize = 960 * 1024;

fn rss_kb(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with("VmRSS:"))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|kb| kb.parse().ok())
        })
        .unwrap_or(0)
}

/// The status code of the first answer on `stream` within `within`: `Some(0)`
/// when the server closed without one, `None` when it is still waiting.
async fn status_within(stream: &mut TcpStream, within: Duration) -> Option<u16> {
    let mut head = [0u8; 64];
    match tokio::time::timeout(within, stream.read(&mut head)).await {
        Err(_) => None,
        Ok(Ok(0)) | Ok(Err(_)) => Some(0),
        Ok(Ok(n)) => Some(
            String::from_utf8_lossy(&head[..n])
                .split(' ')
                .nth(1)
                .and_then(|code| code.parse().ok())
                .unwrap_or(0),
        ),
    }
}

async fn stalled(port: u16) -> Option<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.ok()?;
    let mut upload = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {DECLARED}\r\n\r\n"
    )
    .into_bytes();
    upload.extend(std::iter::repeat_n(b' ', SENT));
    // A refused body closes the connection before all of it went out.
    let _ = stream.write_all(&upload).await;
    Some(stream)
}

async fn ordinary(port: u16) -> (u16, Duration) {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-1","parts":[{"kind":"text","text":"why is order 4711 blocked by credit"}]}}}"#;
    let started = Instant::now();
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await else {
        return (0, started.elapsed());
    };
    let request = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(request.as_bytes()).await.is_err() {
        return (0, started.elapsed());
    }
    let status = status_within(&mut stream, Duration::from_secs(30))
        .await
        .unwrap_or(0);
    (status, started.elapsed())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = args.get(1).and_then(|p| p.parse().ok()).expect("PORT");
    let pid = args.get(2).expect("PID").clone();
    let connections: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(100);
    let hold = Duration::from_secs(args.get(4).and_then(|s| s.parse().ok()).unwrap_or(8));

    let rss_before = rss_kb(&pid);
    let sampler = {
        let pid = pid.clone();
        tokio::spawn(async move {
            let mut peak = 0;
            let until = Instant::now() + hold + Duration::from_secs(2);
            while Instant::now() < until {
                peak = peak.max(rss_kb(&pid));
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            peak
        })
    };
    let opened = futures_util::future::join_all((0..connections).map(|_| stalled(port))).await;
    let mut streams: Vec<TcpStream> = opened.into_iter().flatten().collect();
    let (ordinary_status, ordinary_time) = ordinary(port).await;
    let deadline = Instant::now() + hold;
    let (mut refused, mut timed_out, mut closed, mut waiting) = (0, 0, 0, 0);
    for stream in &mut streams {
        let left = deadline.saturating_duration_since(Instant::now());
        match status_within(stream, left.max(Duration::from_millis(1))).await {
            Some(503) => refused += 1,
            Some(408) => timed_out += 1,
            Some(_) => closed += 1,
            None => waiting += 1,
        }
    }
    let rss_peak = sampler.await.unwrap_or(0);
    println!(
        "RESULT connections={connections} connected={} refused_503={refused} timed_out_408={timed_out} \
         closed={closed} still_waiting={waiting} rss_before_kb={rss_before} rss_peak_kb={rss_peak} \
         ordinary_status={ordinary_status} ordinary_ms={}",
        streams.len(),
        ordinary_time.as_millis()
    );
}
