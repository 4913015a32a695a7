//! The A2A 1.0 values our mapping produces, validated against the 1.0 JSON
//! Schema (`tests/schema/a2a-v1.0.json`) and against the fields `a2a.proto`
//! marks REQUIRED (the schema has no `required` lists).
//!
//! The schema is generated and non-normative; where it and the proto
//! disagree, the proto wins. The disagreements found:
//! 1. No `required` anywhere: the schema takes `{}` for a Task or a Message.
//!    The proto's REQUIRED fields are checked here by `assert_required`.
//! 2. Oneofs are not enforced: the schema takes a Part with both `text` and
//!    `url`, a StreamResponse with `task` and `message`. The proto allows one
//!    member; our readers refuse two (test `schema_takes_what_the_proto_refuses`).
//! 3. `Part.raw` has the pattern `^[A-Za-z0-9+/]*={0,2}$`, which refuses
//!    URL-safe base64 that ProtoJSON readers accept. We accept both and
//!    write the standard alphabet, so our output passes.
//! 4. Both spellings of a field (`pageSize` and `page_size`) may appear
//!    together in the schema; for ProtoJSON they are one field and a
//!    second occurrence is a duplicate (our readers refuse it).
//! 5. `additionalProperties: false` refuses the merged card's 0.3 keys
//!    (`url`, `preferredTransport`, `protocolVersion`, …) that a2a-1.0.md
//!    §6.1 adds on purpose; the pure 1.0 card is validated here.
//! 6. `nextPageToken` of ListTasksResponse may be absent in the schema, and
//!    plain ProtoJSON would drop `""`; the proto marks it REQUIRED and the
//!    spec wants it always present, so we always write it.
//! 7. No definition for `google.protobuf.Empty` (the result of
//!    `DeleteTaskPushNotificationConfig`) or for the JSON-RPC envelope and
//!    `error.data`; those are checked by the unit tests of `a2a::v1::error`.

use order_exception_agent::wire::v1;
use order_exception_agent::wire::v1::{
    AgentCapabilities, AgentInterface, AgentSkill, OpenIdConnectSecurityScheme,
    SecurityRequirement, SecurityScheme, StringList,
};
use order_exception_agent::wire::v1::{
    V03StreamEvent, list_push_configs_response, push_config_from_v03,
};
use order_exception_agent::wire::v03;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The bundle as one 2020-12 schema: definitions under `$defs` by their
/// name without spaces, each file-like `$ref` (`lf.a2a.v1.TaskStatus.jsonschema.json`)
/// pointing at `#/$defs/TaskStatus`.
static DEFINITIONS: LazyLock<Map<String, Value>> = LazyLock::new(|| {
    let text = include_str!("../../schema/a2a-v1.0.json");
    let bundle: Value = serde_json::from_str(text).expect("the bundled 1.0 schema is JSON");
    let definitions = bundle["definitions"]
        .as_object()
        .expect("the bundle has definitions");
    definitions
        .iter()
        .map(|(name, definition)| {
            let mut definition = definition.clone();
            rewrite_refs(&mut definition);
            if let Some(object) = definition.as_object_mut() {
                object.remove("$schema");
            }
            (name.replace(' ', ""), definition)
        })
        .collect()
});

