//! What goes on the wire (s4hana.md §3.1, §3.2, §3.4): the V2 JSON envelopes
//! written by hand so that every entity starts with `__metadata` and the
//! properties keep the model's order, a small Atom XML rendering for callers
//! that ask for neither `Accept: application/json` nor `$format=json`, the
//! SAP error body, the service document and a `$metadata` document generated
//! from the model (hand-made, not SAP's EDMX).

use super::model::{EntitySet, Kind, Service, Unit};
use super::query::{Expansion, Selection, Val, civil_from_days, wire_value};
use super::store::{Row, Store};
use serde_json::{Value, json};
use std::fmt::Write;

/// The base URL of one service: `http://127.0.0.1:<port>/sap/opu/odata/sap/<SERVICE>`.
pub fn service_base(origin: &str, service: &str) -> String {
    format!("{origin}/sap/opu/odata/sap/{service}")
}

/// `('4711')`, `(BusinessPartner='10051',AddressID='22002')`, date keys as
/// `datetime'9999-12-31T00%3A00%3A00'`.
pub fn key_predicate(set: &EntitySet, row: &Row) -> String {
    let keys: Vec<_> = set.keys().collect();
    let literal = |name: &str, kind: Kind| -> String {
        let value = row.values.get(name).cloned().unwrap_or(Value::Null);
        match wire_value(kind, &value) {
            Ok(Val::Time(ms)) => format!("datetime'{}'", iso(ms, false).replace(':', "%3A")),
            _ => format!("'{}'", value.as_str().unwrap_or("").replace('\'', "''")),
        }
    };
    if let [key] = keys.as_slice() {
        return format!("({})", literal(key.name, key.kind));
    }
    let parts: Vec<String> = keys
        .iter()
        .map(|key| format!("{}={}", key.name, literal(key.name, key.kind)))
        .collect();
    format!("({})", parts.join(","))
}

/// ms since 1970 as `2026-12-08T00:00:00` (or with 7 fraction digits and `Z`).
pub fn iso(ms: i64, precise: bool) -> String {
    let (year, month, day) = civil_from_days(ms.div_euclid(86_400_000));
    let ms_of_day = ms.rem_euclid(86_400_000);
    let (hour, minute, second, millis) = (
        ms_of_day / 3_600_000,
        ms_of_day % 3_600_000 / 60_000,
        ms_of_day % 60_000 / 1000,
        ms_of_day % 1000,
    );
    let mut text = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}");
    if precise {
        let _ = write!(text, ".{millis:03}0000Z");
    }
    text
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

/// Renders entities of one service for one caller.
pub struct Renderer<'a> {
    pub store: &'a Store,
    pub service: &'a Service,
    pub base: String,
    /// Whether the caller may see a row (order visibility).
    pub visible: &'a dyn Fn(&EntitySet, &Row) -> bool,
}

