//! The request path of the S/4HANA double: record, inject faults,
//! authenticate, CSRF, then read (entity sets, keys, navigation, `$count`,
//! property values, service document, `$metadata`), write (MERGE/PATCH/PUT
//! with `If-Match`, POST of an order text) or call a function import.
//! Everything after the faults runs under one lock, so concurrent writes with
//! the same ETag see each other (exactly one wins).

use super::faults::{self, Step};
use super::model::{EntitySet, Function, Kind, Service};
use super::query::{
    Expansion, Filter, Lit, Options, QueryError, Selection, parse_key, parse_literal,
    parse_options, percent_decode, wire_value,
};
use super::store::{Row, Store, check_value, wire_date, wire_date_time};
use super::users::{Denial, Unauthenticated, User, identify};
use super::wire::{self, Renderer, error_body};
use super::{BusinessRefusal, Change, FunctionShape, Inner, Recorded, Session};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

/// The cookie that carries the session a CSRF token belongs to.
pub const SESSION_COOKIE: &str = "SAP_SESSIONID_S4D_100";

// Error codes in SAP's "<message class>/<number>" shape (invented).
const CODE_QUERY: &str = "/IWBEP/CM_MGW_RT/022";
const CODE_NOT_FOUND: &str = "/IWBEP/CM_MGW_RT/020";
const CODE_NO_SERVICE: &str = "/IWFND/MED/170";
const CODE_NOT_AUTHORIZED: &str = "V1/104";
const CODE_CSRF: &str = "/IWFND/CM_BEC/026";
const CODE_METHOD: &str = "/IWBEP/CM_MGW_RT/011";
const CODE_NOT_IMPLEMENTED: &str = "/IWBEP/CM_MGW_RT/021";
const CODE_PRECONDITION: &str = "/IWBEP/CM_MGW_RT/098";
const CODE_PRECONDITION_REQUIRED: &str = "/IWBEP/CM_MGW_RT/099";
const CODE_INVALID_BODY: &str = "/IWBEP/CM_MGW_RT/010";
const CODE_BUSINESS: &str = "V1/312";
const CODE_RUNTIME: &str = "/IWBEP/CM_MGW_RT/000";

const DAY_MS: i64 = 86_400_000;

pub struct Shared {
    pub origin: String,
    pub inner: Mutex<Inner>,
}

/// An answer before it becomes an actix response (so its status can be
/// recorded).
pub struct Reply {
    pub status: u16,
    content_type: Option<&'static str>,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn new(status: u16, content_type: Option<&'static str>, body: String) -> Reply {
        Reply {
            status,
            content_type,
            headers: Vec::new(),
            body,
        }
    }
    fn json(status: u16, body: String) -> Reply {
        Reply::new(status, Some("application/json; charset=utf-8"), body).odata()
    }
    fn xml(status: u16, content_type: &'static str, body: String) -> Reply {
        Reply::new(status, Some(content_type), body).odata()
    }
    fn empty(status: u16) -> Reply {
        Reply::new(status, None, String::new()).odata()
    }
    fn odata(self) -> Reply {
        self.header("dataserviceversion", "2.0")
    }
    fn error(status: u16, service: &str, code: &str, message: &str) -> Reply {
        Reply::json(status, error_body(service, code, message).to_string())
    }
    fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
    fn with_headers(mut self, headers: Vec<(String, String)>) -> Reply {
        self.headers.extend(headers);
        self
    }
    fn into_response(self, head: bool) -> HttpResponse {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = HttpResponse::build(status);
        if let Some(content_type) = self.content_type {
            response.insert_header(("content-type", content_type));
        }
        for (name, value) in self.headers {
            response.append_header((name, value));
        }
        if head || self.status == 204 {
            response.finish()
        } else {
            response.body(self.body)
        }
    }
}

fn bad(service: &str, QueryError(message): QueryError) -> Reply {
    Reply::error(400, service, CODE_QUERY, &message)
}

fn segment_not_found(service: &str, segment: &str) -> Reply {
    Reply::error(
        404,
        service,
        CODE_NOT_FOUND,
        &format!("Resource not found for the segment '{segment}'."),
    )
}

/// Lower-cased header names; repeated headers joined with ", ".
fn header_map(request: &HttpRequest) -> BTreeMap<String, String> {
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in request.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_ascii_lowercase())
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    headers
}

fn cookie<'a>(headers: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    headers.get("cookie")?.split([';', ',']).find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then_some(value)
    })
}

fn now_ticks() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| (elapsed.as_nanos() / 100) as i64)
}

/// `A_SalesOrder('4711')` → (`A_SalesOrder`, `Some("'4711'")`).
fn split_segment(segment: &str) -> Result<(&str, Option<&str>), QueryError> {
    match segment.find('(') {
        None => Ok((segment, None)),
        Some(open) => match segment.strip_suffix(')') {
            Some(inner) => Ok((&segment[..open], Some(&inner[open + 1..]))),
            None => Err(QueryError(format!("Invalid key predicate in '{segment}'"))),
        },
    }
}

