//! order-exception-agent: an A2A agent (0.3.0 and 1.0 on one endpoint) that
//! SAP Joule calls to explain blocked sales orders. See `README.md`.
//!
//! Every room is private to the crate, so the compiler reports what nothing
//! uses. What `main.rs`, the API tests (`tests/api/`) and the benchmarks
//! (`bench/`) use is re-exported below, and nothing else.

mod a2a;
mod agent;
#[cfg(test)]
mod architecture_check;
mod audit;
mod auth;
mod backend;
mod btp;
mod cli;
mod clock;
mod cloud_foundry;
mod config;
mod db;
mod http;
mod loopback;
mod push;
mod roles;
mod rpc;
mod secret;
mod startup;
mod tasks;
mod telemetry;

// `main.rs`: the command line, `serve` and the client commands.
pub use cli::command_line::CommandLine;

// The API tests: the application with its settings, and the seams they plug
// into (a scripted agent, a clock, the push guard's client, a PostgreSQL schema).
pub use agent::execution::ExecutorKind;
pub use agent::ledger::ActionKey;
pub use agent::{Agent, Outcome, Reply, Skill, Turn};
pub use auth::AuthSettings;
pub use auth::issuer::TrailingSlash;
pub use backend::{BlockKind, BlockedQuery, OrderSource, SourceKind};
pub use clock::Clock;
pub use config::Settings;
pub use db::{StoreBackend, isolated_postgres_schema};
pub use push::guard::{GuardSettings, delivery_client, refused_resolution};
pub use roles::BusinessRole;
pub use startup::{Application, order_source};
pub use tasks::{STILL_WORKING, STILL_WORKING_ASK_AGAIN, STILL_WORKING_READ_LATER};

/// The A2A wire types the schema tests (`tests/api/protocol/a2a_v1_schema.rs`)
/// serialize and check against the protocol's JSON Schemas.
pub mod wire {
    /// A2A 0.3.0.
    pub mod v03 {
        pub use crate::a2a::types::{
            Artifact, ArtifactUpdateKind, FileContent, FilePart, Message, MessageKind,
            MessageSendConfiguration, MessageSendParams, Part, PushNotificationAuthenticationInfo,
            PushNotificationConfig, PushPayload, Role, StatusUpdateKind, Task,
            TaskArtifactUpdateEvent, TaskKind, TaskPushNotificationConfig, TaskState, TaskStatus,
            TaskStatusUpdateEvent,
        };
    }
    /// A2A 1.0, and the conversions from 0.3.0 the service answers with.
    pub mod v1 {
        pub use crate::a2a::v1::agent_card::{
            AgentCapabilities, AgentInterface, AgentSkill, BINDING_JSONRPC,
            OpenIdConnectSecurityScheme, SecurityRequirement, SecurityScheme, StringList,
        };
        pub use crate::a2a::v1::convert::{
            V03StreamEvent, list_push_configs_response, push_config_from_v03,
        };
        pub use crate::a2a::v1::{
            AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
            GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
            ListTaskPushNotificationConfigsRequest, ListTasksRequest, ListTasksResponse, Message,
            Part, SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest,
            Task, TaskPushNotificationConfig, TaskState, Timestamp,
        };
    }
}

/// What `bench/router_cost.rs` times: the router and the language guess.
pub mod routing {
    pub use crate::agent::language::{LanguageCues, decide};
    pub use crate::agent::router::Router;
    pub use crate::agent::specialists::all as all_specialists;
}
