//! The agent's artifacts as A2A artifacts: the one place the engine turns
//! an [`agent::ReplyArtifact`](crate::agent::ReplyArtifact) into the
//! protocol's, so `agent/` knows nothing of A2A. A leaf of `tasks/`: it
//! uses only the agent's types and the protocol's.

use crate::a2a::{Artifact, FileContent, FilePart, Part};
use crate::agent::{ReplyArtifact, ReplyPart};

/// Each of `artifacts` as an A2A artifact, in order, ids kept (the pieces
/// of one chunked artifact share theirs).
pub(super) fn to_a2a(artifacts: &[ReplyArtifact]) -> Vec<Artifact> {
    artifacts.iter().map(artifact).collect()
}

fn artifact(artifact: &ReplyArtifact) -> Artifact {
    Artifact {
        artifact_id: artifact.id.clone(),
        name: Some(artifact.name.clone()),
        description: None,
        parts: artifact.parts.iter().map(part).collect(),
        metadata: None,
        extensions: None,
    }
}

fn part(part: &ReplyPart) -> Part {
    match part {
        ReplyPart::Text(text) => Part::text(text.clone()),
        ReplyPart::Data(data) => Part::data(data.clone()),
        ReplyPart::File {
            name,
            mime_type,
            bytes,
            uri,
        } => Part::File(FilePart {
            file: FileContent {
                bytes: bytes.clone(),
                uri: uri.clone(),
                name: Some(name.clone()),
                mime_type: Some(mime_type.clone()),
            },
            metadata: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_keeps_its_content_and_the_artifact_its_id() {
        let mut data = serde_json::Map::new();
        data.insert("count".into(), 42.into());
        let ours = ReplyArtifact::new(
            "mixed",
            vec![
                ReplyPart::Text("hello".into()),
                ReplyPart::Data(data.clone()),
                ReplyPart::File {
                    name: "output.txt".into(),
                    mime_type: "text/plain".into(),
                    bytes: None,
                    uri: Some("https://example.com/output.txt".into()),
                },
            ],
        );
        let [theirs] = to_a2a(std::slice::from_ref(&ours))
            .try_into()
            .expect("one artifact");
        assert_eq!(theirs.artifact_id, ours.id);
        assert_eq!(theirs.name.as_deref(), Some("mixed"));
        assert_eq!(
            serde_json::to_value(&theirs.parts).expect("serializes"),
            serde_json::to_value(vec![
                Part::text("hello".to_string()),
                Part::data(data),
                Part::File(FilePart {
                    file: FileContent {
                        bytes: None,
                        uri: Some("https://example.com/output.txt".into()),
                        name: Some("output.txt".into()),
                        mime_type: Some("text/plain".into()),
                    },
                    metadata: None,
                }),
            ])
            .expect("serializes")
        );
    }
}