/// The request as the double saw it: recorded, then served.
pub async fn handle(
    request: HttpRequest,
    body: web::Bytes,
    shared: web::Data<Shared>,
) -> HttpResponse {
    let mut method = request.method().as_str().to_string();
    if method == "POST"
        && let Some(tunnelled) = request
            .headers()
            .get("x-http-method")
            .and_then(|value| value.to_str().ok())
    {
        method = tunnelled.to_ascii_uppercase();
    }
    let raw_path = request.uri().path().to_string();
    let raw_query = request.uri().query().unwrap_or("").to_string();
    let decoded_path = percent_decode(&raw_path, false).unwrap_or_else(|_| raw_path.clone());
    let decoded_query = percent_decode(&raw_query, true).unwrap_or_else(|_| raw_query.clone());
    let target = if raw_query.is_empty() {
        decoded_path
    } else {
        format!("{decoded_path}?{decoded_query}")
    };
    let headers = header_map(&request);
    let (id, step, latency) = {
        let mut inner = shared.inner.lock().unwrap();
        let who = identify(
            headers.get("authorization").map(String::as_str),
            headers.get("apikey").map(String::as_str),
            &inner.users,
            &inner.tokens,
            &inner.trusted_issuers,
        )
        .ok()
        .map(|user| (user.id.clone(), user.email.clone()));
        inner.sequence += 1;
        let id = inner.sequence;
        inner.requests.push(Recorded {
            id,
            method: method.clone(),
            path: raw_path.clone(),
            query: raw_query.clone(),
            target: target.clone(),
            headers: headers.clone(),
            user: who.as_ref().map(|(user, _)| user.clone()),
            email: who
                .map(|(_, email)| email)
                .filter(|email| !email.is_empty()),
            body: String::from_utf8_lossy(&body).into_owned(),
            status: None,
            received: Instant::now(),
            answered: None,
        });
        let step = inner.faults.next(&format!("{method} {target}"));
        (id, step, inner.faults.latency)
    };
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let injected = match &step {
        Step::Hang => {
            tokio::time::sleep(faults::HANG).await;
            Some(Reply::empty(504))
        }
        Step::Status(status) | Step::StatusRetryAfter(status, _) => {
            Some(injected_reply(*status, faults::retry_after(&step)))
        }
        Step::Delay(delay) => {
            tokio::time::sleep(*delay).await;
            None
        }
        Step::Pass => None,
    };
    let mut inner = shared.inner.lock().unwrap();
    let reply = match injected {
        Some(reply) => reply,
        None => inner.process(
            &shared.origin,
            &method,
            &raw_path,
            &raw_query,
            &headers,
            &body,
        ),
    };
    if let Some(recorded) = inner.requests.iter_mut().find(|recorded| recorded.id == id) {
        recorded.status = Some(reply.status);
        recorded.answered = Some(Instant::now());
    }
    drop(inner);
    reply.into_response(method == "HEAD")
}

fn injected_reply(status: u16, retry_after: Option<u32>) -> Reply {
    let reply = match status {
        429 => Reply::new(429, Some("text/plain"), "Too Many Requests".into()),
        502..=504 => Reply::new(
            status,
            Some("text/html"),
            format!(
                "<html><body><h1>{status}</h1><p>Service unavailable (injected by the S/4HANA test double)</p></body></html>"
            ),
        ),
        _ => Reply::error(
            status,
            "",
            CODE_RUNTIME,
            "Runtime error in the ABAP program (injected by the S/4HANA test double)",
        ),
    };
    match retry_after {
        Some(seconds) => reply.header("retry-after", &seconds.to_string()),
        None => reply,
    }
}

fn is_modifying(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH" | "MERGE" | "DELETE")
}

/// One request's context after authentication.
struct Call<'a> {
    origin: &'a str,
    service: &'a Service,
    user: &'a User,
    method: &'a str,
    headers: &'a BTreeMap<String, String>,
    body: &'a [u8],
    options: Options,
}

impl Call<'_> {
    fn base(&self) -> String {
        wire::service_base(self.origin, self.service.name)
    }
    fn json(&self) -> bool {
        self.options.format_json.unwrap_or_else(|| {
            self.headers
                .get("accept")
                .is_some_and(|accept| accept.contains("application/json"))
        })
    }
    fn error(&self, status: u16, code: &str, message: &str) -> Reply {
        Reply::error(status, self.service.name, code, message)
    }
}

fn order_of<'a>(set: &EntitySet, row: &'a Row) -> Option<&'a str> {
    row.values.get(set.order_property?)?.as_str()
}

fn may_read(user: &User, set: &EntitySet, row: &Row) -> bool {
    order_of(set, row).is_none_or(|order| user.access.read.covers(order))
}

fn may_change(user: &User, set: &EntitySet, row: &Row) -> bool {
    order_of(set, row).is_none_or(|order| user.access.change.covers(order))
}

