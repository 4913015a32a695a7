//! A small A2A 0.3.0 JSON-RPC client over reqwest, on the crate's own serde
//! types. Every failure becomes one `ClientError` whose message is a single
//! line a person can act on.

use crate::a2a::agent_card::AgentCard;
use crate::a2a::{Message, MessageKind, MessageSendParams, Part, Role, RpcError, Task, TaskState};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The header that names the caller's roles when the server runs without
/// authentication (ignored by a server that validates tokens).
pub const ROLE_HEADER: &str = "X-Agent-Role";

/// One request may take the server's budget (55 s) plus some slack.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `send_text` follows a task that is still `working`.
const FOLLOW_WORKING: Duration = Duration::from_secs(120);
const POLL_INTERVAL: Duration = Duration::from_millis(500);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("`{url}` is not a usable URL: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("cannot reach {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("{url} did not answer within {secs} s")]
    Timeout { url: String, secs: u64 },
    #[error(
        "{url} refused the call (HTTP {status}{}): {description} Pass a valid token with --token or AGENT_TOKEN.",
        code_suffix(code)
    )]
    Unauthorized {
        url: String,
        status: u16,
        code: Option<String>,
        description: String,
    },
    #[error(
        "{url} refused the call (HTTP 403{}): {description} The token lacks a permission the agent needs.",
        code_suffix(code)
    )]
    Forbidden {
        url: String,
        code: Option<String>,
        description: String,
    },
    #[error("{url} is not an A2A endpoint: {detail}")]
    NotA2a { url: String, detail: String },
    #[error("{url} answered HTTP {status}: {message}")]
    Http {
        url: String,
        status: u16,
        message: String,
    },
    #[error("the agent answered {method} with JSON-RPC error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
    #[error("cannot build the HTTP client: {0}")]
    Build(String),
}

fn code_suffix(code: &Option<String>) -> String {
    code.as_deref()
        .map(|code| format!(", {code}"))
        .unwrap_or_default()
}

/// The innermost cause of a transport error ("Connection refused (os error 111)").
fn root_cause(error: &reqwest::Error) -> String {
    let mut source: &dyn std::error::Error = error;
    while let Some(next) = source.source() {
        source = next;
    }
    source.to_string()
}

/// The reason an HTTP error body gives: JSON-RPC `error.message`, OAuth
/// `error_description`, or nothing.
fn body_reason(body: &Value) -> Option<String> {
    body.get("error_description")
        .and_then(Value::as_str)
        .or_else(|| body.pointer("/error/message").and_then(Value::as_str))
        .map(str::to_string)
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .unwrap_or("no content type")
        .trim()
        .to_string()
}

/// A client for one agent endpoint (the card's `url`).
pub struct A2aClient {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    token: Option<String>,
    roles: Option<String>,
    next_id: AtomicU64,
}

