//! A loopback S/4HANA OData V2 server for the S/4HANA client tests (reads
//! and writes), following `reference/s4hana.md` and loaded with the records of
//! `reference/s4-demo-data.md` (`tests/fixtures/s4-demo-data.json`).
//!
//! What it serves, under `/sap/opu/odata/sap/<SERVICE>/`:
//! - `API_SALES_ORDER_SRV`: `A_SalesOrder` with `to_Item` (→ `to_PricingElement`,
//!   `to_ScheduleLine`, `to_Partner`, `to_Text`, `to_SalesOrder`),
//!   `to_Partner`, `to_PricingElement`, `to_Text`, and the item/partner/
//!   pricing/text/schedule-line sets; function imports
//!   `releaseApprovalRequest`/`rejectApprovalRequest`;
//! - `API_BUSINESS_PARTNER`: `A_BusinessPartner`, `A_BusinessPartnerAddress`,
//!   `A_Customer`, `A_CustomerSalesArea`;
//! - `API_CRDTMBUSINESSPARTNER`: `CreditMgmtBusinessPartner`,
//!   `CreditManagementAccount` (namespace `cds_api_crdtmbusinesspartner`);
//! - `API_OPLACCTGDOCITEMCUBE_SRV`: `A_OperationalAcctgDocItemCube`;
//! - `API_SLSPRICINGCONDITIONRECORD_SRV`: `A_SlsPrcgCndnRecdValidity`,
//!   `A_SlsPrcgConditionRecord` (the two-query pattern);
//! - `API_SLS_DOC_WITH_CREDIT_BLOCK`: `A_CreditBlockedSalesDocument`,
//!   `A_SalesDocumentRjcnReason`, `CheckCreditBlock`/`ReleaseCreditBlock`/
//!   `RejectCreditBlock`.
//!
//! The wire format of s4hana.md §3: `{"d": {…}}` and `{"d": {"results": […]}}`,
//! `__metadata` (absolute `id`/`uri`, `type`, `etag` where the type has a
//! `ConcurrencyMode="Fixed"` property), `/Date(ms)/` and `/Date(ms+0000)/`,
//! decimals as strings with their wire scale, `""` and `null` where S/4 sends
//! them, `__deferred` links, `$expand`, `$select`, `$filter`, `$orderby`,
//! `$top`, `$skip`, `$inlinecount`, `$count`, `$format=json` (Atom XML without
//! it and without `Accept: application/json`), `$metadata` (a hand-made EDMX
//! from the model), the SAP error body, 400/401/403/404/405/412/428/501.
//!
//! Writes (s4hana.md §3.5): a CSRF token from `x-csrf-token: Fetch` on GET or
//! HEAD, bound to the session cookie ([`SESSION_COOKIE`]) and the user; any
//! POST/PUT/PATCH/MERGE/DELETE without both gets 403 `x-csrf-token: Required`.
//! MERGE/PATCH/PUT on `A_SalesOrder` (If-Match against the ETag: 412 stale,
//! 428 missing, `*` accepted and visible in the recording) and on
//! `A_SalesOrderText` (the same, its ETag a digest of `LongText`); POST `A_SalesOrder('…')/to_Text`; the credit-block
//! function imports. A successful write answers 204 and gives the order a new
//! `LastChangeDateTime` and ETag (the ETag has 7 decimal places from a 100 ns
//! clock, so it cannot be rebuilt from the millisecond body value).
//!
//! Callers, authorization and the recording: see [`users`]. Every request is
//! recorded ([`Recorded`]) with the user the double resolved; every applied
//! write is listed ([`Change`]). Faults: see [`faults`].
//!
//! The public API is small: [`S4Double::start`] / [`S4Double::start_with`],
//! [`S4Double::service_url`], the recording ([`S4Double::requests`],
//! [`S4Double::changes`]), the data ([`S4Double::entity`],
//! [`S4Double::set_field`]), users ([`S4Double::add_user`],
//! [`S4Double::set_access`], [`S4Double::register_token`]), behaviour
//! switches and faults. `README.md` next to this file shows how to wire the
//! three doubles to the agent and lists every choice made where the reference
//! is silent.

pub mod faults;
pub mod model;
pub mod query;
mod server;
mod standalone;
pub mod store;
pub mod users;
pub mod wire;

pub use faults::Step;
pub use server::SESSION_COOKIE;
pub use store::Store;
pub use users::{Access, Denial, Scope, User};

use actix_web::{App, HttpServer, web};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::net::TcpListener;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a function import returns its `ReturnMessage` (s4hana.md §1.4: Gateway
/// normally wraps it, the SDK also reads it bare; clients must accept both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionShape {
    /// `{"d": {"ReleaseCreditBlock": {"MessageType": …, "Message": …}}}`
    Wrapped,
    /// `{"d": {"MessageType": …, "Message": …}}`
    Bare,
}

