//! A webhook receiver on loopback, a real HTTP server: it records every POST
//! (path, headers, JSON body); per path it can answer 500 a number of times
//! first, and paths starting with `/hang` hang for 30 s.

use super::wait_until;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::Value;
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: Value,
}

pub struct WebhookReceiver {
    /// `http://127.0.0.1:<port>`, without a path.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    failures: Arc<Mutex<HashMap<String, usize>>>,
}

async fn hook(
    request: HttpRequest,
    body: web::Bytes,
    received: web::Data<Arc<Mutex<Vec<Received>>>>,
    failures: web::Data<Arc<Mutex<HashMap<String, usize>>>>,
) -> HttpResponse {
    let path = request.path().to_string();
    received.lock().unwrap().push(Received {
        path: path.clone(),
        headers: request
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    if path.starts_with("/hang") {
        tokio::time::sleep(Duration::from_secs(30)).await;
    }
    let mut failures = failures.lock().unwrap();
    let left = failures.entry(path).or_insert(0);
    if *left > 0 {
        *left -= 1;
        return HttpResponse::InternalServerError().finish();
    }
    HttpResponse::Ok().finish()
}

impl WebhookReceiver {
    pub async fn start() -> WebhookReceiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let received = Arc::new(Mutex::new(Vec::new()));
        let failures = Arc::new(Mutex::new(HashMap::new()));
        let (r, f) = (received.clone(), failures.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(web::Data::new(r.clone()))
                .app_data(web::Data::new(f.clone()))
                .default_service(web::post().to(hook))
        })
        .workers(2)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        tokio::spawn(server);
        WebhookReceiver {
            url,
            received,
            failures,
        }
    }

    /// Answer the next `times` calls to `path` with 500.
    pub fn fail(&self, path: &str, times: usize) {
        self.failures
            .lock()
            .unwrap()
            .insert(path.to_string(), times);
    }

    /// The calls `path` got so far.
    pub fn at(&self, path: &str) -> Vec<Received> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    /// Wait until `path` got `count` calls (at most 10 s); the calls it got.
    pub async fn wait_for(&self, path: &str, count: usize) -> Vec<Received> {
        let mut got = Vec::new();
        wait_until(Duration::from_secs(10), async || {
            got = self.at(path);
            got.len() >= count
        })
        .await;
        got
    }
}