impl A2aClient {
    /// `endpoint` is the JSON-RPC URL; the card is read from
    /// `/.well-known/agent-card.json` on the same host.
    pub fn new(endpoint: &str, token: Option<String>) -> Result<Self, ClientError> {
        let invalid = |reason: String| ClientError::InvalidUrl {
            url: endpoint.to_string(),
            reason,
        };
        let url = reqwest::Url::parse(endpoint).map_err(|error| invalid(error.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(invalid("the scheme must be http or https".into()));
        }
        if url.host().is_none() {
            return Err(invalid("there is no host".into()));
        }
        // reqwest needs the process's TLS provider (ring); a second install is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .user_agent(concat!("order-exception-agent/", env!("CARGO_PKG_VERSION")));
        // Loopback hosts never go through a proxy.
        if crate::loopback::is_loopback(&url) {
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|error| ClientError::Build(root_cause(&error)))?;
        Ok(A2aClient {
            http,
            endpoint: url,
            token: token.filter(|token| !token.trim().is_empty()),
            roles: None,
            next_id: AtomicU64::new(1),
        })
    }

    /// Send `X-Agent-Role` with every call (comma-separated role names).
    pub fn with_roles(mut self, roles: Option<String>) -> Self {
        self.roles = roles;
        self
    }

    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    /// Where the card lives: the well-known path at the endpoint's host.
    pub fn card_url(&self) -> reqwest::Url {
        let mut url = self.endpoint.clone();
        url.set_path("/.well-known/agent-card.json");
        url.set_query(None);
        url.set_fragment(None);
        url
    }

    fn transport_error(&self, url: &str, error: reqwest::Error) -> ClientError {
        if error.is_timeout() {
            ClientError::Timeout {
                url: url.to_string(),
                secs: REQUEST_TIMEOUT.as_secs(),
            }
        } else {
            ClientError::Unreachable {
                url: url.to_string(),
                reason: root_cause(&error),
            }
        }
    }

    fn authorize(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.trim());
        }
        if let Some(roles) = &self.roles {
            request = request.header(ROLE_HEADER, roles);
        }
        request
    }

    /// A 401/403 or another non-success status as an error.
    fn status_error(url: &str, status: u16, body: &Value, content_type: &str) -> ClientError {
        let code = body
            .get("error")
            .and_then(Value::as_str)
            .map(str::to_string);
        let description = body_reason(body).unwrap_or_else(|| "no reason given.".into());
        match status {
            401 => ClientError::Unauthorized {
                url: url.to_string(),
                status,
                code,
                description,
            },
            403 => ClientError::Forbidden {
                url: url.to_string(),
                code,
                description,
            },
            _ => match body_reason(body) {
                Some(message) => ClientError::Http {
                    url: url.to_string(),
                    status,
                    message,
                },
                None => ClientError::NotA2a {
                    url: url.to_string(),
                    detail: format!("it answered HTTP {status} with {content_type}"),
                },
            },
        }
    }

    /// The agent card: the parsed card and the JSON as served.
    pub async fn card(&self) -> Result<(AgentCard, Value), ClientError> {
        let url = self.card_url();
        let shown = url.to_string();
        let response = self
            .authorize(self.http.get(url).header("Accept", "application/json"))
            .send()
            .await
            .map_err(|error| self.transport_error(&shown, error))?;
        let status = response.status().as_u16();
        let kind = content_type(&response);
        let bytes = response
            .bytes()
            .await
            .map_err(|error| self.transport_error(&shown, error))?;
        let body: Option<Value> = serde_json::from_slice(&bytes).ok();
        if status == 404 {
            return Err(ClientError::NotA2a {
                url: self.endpoint().to_string(),
                detail: format!("no agent card at {shown} (HTTP 404)"),
            });
        }
        if status != 200 {
            return Err(Self::status_error(
                &shown,
                status,
                &body.unwrap_or(Value::Null),
                &kind,
            ));
        }
        let Some(body) = body else {
            return Err(ClientError::NotA2a {
                url: self.endpoint().to_string(),
                detail: format!("GET {shown} answered {kind}, not an agent card"),
            });
        };
        let card = serde_json::from_value::<AgentCard>(body.clone()).map_err(|error| {
            ClientError::NotA2a {
                url: self.endpoint().to_string(),
                detail: format!("{shown} is not an A2A agent card ({error})"),
            }
        })?;
        Ok((card, body))
    }

    /// One JSON-RPC call; the result deserialized as `T`.
    pub async fn call<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let url = self.endpoint().to_string();
        let response = self
            .authorize(
                self.http
                    .post(self.endpoint.clone())
                    .header("Accept", "application/json")
                    .json(&request),
            )
            .send()
            .await
            .map_err(|error| self.transport_error(&url, error))?;
        let status = response.status().as_u16();
        let kind = content_type(&response);
        let bytes = response
            .bytes()
            .await
            .map_err(|error| self.transport_error(&url, error))?;
        let body: Option<Value> = serde_json::from_slice(&bytes).ok();
        if status != 200 {
            return Err(Self::status_error(
                &url,
                status,
                &body.unwrap_or(Value::Null),
                &kind,
            ));
        }
        let Some(body) = body else {
            return Err(ClientError::NotA2a {
                url,
                detail: format!("POST answered {kind}, not a JSON-RPC response"),
            });
        };
        if body.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(ClientError::NotA2a {
                url,
                detail: "its answer is JSON but not a JSON-RPC 2.0 response".into(),
            });
        }
        if let Some(error) = body.get("error") {
            let error: RpcError =
                serde_json::from_value(error.clone()).map_err(|_| ClientError::NotA2a {
                    url: url.clone(),
                    detail: "its JSON-RPC error has no code and message".into(),
                })?;
            return Err(ClientError::Rpc {
                method: method.to_string(),
                code: error.code,
                message: error.message,
            });
        }
        let Some(result) = body.get("result") else {
            return Err(ClientError::NotA2a {
                url,
                detail: "its JSON-RPC response has neither result nor error".into(),
            });
        };
        serde_json::from_value(result.clone()).map_err(|error| ClientError::NotA2a {
            url,
            detail: format!("the result of {method} is not what A2A 0.3.0 specifies ({error})"),
        })
    }

    /// `message/send` with one text part. A task still `submitted` or
    /// `working` (a turn past the server's budget) is followed with
    /// `tasks/get` until it ends or pauses, for at most two minutes.
    pub async fn send_text(
        &self,
        text: &str,
        context_id: Option<&str>,
        task_id: Option<&str>,
    ) -> Result<Task, ClientError> {
        let message = Message {
            kind: MessageKind::Value,
            role: Role::User,
            parts: vec![Part::text(text)],
            message_id: uuid::Uuid::new_v4().to_string(),
            task_id: task_id.map(str::to_string),
            context_id: context_id.map(str::to_string),
            reference_task_ids: None,
            extensions: None,
            metadata: None,
        };
        let params = MessageSendParams {
            message,
            configuration: None,
            metadata: None,
        };
        let params =
            serde_json::to_value(&params).map_err(|error| ClientError::Build(error.to_string()))?;
        let mut task: Task = self.call("message/send", params).await?;
        let deadline = tokio::time::Instant::now() + FOLLOW_WORKING;
        while matches!(task.status.state, TaskState::Submitted | TaskState::Working)
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(POLL_INTERVAL).await;
            task = self.get_task(&task.id).await?;
        }
        Ok(task)
    }

    /// `tasks/get` without history.
    pub async fn get_task(&self, id: &str) -> Result<Task, ClientError> {
        self.call("tasks/get", json!({ "id": id, "historyLength": 0 }))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_lives_at_the_hosts_well_known_path() {
        let client = A2aClient::new("http://127.0.0.1:8080/a2a/?x=1", None).unwrap();
        assert_eq!(
            client.card_url().as_str(),
            "http://127.0.0.1:8080/.well-known/agent-card.json"
        );
    }

    #[test]
    fn unusable_urls_are_refused_with_a_reason() {
        for url in ["localhost:8080", "ftp://example.com/", "not a url"] {
            let error = A2aClient::new(url, None).err().map(|e| e.to_string());
            assert!(
                error.as_deref().is_some_and(|e| e.contains(url)),
                "{url}: {error:?}"
            );
        }
    }

    #[test]
    fn status_errors_say_why_in_one_line() {
        let body = json!({"error": "invalid_token", "error_description": "Token expired."});
        let error =
            A2aClient::status_error("http://h/", 401, &body, "application/json").to_string();
        assert!(error.contains("HTTP 401, invalid_token"), "{error}");
        assert!(error.contains("Token expired."), "{error}");
        assert!(error.contains("AGENT_TOKEN"), "{error}");
        let html = A2aClient::status_error("http://h/", 404, &Value::Null, "text/html").to_string();
        assert!(html.contains("not an A2A endpoint"), "{html}");
        assert!(html.contains("text/html"), "{html}");
        let rpc_shaped = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "POST /health is not allowed"}});
        let error =
            A2aClient::status_error("http://h/health", 405, &rpc_shaped, "application/json")
                .to_string();
        assert!(
            error.contains("HTTP 405: POST /health is not allowed"),
            "{error}"
        );
        for error in [error, html] {
            assert!(!error.contains('\n'));
        }
    }
}