/// How a function import refuses for business reasons (unverified which one
/// S/4 uses: s4hana.md §1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusinessRefusal {
    /// HTTP 400 with the SAP error body.
    BadRequest,
    /// HTTP 200 with `MessageType` `E`.
    MessageTypeE,
}

/// One request as the double received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub id: u64,
    pub method: String,
    /// The path as sent (percent-encoded).
    pub path: String,
    /// The query as sent (percent-encoded).
    pub query: String,
    /// Path and query, decoded: `/sap/…/A_SalesOrder('4711')?$expand=to_Text`.
    pub target: String,
    /// Every header, names in lower case.
    pub headers: BTreeMap<String, String>,
    /// The S/4 user the credentials stand for (`None`: not authenticated).
    pub user: Option<String>,
    /// That user's e-mail (business users).
    pub email: Option<String>,
    pub body: String,
    /// The answer's status (`None` while in flight or hanging).
    pub status: Option<u16>,
    /// When the request arrived (before any added latency).
    pub received: Instant,
    /// When the answer was ready (`None` while in flight or hanging).
    pub answered: Option<Instant>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Whether this request was sent only after `earlier` was answered: it
    /// may have waited for that answer.
    pub fn after(&self, earlier: &Recorded) -> bool {
        earlier
            .answered
            .is_some_and(|answered| answered <= self.received)
    }
}

/// The stages of `requests`, each as its requests' `target`s in arrival
/// order: a request's stage is one after the latest stage of a request
/// answered before it was sent (it may have waited for that answer);
/// requests that overlap in time may share a stage. A client that waits for
/// nothing it need not wait for shows as few stages as its reads'
/// dependencies allow. Add latency per call ([`S4Double::set_latency`]) so
/// reads sent together surely overlap, whatever the machine's speed.
pub fn stages(requests: &[Recorded]) -> Vec<Vec<String>> {
    // depth[i]: the number of stages up to and including request i.
    let mut order: Vec<&Recorded> = requests.iter().collect();
    order.sort_by_key(|request| request.received);
    let mut depth = vec![1usize; order.len()];
    for i in 0..order.len() {
        for j in 0..i {
            if order[i].after(order[j]) {
                depth[i] = depth[i].max(depth[j] + 1);
            }
        }
    }
    let count = depth.iter().copied().max().unwrap_or(0);
    (1..=count)
        .map(|stage| {
            order
                .iter()
                .zip(&depth)
                .filter(|(_, depth)| **depth == stage)
                .map(|(request, _)| request.target.clone())
                .collect()
        })
        .collect()
}

/// One applied write.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The S/4 user who made it.
    pub user: String,
    pub method: String,
    /// `A_SalesOrder('4740')`, `A_SalesOrderText(…)`, `ReleaseCreditBlock(SalesDocument='4711')`.
    pub entity: String,
    /// The fields set.
    pub fields: Map<String, Value>,
}

#[derive(Debug, Clone)]
struct Session {
    user: String,
    csrf: Option<String>,
}

/// The double's state, behind one lock.
struct Inner {
    store: Store,
    users: Vec<User>,
    tokens: HashMap<String, String>,
    trusted_issuers: Vec<String>,
    denial: Denial,
    function_shape: FunctionShape,
    refusal: BusinessRefusal,
    sessions: HashMap<String, Session>,
    faults: faults::Faults,
    sequence: u64,
    requests: Vec<Recorded>,
    changes: Vec<Change>,
}

/// What a double starts with.
pub struct Setup {
    pub data: Store,
    pub users: Vec<User>,
    pub trusted_issuers: Vec<String>,
    pub denial: Denial,
    pub function_shape: FunctionShape,
    pub refusal: BusinessRefusal,
}

impl Default for Setup {
    /// The demo data, the users of [`users::known`], tokens of
    /// [`users::S4_OAUTH_ISSUER`] and [`users::CLOUD_CONNECTOR_ISSUER`]
    /// trusted, 403 for orders outside a user's authorization, wrapped
    /// function results, business refusals as 400.
    fn default() -> Setup {
        Setup {
            data: Store::demo(),
            users: users::default_users(),
            trusted_issuers: vec![
                users::S4_OAUTH_ISSUER.to_string(),
                users::CLOUD_CONNECTOR_ISSUER.to_string(),
            ],
            denial: Denial::Forbidden,
            function_shape: FunctionShape::Wrapped,
            refusal: BusinessRefusal::BadRequest,
        }
    }
}

pub struct S4Double {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    shared: web::Data<server::Shared>,
    handle: actix_web::dev::ServerHandle,
}

impl S4Double {
    /// The demo data and the default users ([`Setup::default`]).
    pub async fn start() -> S4Double {
        S4Double::start_with(Setup::default()).await
    }

