//! Push load: N concurrent non-blocking `message/send` calls, each with an
//! inline push config pointing at a receiver this program runs on loopback;
//! waits until every task's final notification arrived and reports the time,
//! duplicates and missing ones. Run by `bench/push.sh`.
//!
//! Run: cargo run --release --example bench_push_load -- SERVICE_URL [N]

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Seen = Arc<Mutex<HashMap<String, usize>>>;

async fn receive(body: web::Json<Value>, seen: web::Data<Seen>) -> HttpResponse {
    let state = body["status"]["state"].as_str().unwrap_or("");
    if state == "completed" || state == "failed" || state == "rejected" {
        let id = body["id"].as_str().unwrap_or("").to_string();
        *seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(id)
            .or_insert(0) += 1;
    }
    HttpResponse::Ok().finish()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut args = std::env::args().skip(1);
    let service = args
        .next()
        .ok_or("usage: bench_push_load SERVICE_URL [N]")?;
    let count: usize = args.next().map(|n| n.parse()).transpose()?.unwrap_or(1000);

    let seen: Seen = Arc::new(Mutex::new(HashMap::new()));
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let hook = format!("http://127.0.0.1:{}/hook", listener.local_addr()?.port());
    let data = web::Data::new(Arc::clone(&seen));
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/hook", web::post().to(receive))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run();
    tokio::spawn(server);

    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(256)
        .build()?;
    let texts = [
        "why is order 4711 blocked by credit",
        "Order 4725: Pricing: customer disputes the price.",
        "Order 4723: Incomplete: delivery address data missing.",
        "customer wants a later delivery date on 4740",
    ];
    let started = Instant::now();
    let sends = (0..count).map(|i| {
        let client = client.clone();
        let body = json!({
            "jsonrpc": "2.0", "id": i, "method": "message/send",
            "params": {
                "message": { "kind": "message", "role": "user", "messageId": format!("push-{i}"),
                    "parts": [{ "kind": "text", "text": texts[i % texts.len()] }] },
                "configuration": { "blocking": false, "pushNotificationConfig": { "url": hook } }
            }
        });
        let service = service.clone();
        async move {
            let response = client.post(&service).json(&body).send().await.ok()?;
            let answer: Value = response.json().await.ok()?;
            answer["result"]["id"].as_str().map(str::to_string)
        }
    });
    let ids: Vec<String> = futures_util::future::join_all(sends)
        .await
        .into_iter()
        .flatten()
        .collect();
    let sent_in = started.elapsed();

    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let delivered = seen.lock().unwrap_or_else(|p| p.into_inner()).len();
        if delivered >= ids.len() || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let all_in = started.elapsed();
    let seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    let missing = ids.iter().filter(|id| !seen.contains_key(*id)).count();
    let duplicates = seen.values().filter(|n| **n > 1).count();
    println!(
        "RESULT sends={count} accepted={} sent_ms={} all_delivered_ms={} missing={missing} duplicates={duplicates}",
        ids.len(),
        sent_in.as_millis(),
        all_in.as_millis()
    );
    Ok(())
}
