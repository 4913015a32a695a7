//! Composes the rooms: each part builds itself from its settings (and the
//! Cloud Foundry bindings); this file only wires them together, binds and
//! runs the HTTP server (graceful shutdown on SIGTERM within the configured
//! timeout, which actix handles).

use crate::agent::execution::Executions;
use crate::agent::ledger::{ActionLedger, MemoryLedger, SqlLedger};
use crate::agent::rulebook::RuleBookError;
use crate::agent::{Agent, Approvals, OrderExceptionAgent, RuleBook};
use crate::auth::{AuthConfigError, TokenValidator, ValidatorSetupError};
use crate::backend::{BackendError, EmbeddedOrders, OrderSource};
use crate::cloud_foundry::{TestsOnlyRefused, refuse_tests_only};
use crate::config::Settings;
use crate::db::{Database, DbError};
use crate::http::{AppState, BindError, BodyLimits, CallsInFlight, CardDocument, Serving};
use crate::push::{PushObserver, PushService, PushSetupError};
use crate::tasks::{
    InMemoryTaskStore, Maintenance, SqlTaskStore, TaskEngine, TaskObserver, TaskStore,
};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Bind(#[from] BindError),
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error("cannot build the agent card: {0}")]
    Card(#[from] serde_json::Error),
    #[error(transparent)]
    Auth(#[from] AuthConfigError),
    #[error("cannot build an HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
    /// A TESTS ONLY switch on Cloud Foundry.
    #[error(transparent)]
    TestsOnly(#[from] TestsOnlyRefused),
    #[error(
        "conformance.tck_scenarios asks for the conformance agent, and this binary is built \
         without it (the `conformance` cargo feature; docs/development.md)"
    )]
    ConformanceAgentNotBuilt,
    #[error(transparent)]
    Store(#[from] DbError),
    #[error(transparent)]
    Rules(#[from] RuleBookError),
    /// The `auditlog` binding: plan `standard`, a field missing, a
    /// certificate that cannot be used.
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditSetupError),
    #[error(transparent)]
    ActionHook(#[from] crate::push::action_hook::HookSetupError),
    #[error(transparent)]
    NoteTextId(#[from] crate::agent::execution::NoteTextIdError),
    #[error(
        "actions.executor = s4hana carries approved actions out in S/4HANA, and on Cloud Foundry \
         that needs a durable store: bind a postgresql-db instance (docs/deploy-btp.md). With \
         SQLite on the container's ephemeral disk a restart forgets which approved actions were \
         carried out, and one could be carried out again"
    )]
    RealWritesWithoutDurableStore,
}

/// Exit code of `serve` (and `actions`) when the settings are at fault: the
/// file, the `AGENT__…` variables, the bindings, the rule book (README
/// "Configuration").
pub const EXIT_BAD_SETTINGS: u8 = 2;
/// Exit code when the start failed for any other reason (a port in use, a
/// database that cannot be reached).
pub const EXIT_START_FAILED: u8 = 1;

impl StartupError {
    /// Whether the settings are what stops the start (fixing them fixes
    /// it), as opposed to the world around them. Every variant is named, so
    /// a new one has to be sorted here.
    pub fn is_bad_settings(&self) -> bool {
        match self {
            StartupError::Auth(_)
            | StartupError::Rules(_)
            | StartupError::TestsOnly(_)
            | StartupError::ConformanceAgentNotBuilt
            | StartupError::NoteTextId(_)
            | StartupError::Audit(_)
            | StartupError::RealWritesWithoutDurableStore => true,
            StartupError::Backend(error) => error.is_bad_settings(),
            StartupError::Store(error) => error.is_bad_settings(),
            StartupError::ActionHook(error) => error.is_bad_settings(),
            StartupError::Bind(_) | StartupError::Card(_) | StartupError::HttpClient(_) => false,
        }
    }

    /// [`EXIT_BAD_SETTINGS`] or [`EXIT_START_FAILED`].
    pub fn exit_code(&self) -> u8 {
        if self.is_bad_settings() {
            EXIT_BAD_SETTINGS
        } else {
            EXIT_START_FAILED
        }
    }
}

impl From<ValidatorSetupError> for StartupError {
    fn from(error: ValidatorSetupError) -> Self {
        match error {
            ValidatorSetupError::Settings(error) => StartupError::Auth(error),
            ValidatorSetupError::HttpClient(error) => StartupError::HttpClient(error),
        }
    }
}

impl From<PushSetupError> for StartupError {
    fn from(error: PushSetupError) -> Self {
        match error {
            PushSetupError::TestsOnly(refused) => StartupError::TestsOnly(refused),
            PushSetupError::HttpClient(error) => StartupError::HttpClient(error),
        }
    }
}

/// Where tasks (with their push configs) and filed actions live.
pub struct Stores {
    pub tasks: Arc<dyn TaskStore>,
    pub ledger: Arc<dyn ActionLedger>,
    /// For the start-up log: `memory`, `SQLite var/…`, `PostgreSQL host/db`.
    pub location: String,
    /// What `/health` says of the store: its kind and whether tasks and
    /// the ledger survive a restart where the app runs.
    pub health: crate::tasks::StoreHealth,
    /// The database itself, for the audit outbox; `None` for memory.
    pub database: Option<Database>,
}

/// Open the stores the settings name: SQLite by default, PostgreSQL with a
/// URL or a `postgresql-db` binding, or memory. The schema is migrated here.
pub async fn open_stores(settings: &Settings) -> Result<Stores, StartupError> {
    let cloud_foundry = &settings.cloud_foundry;
    let health = crate::tasks::StoreHealth::of(
        crate::db::backend(&settings.store, &cloud_foundry.services),
        cloud_foundry.on_cloud_foundry(),
    );
    if !health.durable && cloud_foundry.on_cloud_foundry() {
        tracing::warn!(
            store = health.backend,
            "TASKS AND THE LEDGER DO NOT SURVIVE A RESTART: the store is on the container's \
             ephemeral disk (or in memory); bind a postgresql-db instance (docs/deploy-btp.md)"
        );
    }
    let Some(database) = Database::open(&settings.store, &cloud_foundry.services).await? else {
        return Ok(Stores {
            tasks: Arc::new(InMemoryTaskStore::new(settings.tasks.memory_limits())),
            ledger: Arc::new(MemoryLedger::default()),
            location: "memory (nothing survives a restart)".into(),
            health,
            database: None,
        });
    };
    adopt_legacy_owners(settings, &database).await;
    // Leases name the process that holds them; a restarted instance is a
    // new holder, so its predecessor's turns expire and end `failed`.
    let instance = format!(
        "{}-{}",
        settings
            .cloud_foundry
            .instance_index
            .as_deref()
            .unwrap_or("local"),
        uuid::Uuid::new_v4().simple()
    );
    Ok(Stores {
        location: database.location.clone(),
        tasks: Arc::new(SqlTaskStore::from_settings(
            database.clone(),
            instance,
            &settings.store,
        )?),
        ledger: Arc::new(SqlLedger::new(database.clone())),
        health,
        database: Some(database),
    })
}

/// Owner keys stored before they named their issuer and tenant
/// (`user:<id>`, `client:<id>`: tasks, and ledger rows' approvers) are
/// rewritten to the form of the one identity service bound (IAS, for the
/// binding's own tenant): that service issued every token the old keys
/// came from. With XSUAA bound beside IAS an old key may be either's
/// caller, and giving it to the wrong one would hand a person someone
/// else's tasks and approvals; those keys are left as they are (nobody's:
/// their tasks go with the retention, their ledger rows stay for ledger
/// readers) and counted in the log. With authentication off every caller
/// reaches every task, so nothing is rewritten. A failure is logged and
/// the start goes on: the next start tries again.
async fn adopt_legacy_owners(settings: &Settings, database: &Database) {
    let auth = match crate::auth::resolve(&settings.auth, &settings.cloud_foundry) {
        Ok(crate::auth::ResolvedAuth::Required(identity)) => identity,
        // Off, or settings the validator refuses a moment later.
        Ok(crate::auth::ResolvedAuth::Off) | Err(_) => return,
    };
    if auth.xsuaa.is_some() {
        match database.count_legacy_owners().await {
            Ok(left) if left == crate::db::LegacyOwners::default() => {}
            Ok(left) => tracing::warn!(
                tasks = left.tasks,
                ledger_rows = left.ledger_rows,
                "owner keys of the form before issuers and tenants were named are left unread: \
                 with IAS and XSUAA both bound they could be either's caller (docs/stores.md)"
            ),
            Err(error) => tracing::error!(%error, "counting owner keys of the old form failed"),
        }
        return;
    }
    let realm = crate::tasks::IdentityRealm::new("ias", auth.app_tid.as_deref().unwrap_or(""));
    match database.adopt_legacy_owners(realm.key_prefix()).await {
        Ok(done) if done == crate::db::LegacyOwners::default() => {}
        Ok(done) => tracing::info!(
            tasks = done.tasks,
            ledger_rows = done.ledger_rows,
            prefix = realm.key_prefix(),
            "owner keys of the old form rewritten to the IAS binding's issuer and tenant"
        ),
        Err(error) => tracing::error!(%error, "rewriting owner keys of the old form failed"),
    }
}

pub struct Application {
    port: u16,
    public_url: String,
    server: Serving,
    audit: crate::audit::Audit,
    /// For the turns still running when the server stops.
    engine: TaskEngine,
    /// `server.shutdown_timeout_secs`: what requests and turns get after
    /// SIGTERM.
    grace: std::time::Duration,
}

/// What the configuration-change event at start records: the rule book as
/// set (the seed when empty) and the executor. No secret is among them.
fn started_configuration(settings: &Settings) -> Vec<(&'static str, String)> {
    let text = |value: serde_json::Result<String>| value.unwrap_or_else(|e| e.to_string());
    vec![
        (
            "rules",
            crate::audit::shortened(&text(serde_json::to_string(&settings.rules)), 2_000),
        ),
        (
            "actions.executor",
            text(serde_json::to_string(&settings.actions.executor)).replace('"', ""),
        ),
    ]
}

/// The order source the settings ask for (its data accesses as
/// `type: audit` log lines: no audit room runs beside it).
pub fn order_source(settings: &Settings) -> Result<Arc<dyn OrderSource>, BackendError> {
    Ok(order_source_and_s4(settings, &crate::audit::Audit::default())?.0)
}

type SourceAndWriter = (
    Arc<dyn OrderSource>,
    Option<Arc<crate::backend::s4hana::S4HanaSource>>,
);

/// The order source, and the S/4HANA source itself when it is one (its
/// writes carry approved actions out); its reads of personal data are
/// reported to `audit`.
fn order_source_and_s4(
    settings: &Settings,
    audit: &crate::audit::Audit,
) -> Result<SourceAndWriter, BackendError> {
    if settings.backend.source == crate::backend::SourceKind::S4hana {
        let source = Arc::new(crate::backend::s4hana::build(
            &settings.backend.s4hana,
            settings.backend.blocks.clone(),
            &settings.cloud_foundry,
            audit.clone(),
        )?);
        return Ok((source.clone(), Some(source)));
    }
    let orders = match &settings.backend.data_dir {
        Some(dir) => EmbeddedOrders::from_dir(dir)?,
        None => EmbeddedOrders::demo()?,
    };
    Ok((
        Arc::new(
            orders
                .with_rules(&settings.backend.blocks)
                .with_latency(settings.backend.latency()),
        ),
        None,
    ))
}

/// The audit room on the stores' database (its outbox beside the ledger).
fn start_audit(settings: &Settings, stores: &Stores) -> Result<crate::audit::Audit, StartupError> {
    // Its client may be the first to need the TLS crypto provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    Ok(crate::audit::Audit::start(
        &settings.audit,
        &settings.cloud_foundry.services,
        stores.database.clone(),
    )?)
}