/// Check `$select` and `$expand` against the model.
fn check_shape(
    service: &Service,
    set: &EntitySet,
    select: Option<&Selection>,
    expand: &Expansion,
) -> Result<(), QueryError> {
    let not_found = |name: &str| {
        QueryError(format!(
            "Property {name} not found in type {}",
            set.type_name
        ))
    };
    if let Some(selection) = select {
        for name in &selection.names {
            if set.prop(name).is_none() && set.nav(name).is_none() {
                return Err(not_found(name));
            }
        }
        for name in selection.nested.keys() {
            if set.nav(name).is_none() {
                return Err(QueryError(format!(
                    "{name} in $select is not a navigation property of {}",
                    set.type_name
                )));
            }
            if !expand.0.contains_key(name) {
                return Err(QueryError(format!(
                    "{name}/… in $select needs {name} in $expand"
                )));
            }
        }
    }
    for (name, inner) in &expand.0 {
        let Some(nav) = set.nav(name) else {
            return Err(not_found(name));
        };
        let Some(target) = service.set(nav.target) else {
            return Err(not_found(name));
        };
        let nested = select.and_then(|selection| selection.nested.get(name));
        check_shape(service, target, nested, inner)?;
    }
    Ok(())
}

impl Inner {
    fn process(
        &mut self,
        origin: &str,
        method: &str,
        raw_path: &str,
        raw_query: &str,
        headers: &BTreeMap<String, String>,
        body: &[u8],
    ) -> Reply {
        let Some(rest) = raw_path.strip_prefix("/sap/opu/odata/sap/") else {
            return Reply::new(
                404,
                Some("text/html"),
                "<html><body>Not Found</body></html>".into(),
            );
        };
        let mut segments: Vec<&str> = rest.split('/').collect();
        let service_name = percent_decode(segments.remove(0), false).unwrap_or_default();
        while segments.last() == Some(&"") {
            segments.pop();
        }
        let Some(service) = self.store.service(&service_name).cloned() else {
            return Reply::error(
                403,
                &service_name,
                CODE_NO_SERVICE,
                &format!(
                    "No service found for namespace '/SAP/', name '{service_name}', version '0001'"
                ),
            );
        };
        let user = match identify(
            headers.get("authorization").map(String::as_str),
            headers.get("apikey").map(String::as_str),
            &self.users,
            &self.tokens,
            &self.trusted_issuers,
        ) {
            Ok(user) => user.clone(),
            Err(Unauthenticated(reason)) => {
                return Reply::new(
                    401,
                    Some("text/html"),
                    format!(
                        "<html><body><h1>Logon failed</h1><p>{}</p></body></html>",
                        wire::xml(&reason)
                    ),
                )
                .header(
                    "www-authenticate",
                    "Basic realm=\"SAP NetWeaver Application Server [S4D/100]\"",
                );
            }
        };
        if !user.access.may_call(service.name) {
            return Reply::error(
                403,
                service.name,
                CODE_NOT_AUTHORIZED,
                &format!(
                    "User {} has no authorization for service {}",
                    user.id, service.name
                ),
            );
        }
        let mut extra = Vec::new();
        let fetch = headers
            .get("x-csrf-token")
            .is_some_and(|value| value.eq_ignore_ascii_case("fetch"));
        if fetch && matches!(method, "GET" | "HEAD") {
            extra = self.issue_csrf(&user, headers);
            if method == "HEAD" {
                return Reply::empty(200).with_headers(extra);
            }
        }
        if is_modifying(method) && !self.csrf_valid(&user, headers) {
            return Reply::error(403, service.name, CODE_CSRF, "CSRF token validation failed")
                .header("x-csrf-token", "Required");
        }
        let options = match parse_options(raw_query) {
            Ok(options) => options,
            Err(error) => return bad(service.name, error).with_headers(extra),
        };
        let call = Call {
            origin,
            service: &service,
            user: &user,
            method,
            headers,
            body,
            options,
        };
        self.dispatch(&call, &segments).with_headers(extra)
    }

    fn issue_csrf(
        &mut self,
        user: &User,
        headers: &BTreeMap<String, String>,
    ) -> Vec<(String, String)> {
        let existing = cookie(headers, SESSION_COOKIE)
            .filter(|id| {
                self.sessions
                    .get(*id)
                    .is_some_and(|session| session.user == user.id)
            })
            .map(str::to_string);
        let mut extra = Vec::new();
        let id = match existing {
            Some(id) => id,
            None => {
                let id = uuid::Uuid::new_v4().simple().to_string().to_uppercase();
                extra.push((
                    "set-cookie".to_string(),
                    format!("{SESSION_COOKIE}={id}; path=/; HttpOnly"),
                ));
                extra.push((
                    "set-cookie".to_string(),
                    "sap-usercontext=sap-client=100; path=/".to_string(),
                ));
                id
            }
        };
        let session = self.sessions.entry(id).or_insert_with(|| Session {
            user: user.id.clone(),
            csrf: None,
        });
        let token = session
            .csrf
            .get_or_insert_with(|| uuid::Uuid::new_v4().simple().to_string()[..24].to_string())
            .clone();
        extra.push(("x-csrf-token".to_string(), token));
        extra
    }