impl Renderer<'_> {
    fn uri(&self, set: &EntitySet, row: &Row) -> String {
        format!("{}/{}{}", self.base, set.name, key_predicate(set, row))
    }

    /// One entity as V2 JSON.
    pub fn entity(
        &self,
        out: &mut String,
        set: &EntitySet,
        row: &Row,
        select: Option<&Selection>,
        expand: &Expansion,
    ) {
        let uri = self.uri(set, row);
        out.push_str("{\"__metadata\":{\"id\":");
        out.push_str(&quote(&uri));
        out.push_str(",\"uri\":");
        out.push_str(&quote(&uri));
        out.push_str(",\"type\":");
        out.push_str(&quote(&format!(
            "{}.{}",
            self.service.namespace, set.type_name
        )));
        if let Some(etag) = Store::etag(set, row) {
            out.push_str(",\"etag\":");
            out.push_str(&quote(&etag));
        }
        out.push('}');
        let selected = |name: &str| {
            select.is_none_or(|selection| selection.all || selection.names.contains(name))
        };
        for prop in &set.props {
            if selected(prop.name) {
                let value = row.values.get(prop.name).cloned().unwrap_or(Value::Null);
                let _ = write!(out, ",{}:{}", quote(prop.name), value);
            }
        }
        for nav in &set.navs {
            let Some(target) = self.service.set(nav.target) else {
                continue;
            };
            match expand.0.get(nav.name) {
                Some(inner) => {
                    let nested = select
                        .filter(|selection| !selection.all)
                        .and_then(|selection| selection.nested.get(nav.name))
                        .filter(|nested| !nested.all);
                    let children: Vec<&Row> = self
                        .store
                        .children(nav, &row.values)
                        .into_iter()
                        .filter(|child| (self.visible)(target, child))
                        .collect();
                    let _ = write!(out, ",{}:", quote(nav.name));
                    if nav.many {
                        out.push_str("{\"results\":[");
                        for (index, child) in children.iter().enumerate() {
                            if index > 0 {
                                out.push(',');
                            }
                            self.entity(out, target, child, nested, inner);
                        }
                        out.push_str("]}");
                    } else {
                        match children.first() {
                            Some(child) => self.entity(out, target, child, nested, inner),
                            None => out.push_str("null"),
                        }
                    }
                }
                None if selected(nav.name) => {
                    let _ = write!(
                        out,
                        ",{}:{{\"__deferred\":{{\"uri\":{}}}}}",
                        quote(nav.name),
                        quote(&format!("{uri}/{}", nav.name))
                    );
                }
                None => {}
            }
        }
        out.push('}');
    }

    /// `{"d": {…}}`.
    pub fn single(
        &self,
        set: &EntitySet,
        row: &Row,
        select: Option<&Selection>,
        expand: &Expansion,
    ) -> String {
        let mut out = String::from("{\"d\":");
        self.entity(&mut out, set, row, select, expand);
        out.push('}');
        out
    }

    /// `{"d": {"results": […]}}`, with `"__count"` (a string) when asked.
    pub fn collection(
        &self,
        set: &EntitySet,
        rows: &[&Row],
        count: Option<usize>,
        select: Option<&Selection>,
        expand: &Expansion,
    ) -> String {
        let mut out = String::from("{\"d\":{");
        if let Some(count) = count {
            let _ = write!(out, "\"__count\":\"{count}\",");
        }
        out.push_str("\"results\":[");
        for (index, row) in rows.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            self.entity(&mut out, set, row, select, expand);
        }
        out.push_str("]}}");
        out
    }

    // ------------------------------------------------------------- Atom

    fn atom_entry(
        &self,
        out: &mut String,
        set: &EntitySet,
        row: &Row,
        select: Option<&Selection>,
        expand: &Expansion,
    ) {
        let uri = self.uri(set, row);
        let relative = format!("{}{}", set.name, key_predicate(set, row));
        out.push_str("<entry");
        if let Some(etag) = Store::etag(set, row) {
            let _ = write!(out, " m:etag=\"{}\"", xml(&etag));
        }
        let _ = write!(
            out,
            "><id>{}</id><title type=\"text\">{}</title><updated>{}</updated><category term=\"{}.{}\" scheme=\"http://schemas.microsoft.com/ado/2007/08/dataservices/scheme\"/><link href=\"{}\" rel=\"edit\" title=\"{}\"/>",
            xml(&uri),
            xml(&relative),
            iso(now_ms(), true),
            self.service.namespace,
            set.type_name,
            xml(&relative),
            set.type_name
        );
        for nav in &set.navs {
            let Some(target) = self.service.set(nav.target) else {
                continue;
            };
            let kind = if nav.many { "feed" } else { "entry" };
            let _ = write!(
                out,
                "<link href=\"{}/{}\" rel=\"http://schemas.microsoft.com/ado/2007/08/dataservices/related/{}\" type=\"application/atom+xml;type={kind}\" title=\"{}\">",
                xml(&relative),
                nav.name,
                nav.name,
                nav.name
            );
            if let Some(inner) = expand.0.get(nav.name) {
                out.push_str("<m:inline>");
                let children: Vec<&Row> = self
                    .store
                    .children(nav, &row.values)
                    .into_iter()
                    .filter(|child| (self.visible)(target, child))
                    .collect();
                if nav.many {
                    out.push_str("<feed>");
                    for child in children {
                        self.atom_entry(out, target, child, None, inner);
                    }
                    out.push_str("</feed>");
                } else if let Some(child) = children.first() {
                    self.atom_entry(out, target, child, None, inner);
                }
                out.push_str("</m:inline>");
            }
            out.push_str("</link>");
        }
        out.push_str("<content type=\"application/xml\"><m:properties>");
        for prop in &set.props {
            if select
                .is_some_and(|selection| !selection.all && !selection.names.contains(prop.name))
            {
                continue;
            }
            let value = row.values.get(prop.name).cloned().unwrap_or(Value::Null);
            let type_attribute = match prop.kind {
                Kind::Str(_) => String::new(),
                kind => format!(" m:type=\"{}\"", kind.edm()),
            };
            match wire_value(prop.kind, &value) {
                Ok(Val::Null) | Err(_) => {
                    let _ = write!(out, "<d:{}{type_attribute} m:null=\"true\"/>", prop.name);
                }
                Ok(val) => {
                    let text = match val {
                        Val::Time(ms) => iso(ms, matches!(prop.kind, Kind::Dto(_))),
                        Val::Bool(flag) => flag.to_string(),
                        _ => value.as_str().unwrap_or("").to_string(),
                    };
                    let _ = write!(
                        out,
                        "<d:{}{type_attribute}>{}</d:{}>",
                        prop.name,
                        xml(&text),
                        prop.name
                    );
                }
            }
        }
        out.push_str("</m:properties></content></entry>");
    }

    pub fn atom_single(
        &self,
        set: &EntitySet,
        row: &Row,
        select: Option<&Selection>,
        expand: &Expansion,
    ) -> String {
        let mut out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>".to_string();
        let mut entry = String::new();
        self.atom_entry(&mut entry, set, row, select, expand);
        out.push_str(&entry.replacen(
            "<entry",
            &format!("<entry {}", atom_namespaces(&self.base)),
            1,
        ));
        out
    }

    pub fn atom_feed(
        &self,
        set: &EntitySet,
        rows: &[&Row],
        select: Option<&Selection>,
        expand: &Expansion,
    ) -> String {
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><feed {}><id>{}/{}</id><title type=\"text\">{}</title><updated>{}</updated><link href=\"{}\" rel=\"self\" title=\"{}\"/>",
            atom_namespaces(&self.base),
            xml(&self.base),
            set.name,
            set.name,
            iso(now_ms(), true),
            set.name,
            set.name
        );
        for row in rows {
            self.atom_entry(&mut out, set, row, select, expand);
        }
        out.push_str("</feed>");
        out
    }
}

