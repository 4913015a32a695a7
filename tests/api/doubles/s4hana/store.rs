//! The double's data: the rows of every entity set in wire form (what S/4
//! sends, s4hana.md §3.2), loaded from `tests/fixtures/s4-demo-data.json` and
//! checked against the model when loaded, so the fixture cannot drift from
//! the types (a decimal with the wrong scale, a date that is not midnight, a
//! missing property all stop the double from starting). ETags are kept per
//! row: for `LastChangeDateTime` in 100 ns ticks (7 decimal places, finer
//! than the milliseconds in the body, as S/4's are); for an order text a
//! digest of its `LongText` (so every change of the text is a new ETag).

use super::model::{self, EntitySet, Kind, Prop, Service, Unit};
use super::query::{QueryError, Val, civil_from_days, parse_decimal, parse_key, wire_value};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

static FIXTURE: &str = include_str!("../../../fixtures/s4-demo-data.json");

/// One entity: its properties in wire form and, for entity types whose ETag
/// comes from a `DateTimeOffset`, the 100 ns ticks behind it.
#[derive(Debug, Clone)]
pub struct Row {
    pub values: Map<String, Value>,
    pub ticks: Option<i64>,
}

/// The model and the rows of every entity set.
#[derive(Debug, Clone)]
pub struct Store {
    pub services: Vec<Service>,
    tables: BTreeMap<String, Vec<Row>>,
}

const DAY_MS: i64 = 86_400_000;

/// Wire form of a date (`/Date(ms)/`).
pub fn wire_date(ms: i64) -> Value {
    Value::String(format!("/Date({ms})/"))
}

/// Wire form of a date-time (`/Date(ms+0000)/`).
pub fn wire_date_time(ms: i64) -> Value {
    Value::String(format!("/Date({ms}+0000)/"))
}

/// `W/"datetimeoffset'2026-11-30T08%3A12%3A05.1230000Z'"` from 100 ns ticks.
pub fn etag_from_ticks(ticks: i64) -> String {
    let seconds = ticks.div_euclid(10_000_000);
    let fraction = ticks.rem_euclid(10_000_000);
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let second_of_day = seconds.rem_euclid(86_400);
    format!(
        "W/\"datetimeoffset'{year:04}-{month:02}-{day:02}T{:02}%3A{:02}%3A{:02}.{fraction:07}Z'\"",
        second_of_day / 3600,
        second_of_day % 3600 / 60,
        second_of_day % 60
    )
}

/// Check one wire value against its property; `row` gives the currency or
/// unit a decimal is formatted with. `exact_scale` demands the wire scale
/// (stored data); writes only need to fit precision and scale.
pub fn check_value(
    prop: &Prop,
    value: &Value,
    row: &Map<String, Value>,
    exact_scale: bool,
) -> Result<(), String> {
    let name = prop.name;
    match (prop.kind, value) {
        (Kind::Date | Kind::Dto(_), Value::Null) => Ok(()),
        (_, Value::Null) => Err(format!("{name} may not be null")),
        (Kind::Str(max), Value::String(text)) => {
            if max > 0 && text.chars().count() > max as usize {
                Err(format!("{name} is longer than {max} characters"))
            } else {
                Ok(())
            }
        }
        (Kind::Dec(precision, scale), Value::String(text)) => {
            if parse_decimal(text).is_none() {
                return Err(format!("{name}: '{text}' is not a decimal"));
            }
            let digits = text.trim_start_matches('-');
            let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
            if fraction.len() > scale as usize
                || whole.trim_start_matches('0').len() > (precision - scale) as usize
            {
                return Err(format!(
                    "{name}: '{text}' does not fit Edm.Decimal({precision},{scale})"
                ));
            }
            if exact_scale {
                let wanted = match prop.unit {
                    Some(Unit::Currency(unit)) => model::currency_decimals(row_text(row, unit)),
                    Some(Unit::Measure(unit)) => model::unit_decimals(row_text(row, unit)),
                    None => scale,
                };
                if fraction.len() != wanted as usize {
                    return Err(format!(
                        "{name}: '{text}' should have {wanted} decimal places"
                    ));
                }
            }
            Ok(())
        }
        (Kind::Date, Value::String(text)) => match text
            .strip_prefix("/Date(")
            .and_then(|rest| rest.strip_suffix(")/"))
        {
            Some(inner) if inner.parse::<i64>().is_ok_and(|ms| ms % DAY_MS == 0) => Ok(()),
            _ => Err(format!(
                "{name}: '{text}' is not a date of the form /Date(<midnight UTC in ms>)/"
            )),
        },
        (Kind::Dto(_), Value::String(text)) => {
            if text.starts_with("/Date(")
                && text.ends_with(")/")
                && wire_value(prop.kind, value).is_ok()
            {
                Ok(())
            } else {
                Err(format!(
                    "{name}: '{text}' is not of the form /Date(<ms>+0000)/"
                ))
            }
        }
        (Kind::Bool, Value::Bool(_)) => Ok(()),
        (Kind::Guid, Value::String(text)) if text.len() == 36 => Ok(()),
        (kind, value) => Err(format!("{name}: {value} is not a valid {}", kind.edm())),
    }
}

