//! Reading a Task as Joule and the tests do, and writing the user message
//! they send.

use serde_json::{Value, json};

/// A user message with one text part.
pub fn user_message(text: &str) -> Value {
    json!({
        "kind": "message",
        "role": "user",
        "messageId": uuid::Uuid::new_v4().to_string(),
        "parts": [{ "kind": "text", "text": text }]
    })
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

/// The agent message's `approval` metadata.
pub fn approval(task: &Value) -> &Value {
    &task["status"]["message"]["metadata"]["approval"]
}