fn rewrite_refs(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                if key == "$ref"
                    && let Some(target) = member.as_str()
                {
                    let stem = target.trim_end_matches(".jsonschema.json");
                    let name = stem.rsplit('.').next().unwrap_or(stem);
                    *member = Value::String(format!("#/$defs/{name}"));
                } else {
                    rewrite_refs(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// The schema's verdict on `instance` as a `definition` ("TaskStatus").
fn schema_errors(definition: &str, instance: &Value) -> Vec<String> {
    assert!(
        DEFINITIONS.contains_key(definition),
        "no definition {definition}"
    );
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{definition}"),
        "$defs": Value::Object(DEFINITIONS.clone()),
    });
    let validator = jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the 1.0 schema compiles");
    validator
        .iter_errors(instance)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

/// The fields `a2a.proto` marks `(google.api.field_behavior) = REQUIRED`,
/// by definition, for the messages these tests write.
fn required_fields(definition: &str) -> &'static [&'static str] {
    match definition {
        "Task" => &["id", "status"],
        "TaskStatus" => &["state"],
        "Message" => &["messageId", "role", "parts"],
        "Artifact" => &["artifactId", "parts"],
        "TaskStatusUpdateEvent" => &["taskId", "contextId", "status"],
        "TaskArtifactUpdateEvent" => &["taskId", "contextId", "artifact"],
        "TaskPushNotificationConfig" => &["url"],
        "AuthenticationInfo" => &["scheme"],
        "SendMessageRequest" => &["message"],
        "GetTaskRequest" | "CancelTaskRequest" | "SubscribeToTaskRequest" => &["id"],
        "GetTaskPushNotificationConfigRequest" | "DeleteTaskPushNotificationConfigRequest" => {
            &["taskId", "id"]
        }
        "ListTaskPushNotificationConfigsRequest" => &["taskId"],
        "ListTasksResponse" => &["tasks", "nextPageToken", "pageSize", "totalSize"],
        "AgentCard" => &[
            "name",
            "description",
            "supportedInterfaces",
            "version",
            "capabilities",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
        ],
        "AgentInterface" => &["url", "protocolBinding", "protocolVersion"],
        "AgentProvider" => &["url", "organization"],
        "AgentSkill" => &["id", "name", "description", "tags"],
        "OpenIdConnectSecurityScheme" => &["openIdConnectUrl"],
        _ => &[],
    }
}

/// Walks `instance` along the schema and checks every object's REQUIRED
/// fields; returns the paths of the missing ones.
fn missing_required(definition: &str, instance: &Value, path: &str, missing: &mut Vec<String>) {
    let Some(object) = instance.as_object() else {
        return;
    };
    for field in required_fields(definition) {
        if !object.contains_key(*field) {
            missing.push(format!("{path}.{field} ({definition})"));
        }
    }
    let properties = &DEFINITIONS[definition]["properties"];
    for (key, value) in object {
        let Some(property) = properties.get(key) else {
            continue;
        };
        let child = format!("{path}.{key}");
        if let Some(name) = ref_name(property) {
            missing_required(name, value, &child, missing);
        } else if let Some(name) = property.get("items").and_then(ref_name) {
            for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                missing_required(name, item, &format!("{child}[{index}]"), missing);
            }
        } else if let Some(name) = property.get("additionalProperties").and_then(ref_name) {
            for (entry, item) in value.as_object().into_iter().flatten() {
                missing_required(name, item, &format!("{child}.{entry}"), missing);
            }
        }
    }
}

/// Serialize `value` and check it against the schema and the proto.
fn assert_valid<T: Serialize>(definition: &str, value: &T) -> Value {
    let instance = serde_json::to_value(value).expect("serializes");
    let errors = schema_errors(definition, &instance);
    let mut missing = Vec::new();
    missing_required(definition, &instance, "$", &mut missing);
    assert!(
        errors.is_empty() && missing.is_empty(),
        "not a valid {definition}: schema {errors:?}, REQUIRED missing {missing:?}\n{}",
        serde_json::to_string_pretty(&instance).unwrap_or_default()
    );
    instance
}

/// A 1.0 answer from the service (`"Task"`, `"SendMessageResponse"`, …),
/// checked against the schema and the proto's REQUIRED fields.
pub(crate) fn assert_v1(definition: &str, instance: &Value) {
    assert_valid(definition, instance);
}

fn metadata(key: &str) -> Option<Map<String, Value>> {
    Some(Map::from_iter([(key.to_string(), json!(key))]))
}

fn v03_message(role: v03::Role, text: &str) -> v03::Message {
    v03::Message {
        kind: v03::MessageKind::Value,
        role,
        parts: vec![v03::Part::text(text)],
        message_id: format!("m-{}", text.len()),
        task_id: Some("t-1".into()),
        context_id: Some("c-1".into()),
        reference_task_ids: Some(vec!["t-0".into()]),
        extensions: None,
        metadata: metadata("message"),
    }
}

fn file_part(bytes: Option<&str>, uri: Option<&str>) -> v03::Part {
    v03::Part::File(v03::FilePart {
        file: v03::FileContent {
            bytes: bytes.map(str::to_string),
            uri: uri.map(str::to_string),
            name: Some("output.txt".into()),
            mime_type: Some("text/plain".into()),
        },
        metadata: None,
    })
}

