//! Wire the state, bind, run; graceful shutdown on SIGTERM within the
//! configured timeout (actix handles the signal).

use crate::a2a::card::AgentCard;
use crate::agent::ledger::{ActionLedger, MemoryLedger, SqlLedger};
use crate::agent::rulebook::RuleBookError;
use crate::agent::{Agent, Approvals, OrderExceptionAgent, RuleBook};
use crate::auth::{AuthConfigError, ResolvedAuth, TokenValidator};
use crate::backend::{BackendError, EmbeddedOrders, OrderSource};
use crate::card::{CardDocument, build_card, extended_card};
use crate::config::{ProcessEnv, Settings};
use crate::db::{Database, DbError};
use crate::tasks::{InMemoryTaskStore, Maintenance, SqlTaskStore, TaskEngine, TaskStore};
use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

/// What every request handler shares.
pub struct AppState {
    pub engine: TaskEngine,
    pub card: CardDocument,
    /// The card for authenticated callers (`agent/getAuthenticatedExtendedCard`).
    pub extended_card: Option<AgentCard>,
    /// `None` when authentication is off.
    pub auth: Option<Arc<TokenValidator>>,
    /// Filed actions, for `GET /actions`.
    pub ledger: Arc<dyn ActionLedger>,
    /// Size, time and memory bounds of request bodies.
    pub body_limits: crate::http::BodyLimits,
    pub sse_keep_alive: Duration,
    /// `GET /metrics` answers (else 404).
    pub metrics_endpoint: bool,
    /// The order source, for what `GET /health` says of it (`None`: an
    /// agent of its own, as tests plug in).
    pub orders: Option<Arc<dyn OrderSource>>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error("cannot build the agent card: {0}")]
    Card(#[from] serde_json::Error),
    #[error(transparent)]
    Auth(#[from] AuthConfigError),
    #[error("cannot build an HTTP client: {0}")]
    HttpClient(#[from] reqwest::Error),
    #[error(
        "push.allow_loopback_http and push.allow_private_addresses are for tests and refused on Cloud Foundry"
    )]
    PushTestSettingOnCloudFoundry,
    #[error(transparent)]
    Store(#[from] DbError),
    #[error(transparent)]
    Rules(#[from] RuleBookError),
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
            | StartupError::PushTestSettingOnCloudFoundry => true,
            StartupError::Backend(error) => error.is_bad_settings(),
            StartupError::Store(error) => error.is_bad_settings(),
            StartupError::Bind { .. } | StartupError::Card(_) | StartupError::HttpClient(_) => {
                false
            }
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

/// Where tasks (with their push configs) and filed actions live.
pub struct Stores {
    pub tasks: Arc<dyn TaskStore>,
    pub ledger: Arc<dyn ActionLedger>,
    /// For the start-up log: `memory`, `SQLite var/…`, `PostgreSQL host/db`.
    pub location: String,
}

/// Open the stores the settings name: SQLite by default, PostgreSQL with a
/// URL or a `postgresql-db` binding, or memory. The schema is migrated here.
pub async fn open_stores(settings: &Settings) -> Result<Stores, StartupError> {
    let vcap_services = crate::config::EnvSource::var(&ProcessEnv, "VCAP_SERVICES");
    let Some(database) = Database::open(&settings.store, vcap_services.as_deref()).await? else {
        return Ok(Stores {
            tasks: Arc::new(InMemoryTaskStore::from_settings(&settings.tasks)),
            ledger: Arc::new(MemoryLedger::default()),
            location: "memory (nothing survives a restart)".into(),
        });
    };
    // Leases name the process that holds them; a restarted instance is a
    // new holder, so its predecessor's turns expire and end `failed`.
    let instance = format!(
        "{}-{}",
        std::env::var("CF_INSTANCE_INDEX").unwrap_or_else(|_| "local".into()),
        uuid::Uuid::new_v4().simple()
    );
    Ok(Stores {
        location: database.location.clone(),
        tasks: Arc::new(SqlTaskStore::from_settings(
            database.clone(),
            instance,
            &settings.store,
        )),
        ledger: Arc::new(SqlLedger::new(database)),
    })
}

pub struct Application {
    port: u16,
    public_url: String,
    server: Server,
}

/// Without a public URL: the address bound, written by `SocketAddr` (IPv6 in
/// brackets), 127.0.0.1 for "any".
fn default_public_url(bound: std::net::SocketAddr) -> String {
    let ip = if bound.ip().is_unspecified() {
        std::net::Ipv4Addr::LOCALHOST.into()
    } else {
        bound.ip()
    };
    format!("http://{}/", std::net::SocketAddr::new(ip, bound.port()))
}

/// The order source the settings ask for.
pub fn order_source(settings: &Settings) -> Result<Arc<dyn OrderSource>, BackendError> {
    if settings.backend.source == crate::backend::SourceKind::S4hana {
        let source = crate::backend::s4hana::build(
            &settings.backend.s4hana,
            settings.backend.blocks.clone(),
            &ProcessEnv,
        )?;
        return Ok(Arc::new(source));
    }
    let orders = match &settings.backend.data_dir {
        Some(dir) => EmbeddedOrders::from_dir(dir)?,
        None => EmbeddedOrders::demo()?,
    };
    Ok(Arc::new(
        orders
            .with_rules(&settings.backend.blocks)
            .with_latency(Duration::from_millis(settings.backend.latency_ms)),
    ))
}

/// The first `destination` binding's `credentials` (`Null` without one).
fn destination_binding() -> serde_json::Value {
    std::env::var("VCAP_SERVICES")
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|vcap| vcap.get("destination")?.get(0)?.get("credentials").cloned())
        .unwrap_or_default()
}

impl Application {
    /// The service with the order-exception agent on the configured data
    /// and stores.
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        let stores = open_stores(&settings).await?;
        let orders = order_source(&settings)?;
        let rules = RuleBook::new(&OrderExceptionAgent::registry(), &settings.rules)?;
        let approvals = Approvals::new(rules, Arc::clone(&stores.ledger), Arc::clone(&orders));
        let agent = Arc::new(
            OrderExceptionAgent::new(Arc::clone(&orders), approvals)
                .with_backend_timeout(Duration::from_millis(settings.backend.timeout_ms)),
        );
        Self::build_with_stores(settings, agent, stores, Some(orders))
    }

    /// The service around any agent (tests plug in scripted ones).
    pub async fn build_with_agent(
        settings: Settings,
        agent: Arc<dyn Agent>,
    ) -> Result<Self, StartupError> {
        let stores = open_stores(&settings).await?;
        Self::build_with_stores(settings, agent, stores, None)
    }

    fn build_with_stores(
        settings: Settings,
        agent: Arc<dyn Agent>,
        stores: Stores,
        orders: Option<Arc<dyn OrderSource>>,
    ) -> Result<Self, StartupError> {
        tracing::info!(store = %stores.location, "task store and action ledger");
        // One TLS crypto provider for the whole process (ring); a second
        // install attempt (tests build many apps) is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let validator = match crate::auth::resolve(&settings.auth, &ProcessEnv)? {
            ResolvedAuth::Off => {
                tracing::warn!(
                    "AUTHENTICATION IS OFF: every caller is anonymous. Bind an identity service or set \
                     AGENT__AUTH__CLIENT_ID and AGENT__AUTH__DOMAINS before exposing this service."
                );
                None
            }
            ResolvedAuth::Required(identity) => {
                let http = reqwest::Client::builder()
                    .timeout(identity.http_timeout)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()?;
                tracing::info!(
                    client_id = %identity.client_id,
                    domains = ?identity.domains,
                    "authentication required (IAS App2App tokens)"
                );
                Some(Arc::new(TokenValidator::new(*identity, http)))
            }
        };
        let address = format!("{}:{}", settings.server.host, settings.server.port);
        let listener = TcpListener::bind(&address).map_err(|source| StartupError::Bind {
            address: address.clone(),
            source,
        })?;
        let bound = listener.local_addr().map_err(|source| StartupError::Bind {
            address: address.clone(),
            source,
        })?;
        let port = bound.port();
        let public_url = settings
            .server
            .public_url
            .clone()
            .unwrap_or_else(|| default_public_url(bound));

        let skills = agent.skills();
        let identity = validator.as_ref().map(|v| v.config());
        let card = CardDocument::new(
            build_card(
                &settings.card,
                &public_url,
                &skills,
                identity,
                settings.push.enabled,
            ),
            settings.card.cache_max_age_secs,
        )?;
        let extended_card = validator
            .as_ref()
            .map(|_| extended_card(&card.card, &agent.offered_actions()));
        let push = if settings.push.enabled {
            let on_cloud_foundry = std::env::var_os("VCAP_APPLICATION").is_some();
            if on_cloud_foundry && settings.push.allows_test_targets() {
                return Err(StartupError::PushTestSettingOnCloudFoundry);
            }
            Some(crate::push::PushService::from_settings(
                &settings.push,
                &destination_binding(),
                Arc::clone(&stores.tasks),
            )?)
        } else {
            None
        };
        let observer = push.as_ref().map(|service| {
            Arc::new(crate::push::PushObserver(Arc::clone(service)))
                as Arc<dyn crate::tasks::TaskObserver>
        });
        let engine = TaskEngine::new(stores.tasks, agent, settings.tasks.clone(), observer);
        engine.spawn_maintenance(Maintenance::from_settings(&settings.store));
        let request_timeout = Duration::from_millis(settings.server.request_timeout_ms.max(1));
        let state = web::Data::new(AppState {
            engine,
            card,
            extended_card,
            auth: validator,
            ledger: stores.ledger,
            body_limits: crate::http::BodyLimits::new(
                settings.server.max_body_bytes,
                request_timeout,
                settings.server.body_bytes_in_flight,
            ),
            sse_keep_alive: Duration::from_millis(settings.server.sse_keep_alive_ms.max(100)),
            metrics_endpoint: settings.telemetry.metrics_endpoint,
            orders,
        });

        let mut server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .configure(crate::http::routes)
        })
        .shutdown_timeout(settings.server.shutdown_timeout_secs)
        .client_request_timeout(request_timeout);
        // actix counts connections per worker; its default worker count is
        // the available parallelism (2 when unknown), its maximum 512.
        let workers = settings
            .server
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from))
            .clamp(1, 512);
        server = server
            .workers(workers)
            .max_connections(settings.server.max_connections.div_ceil(workers).max(1));
        let server = server
            .listen(listener)
            .map_err(|source| StartupError::Bind { address, source })?
            .run();
        Ok(Application {
            port,
            public_url,
            server,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The JSON-RPC endpoint as the card announces it.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_public_url_is_the_bound_address() {
        for (bound, url) in [
            ("0.0.0.0:8080", "http://127.0.0.1:8080/"),
            ("[::]:8080", "http://127.0.0.1:8080/"),
            ("127.0.0.1:9", "http://127.0.0.1:9/"),
            ("[::1]:8080", "http://[::1]:8080/"),
        ] {
            let written = default_public_url(bound.parse().unwrap());
            assert_eq!(written, url);
            // It is a URL as the card's readers parse it.
            assert_eq!(reqwest::Url::parse(&written).unwrap().as_str(), url);
        }
    }
}