    fn csrf_valid(&self, user: &User, headers: &BTreeMap<String, String>) -> bool {
        let (Some(token), Some(id)) =
            (headers.get("x-csrf-token"), cookie(headers, SESSION_COOKIE))
        else {
            return false;
        };
        self.sessions.get(id).is_some_and(|session| {
            session.user == user.id && session.csrf.as_deref() == Some(token.as_str())
        })
    }

    fn dispatch(&mut self, call: &Call, segments: &[&str]) -> Reply {
        let service = call.service;
        let [first, rest @ ..] = segments else {
            return match call.method {
                "GET" | "HEAD" if call.json() => {
                    Reply::json(200, wire::service_document_json(service))
                }
                "GET" | "HEAD" => Reply::xml(
                    200,
                    "application/xml; charset=utf-8",
                    wire::service_document_xml(service, &call.base()),
                ),
                other => call.error(
                    405,
                    CODE_METHOD,
                    &format!("Method {other} is not allowed on the service document"),
                ),
            };
        };
        let first = match percent_decode(first, false) {
            Ok(first) => first,
            Err(error) => return bad(service.name, error),
        };
        if first == "$metadata" && rest.is_empty() {
            return Reply::xml(
                200,
                "application/xml; charset=utf-8",
                wire::metadata(service),
            );
        }
        if first == "$batch" {
            return call.error(
                501,
                CODE_NOT_IMPLEMENTED,
                "$batch is not implemented by the S/4HANA test double",
            );
        }
        let (name, key) = match split_segment(&first) {
            Ok(parts) => parts,
            Err(error) => return bad(service.name, error),
        };
        if let Some(function) = service.function(name) {
            if key.is_some() || !rest.is_empty() {
                return segment_not_found(service.name, &first);
            }
            return self.call_function(call, function);
        }
        let Some(set) = service.set(name) else {
            return segment_not_found(service.name, name);
        };
        let rest: Vec<String> = match rest
            .iter()
            .map(|segment| percent_decode(segment, false))
            .collect()
        {
            Ok(rest) => rest,
            Err(error) => return bad(service.name, error),
        };
        let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
        match (key, rest.as_slice()) {
            (None, []) => match call.method {
                "GET" | "HEAD" => {
                    let rows: Vec<&Row> = self.store.rows(set.name).iter().collect();
                    self.read_collection(call, set, rows, false)
                }
                "POST" if set.name == "A_SalesOrderText" => call.error(
                    405,
                    CODE_METHOD,
                    "A_SalesOrderText is not creatable directly: create a text through A_SalesOrder('…')/to_Text",
                ),
                "POST" if !set.creatable => call.error(405, CODE_METHOD, &format!("{} is not creatable", set.name)),
                other => self.not_implemented(call, set, other),
            },
            (None, ["$count"]) => {
                let rows: Vec<&Row> = self.store.rows(set.name).iter().collect();
                self.read_collection(call, set, rows, true)
            }
            (Some(key), []) => match call.method {
                "GET" | "HEAD" => self.read_entity(call, set, key),
                "PATCH" | "MERGE" | "PUT" => self.update(call, set, key),
                "DELETE" if !set.deletable => call.error(405, CODE_METHOD, &format!("{} is not deletable", set.name)),
                other => self.not_implemented(call, set, other),
            },
            (Some(key), [segment, tail @ ..]) => {
                let parent = match self.parent(call, set, key) {
                    Ok(index) => index,
                    Err(reply) => return reply,
                };
                if let Some(nav) = set.nav(segment) {
                    let Some(target) = service.set(nav.target) else {
                        return segment_not_found(service.name, segment);
                    };
                    let parent_values = self.store.rows(set.name)[parent].values.clone();
                    match (call.method, tail) {
                        ("GET" | "HEAD", []) if nav.many => {
                            let rows = self.store.children(nav, &parent_values);
                            self.read_collection(call, target, rows, false)
                        }
                        ("GET" | "HEAD", ["$count"]) if nav.many => {
                            let rows = self.store.children(nav, &parent_values);
                            self.read_collection(call, target, rows, true)
                        }
                        ("GET" | "HEAD", []) => match self.store.children(nav, &parent_values).first() {
                            Some(row) => self.render_single(call, target, row),
                            None => Reply::json(200, json!({ "d": null }).to_string()),
                        },
                        ("POST", []) if set.name == "A_SalesOrder" && nav.name == "to_Text" => {
                            self.create_text(call, set, parent)
                        }
                        ("GET" | "HEAD", [other, ..]) => segment_not_found(service.name, other),
                        (other, _) => self.not_implemented(call, target, other),
                    }
                } else if let (Some(prop), [], "GET" | "HEAD") = (set.prop(segment), tail, call.method) {
                    let value = self.store.rows(set.name)[parent]
                        .values
                        .get(prop.name)
                        .cloned()
                        .unwrap_or(Value::Null);
                    let mut body = Map::new();
                    body.insert(prop.name.to_string(), value);
                    Reply::json(200, json!({ "d": body }).to_string())
                } else {
                    segment_not_found(service.name, segment)
                }
            }
            (None, [segment, ..]) => segment_not_found(service.name, segment),
        }
    }

