//! `spawn_app` and friends: start the real service on 127.0.0.1:0 and talk
//! to it over HTTP; every JSON-RPC answer is checked against the A2A schema.

use order_exception_agent::agent::Agent;
use order_exception_agent::config::Settings;
use order_exception_agent::startup::Application;
use serde_json::{Value, json};
use std::sync::{Arc, LazyLock};

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    let text = include_str!("../schema/a2a-v0.3.0.json");
    serde_json::from_str(text).expect("the bundled A2A schema is JSON")
});

/// Validate `instance` against one definition of the A2A 0.3.0 schema.
pub fn assert_schema(definition: &str, instance: &Value) {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": format!("#/definitions/{definition}"),
        "definitions": SCHEMA["definitions"].clone(),
    });
    let validator = jsonschema::draft7::new(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid {definition}: {errors:?}\n{}",
        serde_json::to_string_pretty(instance).unwrap_or_default()
    );
}

/// The response definition for a method's answer.
fn response_definition(method: &str) -> &'static str {
    match method {
        "message/send" | "tasks/send" => "SendMessageResponse",
        "message/stream" | "tasks/resubscribe" => "SendStreamingMessageResponse",
        "tasks/get" => "GetTaskResponse",
        "tasks/cancel" => "CancelTaskResponse",
        "tasks/pushNotificationConfig/set" => "SetTaskPushNotificationConfigResponse",
        "tasks/pushNotificationConfig/get" => "GetTaskPushNotificationConfigResponse",
        "tasks/pushNotificationConfig/list" => "ListTaskPushNotificationConfigResponse",
        "tasks/pushNotificationConfig/delete" => "DeleteTaskPushNotificationConfigResponse",
        _ => "JSONRPCErrorResponse",
    }
}

#[derive(Clone)]
pub struct TestApp {
    pub address: String,
    pub port: u16,
    pub client: reqwest::Client,
}

pub fn test_settings() -> Settings {
    let mut settings = Settings::default();
    settings.server.host = "127.0.0.1".into();
    settings.server.port = 0;
    settings.server.workers = Some(2);
    // Every test app gets its own SQLite database, in memory.
    settings.store.backend = Some(order_exception_agent::db::StoreBackend::Sqlite);
    settings.store.sqlite_file = ":memory:".into();
    settings
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(test_settings()).await
}

pub async fn spawn_app_with(settings: Settings) -> TestApp {
    let application = Application::build(settings)
        .await
        .expect("the application builds");
    start(application)
}

pub async fn spawn_app_with_agent(agent: Arc<dyn Agent>) -> TestApp {
    spawn_app_with_settings_and_agent(test_settings(), agent).await
}

pub async fn spawn_app_with_settings_and_agent(
    settings: Settings,
    agent: Arc<dyn Agent>,
) -> TestApp {
    let application = Application::build_with_agent(settings, agent)
        .await
        .expect("the application builds");
    start(application)
}

fn start(application: Application) -> TestApp {
    let port = application.port();
    tokio::spawn(application.run_until_stopped());
    TestApp {
        address: format!("http://127.0.0.1:{port}"),
        port,
        client: http_client(),
    }
}

/// A loopback HTTP client (reqwest needs the process's rustls provider).
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client builds")
}

/// A user message with one text part.
pub fn user_message(text: &str) -> Value {
    json!({
        "kind": "message",
        "role": "user",
        "messageId": uuid::Uuid::new_v4().to_string(),
        "parts": [{ "kind": "text", "text": text }]
    })
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
}

/// An agent that answers `done: <text>` after a delay (turns past the budget).
pub struct SlowAgent(pub std::time::Duration);

#[async_trait::async_trait]
impl Agent for SlowAgent {
    fn skills(&self) -> Vec<&'static order_exception_agent::agent::Skill> {
        Vec::new()
    }

    async fn respond(
        &self,
        turn: order_exception_agent::agent::Turn,
    ) -> order_exception_agent::agent::Reply {
        tokio::time::sleep(self.0).await;
        order_exception_agent::agent::Reply::new(
            order_exception_agent::agent::Outcome::Completed,
            format!("done: {}", turn.text),
        )
    }
}

impl TestApp {
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
}

pub fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap_or("")
}

/// The answer text as Joule reads it (`status.message.parts[0].text`).
pub fn status_text(task: &Value) -> String {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

pub fn routed_to(task: &Value) -> Option<String> {
    task["status"]["message"]["metadata"]["routing"]["specialist"]
        .as_str()
        .map(str::to_string)
}

impl TestApp {
    /// The same app, called by a local user with these roles (authentication
    /// off: the `X-Agent-Role` header).
    pub fn as_role(&self, roles: &str) -> TestApp {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            "x-agent-role",
            reqwest::header::HeaderValue::from_str(roles).expect("a header value"),
        );
        TestApp {
            client: reqwest::Client::builder()
                .no_proxy()
                .default_headers(headers)
                .build()
                .expect("client builds"),
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

/// The agent message's `approval` metadata.
pub fn approval(task: &Value) -> &Value {
    &task["status"]["message"]["metadata"]["approval"]
}

/// A fresh schema on the test PostgreSQL server (`TEST_DATABASE_URL`), or
/// `None` after saying the test is skipped.
pub async fn postgres_url(test: &str) -> Option<String> {
    let Ok(base) = std::env::var("TEST_DATABASE_URL") else {
        eprintln!("SKIPPED {test}: TEST_DATABASE_URL is not set (PostgreSQL tests)");
        return None;
    };
    Some(
        order_exception_agent::db::isolated_postgres_schema(&base)
            .await
            .expect("a fresh PostgreSQL schema"),
    )
}

/// Test settings on PostgreSQL at `url`.
pub fn postgres_settings(url: &str) -> Settings {
    let mut settings = test_settings();
    settings.store.backend = Some(order_exception_agent::db::StoreBackend::Postgres);
    settings.store.database_url = Some(url.to_string());
    settings
}