/// A task as the engine keeps it: every 0.3 part kind, history, a status
/// message and the engine's RFC 3339 timestamp.
fn v03_task(state: v03::TaskState) -> v03::Task {
    let timestamp = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formats");
    let answer = v03_message(v03::Role::Agent, "Credit limit exceeded.");
    v03::Task {
        kind: v03::TaskKind::Value,
        id: "t-1".into(),
        context_id: "c-1".into(),
        status: v03::TaskStatus {
            state,
            message: Some(answer.clone()),
            timestamp: Some(timestamp),
        },
        history: Some(vec![
            v03_message(v03::Role::User, "Why is order 4711 blocked?"),
            answer,
        ]),
        artifacts: Some(vec![
            v03::Artifact {
                artifact_id: "a-text".into(),
                name: Some("answer".into()),
                description: Some("The explanation".into()),
                parts: vec![v03::Part::text("Credit limit exceeded.")],
                metadata: metadata("artifact"),
                extensions: Some(vec!["https://ext.example.com/v1".into()]),
            },
            v03::Artifact {
                artifact_id: "a-files".into(),
                name: None,
                description: None,
                // URL-safe and unpadded 0.3 bytes are written standard and padded.
                parts: vec![
                    file_part(Some("SGVsbG8gVENL"), None),
                    file_part(Some("-_8"), None),
                    file_part(None, Some("https://files.example.com/output.txt")),
                ],
                metadata: None,
                extensions: None,
            },
            v03::Artifact {
                artifact_id: "a-data".into(),
                name: Some("proposal".into()),
                description: None,
                parts: vec![v03::Part::data(Map::from_iter([
                    ("key".to_string(), json!("value")),
                    ("count".to_string(), json!(42)),
                ]))],
                metadata: None,
                extensions: None,
            },
        ]),
        metadata: metadata("task"),
    }
}

const STATES: [v03::TaskState; 9] = [
    v03::TaskState::Submitted,
    v03::TaskState::Working,
    v03::TaskState::InputRequired,
    v03::TaskState::Completed,
    v03::TaskState::Canceled,
    v03::TaskState::Failed,
    v03::TaskState::Rejected,
    v03::TaskState::AuthRequired,
    v03::TaskState::Unknown,
];

#[test]
fn mapped_tasks_and_messages_are_valid_1_0() {
    for state in STATES {
        let task = v1::Task::from(v03_task(state));
        let written = assert_valid("Task", &task);
        assert!(written.get("kind").is_none());
        assert_valid("SendMessageResponse", &v1::SendMessageResponse::Task(task));
    }
    let message = v1::Message::from(v03_message(v03::Role::Agent, "done"));
    assert_valid("Message", &message);
    assert_valid(
        "SendMessageResponse",
        &v1::SendMessageResponse::Message(message),
    );
}

#[test]
fn mapped_stream_events_are_valid_stream_responses() {
    let task = v03_task(v03::TaskState::Working);
    let artifact = task.artifacts.clone().unwrap_or_default().remove(1);
    let status = |state: v03::TaskState| v03::TaskStatusUpdateEvent {
        kind: v03::StatusUpdateKind::Value,
        task_id: "t-1".into(),
        context_id: "c-1".into(),
        status: v03::TaskStatus {
            state,
            message: None,
            timestamp: Some("2026-12-01T09:56:50+01:00".into()),
        },
        is_final: state.is_terminal(),
        metadata: None,
    };
    let events = [
        V03StreamEvent::Task(task.clone()),
        V03StreamEvent::StatusUpdate(status(v03::TaskState::Working)),
        V03StreamEvent::ArtifactUpdate(v03::TaskArtifactUpdateEvent {
            kind: v03::ArtifactUpdateKind::Value,
            task_id: "t-1".into(),
            context_id: "c-1".into(),
            artifact,
            append: Some(false),
            last_chunk: Some(true),
            metadata: metadata("chunk"),
        }),
        V03StreamEvent::StatusUpdate(status(v03::TaskState::Completed)),
        V03StreamEvent::Message(v03_message(v03::Role::Agent, "done")),
    ];
    for event in events {
        let written = assert_valid("StreamResponse", &v1::StreamResponse::from(event));
        if let Some(update) = written.get("statusUpdate") {
            assert!(
                update["status"]["timestamp"]
                    .as_str()
                    .is_some_and(|at| at.ends_with('Z'))
            );
        }
    }
}