    fn not_implemented(&self, call: &Call, set: &EntitySet, method: &str) -> Reply {
        call.error(
            501,
            CODE_NOT_IMPLEMENTED,
            &format!(
                "{method} on {} is not implemented by the S/4HANA test double",
                set.name
            ),
        )
    }

    fn denied(&self, call: &Call, set: &EntitySet, row: &Row, change: bool) -> Reply {
        let order = order_of(set, row).unwrap_or("");
        if !change && self.denial == Denial::Hidden {
            return segment_not_found(call.service.name, set.name);
        }
        let verb = if change { "change" } else { "display" };
        call.error(
            403,
            CODE_NOT_AUTHORIZED,
            &format!("No authorization to {verb} sales document {order}"),
        )
    }

    /// The row a key segment names, readable by the caller.
    fn parent(&self, call: &Call, set: &EntitySet, key: &str) -> Result<usize, Reply> {
        let key = parse_key(set, key).map_err(|error| bad(call.service.name, error))?;
        let index = self
            .store
            .find(set, &key)
            .ok_or_else(|| segment_not_found(call.service.name, set.name))?;
        let row = &self.store.rows(set.name)[index];
        if !may_read(call.user, set, row) {
            return Err(self.denied(call, set, row, false));
        }
        Ok(index)
    }

