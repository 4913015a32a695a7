//! TESTS ONLY: the conformance agent. The A2A 1.0 conformance suite (TCK)
//! drives the agent behind the endpoint by `messageId` prefixes
//! (`tck-sut/SUT_REQUIREMENTS.md`, `core_operations.feature`,
//! `streaming.feature`); this agent acts them out, so the protocol, the
//! engine, the stores and push can be checked against the suite without the
//! order agent. It runs in place of the order agent when
//! `conformance.tck_scenarios = true` (`AGENT__CONFORMANCE__TCK_SCENARIOS`),
//! which is refused on Cloud Foundry. It knows no protocol version: it reads
//! the message id and answers a [`Reply`] like any agent.
//!
//! `tck-message-response` asks for a bare message ([`Reply::message_only`]):
//! a blocking send answers it without a task; a stream (whose task is
//! stored from the start) completes a task with the message.

use super::{
    Agent, ConformanceSettings, Outcome, Reply, ReplyArtifact as Artifact, ReplyPart as Part,
    Skill, Turn,
};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The suite's streaming timeout variable.
pub const TCK_STREAMING_TIMEOUT: &str = "TCK_STREAMING_TIMEOUT";

/// How long `test-resubscribe-message-id` stays working.
fn resubscribe_delay(settings: &ConformanceSettings) -> Duration {
    match settings.resubscribe_delay_ms {
        Some(ms) => Duration::from_millis(ms),
        None => 2 * streaming_timeout(std::env::var(TCK_STREAMING_TIMEOUT).ok().as_deref()),
    }
}

/// `TCK_STREAMING_TIMEOUT` read as seconds; 2 s when absent or not a
/// positive finite number.
fn streaming_timeout(value: Option<&str>) -> Duration {
    value
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0 && *seconds < 86_400.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(2))
}

/// What a scenario does, by the prefix of the message id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    CompleteTask,
    ArtifactText,
    ArtifactFile,
    ArtifactFileUrl,
    ArtifactData,
    MessageResponse,
    InputRequired,
    RejectTask,
    /// `tck-stream-001` / `-003` / `-ordering-001` / `-artifact-text` /
    /// `-artifact-file` / `-artifact-chunked`, `tck-stream-002`.
    Stream(&'static str),
    LongRunning,
}

/// The prefixes, longest first where one is the start of another.
const PREFIXES: &[(&str, Scenario)] = &[
    ("tck-complete-task", Scenario::CompleteTask),
    ("tck-artifact-text", Scenario::ArtifactText),
    ("tck-artifact-file-url", Scenario::ArtifactFileUrl),
    ("tck-artifact-file", Scenario::ArtifactFile),
    ("tck-artifact-data", Scenario::ArtifactData),
    ("tck-message-response", Scenario::MessageResponse),
    ("tck-input-required", Scenario::InputRequired),
    ("tck-reject-task", Scenario::RejectTask),
    ("tck-stream-001", Scenario::Stream("Stream hello from TCK")),
    ("tck-stream-002", Scenario::Stream("")),
    ("tck-stream-003", Scenario::Stream("Stream task lifecycle")),
    (
        "tck-stream-ordering-001",
        Scenario::Stream("Ordered output"),
    ),
    (
        "tck-stream-artifact-text",
        Scenario::Stream("Streamed text content"),
    ),
    ("tck-stream-artifact-file", Scenario::Stream("file")),
    ("tck-stream-artifact-chunked", Scenario::Stream("chunked")),
    ("test-resubscribe-message-id", Scenario::LongRunning),
];

impl Scenario {
    /// The scenario a message id asks for; `None`: ordinary processing.
    pub fn of(message_id: &str) -> Option<Scenario> {
        PREFIXES
            .iter()
            .find(|(prefix, _)| message_id.starts_with(prefix))
            .map(|(_, scenario)| *scenario)
    }
}

fn artifact(name: &str, parts: Vec<Part>) -> Artifact {
    Artifact::new(name, parts)
}

fn text_part(text: &str) -> Part {
    Part::Text(text.into())
}

fn file(bytes: Option<&str>, uri: Option<&str>) -> Part {
    Part::File {
        name: "output.txt".into(),
        mime_type: "text/plain".into(),
        bytes: bytes.map(str::to_string),
        uri: uri.map(str::to_string),
    }
}

/// "Generated text content" as base64.
const FILE_BYTES: &str = "R2VuZXJhdGVkIHRleHQgY29udGVudA==";

/// A reply of this agent: the text is the status message only, so the task
/// carries exactly the scenario's artifacts (clients read `artifacts[0]`).
fn scripted(outcome: Outcome, text: &str) -> Reply {
    Reply {
        answer_artifact: false,
        ..Reply::new(outcome, text)
    }
}

fn completed(text: &str, artifacts: Vec<Artifact>) -> Reply {
    Reply {
        artifacts,
        ..scripted(Outcome::Completed, text)
    }
}