fn row_text<'a>(row: &'a Map<String, Value>, name: &str) -> &'a str {
    row.get(name).and_then(Value::as_str).unwrap_or("")
}

impl Store {
    /// The demo data set of s4-demo-data.md.
    pub fn demo() -> Store {
        Store::from_json(FIXTURE)
            .unwrap_or_else(|error| panic!("tests/fixtures/s4-demo-data.json: {error}"))
    }

    /// A data set in the fixture's shape: `{service: {entity set: [rows]}}`.
    pub fn from_json(text: &str) -> Result<Store, String> {
        let document: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
        let Some(document) = document.as_object() else {
            return Err("the data set is not a JSON object".into());
        };
        let services = model::services();
        let mut tables = BTreeMap::new();
        for service in &services {
            let given = document.get(service.name).and_then(Value::as_object);
            for set in &service.sets {
                let rows = given
                    .and_then(|sets| sets.get(set.name))
                    .and_then(Value::as_array)
                    .ok_or_else(|| format!("{}/{} is missing", service.name, set.name))?;
                let mut table = Vec::new();
                for (index, row) in rows.iter().enumerate() {
                    let values = row
                        .as_object()
                        .cloned()
                        .ok_or_else(|| format!("{}[{index}] is not an object", set.name))?;
                    check_row(set, &values)
                        .map_err(|error| format!("{}[{index}]: {error}", set.name))?;
                    let ticks = ticks_of(set, &values);
                    table.push(Row { values, ticks });
                }
                tables.insert(set.name.to_string(), table);
            }
            if let Some(sets) = given
                && let Some(unknown) = sets.keys().find(|name| service.set(name).is_none())
            {
                return Err(format!(
                    "{}/{unknown} is not an entity set of the model",
                    service.name
                ));
            }
        }
        if let Some(unknown) = document.keys().find(|name| {
            !name.starts_with('_') && !services.iter().any(|service| service.name == name.as_str())
        }) {
            return Err(format!("{unknown} is not a service of the model"));
        }
        Ok(Store { services, tables })
    }

    pub fn service(&self, name: &str) -> Option<&Service> {
        self.services.iter().find(|service| service.name == name)
    }

    /// The definition of an entity set (set names are unique across the six
    /// services) and its service.
    pub fn definition(&self, set: &str) -> Option<(&Service, &EntitySet)> {
        self.services
            .iter()
            .find_map(|service| service.set(set).map(|definition| (service, definition)))
    }

    pub fn rows(&self, set: &str) -> &[Row] {
        self.tables.get(set).map_or(&[], Vec::as_slice)
    }

    pub fn rows_mut(&mut self, set: &str) -> &mut Vec<Row> {
        self.tables.entry(set.to_string()).or_default()
    }