/// Results of approved actions that arrive after the answer: a follow-up
/// task in the approval's context, pushed to its webhooks.
struct LaterResults(TaskEngine);

#[async_trait::async_trait]
impl crate::agent::execution::ResultNotifier for LaterResults {
    async fn later(
        &self,
        entry: &crate::agent::ledger::LedgerEntry,
        said: &crate::agent::execution::Said,
        user: Option<&crate::secret::BearerToken>,
    ) {
        let call = crate::tasks::CallContext {
            // A Joule callback carries the approval's correlation id.
            correlation_id: entry.correlation_id.clone(),
            bearer_token: user.cloned(),
            ..crate::tasks::CallContext::default()
        };
        // In the language the approval was answered in.
        let text = |language| said.text(crate::agent::language::catalog::answering(language));
        if let Err(error) = self.0.follow_up(&entry.task_id, &text, &call).await {
            tracing::warn!(%error, a2a.task.id = %entry.task_id, "the later result of an action could not be sent");
        }
    }
}

/// The push room's action hook behind the agent's seam.
struct HookAdapter(crate::push::action_hook::ActionHook);

#[async_trait::async_trait]
impl crate::agent::execution::hook::ActionHook for HookAdapter {
    async fn deliver(
        &self,
        payload: &serde_json::Value,
        idempotency_key: &str,
        user: Option<&crate::secret::BearerToken>,
    ) -> Result<String, crate::agent::execution::hook::HookFailure> {
        use crate::agent::execution::hook::HookFailure;
        use crate::push::action_hook::HookError;
        self.0
            .deliver(payload, idempotency_key, user)
            .await
            .map_err(|error| match error {
                HookError::Refused(reason) => HookFailure::Refused(reason),
                HookError::Transient(reason) => HookFailure::Transient(reason),
            })
    }
}