    fn renderer<'a>(
        &'a self,
        call: &'a Call,
        visible: &'a dyn Fn(&EntitySet, &Row) -> bool,
    ) -> Renderer<'a> {
        Renderer {
            store: &self.store,
            service: call.service,
            base: call.base(),
            visible,
        }
    }

    fn render_single(&self, call: &Call, set: &EntitySet, row: &Row) -> Reply {
        let options = &call.options;
        if let Err(error) = check_shape(call.service, set, options.select.as_ref(), &options.expand)
        {
            return bad(call.service.name, error);
        }
        let user = call.user;
        let visible = move |set: &EntitySet, row: &Row| may_read(user, set, row);
        let renderer = self.renderer(call, &visible);
        let reply = if call.json() {
            Reply::json(
                200,
                renderer.single(set, row, options.select.as_ref(), &options.expand),
            )
        } else {
            Reply::xml(
                200,
                "application/atom+xml; type=entry; charset=utf-8",
                renderer.atom_single(set, row, options.select.as_ref(), &options.expand),
            )
        };
        match Store::etag(set, row) {
            Some(etag) => reply.header("etag", &etag),
            None => reply,
        }
    }

    fn read_entity(&self, call: &Call, set: &EntitySet, key: &str) -> Reply {
        match self.parent(call, set, key) {
            Ok(index) => self.render_single(call, set, &self.store.rows(set.name)[index]),
            Err(reply) => reply,
        }
    }

    fn read_collection(
        &self,
        call: &Call,
        set: &EntitySet,
        rows: Vec<&Row>,
        count_only: bool,
    ) -> Reply {
        let options = &call.options;
        let service = call.service.name;
        let mut rows: Vec<&Row> = rows
            .into_iter()
            .filter(|row| may_read(call.user, set, row))
            .collect();
        if let Some(text) = &options.filter {
            match Filter::parse(text, set) {
                Ok(filter) => rows.retain(|row| filter.matches(&row.values)),
                Err(error) => return bad(service, error),
            }
        }
        for (field, _) in &options.orderby {
            match set.prop(field) {
                Some(prop) if prop.filterable => {}
                Some(_) => {
                    return bad(
                        service,
                        QueryError(format!("Property {field} is not sortable")),
                    );
                }
                None => {
                    return bad(
                        service,
                        QueryError(format!(
                            "Property {field} not found in type {}",
                            set.type_name
                        )),
                    );
                }
            }
        }
        if !options.orderby.is_empty() {
            rows.sort_by(|left, right| {
                for (field, descending) in &options.orderby {
                    let kind = set.prop(field).map_or(Kind::Str(0), |prop| prop.kind);
                    let value = |row: &Row| {
                        row.values
                            .get(field.as_str())
                            .and_then(|value| wire_value(kind, value).ok())
                    };
                    let order = value(left).cmp(&value(right));
                    let order = if *descending { order.reverse() } else { order };
                    if order.is_ne() {
                        return order;
                    }
                }
                std::cmp::Ordering::Equal
            });
        }
        let total = rows.len();
        if count_only {
            return Reply::new(200, Some("text/plain"), total.to_string()).odata();
        }
        let rows: Vec<&Row> = rows
            .into_iter()
            .skip(options.skip)
            .take(options.top.unwrap_or(usize::MAX))
            .collect();
        if let Err(error) = check_shape(call.service, set, options.select.as_ref(), &options.expand)
        {
            return bad(service, error);
        }
        let user = call.user;
        let visible = move |set: &EntitySet, row: &Row| may_read(user, set, row);
        let renderer = self.renderer(call, &visible);
        if call.json() {
            let count = options.inline_count.then_some(total);
            Reply::json(
                200,
                renderer.collection(set, &rows, count, options.select.as_ref(), &options.expand),
            )
        } else {
            Reply::xml(
                200,
                "application/atom+xml; type=feed; charset=utf-8",
                renderer.atom_feed(set, &rows, options.select.as_ref(), &options.expand),
            )
        }
    }

    fn body_object(&self, call: &Call) -> Result<Map<String, Value>, Reply> {
        match serde_json::from_slice::<Value>(call.body) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(_) => Err(call.error(
                400,
                CODE_INVALID_BODY,
                "The request body is not a JSON object",
            )),
            Err(error) => Err(call.error(
                400,
                CODE_INVALID_BODY,
                &format!("The request body is not valid JSON: {error}"),
            )),
        }
    }

    /// Give a row a new `LastChangeDateTime` (and ETag): now, in 100 ns
    /// ticks, and always later than before.
    fn touch(set: &EntitySet, row: &mut Row) {
        let Some(prop) = set
            .etag_prop()
            .filter(|prop| matches!(prop.kind, Kind::Dto(_)))
        else {
            return;
        };
        let ticks = now_ticks().max(row.ticks.unwrap_or(0) + 1);
        row.ticks = Some(ticks);
        let ms = ticks / 10_000;
        row.values.insert(prop.name.to_string(), wire_date_time(ms));
        if set.prop("LastChangeDate").is_some() {
            row.values.insert(
                "LastChangeDate".to_string(),
                wire_date(ms - ms.rem_euclid(DAY_MS)),
            );
        }
    }

    fn update(&mut self, call: &Call, set: &EntitySet, key: &str) -> Reply {
        if !set.updatable {
            return call.error(405, CODE_METHOD, &format!("{} is not updatable", set.name));
        }
        if !["A_SalesOrder", "A_SalesOrderText"].contains(&set.name) {
            return self.not_implemented(call, set, call.method);
        }
        let index = match self.parent(call, set, key) {
            Ok(index) => index,
            Err(reply) => return reply,
        };
        let mut row = self.store.rows(set.name)[index].clone();
        if !may_change(call.user, set, &row) {
            return self.denied(call, set, &row, true);
        }
        if let Some(current) = Store::etag(set, &row) {
            match call.headers.get("if-match").map(String::as_str) {
                None => {
                    return call.error(
                        428,
                        CODE_PRECONDITION_REQUIRED,
                        "Precondition required: the entity has an ETag, send it in If-Match",
                    );
                }
                Some("*") => {}
                Some(given) if given == current => {}
                Some(_) => {
                    return call.error(
                        412,
                        CODE_PRECONDITION,
                        "Precondition failed: the entity was changed since it was read (the ETag does not match)",
                    );
                }
            }
        }
        let changes = match self.body_object(call) {
            Ok(changes) => changes,
            Err(reply) => return reply,
        };
        let mut values = row.values.clone();
        if call.method == "PUT" {
            for prop in set.props.iter().filter(|prop| prop.updatable && !prop.key) {
                let empty = match prop.kind {
                    Kind::Str(_) => json!(""),
                    Kind::Bool => json!(false),
                    Kind::Dec(..) => json!("0"),
                    _ => Value::Null,
                };
                values.insert(prop.name.to_string(), empty);
            }
        }
        let mut applied = Map::new();
        for (name, value) in &changes {
            if name == "__metadata" {
                continue;
            }
            let Some(prop) = set.prop(name) else {
                let message = if set.nav(name).is_some() {
                    format!("Deep update of {name} is not supported")
                } else {
                    format!("Property {name} not found in type {}", set.type_name)
                };
                return call.error(400, CODE_INVALID_BODY, &message);
            };
            if prop.key {
                if row.values.get(name) != Some(value) {
                    return call.error(
                        400,
                        CODE_INVALID_BODY,
                        &format!("Key property {name} cannot be changed"),
                    );
                }
                continue;
            }
            if !prop.updatable {
                if prop.etag && row.values.get(name) == Some(value) {
                    continue;
                }
                return call.error(
                    400,
                    CODE_INVALID_BODY,
                    &format!("Property {name} cannot be changed"),
                );
            }
            if let Err(message) = check_value(prop, value, &values, false) {
                return call.error(400, CODE_INVALID_BODY, &message);
            }
            values.insert(name.clone(), value.clone());
            applied.insert(name.clone(), value.clone());
        }
        row.values = values;
        Inner::touch(set, &mut row);
        let entity = format!("{}{}", set.name, wire::key_predicate(set, &row));
        self.store.rows_mut(set.name)[index] = row;
        self.changes.push(Change {
            user: call.user.id.clone(),
            method: call.method.to_string(),
            entity,
            fields: applied,
        });
        Reply::empty(204)
    }

    fn create_text(&mut self, call: &Call, order_set: &EntitySet, order_index: usize) -> Reply {
        let order = self.store.rows(order_set.name)[order_index].clone();
        if !may_change(call.user, order_set, &order) {
            return self.denied(call, order_set, &order, true);
        }
        let Some(text_set) = call.service.set("A_SalesOrderText") else {
            return segment_not_found(call.service.name, "to_Text");
        };
        let body = match self.body_object(call) {
            Ok(body) => body,
            Err(reply) => return reply,
        };
        let order_number = order
            .values
            .get("SalesOrder")
            .cloned()
            .unwrap_or(Value::Null);
        let mut values = Map::new();
        values.insert("SalesOrder".into(), order_number.clone());
        values.insert("Language".into(), json!(""));
        values.insert("LongTextID".into(), json!(""));
        values.insert("LongText".into(), json!(""));
        for (name, value) in &body {
            if name == "__metadata" {
                continue;
            }
            let Some(prop) = text_set.prop(name) else {
                return call.error(
                    400,
                    CODE_INVALID_BODY,
                    &format!("Property {name} not found in type {}", text_set.type_name),
                );
            };
            if name == "SalesOrder" && value != &order_number {
                return call.error(
                    400,
                    CODE_INVALID_BODY,
                    "SalesOrder in the body differs from the order in the URL",
                );
            }
            if let Err(message) = check_value(prop, value, &values, false) {
                return call.error(400, CODE_INVALID_BODY, &message);
            }
            values.insert(name.clone(), value.clone());
        }
        for required in ["Language", "LongTextID"] {
            if values
                .get(required)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return call.error(400, CODE_INVALID_BODY, &format!("{required} is required"));
            }
        }
        let duplicate = self.store.rows(text_set.name).iter().any(|row| {
            ["SalesOrder", "Language", "LongTextID"]
                .iter()
                .all(|key| row.values.get(*key) == values.get(*key))
        });
        if duplicate {
            return call.error(
                400,
                CODE_BUSINESS,
                &format!(
                    "Text {} in language {} already exists for sales order {}",
                    values["LongTextID"].as_str().unwrap_or(""),
                    values["Language"].as_str().unwrap_or(""),
                    order_number.as_str().unwrap_or("")
                ),
            );
        }
        let row = Row {
            values: values.clone(),
            ticks: None,
        };
        let entity = format!("{}{}", text_set.name, wire::key_predicate(text_set, &row));
        self.store.rows_mut(text_set.name).push(row.clone());
        self.changes.push(Change {
            user: call.user.id.clone(),
            method: "POST".into(),
            entity: entity.clone(),
            fields: values,
        });
        let user = call.user;
        let visible = move |set: &EntitySet, row: &Row| may_read(user, set, row);
        let body =
            self.renderer(call, &visible)
                .single(text_set, &row, None, &Expansion::default());
        Reply::json(201, body).header("location", &format!("{}/{entity}", call.base()))
    }

    // ------------------------------------------------------ function imports

    fn call_function(&mut self, call: &Call, function: &Function) -> Reply {
        if call.method != "POST" {
            return call.error(
                405,
                CODE_METHOD,
                &format!(
                    "Method {} is not allowed for function import {}",
                    call.method, function.name
                ),
            );
        }
        let mut parameters: BTreeMap<&str, String> = BTreeMap::new();
        for (name, value) in &call.options.custom {
            if name.starts_with("sap-") {
                continue;
            }
            let Some(parameter) = function
                .parameters
                .iter()
                .find(|parameter| **parameter == name)
            else {
                return call.error(
                    400,
                    CODE_QUERY,
                    &format!(
                        "{name} is not a parameter of function import {}",
                        function.name
                    ),
                );
            };
            match parse_literal(value) {
                Ok(Lit::Str(text)) => {
                    parameters.insert(parameter, text);
                }
                _ => {
                    return call.error(
                        400,
                        CODE_QUERY,
                        &format!("Parameter {name} must be an Edm.String literal such as '4711'"),
                    );
                }
            }
        }
        if let Some(missing) = function
            .parameters
            .iter()
            .find(|name| !parameters.contains_key(**name))
        {
            return call.error(400, CODE_QUERY, &format!("Parameter {missing} is missing"));
        }
        if call.service.name == "API_SLS_DOC_WITH_CREDIT_BLOCK" {
            self.credit_function(call, function.name, &parameters)
        } else {
            self.approval_function(call, &parameters)
        }
    }

    fn function_result(&self, call: &Call, name: &str, message_type: &str, message: &str) -> Reply {
        let result = json!({
            "__metadata": { "type": format!("{}.ReturnMessage", call.service.namespace) },
            "MessageType": message_type,
            "Message": message,
        });
        let body = match self.function_shape {
            FunctionShape::Wrapped => {
                let mut wrapped = Map::new();
                wrapped.insert(name.to_string(), result);
                json!({ "d": wrapped })
            }
            FunctionShape::Bare => json!({ "d": result }),
        };
        Reply::json(200, body.to_string())
    }

    fn refuse(&self, call: &Call, name: &str, message: &str) -> Reply {
        match self.refusal {
            BusinessRefusal::BadRequest => call.error(400, CODE_BUSINESS, message),
            BusinessRefusal::MessageTypeE => self.function_result(call, name, "E", message),
        }
    }

    fn credit_function(
        &mut self,
        call: &Call,
        name: &str,
        parameters: &BTreeMap<&str, String>,
    ) -> Reply {
        let document = parameters["SalesDocument"].clone();
        let category = &parameters["SDDocumentCategory"];
        let Some((_, orders)) = self
            .store
            .definition("A_SalesOrder")
            .map(|(s, d)| (s.clone(), d.clone()))
        else {
            return segment_not_found(call.service.name, "A_SalesOrder");
        };
        let Some(blocked_set) = call.service.set("A_CreditBlockedSalesDocument") else {
            return segment_not_found(call.service.name, "A_CreditBlockedSalesDocument");
        };
        let Ok(order_index) = self
            .store
            .find_by_predicate("A_SalesOrder", &format!("'{document}'"))
        else {
            return self.refuse(
                call,
                name,
                &format!("Sales document {document} does not exist"),
            );
        };
        let order = self.store.rows("A_SalesOrder")[order_index].clone();
        if !may_read(call.user, &orders, &order) {
            return self.denied(call, &orders, &order, false);
        }
        if name != "CheckCreditBlock" && !may_change(call.user, &orders, &order) {
            return self.denied(call, &orders, &order, true);
        }
        if category != "C" {
            return self.refuse(
                call,
                name,
                &format!("Sales document category {category} is not supported; sales orders are C"),
            );
        }
        let blocked = self
            .store
            .find_by_predicate(blocked_set.name, &format!("'{document}'"))
            .ok();
        let status = order
            .values
            .get("TotalCreditCheckStatus")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let Some(blocked) = blocked else {
            if name == "CheckCreditBlock" {
                return self.function_result(
                    call,
                    name,
                    "S",
                    &format!("Sales document {document} is not blocked by the credit check"),
                );
            }
            return self.refuse(
                call,
                name,
                &format!("Sales document {document} is not blocked by the credit check"),
            );
        };
        let mut changed = Map::new();
        let message = match name {
            "CheckCreditBlock" => {
                return self.function_result(
                    call,
                    name,
                    "W",
                    &format!(
                        "Sales document {document} is blocked by the credit check (status {status})"
                    ),
                );
            }
            "ReleaseCreditBlock" => {
                changed.insert("TotalCreditCheckStatus".into(), json!("D"));
                format!("Credit block of sales document {document} released")
            }
            _ => {
                let reason = parameters["SalesDocumentRjcnReason"].clone();
                if self
                    .store
                    .find_by_predicate(
                        "A_SalesDocumentRjcnReason",
                        &format!("'{}'", reason.replace('\'', "''")),
                    )
                    .is_err()
                {
                    return self.refuse(
                        call,
                        name,
                        &format!("Rejection reason {reason} is not defined"),
                    );
                }
                changed.insert("OverallSDDocumentRejectionSts".into(), json!("C"));
                for item in self.store.rows_mut("A_SalesOrderItem") {
                    if item.values.get("SalesOrder") == Some(&json!(document)) {
                        item.values
                            .insert("SalesDocumentRjcnReason".into(), json!(reason));
                    }
                }
                changed.insert("SalesDocumentRjcnReason".into(), json!(reason));
                format!("Sales document {document} rejected ({reason})")
            }
        };
        let mut order = order;
        for (field, value) in &changed {
            if orders.prop(field).is_some() {
                order.values.insert(field.clone(), value.clone());
            }
        }
        Inner::touch(&orders, &mut order);
        self.store.rows_mut("A_SalesOrder")[order_index] = order;
        self.store.rows_mut(blocked_set.name).remove(blocked);
        self.changes.push(Change {
            user: call.user.id.clone(),
            method: "POST".into(),
            entity: format!("{name}(SalesDocument='{document}')"),
            fields: changed,
        });
        self.function_result(call, name, "S", &message)
    }

    fn approval_function(&mut self, call: &Call, parameters: &BTreeMap<&str, String>) -> Reply {
        let order = &parameters["SalesOrder"];
        let Some((_, orders)) = self
            .store
            .definition("A_SalesOrder")
            .map(|(s, d)| (s.clone(), d.clone()))
        else {
            return segment_not_found(call.service.name, "A_SalesOrder");
        };
        match self
            .store
            .find_by_predicate("A_SalesOrder", &format!("'{}'", order.replace('\'', "''")))
        {
            Err(_) => segment_not_found(call.service.name, "A_SalesOrder"),
            Ok(index) => {
                let row = &self.store.rows("A_SalesOrder")[index];
                if !may_change(call.user, &orders, row) {
                    return self.denied(call, &orders, row, true);
                }
                call.error(
                    400,
                    CODE_BUSINESS,
                    &format!("Sales order {order} has no open approval request"),
                )
            }
        }
    }
}