/// The conformance agent: each turn acts out its message id's scenario;
/// a message without one is echoed and completed.
pub struct TckScenarioAgent {
    settings: ConformanceSettings,
}

impl TckScenarioAgent {
    pub fn new(settings: ConformanceSettings) -> TckScenarioAgent {
        TckScenarioAgent { settings }
    }
}

#[async_trait]
impl Agent for TckScenarioAgent {
    fn skills(&self) -> Vec<&'static Skill> {
        Vec::new()
    }

    async fn respond(&self, turn: Turn) -> Reply {
        let Some(scenario) = Scenario::of(&turn.message_id) else {
            return completed(&format!("Echo: {}", turn.text), Vec::new());
        };
        match scenario {
            Scenario::CompleteTask => completed("Hello from TCK", Vec::new()),
            Scenario::ArtifactText => completed(
                "Done",
                vec![artifact("text", vec![text_part("Generated text content")])],
            ),
            Scenario::ArtifactFile => completed(
                "Done",
                vec![artifact("file", vec![file(Some(FILE_BYTES), None)])],
            ),
            Scenario::ArtifactFileUrl => completed(
                "Done",
                vec![artifact(
                    "file-url",
                    vec![file(None, Some("https://example.com/output.txt"))],
                )],
            ),
            Scenario::ArtifactData => {
                let data: Map<String, Value> = json!({"key": "value", "count": 42})
                    .as_object()
                    .cloned()
                    .unwrap_or_default();
                completed("Done", vec![artifact("data", vec![Part::Data(data)])])
            }
            Scenario::MessageResponse => Reply {
                message_only: true,
                ..completed("Direct message response", Vec::new())
            },
            Scenario::InputRequired => scripted(Outcome::InputRequired, "Input required"),
            Scenario::RejectTask => scripted(Outcome::Rejected, "rejected"),
            Scenario::Stream("") => completed("Stream complete", Vec::new()),
            Scenario::Stream("file") => completed(
                "Done",
                vec![artifact("file", vec![file(Some(FILE_BYTES), None)])],
            ),
            Scenario::Stream("chunked") => {
                let first = artifact("chunked", vec![text_part("chunk-1 ")]);
                let last = Artifact {
                    parts: vec![text_part("chunk-2")],
                    ..first.clone()
                };
                Reply {
                    artifact_chunks: vec![first, last],
                    ..scripted(Outcome::Completed, "Done")
                }
            }
            Scenario::Stream(text) => {
                completed("Done", vec![artifact("text", vec![text_part(text)])])
            }
            Scenario::LongRunning => {
                tokio::time::sleep(resubscribe_delay(&self.settings)).await;
                completed("Done", Vec::new())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_pick_their_scenario_and_others_none() {
        assert_eq!(
            Scenario::of("tck-complete-task-123"),
            Some(Scenario::CompleteTask)
        );
        assert_eq!(
            Scenario::of("tck-artifact-file-url-1"),
            Some(Scenario::ArtifactFileUrl)
        );
        assert_eq!(
            Scenario::of("tck-artifact-file-1"),
            Some(Scenario::ArtifactFile)
        );
        assert_eq!(
            Scenario::of("test-resubscribe-message-id-9"),
            Some(Scenario::LongRunning)
        );
        assert_eq!(Scenario::of("m-1"), None);
        assert_eq!(Scenario::of("xtck-complete-task"), None);
    }

    #[test]
    fn the_long_run_is_twice_the_suites_streaming_timeout() {
        assert_eq!(streaming_timeout(None), Duration::from_secs(2));
        assert_eq!(streaming_timeout(Some("5.0")), Duration::from_secs(5));
        assert_eq!(streaming_timeout(Some("0.5")), Duration::from_millis(500));
        for bad in ["", "x", "-1", "0", "NaN", "inf"] {
            assert_eq!(
                streaming_timeout(Some(bad)),
                Duration::from_secs(2),
                "{bad}"
            );
        }
        let set = ConformanceSettings {
            resubscribe_delay_ms: Some(300),
            ..ConformanceSettings::default()
        };
        assert_eq!(resubscribe_delay(&set), Duration::from_millis(300));
    }

    #[tokio::test]
    async fn the_chunked_stream_sends_two_pieces_of_one_artifact() {
        let agent = TckScenarioAgent::new(ConformanceSettings::default());
        let reply = agent
            .respond(Turn {
                message_id: "tck-stream-artifact-chunked-1".into(),
                ..Turn::default()
            })
            .await;
        let texts: Vec<_> = reply
            .artifact_chunks
            .iter()
            .flat_map(|chunk| chunk.parts.iter())
            .filter_map(|part| match part {
                Part::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["chunk-1 ", "chunk-2"]);
        assert_eq!(reply.artifact_chunks[0].id, reply.artifact_chunks[1].id);
        assert!(reply.artifacts.is_empty());
    }
}