#[test]
fn mapped_push_configs_are_valid_1_0() {
    let nested = v03::TaskPushNotificationConfig {
        task_id: "t-1".into(),
        push_notification_config: v03::PushNotificationConfig {
            id: Some("p-1".into()),
            url: "https://hooks.example.com/a2a".into(),
            token: Some("tok".into()),
            authentication: Some(v03::PushNotificationAuthenticationInfo {
                schemes: vec!["Bearer".into()],
                credentials: Some("secret".into()),
            }),
            payload_version: v03::PushPayload::V0_3,
        },
    };
    assert_valid(
        "TaskPushNotificationConfig",
        &v1::TaskPushNotificationConfig::from(nested.clone()),
    );
    let bare = push_config_from_v03(
        "t-2",
        v03::PushNotificationConfig {
            id: None,
            url: "https://hooks.example.com/a2a".into(),
            token: None,
            authentication: None,
            payload_version: v03::PushPayload::V0_3,
        },
    );
    assert_valid("TaskPushNotificationConfig", &bare);
    assert_valid(
        "ListTaskPushNotificationConfigsResponse",
        &list_push_configs_response(vec![nested]),
    );
    assert_valid(
        "ListTaskPushNotificationConfigsResponse",
        &list_push_configs_response(Vec::new()),
    );
}

#[test]
fn list_tasks_results_are_valid_1_0() {
    // Without `includeArtifacts` the tasks carry no `artifacts` member.
    let tasks = STATES
        .iter()
        .map(|state| {
            let mut task = v1::Task::from(v03_task(*state));
            task.artifacts.clear();
            task
        })
        .collect();
    let response = v1::ListTasksResponse {
        tasks,
        next_page_token: String::new(),
        page_size: 50,
        total_size: 9,
    };
    let written = assert_valid("ListTasksResponse", &response);
    assert_eq!(written["nextPageToken"], "");
    assert!(written["tasks"][0].get("artifacts").is_none());
}

#[test]
fn mapped_requests_are_valid_1_0() {
    let params = v03::MessageSendParams {
        message: v03_message(v03::Role::User, "Why is order 4711 blocked?"),
        configuration: Some(v03::MessageSendConfiguration {
            accepted_output_modes: Some(vec!["text/plain".into()]),
            history_length: Some(5),
            push_notification_config: Some(v03::PushNotificationConfig {
                id: Some("p".into()),
                url: "https://hooks.example.com/a2a".into(),
                token: None,
                authentication: None,
                payload_version: v03::PushPayload::V0_3,
            }),
            blocking: Some(false),
        }),
        metadata: metadata("send"),
    };
    let written = assert_valid("SendMessageRequest", &v1::SendMessageRequest::from(params));
    assert_eq!(written["configuration"]["returnImmediately"], true);

    assert_valid(
        "GetTaskRequest",
        &v1::GetTaskRequest {
            tenant: String::new(),
            id: "t-1".into(),
            history_length: Some(0),
        },
    );
    assert_valid(
        "ListTasksRequest",
        &v1::ListTasksRequest {
            context_id: "c-1".into(),
            status: Some(v1::TaskState::InputRequired),
            page_size: Some(10),
            page_token: "next".into(),
            history_length: Some(2),
            status_timestamp_after: v1::Timestamp::parse("2026-12-01T00:00:00Z").ok(),
            include_artifacts: Some(true),
            ..v1::ListTasksRequest::default()
        },
    );
    assert_valid(
        "CancelTaskRequest",
        &v1::CancelTaskRequest {
            tenant: String::new(),
            id: "t-1".into(),
            metadata: metadata("cancel"),
        },
    );
    assert_valid(
        "SubscribeToTaskRequest",
        &v1::SubscribeToTaskRequest {
            tenant: String::new(),
            id: "t-1".into(),
        },
    );
    assert_valid(
        "GetTaskPushNotificationConfigRequest",
        &v1::GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: "t-1".into(),
            id: "p-1".into(),
        },
    );
    assert_valid(
        "DeleteTaskPushNotificationConfigRequest",
        &v1::DeleteTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: "t-1".into(),
            id: "p-1".into(),
        },
    );
    assert_valid(
        "ListTaskPushNotificationConfigsRequest",
        &v1::ListTaskPushNotificationConfigsRequest {
            tenant: String::new(),
            task_id: "t-1".into(),
            page_size: 10,
            page_token: String::new(),
        },
    );
    assert_valid(
        "GetExtendedAgentCardRequest",
        &v1::GetExtendedAgentCardRequest::default(),
    );
}