    /// The index of the row with this key.
    pub fn find(&self, set: &EntitySet, key: &[(String, Val)]) -> Option<usize> {
        self.rows(set.name).iter().position(|row| {
            key.iter().all(|(name, wanted)| {
                let kind = set.prop(name).map_or(Kind::Str(0), |prop| prop.kind);
                row.values
                    .get(name)
                    .and_then(|value| wire_value(kind, value).ok())
                    .as_ref()
                    == Some(wanted)
            })
        })
    }

    /// The row of `set` with the key predicate `predicate` (`'4711'`,
    /// `BusinessPartner='10051',AddressID='22002'`).
    pub fn find_by_predicate(&self, set: &str, predicate: &str) -> Result<usize, String> {
        let (_, definition) = self
            .definition(set)
            .ok_or_else(|| format!("no entity set {set}"))?;
        let key = parse_key(definition, predicate).map_err(|QueryError(message)| message)?;
        self.find(definition, &key)
            .ok_or_else(|| format!("no {set}({predicate})"))
    }

    /// Set one property of one row (test set-up: other codes, other values).
    /// The value is checked against the model like fixture data.
    pub fn set_field(
        &mut self,
        set: &str,
        predicate: &str,
        field: &str,
        value: Value,
    ) -> Result<(), String> {
        let index = self.find_by_predicate(set, predicate)?;
        let (_, definition) = self.definition(set).ok_or("no entity set")?;
        let definition = definition.clone();
        let prop = definition
            .prop(field)
            .ok_or_else(|| format!("{field} is not a property of {set}"))?;
        let row = &mut self.rows_mut(set)[index];
        check_value(prop, &value, &row.values, false)?;
        row.values.insert(field.to_string(), value);
        row.ticks = ticks_of(&definition, &row.values);
        Ok(())
    }

    /// The rows a navigation property leads to from `parent`.
    pub fn children<'a>(&'a self, nav: &model::Nav, parent: &Map<String, Value>) -> Vec<&'a Row> {
        self.rows(nav.target)
            .iter()
            .filter(|row| {
                nav.join.iter().all(|(from, to)| {
                    parent.get(*from).is_some() && parent.get(*from) == row.values.get(*to)
                })
            })
            .collect()
    }

    /// The ETag of a row, when its type has a `ConcurrencyMode="Fixed"`
    /// property.
    pub fn etag(set: &EntitySet, row: &Row) -> Option<String> {
        let prop = set.etag_prop()?;
        match prop.kind {
            Kind::Dto(_) => row.ticks.map(etag_from_ticks),
            // A long text (no length): a digest of it, not the text itself
            // (it may hold line breaks, which no header may).
            Kind::Str(0) => Some(format!(
                "W/\"'{}'\"",
                digest(row_text(&row.values, prop.name))
            )),
            _ => Some(format!("W/\"'{}'\"", row_text(&row.values, prop.name))),
        }
    }
}

fn check_row(set: &EntitySet, values: &Map<String, Value>) -> Result<(), String> {
    for prop in &set.props {
        let value = values
            .get(prop.name)
            .ok_or_else(|| format!("{} is missing", prop.name))?;
        check_value(prop, value, values, true)?;
    }
    if let Some(extra) = values.keys().find(|name| set.prop(name).is_none()) {
        return Err(format!("{extra} is not a property of {}", set.type_name));
    }
    Ok(())
}

/// The first 16 hex digits of the SHA-256 of `text`.
fn digest(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// 100 ns ticks of the row's `DateTimeOffset` ETag property.
fn ticks_of(set: &EntitySet, values: &Map<String, Value>) -> Option<i64> {
    let prop = set
        .etag_prop()
        .filter(|prop| matches!(prop.kind, Kind::Dto(_)))?;
    match values
        .get(prop.name)
        .map(|value| wire_value(prop.kind, value))
    {
        Some(Ok(Val::Time(ms))) => Some(ms * 10_000),
        _ => None,
    }
}