fn atom_namespaces(base: &str) -> String {
    format!(
        "xml:base=\"{}/\" xmlns=\"http://www.w3.org/2005/Atom\" xmlns:m=\"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata\" xmlns:d=\"http://schemas.microsoft.com/ado/2007/08/dataservices\"",
        xml(base)
    )
}

/// XML text and attribute escaping.
pub fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

// ------------------------------------------------------------------ errors

/// The SAP error body of s4hana.md §3.4.
pub fn error_body(service: &str, code: &str, message: &str) -> Value {
    let now = now_ms();
    let (year, month, day) = civil_from_days(now.div_euclid(86_400_000));
    let ms_of_day = now.rem_euclid(86_400_000);
    let timestamp = format!(
        "{year:04}{month:02}{day:02}{:02}{:02}{:02}.{:03}0000",
        ms_of_day / 3_600_000,
        ms_of_day % 3_600_000 / 60_000,
        ms_of_day % 60_000 / 1000,
        ms_of_day % 1000
    );
    let transaction = uuid::Uuid::new_v4().simple().to_string().to_uppercase();
    json!({ "error": {
        "code": code,
        "message": { "lang": "en", "value": message },
        "innererror": {
            "application": {
                "component_id": "",
                "service_namespace": "/SAP/",
                "service_id": service,
                "service_version": "0001"
            },
            "transactionid": transaction,
            "timestamp": timestamp,
            "Error_Resolution": {
                "SAP_Transaction": "S/4HANA test double: look the request up in the double's recording by this transaction id",
                "SAP_Note": "No SAP Note: this answer comes from the loopback S/4HANA test double"
            },
            "errordetails": [
                { "code": code, "message": message, "propertyref": "", "severity": "error", "target": "" }
            ]
        }
    }})
}