#[test]
fn the_1_0_card_is_valid() {
    let url = "https://agent.example.com/";
    let interface = |version: &str| AgentInterface {
        url: url.into(),
        protocol_binding: v1::BINDING_JSONRPC.into(),
        tenant: String::new(),
        protocol_version: version.into(),
    };
    let card = v1::AgentCard {
        name: "Order Exception Agent".into(),
        description: "Explains blocked sales orders.".into(),
        supported_interfaces: vec![interface("1.0"), interface("0.3")],
        provider: None,
        version: "0.1.0".into(),
        documentation_url: Some("https://agent.example.com/docs".into()),
        capabilities: AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: Vec::new(),
            extended_agent_card: Some(true),
        },
        security_schemes: BTreeMap::from([(
            "ias".to_string(),
            SecurityScheme::OpenIdConnect(OpenIdConnectSecurityScheme {
                description: "SAP Cloud Identity Services".into(),
                open_id_connect_url:
                    "https://tenant.accounts.ondemand.com/.well-known/openid-configuration".into(),
            }),
        )]),
        security_requirements: vec![SecurityRequirement {
            schemes: BTreeMap::from([("ias".to_string(), StringList::default())]),
        }],
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into(), "application/json".into()],
        skills: vec![AgentSkill {
            id: "credit-block".into(),
            name: "Credit block".into(),
            description: "Explains a credit block.".into(),
            tags: vec!["credit".into()],
            examples: vec!["Why is order 4711 blocked?".into()],
            input_modes: Vec::new(),
            output_modes: Vec::new(),
            security_requirements: Vec::new(),
        }],
        signatures: Vec::new(),
        icon_url: None,
    };
    let mut written = assert_valid("AgentCard", &card);
    // Disagreement 5: the merged card's 0.3 keys break `additionalProperties`.
    written["protocolVersion"] = json!("0.3.0");
    assert!(!schema_errors("AgentCard", &written).is_empty());
}

#[test]
fn the_validator_refuses_the_0_3_shapes() {
    // Proof that the schema bites: the 0.3 task (with `kind`, lowercase
    // states, `file` parts) is not a 1.0 Task.
    let v03_json = serde_json::to_value(v03_task(v03::TaskState::Completed)).expect("writes");
    let errors = schema_errors("Task", &v03_json);
    assert!(
        errors.iter().any(|error| error.contains("kind")),
        "{errors:?}"
    );
    assert!(!schema_errors("TaskStatus", &json!({"state": "completed"})).is_empty());
    assert!(
        !schema_errors(
            "TaskStatus",
            &json!({"state": "TASK_STATE_COMPLETED", "timestamp": "yesterday"})
        )
        .is_empty()
    );
    // Nested definitions are reached through the rewritten `$ref`s.
    let nested = json!({"id": "t", "status": {"state": "TASK_STATE_WORKING",
        "message": {"messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "x"}]}}});
    let errors = schema_errors("Task", &nested);
    assert!(
        errors.iter().any(|e| e.contains("/status/message/role")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("/status/message/parts/0")),
        "{errors:?}"
    );
    // And the REQUIRED check walks them too.
    let mut missing = Vec::new();
    missing_required(
        "Task",
        &json!({"status": {"message": {"messageId": "m", "parts": [{"text": "x"}]}},
                "artifacts": [{"parts": []}]}),
        "$",
        &mut missing,
    );
    missing.sort();
    assert_eq!(
        missing,
        [
            "$.artifacts[0].artifactId (Artifact)",
            "$.id (Task)",
            "$.status.message.role (Message)",
            "$.status.state (TaskStatus)",
        ]
    );
}

#[test]
fn schema_takes_what_the_proto_refuses() {
    // Disagreements 1, 2 and 4: the schema accepts these; the proto (and
    // our readers) do not.
    let cases: [(&str, Value); 4] = [
        ("Task", json!({})),
        ("Part", json!({"text": "a", "url": "https://x"})),
        (
            "StreamResponse",
            json!({"task": {"id": "t", "status": {"state": 1}},
                   "message": {"messageId": "m", "role": 1, "parts": []}}),
        ),
        (
            "GetTaskRequest",
            json!({"id": "t", "historyLength": 1, "history_length": 2}),
        ),
    ];
    for (definition, instance) in &cases {
        assert!(
            schema_errors(definition, instance).is_empty(),
            "the schema takes {instance}"
        );
    }
    assert!(serde_json::from_value::<v1::Task>(cases[0].1.clone()).is_err());
    assert!(serde_json::from_value::<v1::Part>(cases[1].1.clone()).is_err());
    assert!(serde_json::from_value::<v1::StreamResponse>(cases[2].1.clone()).is_err());
    assert!(serde_json::from_value::<v1::GetTaskRequest>(cases[3].1.clone()).is_err());

    // Disagreement 3: URL-safe base64 is ProtoJSON but not the schema's `raw`.
    let url_safe = json!({"raw": "-_8="});
    assert!(!schema_errors("Part", &url_safe).is_empty());
    let part: v1::Part = serde_json::from_value(url_safe).expect("ProtoJSON reads it");
    assert_valid("Part", &part);
}
