//! [`TestApp`]: the real service started in-process on 127.0.0.1:0, and the
//! calls the tests make to it over HTTP. One builder makes every variant a
//! test needs: settings tweaks, the store, authentication against the
//! loopback key server, webhooks and Joule callbacks on loopback, and an
//! agent of the test's own instead of the specialists.

use super::destination::DestinationStub;
use super::key_server::{APP_TID, CLIENT_ID, DOMAIN, ISSUER, KeyServer};
use super::schema::{assert_schema, response_definition};
use super::task::user_message;
use super::{Agent, Application, Settings, StoreBackend, isolated_postgres_schema};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// The service under test, or the real binary ([`super::binary::Running::app`]),
/// and the client that calls it.
#[derive(Clone)]
pub struct TestApp {
    pub address: String,
    pub port: u16,
    pub client: reqwest::Client,
    /// The app's own SQLite folder, removed when the last clone goes.
    _data: Option<Arc<DataDir>>,
}

/// A fresh folder under the system's temp dir for one app's SQLite file;
/// removed on drop.
struct DataDir(PathBuf);

impl DataDir {
    fn new() -> DataDir {
        DataDir(std::env::temp_dir().join(format!("oea-app-{}", uuid::Uuid::new_v4().simple())))
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where the app keeps its tasks and its action ledger.
pub enum Store {
    /// SQLite in a file of the app's own fresh folder (the default, as the
    /// service runs by default).
    Sqlite,
    /// SQLite in memory, the app's own.
    SqliteInMemory,
    /// SQLite in the file `file` of the folder `dir`.
    SqliteFile { dir: PathBuf, file: String },
    /// The in-memory store (its caps, no leases).
    Memory,
    /// PostgreSQL at this URL (see [`postgres_url`]).
    Postgres(String),
}

/// Builds a [`TestApp`]; [`TestAppBuilder::spawn`] starts it.
pub struct TestAppBuilder {
    settings: Settings,
    agent: Option<Arc<dyn Agent>>,
    data: Option<Arc<DataDir>>,
}

impl TestApp {
    /// The service with the test defaults (SQLite in a fresh folder,
    /// authentication off, two workers).
    pub async fn spawn() -> TestApp {
        TestApp::builder().spawn().await
    }

    pub fn builder() -> TestAppBuilder {
        let mut settings = Settings::default();
        settings.server.host = Some("127.0.0.1".into());
        settings.server.port = 0;
        settings.server.workers = Some(2);
        let builder = TestAppBuilder {
            settings,
            agent: None,
            data: None,
        };
        // Every test app gets its own SQLite database.
        builder.store(Store::Sqlite)
    }

    /// A service already listening on `port` of 127.0.0.1 (the binary).
    pub fn at(port: u16) -> TestApp {
        TestApp {
            address: format!("http://127.0.0.1:{port}"),
            port,
            client: http_client(),
            _data: None,
        }
    }
}

impl TestAppBuilder {
    /// Change any setting.
    pub fn settings(mut self, change: impl FnOnce(&mut Settings)) -> TestAppBuilder {
        change(&mut self.settings);
        self
    }

    /// The settings as built so far, for a test that starts the
    /// application itself (and expects it to refuse).
    pub fn into_settings(self) -> Settings {
        self.settings
    }

    pub fn store(mut self, store: Store) -> TestAppBuilder {
        self.data = matches!(store, Store::Sqlite).then(|| Arc::new(DataDir::new()));
        let data_dir = self.data.as_ref().map(|data| data.0.clone());
        self.settings(|settings| {
            let backend = match store {
                Store::Sqlite => {
                    if let Some(dir) = data_dir {
                        settings.store.data_dir = dir;
                    }
                    settings.store.sqlite_file = "agent.sqlite3".into();
                    StoreBackend::Sqlite
                }
                Store::SqliteInMemory => {
                    settings.store.sqlite_file = ":memory:".into();
                    StoreBackend::Sqlite
                }
                Store::SqliteFile { dir, file } => {
                    settings.store.data_dir = dir;
                    settings.store.sqlite_file = file;
                    StoreBackend::Sqlite
                }
                Store::Memory => StoreBackend::Memory,
                Store::Postgres(url) => {
                    settings.store.database_url = Some(url.into());
                    StoreBackend::Postgres
                }
            };
            settings.store.backend = Some(backend);
        })
    }

    /// The turn budget (55 s by default).
    pub fn budget_ms(self, budget_ms: u64) -> TestAppBuilder {
        self.settings(|settings| settings.tasks.budget_ms = budget_ms)
    }

    /// Authentication on: IAS tokens of the test tenant, keys from `keys`,
    /// the request-rate quotas out of the way ([`unthrottled`]).
    pub fn auth(self, keys: &KeyServer) -> TestAppBuilder {
        self.settings(|settings| {
            unthrottled(settings);
            settings.auth.client_id = Some(CLIENT_ID.into());
            settings.auth.domains = vec![DOMAIN.into(), "accounts.cloud.test".into()];
            settings.auth.app_tid = Some(APP_TID.into());
            settings.auth.url = Some(ISSUER.into());
            settings.auth.test_key_server = Some(keys.url.clone());
        })
    }

    /// Webhooks to `hosts` allowed, over plain HTTP to loopback addresses:
    /// the TESTING allowances only tests may use.
    pub fn loopback_webhooks(self, hosts: &[&str]) -> TestAppBuilder {
        self.settings(|settings| {
            settings.push.allowed_hosts = hosts.iter().map(|host| host.to_string()).collect();
            settings.push.allow_loopback_http = true;
            settings.push.allow_private_addresses = true;
        })
    }

    /// Webhooks on `localhost` are Joule's callbacks, their token minted
    /// through `destination`.
    pub fn joule_callbacks(self, destination: &DestinationStub) -> TestAppBuilder {
        self.settings(|settings| {
            settings.push.joule_hosts = vec!["localhost".into()];
            let service = &mut settings.push.destination.service;
            service.token_url = Some(destination.url.clone());
            service.uri = Some(destination.url.clone());
            service.client_id = Some("sb-destination-client".into());
            service.client_secret = Some("secret".into());
        })
    }

    /// This agent instead of the specialists.
    pub fn agent(mut self, agent: Arc<dyn Agent>) -> TestAppBuilder {
        self.agent = Some(agent);
        self
    }

    pub async fn spawn(self) -> TestApp {
        let application = match self.agent {
            Some(agent) => Application::build_with_agent(self.settings, agent).await,
            None => Application::build(self.settings).await,
        }
        .expect("the application builds");
        let port = application.port();
        tokio::spawn(application.run_until_stopped());
        TestApp {
            _data: self.data,
            ..TestApp::at(port)
        }
    }
}

/// The request-rate quotas of callers and tenants raised out of the way:
/// a test makes hundreds of calls a second as one user. Tests of the
/// quotas set their own after this.
pub fn unthrottled(settings: &mut Settings) {
    let quota = &mut settings.server.quota;
    (quota.caller_per_sec, quota.caller_burst) = (100_000, 100_000);
    (quota.tenant_per_sec, quota.tenant_burst) = (100_000, 100_000);
}

/// A fresh schema on the test PostgreSQL server (`TEST_DATABASE_URL`), or
/// `None` after saying the test is skipped.
pub async fn postgres_url(test: &str) -> Option<String> {
    let Ok(base) = std::env::var("TEST_DATABASE_URL") else {
        eprintln!("SKIPPED {test}: TEST_DATABASE_URL is not set (PostgreSQL tests)");
        return None;
    };
    Some(
        isolated_postgres_schema(&base)
            .await
            .expect("a fresh PostgreSQL schema"),
    )
}

/// A loopback HTTP client (reqwest needs the process's rustls provider).
pub fn http_client() -> reqwest::Client {
    client_with(reqwest::header::HeaderMap::new())
}

fn client_with(headers: reqwest::header::HeaderMap) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .default_headers(headers)
        .build()
        .expect("client builds")
}

impl TestApp {
    /// POST a raw body; returns status and the JSON body.
    pub async fn post_raw(
        &self,
        body: impl Into<reqwest::Body>,
        content_type: Option<&str>,
    ) -> (u16, Value) {
        let mut request = self.client.post(format!("{}/", self.address)).body(body);
        if let Some(content_type) = content_type {
            request = request.header("Content-Type", content_type);
        }
        let response = request.send().await.expect("request reaches the server");
        let status = response.status().as_u16();
        let body = response.json().await.expect("the answer is JSON");
        (status, body)
    }