/// The action hook `push.action_hook` sets up, if any.
fn action_hook(
    settings: &Settings,
) -> Result<
    Option<Arc<dyn crate::agent::execution::hook::ActionHook>>,
    crate::push::action_hook::HookSetupError,
> {
    let binding = settings
        .cloud_foundry
        .services
        .credentials("destination")
        .cloned()
        .unwrap_or_default();
    let hook = crate::push::action_hook::ActionHook::from_settings(
        &settings.push.action_hook,
        &settings.push.destination,
        &binding,
        settings.cloud_foundry.on_cloud_foundry(),
    )?;
    Ok(hook.map(|hook| {
        Arc::new(HookAdapter(hook)) as Arc<dyn crate::agent::execution::hook::ActionHook>
    }))
}

/// Who carries approved actions out: S/4HANA when `actions.executor` says
/// so and the source is S/4HANA, else the ledger only; the writes are
/// reported to `audit`.
fn executions(
    settings: &Settings,
    ledger: &Arc<dyn ActionLedger>,
    s4: Option<Arc<crate::backend::s4hana::S4HanaSource>>,
    audit: &crate::audit::Audit,
) -> Result<Arc<Executions>, StartupError> {
    use crate::agent::execution::{ExecutorKind, s4::S4Executor};
    // Judged at start whichever executor runs: a hook URL the guard refuses
    // and a note text id that is the customer's stop the start (exit 2).
    settings
        .actions
        .check_note_text_id(&settings.backend.blocks.customer_note_text_id)?;
    let hook = action_hook(settings)?;
    let executions = match (settings.actions.executor, s4) {
        (ExecutorKind::S4hana, Some(source)) => Executions::new(
            Arc::clone(ledger),
            Arc::new(S4Executor::new(source, settings.actions.clone()).with_hook(hook)),
            settings.actions.clone(),
        ),
        (ExecutorKind::S4hana, None) => {
            tracing::warn!(
                "actions.executor = s4hana needs backend.source = s4hana; approved actions are filed in the ledger only"
            );
            Executions::ledger_only(Arc::clone(ledger))
        }
        (ExecutorKind::Ledger, _) => Executions::ledger_only(Arc::clone(ledger)),
    };
    let executions = Arc::new(executions.with_audit(audit.clone()));
    executions.spawn_retry_job();
    executions.spawn_ledger_count(settings.store.sweep_interval());
    Ok(executions)
}