// -------------------------------------------------- service doc, $metadata

pub fn service_document_json(service: &Service) -> String {
    let names: Vec<&str> = service.sets.iter().map(|set| set.name).collect();
    json!({ "d": { "EntitySets": names } }).to_string()
}

pub fn service_document_xml(service: &Service, base: &str) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><app:service xml:base=\"{}/\" xmlns:app=\"http://www.w3.org/2007/app\" xmlns:atom=\"http://www.w3.org/2005/Atom\"><app:workspace><atom:title type=\"text\">Data</atom:title>",
        xml(base)
    );
    for set in &service.sets {
        let _ = write!(
            out,
            "<app:collection href=\"{}\"><atom:title type=\"text\">{}</atom:title></app:collection>",
            set.name, set.name
        );
    }
    out.push_str("</app:workspace></app:service>");
    out
}

fn flag(value: bool) -> &'static str {
    if value { "true" } else { "false" }
}

/// A minimal EDMX document describing the model (written from the model, not
/// taken from SAP): entity types with keys, properties and their facets,
/// navigation properties with generated associations, entity sets with
/// `sap:creatable`/`sap:updatable`/`sap:deletable`, function imports.
pub fn metadata(service: &Service) -> String {
    let ns = service.namespace;
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<edmx:Edmx Version=\"1.0\" xmlns:edmx=\"http://schemas.microsoft.com/ado/2007/06/edmx\" xmlns:m=\"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata\" xmlns:sap=\"http://www.sap.com/Protocols/SAPData\">\n <edmx:DataServices m:DataServiceVersion=\"2.0\">\n",
    );
    let _ = writeln!(
        out,
        "  <Schema Namespace=\"{ns}\" xml:lang=\"en\" sap:schema-version=\"1\" xmlns=\"http://schemas.microsoft.com/ado/2008/09/edm\">"
    );
    let mut associations = Vec::new();
    for set in &service.sets {
        let _ = writeln!(
            out,
            "   <EntityType Name=\"{}\" sap:content-version=\"1\">",
            set.type_name
        );
        out.push_str("    <Key>");
        for key in set.keys() {
            let _ = write!(out, "<PropertyRef Name=\"{}\"/>", key.name);
        }
        out.push_str("</Key>\n");
        for prop in &set.props {
            let _ = write!(
                out,
                "    <Property Name=\"{}\" Type=\"{}\"",
                prop.name,
                prop.kind.edm()
            );
            if prop.key {
                out.push_str(" Nullable=\"false\"");
            }
            match prop.kind {
                Kind::Str(length) if length > 0 => {
                    let _ = write!(out, " MaxLength=\"{length}\"");
                }
                Kind::Dec(precision, scale) => {
                    let _ = write!(out, " Precision=\"{precision}\" Scale=\"{scale}\"");
                }
                Kind::Date => {
                    out.push_str(" Precision=\"0\" sap:display-format=\"Date\"");
                }
                Kind::Dto(precision) => {
                    let _ = write!(out, " Precision=\"{precision}\"");
                }
                _ => {}
            }
            if prop.etag {
                out.push_str(" ConcurrencyMode=\"Fixed\"");
            }
            if let Some(unit) = prop.unit {
                let _ = write!(out, " sap:unit=\"{}\"", unit.property());
                if let Unit::Currency(_) = unit {
                    out.push_str(" sap:semantics-of-unit=\"currency-code\"");
                }
            }
            if !prop.updatable {
                out.push_str(" sap:creatable=\"false\" sap:updatable=\"false\"");
            }
            if !prop.filterable {
                out.push_str(" sap:sortable=\"false\" sap:filterable=\"false\"");
            }
            out.push_str("/>\n");
        }
        for nav in &set.navs {
            let Some(target) = service.set(nav.target) else {
                continue;
            };
            let association = format!("assoc_{}_{}", set.type_name, nav.name);
            let _ = writeln!(
                out,
                "    <NavigationProperty Name=\"{}\" Relationship=\"{ns}.{association}\" FromRole=\"FromRole_{association}\" ToRole=\"ToRole_{association}\"/>",
                nav.name
            );
            associations.push((association, set, target, nav.many));
        }
        out.push_str("   </EntityType>\n");
    }
    if !service.functions.is_empty() && ns == "API_SLS_DOC_WITH_CREDIT_BLOCK" {
        out.push_str("   <ComplexType Name=\"ReturnMessage\"><Property Name=\"MessageType\" Type=\"Edm.String\"/><Property Name=\"Message\" Type=\"Edm.String\"/></ComplexType>\n");
    }
    for (association, from, to, many) in &associations {
        let _ = writeln!(
            out,
            "   <Association Name=\"{association}\"><End Type=\"{ns}.{}\" Multiplicity=\"1\" Role=\"FromRole_{association}\"/><End Type=\"{ns}.{}\" Multiplicity=\"{}\" Role=\"ToRole_{association}\"/></Association>",
            from.type_name,
            to.type_name,
            if *many { "*" } else { "0..1" }
        );
    }
    let _ = writeln!(
        out,
        "   <EntityContainer Name=\"{ns}_Entities\" m:IsDefaultEntityContainer=\"true\" sap:supported-formats=\"atom json xlsx\">"
    );
    for set in &service.sets {
        let _ = writeln!(
            out,
            "    <EntitySet Name=\"{}\" EntityType=\"{ns}.{}\" sap:creatable=\"{}\" sap:updatable=\"{}\" sap:deletable=\"{}\" sap:content-version=\"1\"/>",
            set.name,
            set.type_name,
            flag(set.creatable),
            flag(set.updatable),
            flag(set.deletable)
        );
    }
    for (association, from, to, _) in &associations {
        let _ = writeln!(
            out,
            "    <AssociationSet Name=\"{association}_set\" Association=\"{ns}.{association}\" sap:creatable=\"false\" sap:updatable=\"false\" sap:deletable=\"false\" sap:content-version=\"1\"><End EntitySet=\"{}\" Role=\"FromRole_{association}\"/><End EntitySet=\"{}\" Role=\"ToRole_{association}\"/></AssociationSet>",
            from.name, to.name
        );
    }
    for function in &service.functions {
        let returns = if ns == "API_SLS_DOC_WITH_CREDIT_BLOCK" {
            format!("ReturnType=\"{ns}.ReturnMessage\"")
        } else {
            format!("ReturnType=\"{ns}.A_SalesOrderType\" EntitySet=\"A_SalesOrder\"")
        };
        let _ = write!(
            out,
            "    <FunctionImport Name=\"{}\" {returns} m:HttpMethod=\"POST\">",
            function.name
        );
        for parameter in function.parameters {
            let _ = write!(
                out,
                "<Parameter Name=\"{parameter}\" Type=\"Edm.String\" Mode=\"In\"/>"
            );
        }
        out.push_str("</FunctionImport>\n");
    }
    out.push_str("   </EntityContainer>\n  </Schema>\n </edmx:DataServices>\n</edmx:Edmx>\n");
    out
}