    /// A JSON-RPC call: HTTP 200, the id echoed, the answer schema-valid.
    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        let id = uuid::Uuid::new_v4().to_string();
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let (status, body) = self
            .post_raw(request.to_string(), Some("application/json"))
            .await;
        assert_eq!(status, 200, "JSON-RPC answers travel with HTTP 200: {body}");
        assert_eq!(body["id"], json!(id), "the request id is echoed: {body}");
        assert_schema(response_definition(method), &body);
        body
    }

    /// `message/send` that must succeed; returns the Task.
    pub async fn send(&self, message: Value) -> Value {
        let body = self
            .rpc("message/send", json!({ "message": message }))
            .await;
        assert!(body.get("error").is_none(), "unexpected error: {body}");
        assert_eq!(body["result"]["kind"], "task");
        body["result"].clone()
    }

    pub async fn send_text(&self, text: &str) -> Value {
        self.send(user_message(text)).await
    }

    /// A follow-up in the same task and context.
    pub async fn reply(&self, task: &Value, text: &str) -> Value {
        let mut message = user_message(text);
        message["taskId"] = task["id"].clone();
        message["contextId"] = task["contextId"].clone();
        self.send(message).await
    }

    /// The error object of a call that must fail.
    pub async fn rpc_error(&self, method: &str, params: Value) -> Value {
        let body = self.rpc(method, params).await;
        assert!(body.get("result").is_none(), "expected an error: {body}");
        body["error"].clone()
    }