impl Application {
    /// The service with the order-exception agent on the configured data
    /// and stores.
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        if settings.conformance.tck_scenarios {
            refuse_tests_only(
                settings.cloud_foundry.on_cloud_foundry(),
                &[("conformance.tck_scenarios", true)],
            )?;
            return Self::build_conformance(settings).await;
        }
        let cloud_foundry = &settings.cloud_foundry;
        if cloud_foundry.on_cloud_foundry()
            && settings.actions.executor == crate::agent::execution::ExecutorKind::S4hana
            && crate::db::backend(&settings.store, &cloud_foundry.services)
                != crate::db::StoreBackend::Postgres
        {
            return Err(StartupError::RealWritesWithoutDurableStore);
        }
        // The binding is judged before anything is opened (exit 2).
        crate::audit::AuditBinding::from_services(&settings.cloud_foundry.services)
            .map_err(crate::audit::AuditSetupError::from)?;
        let stores = open_stores(&settings).await?;
        let audit = start_audit(&settings, &stores)?;
        let (orders, s4) = order_source_and_s4(&settings, &audit)?;
        let rules = RuleBook::new(&OrderExceptionAgent::registry(), &settings.rules)?;
        let executions = executions(&settings, &stores.ledger, s4, &audit)?;
        let approvals = Approvals::new(rules, Arc::clone(&stores.ledger), Arc::clone(&orders))
            .with_executions(Arc::clone(&executions));
        let agent = Arc::new(
            OrderExceptionAgent::new(Arc::clone(&orders), approvals)
                .with_backend_timeout(settings.backend.timeout())
                .with_batch_settings(settings.batch.clone()),
        );
        let configuration = started_configuration(&settings);
        let application = Self::build_with_stores(
            settings,
            agent,
            stores,
            Some(executions),
            Some(orders),
            audit,
        )?;
        application
            .audit
            .configuration_at_start(&configuration)
            .await;
        Ok(application)
    }

    /// The service with the conformance agent (TESTS ONLY).
    #[cfg(feature = "conformance")]
    async fn build_conformance(settings: Settings) -> Result<Self, StartupError> {
        tracing::warn!(
            "CONFORMANCE AGENT: conformance.tck_scenarios is on; the order agent does not run"
        );
        let agent = Arc::new(crate::agent::TckScenarioAgent::new(
            settings.conformance.clone(),
        ));
        Self::build_with_agent(settings, agent).await
    }

    /// Without the `conformance` feature there is no conformance agent:
    /// settings that ask for it stop the start, never fall back to the
    /// order agent.
    #[cfg(not(feature = "conformance"))]
    async fn build_conformance(_settings: Settings) -> Result<Self, StartupError> {
        Err(StartupError::ConformanceAgentNotBuilt)
    }

    /// The service around any agent (tests plug in scripted ones).
    pub async fn build_with_agent(
        settings: Settings,
        agent: Arc<dyn Agent>,
    ) -> Result<Self, StartupError> {
        let stores = open_stores(&settings).await?;
        let audit = start_audit(&settings, &stores)?;
        Self::build_with_stores(settings, agent, stores, None, None, audit)
    }

    /// Plain wiring: each part from its settings, then the HTTP server.
    fn build_with_stores(
        settings: Settings,
        agent: Arc<dyn Agent>,
        stores: Stores,
        executions: Option<Arc<Executions>>,
        orders: Option<Arc<dyn OrderSource>>,
        audit: crate::audit::Audit,
    ) -> Result<Self, StartupError> {
        tracing::info!(store = %stores.location, "task store and action ledger");
        // One TLS crypto provider for the whole process (ring); a second
        // install attempt (tests build many apps) is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let cloud_foundry = &settings.cloud_foundry;
        let validator =
            TokenValidator::from_settings(&settings.auth, cloud_foundry, &settings.clock)?;
        if validator.is_none() {
            // Here, not in auth/: the client commands' quiet log filter
            // silences this module (their in-process agent runs with it off).
            tracing::warn!(
                "AUTHENTICATION IS OFF: every caller is anonymous. Bind an identity service or set \
                 AGENT__AUTH__CLIENT_ID and AGENT__AUTH__DOMAINS before exposing this service."
            );
        }
        let reachable = validator.is_some() || cloud_foundry.on_cloud_foundry();
        let bound = crate::http::bind(&settings.server, reachable)?;
        let public_url =
            (settings.server.public_url.clone()).unwrap_or_else(|| bound.default_public_url());
        let local_origins = validator
            .is_none()
            .then(|| crate::http::LocalOrigins::new(&public_url));
        let card = CardDocument::for_agent(
            &settings.card,
            &public_url,
            agent.as_ref(),
            validator.as_ref().map(|v| v.config()),
            settings.push.enabled,
        )?;
        let extended_card = (validator.as_ref())
            .map(|_| crate::http::extended_card(&card.card, &agent.offered_actions()));
        let push =
            PushService::for_settings(&settings.push, cloud_foundry, Arc::clone(&stores.tasks))?;
        let observer = push.map(|service| Arc::new(PushObserver(service)) as Arc<dyn TaskObserver>);
        crate::telemetry::metrics::known_specialists(agent.skills().iter().map(|skill| skill.id));
        let tasks = Arc::clone(&stores.tasks);
        let engine = TaskEngine::new(stores.tasks, agent, settings.tasks.clone(), observer);
        if let Some(executions) = executions {
            executions.set_notifier(Arc::new(LaterResults(engine.clone())));
        }
        engine.spawn_maintenance(Maintenance::from_settings(&settings.store));
        let server = &settings.server;
        let state = AppState {
            engine: engine.clone(),
            card,
            extended_card,
            auth: validator,
            ledger: stores.ledger,
            tasks,
            ledger_readers: settings.rules.ledger_readers()?,
            calls: CallsInFlight::new(server.calls_in_flight()),
            body_limits: BodyLimits::new(
                server.max_body_bytes,
                server.request_timeout(),
                server.body_bytes_in_flight,
            ),
            sse_keep_alive: server.sse_keep_alive(),
            streams: crate::rpc::StreamSlots::new(server.stream_limits()),
            quotas: server.quota.quotas(),
            metrics_endpoint: settings.telemetry.metrics_endpoint,
            store: stores.health.clone(),
            orders,
            local_origins,
            audit: audit.clone(),
        };
        let port = bound.local.port();
        let grace = std::time::Duration::from_secs(server.shutdown_timeout_secs);
        let server = crate::http::serve(bound, state, server)?;
        Ok(Application {
            port,
            public_url,
            server,
            audit,
            engine,
            grace,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The JSON-RPC endpoint as the card announces it.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// Serve until SIGTERM; then the requests in flight and the turns
    /// running (a non-blocking send's, a stream's) get the grace to end,
    /// and what is still running then ends `failed`, to be asked again
    /// ([`TaskEngine::wind_down`]).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let (stopped, asked) = self.server.until_stopped().await;
        self.engine.wind_down(asked + self.grace).await;
        stopped
    }
}

/// A build without the conformance agent refuses settings that ask for it.
#[cfg(all(test, not(feature = "conformance")))]
mod tests {
    use super::*;

    /// As bad settings (exit 2), before it opens or binds anything.
    #[tokio::test]
    async fn the_conformance_agent_is_refused_where_it_is_not_built() {
        let mut settings = Settings::default();
        settings.conformance.tck_scenarios = true;
        let Err(error) = Application::build(settings).await else {
            panic!("the start goes on without the conformance agent");
        };
        assert!(
            matches!(error, StartupError::ConformanceAgentNotBuilt),
            "{error}"
        );
        assert_eq!(error.exit_code(), EXIT_BAD_SETTINGS);
        assert!(error.to_string().contains("`conformance` cargo feature"));
    }
}

#[cfg(test)]
mod legacy_owner_tests {
    use super::*;

    /// Old owner keys in a SQLite file: left as they are while IAS and
    /// XSUAA are both bound (either's caller), adopted for IAS's tenant
    /// once IAS alone is.
    #[tokio::test]
    async fn old_owner_keys_are_adopted_only_with_one_identity_service_bound() {
        let dir = crate::db::test_support::TempDir::new();
        let mut settings = Settings::default();
        settings.store.backend = Some(crate::db::StoreBackend::Sqlite);
        settings.store.data_dir = dir.0.clone();
        settings.auth.client_id = Some("agent-client".into());
        settings.auth.domains = vec!["accounts.test".into()];
        settings.auth.app_tid = Some("t-1".into());
        settings.auth.xsuaa.client_id = Some("sb-agent!t7".into());
        settings.auth.xsuaa.xsappname = Some("agent!t7".into());
        settings.auth.xsuaa.uaa_domain = Some("authentication.test".into());
        let database = crate::db::test_support::sqlite_file(&dir).await;
        sqlx::query(
            "INSERT INTO tasks (id, context_id, state, terminal, body, version, updated_ms, owner) \
             VALUES ('old', 'ctx', 'completed', 1, '{}', 1, 1764504000000, 'user:alice')",
        )
        .execute(&database.pool)
        .await
        .expect("an old task");
        let owner = || async {
            sqlx::query_scalar::<_, String>("SELECT owner FROM tasks WHERE id = 'old'")
                .fetch_one(&database.pool)
                .await
                .expect("the task")
        };
        drop(open_stores(&settings).await.expect("opens"));
        assert_eq!(owner().await, "user:alice", "both bound: left alone");
        settings.auth.xsuaa = Default::default();
        drop(open_stores(&settings).await.expect("opens"));
        assert_eq!(owner().await, "ias:t-1:user:alice");
    }
}
