//! Output an agent adds to a task beside its answer, in the agent's own
//! terms: named artifacts of text, data and file parts. The task engine
//! turns them into the protocol's artifacts (`tasks/artifacts.rs`), so the
//! agent knows nothing of A2A.

use serde_json::{Map, Value};

/// One artifact: its id (pieces of one chunked artifact share it), its
/// name and its parts, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplyArtifact {
    pub id: String,
    pub name: String,
    pub parts: Vec<ReplyPart>,
}

/// One part of an artifact.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyPart {
    Text(String),
    Data(Map<String, Value>),
    /// A file, inline (`bytes`, base64) or by reference (`uri`).
    File {
        name: String,
        mime_type: String,
        bytes: Option<String>,
        uri: Option<String>,
    },
}

impl ReplyArtifact {
    /// A new artifact (a fresh id) named `name`.
    pub fn new(name: &str, parts: Vec<ReplyPart>) -> ReplyArtifact {
        ReplyArtifact {
            id: uuid::Uuid::new_v4().to_string(),
            name: name.into(),
            parts,
        }
    }
}