    pub async fn start_with(setup: Setup) -> S4Double {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!(
            "http://127.0.0.1:{}",
            listener.local_addr().expect("an address").port()
        );
        let shared = web::Data::new(server::Shared {
            origin: url.clone(),
            inner: Mutex::new(Inner {
                store: setup.data,
                users: setup.users,
                tokens: HashMap::new(),
                trusted_issuers: setup.trusted_issuers,
                denial: setup.denial,
                function_shape: setup.function_shape,
                refusal: setup.refusal,
                sessions: HashMap::new(),
                faults: faults::Faults::default(),
                sequence: 0,
                requests: Vec::new(),
                changes: Vec::new(),
            }),
        });
        let app_data = shared.clone();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(app_data.clone())
                .app_data(web::PayloadConfig::new(1 << 20))
                .default_service(web::to(server::handle))
        })
        .workers(2)
        .disable_signals()
        .listen(listener)
        .expect("the double listens")
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        S4Double {
            url,
            shared,
            handle,
        }
    }

    /// `http://127.0.0.1:<port>/sap/opu/odata/sap/<service>`.
    pub fn service_url(&self, service: &str) -> String {
        wire::service_base(&self.url, service)
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.shared.inner.lock().unwrap()
    }

    // ------------------------------------------------------------ recording

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.inner().requests.clone()
    }

    pub fn clear_requests(&self) {
        self.inner().requests.clear();
    }

    /// Every applied write so far.
    pub fn changes(&self) -> Vec<Change> {
        self.inner().changes.clone()
    }

    // ----------------------------------------------------------------- data

    /// The current wire values of one entity (`set`, key predicate such as
    /// `'4711'` or `BusinessPartner='10051',AddressID='22002'`), without
    /// `__metadata`.
    pub fn entity(&self, set: &str, key: &str) -> Option<Map<String, Value>> {
        let inner = self.inner();
        let index = inner.store.find_by_predicate(set, key).ok()?;
        Some(inner.store.rows(set)[index].values.clone())
    }

    /// The current ETag of one entity.
    pub fn etag(&self, set: &str, key: &str) -> Option<String> {
        let inner = self.inner();
        let index = inner.store.find_by_predicate(set, key).ok()?;
        let (_, definition) = inner.store.definition(set)?;
        Store::etag(definition, &inner.store.rows(set)[index])
    }

    /// Add one row behind the client's back (an order text someone wrote
    /// earlier); panics on an unknown set.
    pub fn insert_row(&self, set: &str, values: Map<String, Value>) {
        let mut inner = self.inner();
        assert!(inner.store.definition(set).is_some(), "no entity set {set}");
        inner.store.rows_mut(set).push(store::Row {
            values,
            ticks: None,
        });
    }

    /// Change one property of one entity behind the client's back (checked
    /// against the model); panics on a bad set, key, field or value.
    pub fn set_field(&self, set: &str, key: &str, field: &str, value: Value) {
        self.inner()
            .store
            .set_field(set, key, field, value)
            .unwrap_or_else(|error| panic!("set_field({set}, {key}, {field}): {error}"));
    }

    // ---------------------------------------------------------------- users

    pub fn add_user(&self, user: User) {
        self.inner().users.push(user);
    }

    /// Replace the authorizations of the user with this id or e-mail.
    pub fn set_access(&self, user: &str, access: Access) {
        let mut inner = self.inner();
        let found = inner
            .users
            .iter_mut()
            .find(|known| known.id == user || known.email.eq_ignore_ascii_case(user));
        match found {
            Some(known) => known.access = access,
            None => panic!("set_access: no user {user}"),
        }
    }

    /// Accept an opaque bearer token for the user with this e-mail.
    pub fn register_token(&self, token: &str, email: &str) {
        self.inner()
            .tokens
            .insert(token.to_string(), email.to_string());
    }

    // ------------------------------------------------------------ behaviour

    pub fn set_denial(&self, denial: Denial) {
        self.inner().denial = denial;
    }

    pub fn set_function_shape(&self, shape: FunctionShape) {
        self.inner().function_shape = shape;
    }

    pub fn set_business_refusal(&self, refusal: BusinessRefusal) {
        self.inner().refusal = refusal;
    }

    // --------------------------------------------------------------- faults

    /// Added latency for every request.
    pub fn set_latency(&self, latency: Duration) {
        self.inner().faults.latency = latency;
    }

    /// Requests whose `"<METHOD> <decoded path?query>"` contains `pattern`
    /// take `steps` in turn (then pass).
    pub fn script(&self, pattern: &str, steps: Vec<Step>) {
        self.inner().faults.script(pattern, steps);
    }

    /// Requests matching `pattern` always take `step`.
    pub fn always(&self, pattern: &str, step: Step) {
        self.inner().faults.always(pattern, step);
    }

    /// No more faults and no added latency.
    pub fn clear_faults(&self) {
        self.inner().faults.clear();
    }

    /// Stop serving (connections are refused afterwards): S/4 going away.
    pub async fn stop(&self) {
        self.handle.stop(false).await;
    }
}
