//! A BTP Destination service on loopback, a real HTTP server: a
//! client-credentials token at `/oauth/token`, and one destination that
//! exchanges the user token (`X-user-token`) for the token of Joule's
//! callback API; it records what it was sent.

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::json;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

#[derive(Default)]
pub struct DestinationCalls {
    pub token_requests: usize,
    /// The `X-user-token` of each destination lookup.
    pub user_tokens: Vec<String>,
    /// The `Authorization` of each destination lookup.
    pub bearer: Vec<String>,
}

pub struct DestinationStub {
    /// `http://127.0.0.1:<port>`: the token URL and the service URI.
    pub url: String,
    pub calls: Arc<Mutex<DestinationCalls>>,
}

impl DestinationStub {
    /// The service with the destination `name` (the client-credentials
    /// token is `dest-access`, the exchanged one `joule-api-token`).
    pub async fn start(name: &str) -> DestinationStub {
        let calls = Arc::new(Mutex::new(DestinationCalls::default()));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let lookup = format!("/destination-configuration/v1/destinations/{name}");
        let shared = calls.clone();
        let server = HttpServer::new(move || {
            let token_calls = shared.clone();
            let lookup_calls = shared.clone();
            App::new()
                .route(
                    "/oauth/token",
                    web::post().to(move |request: HttpRequest| {
                        let calls = token_calls.clone();
                        async move {
                            assert!(request.headers().get("authorization").is_some(), "client credentials sent");
                            calls.lock().unwrap().token_requests += 1;
                            HttpResponse::Ok().json(json!({ "access_token": "dest-access", "expires_in": 3600 }))
                        }
                    }),
                )
                .route(
                    &lookup,
                    web::get().to(move |request: HttpRequest| {
                        let calls = lookup_calls.clone();
                        async move {
                            let header = |name: &str| {
                                request.headers().get(name).map(|v| v.to_str().unwrap().to_string())
                            };
                            let user_token = header("x-user-token");
                            let mut calls = calls.lock().unwrap();
                            calls.user_tokens.push(user_token.clone().unwrap_or_default());
                            calls.bearer.push(header("authorization").unwrap_or_default());
                            let token = match user_token {
                                Some(_) => json!({ "type": "Bearer", "value": "joule-api-token", "expires_in": "3600",
                                    "http_header": { "key": "Authorization", "value": "Bearer joule-api-token" } }),
                                None => json!({ "error": "no X-user-token" }),
                            };
                            HttpResponse::Ok().json(json!({
                                "destinationConfiguration": { "Name": name_of(&request) },
                                "authTokens": [token]
                            }))
                        }
                    }),
                )
        })
        .workers(1)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        tokio::spawn(server);
        DestinationStub { url, calls }
    }
}

/// The destination's name: the last segment of the lookup path.
fn name_of(request: &HttpRequest) -> String {
    request
        .path()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string()
}