    /// GET a path and read its JSON body.
    pub async fn get_json(&self, path: &str) -> Value {
        self.client
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("request reaches the server")
            .json()
            .await
            .expect("the answer is JSON")
    }

    /// The requests refused at `limit` so far, as `/metrics` counts them
    /// (`a2a_limit_refusals_total`; every app of this test process adds to
    /// it, so compare with a reading before).
    pub async fn limit_refusals(&self, limit: &str) -> u64 {
        let text = self
            .client
            .get(format!("{}/metrics", self.address))
            .send()
            .await
            .expect("reaches the server")
            .text()
            .await
            .expect("text");
        let series = format!("a2a_limit_refusals_total{{limit=\"{limit}\"}} ");
        text.lines()
            .find_map(|line| line.strip_prefix(&series)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("{series} in /metrics:\n{text}"))
    }

    /// The same app, called by a client that gives up on an answer after
    /// `limit` (its calls then fail, naming the time-out).
    pub fn giving_up_after(&self, limit: std::time::Duration) -> TestApp {
        let _ = rustls::crypto::ring::default_provider().install_default();
        TestApp {
            client: reqwest::Client::builder()
                .no_proxy()
                .timeout(limit)
                .build()
                .expect("client builds"),
            ..self.clone()
        }
    }

    /// The same app, called by a local user with these roles (authentication
    /// off: the `X-Agent-Role` header).
    pub fn as_role(&self, roles: &str) -> TestApp {
        self.with_headers(&[("x-agent-role", roles)])
    }

    /// The same app, called with these headers on every request (and no
    /// other headers of an earlier `as_role` or `with_headers`).
    pub fn with_headers(&self, pairs: &[(&'static str, &str)]) -> TestApp {
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                *name,
                reqwest::header::HeaderValue::from_str(value).expect("a header value"),
            );
        }
        TestApp {
            client: client_with(headers),
            ..self.clone()
        }
    }

    /// The action ledger as `GET /actions` lists it.
    pub async fn actions(&self) -> Vec<Value> {
        let body = self.get_json("/actions").await;
        body["actions"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("GET /actions lists actions: {body}"))
    }
}
