//! OData V2 URL grammar as s4hana.md §3.3 gives it: percent-decoding, literals
//! (`'…'` with doubled quotes, `datetime'…'`, `datetimeoffset'…'`, `guid'…'`,
//! numbers with an optional `M`, `true`/`false`/`null`), key predicates
//! (single, named, compound, date keys), the system query options and a
//! `$filter` parser and evaluator (`eq ne gt ge lt le`, `and`, `or`, `not`,
//! parentheses, `substringof`, `startswith`, `endswith`, `tolower`,
//! `toupper`), type-checked against the model: every error is a
//! [`QueryError`], which the server answers with 400.

use super::model::{EntitySet, Kind};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A bad URL: the message S/4 would show (answered as HTTP 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, QueryError> {
    Err(QueryError(message.into()))
}

/// Percent-decoding; `+` becomes a space when `plus_is_space` (query
/// strings, form bodies).
pub fn percent_decode(text: &str, plus_is_space: bool) -> Result<String, QueryError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'%' => {
                let hex = text
                    .get(index + 1..index + 3)
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                let Some(byte) = hex else {
                    return fail(format!("Malformed percent-encoding in '{text}'"));
                };
                out.push(byte);
                index += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                index += 1;
            }
            byte => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(out).or_else(|_| fail(format!("'{text}' is not UTF-8 once decoded")))
}

/// `application/x-www-form-urlencoded` pairs (also used by the
/// Destination and connectivity doubles' token endpoints).
pub fn form_pairs(text: &str) -> Result<Vec<(String, String)>, QueryError> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Ok((percent_decode(name, true)?, percent_decode(value, true)?))
        })
        .collect()
}

// ---------------------------------------------------------------- values

/// A typed value: stored wire values and literals both become one.
/// Decimals are exact (scaled by 10^9), times are ms since 1970 UTC.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Val {
    Null,
    Str(String),
    Dec(i128),
    Time(i64),
    Bool(bool),
    Guid(String),
}

const DEC_SCALE: u32 = 9;

/// A decimal string (`"1800.00"`, `"-5"`) as an exact value scaled by 10^9.
pub fn parse_decimal(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || !whole.bytes().all(|byte| byte.is_ascii_digit())
        || !fraction.bytes().all(|byte| byte.is_ascii_digit())
        || fraction.len() > DEC_SCALE as usize
        || whole.len() > 27
        || (digits.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let whole: i128 = whole.parse().ok()?;
    let fraction_value: i128 = if fraction.is_empty() {
        0
    } else {
        fraction.parse::<i128>().ok()? * 10_i128.pow(DEC_SCALE - fraction.len() as u32)
    };
    let value = whole.checked_mul(10_i128.pow(DEC_SCALE))? + fraction_value;
    Some(if negative { -value } else { value })
}

/// `/Date(ms)/` or `/Date(ms+0000)/` (offset in minutes) as ms UTC.
pub fn parse_wire_date(text: &str) -> Option<i64> {
    let inner = text.strip_prefix("/Date(")?.strip_suffix(")/")?;
    let split = inner
        .char_indices()
        .skip(1)
        .find(|(_, c)| *c == '+' || *c == '-')
        .map(|(index, _)| index);
    match split {
        None => inner.parse().ok(),
        Some(index) => {
            let ms: i64 = inner[..index].parse().ok()?;
            let sign = if inner.as_bytes()[index] == b'+' {
                1
            } else {
                -1
            };
            let minutes: i64 = inner[index + 1..].parse().ok()?;
            Some(ms - sign * minutes * 60_000)
        }
    }
}

/// A stored wire value of a property as a typed value.
pub fn wire_value(kind: Kind, value: &Value) -> Result<Val, String> {
    match (kind, value) {
        (_, Value::Null) => Ok(Val::Null),
        (Kind::Str(_), Value::String(text)) => Ok(Val::Str(text.clone())),
        (Kind::Guid, Value::String(text)) => Ok(Val::Guid(text.to_ascii_lowercase())),
        (Kind::Dec(..), Value::String(text)) => parse_decimal(text)
            .map(Val::Dec)
            .ok_or_else(|| format!("'{text}' is not an Edm.Decimal string")),
        (Kind::Date | Kind::Dto(_), Value::String(text)) => parse_wire_date(text)
            .map(Val::Time)
            .ok_or_else(|| format!("'{text}' is not a /Date(…)/ value")),
        (Kind::Bool, Value::Bool(flag)) => Ok(Val::Bool(*flag)),
        (kind, value) => Err(format!("{value} is not a {}", kind.edm())),
    }
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The civil date (year, month, day) of days since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = if shifted >= 0 {
        shifted
    } else {
        shifted - 146_096
    } / 146_097;
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-12-01T00:00:00[.fff…]` (and, with `offset`, a trailing `Z` or
/// `±hh:mm`) as ms UTC.
fn parse_iso(text: &str, offset: bool) -> Option<i64> {
    let (body, offset_minutes) = if offset {
        if let Some(body) = text.strip_suffix('Z') {
            (body, 0)
        } else if text.len() > 6 && matches!(text.as_bytes()[text.len() - 6], b'+' | b'-') {
            let (body, zone) = text.split_at(text.len() - 6);
            let sign = if zone.starts_with('+') { 1 } else { -1 };
            let hours: i64 = zone.get(1..3)?.parse().ok()?;
            let minutes: i64 = zone.get(4..6)?.parse().ok()?;
            (body, sign * (hours * 60 + minutes))
        } else {
            (text, 0)
        }
    } else {
        (text, 0)
    };
    let (day, time) = body.split_once('T')?;
    let mut date = day.split('-');
    let year: i64 = date.next()?.parse().ok()?;
    let month: i64 = date.next()?.parse().ok()?;
    let day: i64 = date.next()?.parse().ok()?;
    if date.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut parts = clock.split(':');
    let hour: i64 = parts.next()?.parse().ok()?;
    let minute: i64 = parts.next()?.parse().ok()?;
    let second: i64 = parts.next().map_or(Some(0), |part| part.parse().ok())?;
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    if !fraction.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let millis: i64 = format!("{fraction:0<3}")[..3].parse().ok()?;
    let days = days_from_civil(year, month, day);
    Some(
        ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
            - offset_minutes * 60_000,
    )
}

// -------------------------------------------------------------- literals

/// A literal of the URL grammar, with the type it was written as.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Null,
    Str(String),
    Number(i128),
    DateTime(i64),
    DateTimeOffset(i64),
    Bool(bool),
    Guid(String),
}

impl Lit {
    fn value(&self) -> Val {
        match self {
            Lit::Null => Val::Null,
            Lit::Str(text) => Val::Str(text.clone()),
            Lit::Number(value) => Val::Dec(*value),
            Lit::DateTime(ms) | Lit::DateTimeOffset(ms) => Val::Time(*ms),
            Lit::Bool(flag) => Val::Bool(*flag),
            Lit::Guid(text) => Val::Guid(text.to_ascii_lowercase()),
        }
    }

    /// The literal as the value of a property of `kind` (key predicates,
    /// function parameters), or why it does not fit.
    pub fn for_kind(&self, kind: Kind) -> Result<Val, QueryError> {
        let fits = matches!(
            (kind, self),
            (Kind::Str(_), Lit::Str(_))
                | (Kind::Dec(..), Lit::Number(_))
                | (Kind::Date, Lit::DateTime(_))
                | (Kind::Dto(_), Lit::DateTimeOffset(_) | Lit::DateTime(_))
                | (Kind::Bool, Lit::Bool(_))
                | (Kind::Guid, Lit::Guid(_))
        );
        if fits {
            Ok(self.value())
        } else {
            fail(format!(
                "Invalid literal {self:?} for a value of type {}",
                kind.edm()
            ))
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Lit(Lit),
    Open,
    Close,
    Comma,
}

fn quoted(chars: &[char], start: usize) -> Result<(String, usize), QueryError> {
    // chars[start] is the opening quote; '' inside is one quote.
    let mut text = String::new();
    let mut index = start + 1;
    loop {
        match chars.get(index) {
            None => return fail("Unterminated string literal"),
            Some('\'') if chars.get(index + 1) == Some(&'\'') => {
                text.push('\'');
                index += 2;
            }
            Some('\'') => return Ok((text, index + 1)),
            Some(c) => {
                text.push(*c);
                index += 1;
            }
        }
    }
}

fn typed_literal(prefix: &str, text: &str) -> Result<Lit, QueryError> {
    match prefix {
        "datetime" => parse_iso(text, false)
            .map(Lit::DateTime)
            .ok_or_else(|| QueryError(format!("Invalid datetime literal '{text}'"))),
        "datetimeoffset" => parse_iso(text, true)
            .map(Lit::DateTimeOffset)
            .ok_or_else(|| QueryError(format!("Invalid datetimeoffset literal '{text}'"))),
        "guid" => {
            let valid = text.len() == 36
                && text.char_indices().all(|(index, c)| {
                    if [8, 13, 18, 23].contains(&index) {
                        c == '-'
                    } else {
                        c.is_ascii_hexdigit()
                    }
                });
            if valid {
                Ok(Lit::Guid(text.to_string()))
            } else {
                fail(format!("Invalid guid literal '{text}'"))
            }
        }
        other => fail(format!("Unsupported literal type {other}'…'")),
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, QueryError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        match c {
            ' ' | '\t' => index += 1,
            '(' => {
                tokens.push(Token::Open);
                index += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                index += 1;
            }
            ',' => {
                tokens.push(Token::Comma);
                index += 1;
            }
            '\'' => {
                let (string, next) = quoted(&chars, index)?;
                tokens.push(Token::Lit(Lit::Str(string)));
                index = next;
            }
            '-' | '0'..='9' => {
                let start = index;
                index += 1;
                while index < chars.len() && (chars[index].is_ascii_digit() || chars[index] == '.')
                {
                    index += 1;
                }
                let number: String = chars[start..index].iter().collect();
                if index < chars.len() && "MmDdLlFf".contains(chars[index]) {
                    index += 1;
                }
                let Some(value) = parse_decimal(&number) else {
                    return fail(format!("Invalid number literal '{number}'"));
                };
                tokens.push(Token::Lit(Lit::Number(value)));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = index;
                while index < chars.len()
                    && (chars[index].is_ascii_alphanumeric() || chars[index] == '_')
                {
                    index += 1;
                }
                let word: String = chars[start..index].iter().collect();
                if chars.get(index) == Some(&'\'') {
                    let (inner, next) = quoted(&chars, index)?;
                    tokens.push(Token::Lit(typed_literal(&word, &inner)?));
                    index = next;
                } else if chars.get(index) == Some(&'/') {
                    return fail(format!(
                        "Navigation paths in $filter ('{word}/…') are not supported"
                    ));
                } else {
                    tokens.push(match word.as_str() {
                        "true" => Token::Lit(Lit::Bool(true)),
                        "false" => Token::Lit(Lit::Bool(false)),
                        "null" => Token::Lit(Lit::Null),
                        _ => Token::Ident(word),
                    });
                }
            }
            other => return fail(format!("Invalid character '{other}' in the expression")),
        }
    }
    Ok(tokens)
}

/// One literal (a function import parameter such as `'4711'`).
pub fn parse_literal(text: &str) -> Result<Lit, QueryError> {
    match tokenize(text)?.as_slice() {
        [Token::Lit(lit)] => Ok(lit.clone()),
        _ => fail(format!("'{text}' is not a literal")),
    }
}

// ----------------------------------------------------------- key predicate

/// A key predicate `('4711')`, `(SalesOrder='4711')` or
/// `(BusinessPartner='10051',AddressID='22002')` as (property, value)
/// pairs in the set's key order.
pub fn parse_key(set: &EntitySet, predicate: &str) -> Result<Vec<(String, Val)>, QueryError> {
    let mut in_quote = false;
    let named = predicate.chars().any(|c| {
        if c == '\'' {
            in_quote = !in_quote;
        }
        c == '=' && !in_quote
    });
    if named {
        return parse_named_key(set, predicate);
    }
    let tokens = tokenize(predicate)?;
    let keys: Vec<_> = set.keys().collect();
    match (tokens.as_slice(), keys.as_slice()) {
        ([Token::Lit(lit)], [key]) => Ok(vec![(key.name.to_string(), lit.for_kind(key.kind)?)]),
        _ => fail(format!(
            "The key predicate ({predicate}) does not fit the key of {}",
            set.type_name
        )),
    }
}

fn parse_named_key(set: &EntitySet, predicate: &str) -> Result<Vec<(String, Val)>, QueryError> {
    // Split on commas outside quotes.
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut in_quote = false;
    for c in predicate.chars() {
        match c {
            '\'' => {
                in_quote = !in_quote;
                current.push(c);
            }
            ',' if !in_quote => pieces.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    pieces.push(current);
    let mut found: BTreeMap<String, Val> = BTreeMap::new();
    for piece in pieces {
        let Some((name, literal)) = piece.split_once('=') else {
            return fail(format!("Invalid key predicate ({predicate})"));
        };
        let name = name.trim();
        let Some(prop) = set.prop(name).filter(|prop| prop.key) else {
            return fail(format!(
                "Key property {name} not found in type {}",
                set.type_name
            ));
        };
        let tokens = tokenize(literal.trim())?;
        let [Token::Lit(lit)] = tokens.as_slice() else {
            return fail(format!("Invalid key value for {name}"));
        };
        if found
            .insert(name.to_string(), lit.for_kind(prop.kind)?)
            .is_some()
        {
            return fail(format!("Key property {name} given twice"));
        }
    }
    let mut key = Vec::new();
    for prop in set.keys() {
        match found.remove(prop.name) {
            Some(value) => key.push((prop.name.to_string(), value)),
            None => {
                return fail(format!(
                    "Key property {} missing in ({predicate})",
                    prop.name
                ));
            }
        }
    }
    Ok(key)
}

// ----------------------------------------------------------- query options

/// `$select` as a tree: `to_Item/Material` selects `Material` inside
/// `to_Item`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub all: bool,
    pub names: BTreeSet<String>,
    pub nested: BTreeMap<String, Selection>,
}

impl Selection {
    fn add(&mut self, path: &[&str]) {
        match path {
            [] => {}
            ["*"] => self.all = true,
            [name] => {
                self.names.insert((*name).to_string());
            }
            [name, rest @ ..] => {
                self.names.insert((*name).to_string());
                self.nested
                    .entry((*name).to_string())
                    .or_default()
                    .add(rest);
            }
        }
    }
}

/// `$expand` as a tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansion(pub BTreeMap<String, Expansion>);

/// The system query options of one request.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub filter: Option<String>,
    pub select: Option<Selection>,
    pub expand: Expansion,
    pub top: Option<usize>,
    pub skip: usize,
    pub orderby: Vec<(String, bool)>,
    pub inline_count: bool,
    /// `$format`: `Some(true)` json, `Some(false)` atom/xml.
    pub format_json: Option<bool>,
    /// Everything not starting with `$` (function parameters, `sap-client`,
    /// `sap-language`, …), decoded.
    pub custom: Vec<(String, String)>,
}

fn paths(text: &str, option: &str) -> Result<Vec<Vec<String>>, QueryError> {
    text.split(',')
        .map(|item| {
            let item = item.trim();
            if item.is_empty() {
                return fail(format!("Empty item in {option}"));
            }
            Ok(item.split('/').map(str::to_string).collect())
        })
        .collect()
}

/// Parse a raw query string.
pub fn parse_options(raw_query: &str) -> Result<Options, QueryError> {
    let mut options = Options::default();
    let mut seen = BTreeSet::new();
    for (name, value) in form_pairs(raw_query)? {
        if !name.starts_with('$') {
            options.custom.push((name, value));
            continue;
        }
        if !seen.insert(name.clone()) {
            return fail(format!("System query option {name} given twice"));
        }
        match name.as_str() {
            "$filter" => options.filter = Some(value),
            "$select" => {
                let mut selection = Selection::default();
                for path in paths(&value, "$select")? {
                    let parts: Vec<&str> = path.iter().map(String::as_str).collect();
                    selection.add(&parts);
                }
                options.select = Some(selection);
            }
            "$expand" => {
                for path in paths(&value, "$expand")? {
                    let mut node = &mut options.expand;
                    for part in path {
                        node = node.0.entry(part).or_default();
                    }
                }
            }
            "$top" => {
                options.top = Some(
                    value
                        .parse()
                        .or_else(|_| fail(format!("Invalid value '{value}' for $top")))?,
                )
            }
            "$skip" => {
                options.skip = value
                    .parse()
                    .or_else(|_| fail(format!("Invalid value '{value}' for $skip")))?
            }
            "$orderby" => {
                for item in value.split(',') {
                    let mut words = item.split_whitespace();
                    let Some(field) = words.next() else {
                        return fail("Empty item in $orderby");
                    };
                    let descending = match words.next() {
                        None | Some("asc") => false,
                        Some("desc") => true,
                        Some(other) => return fail(format!("Invalid sort order '{other}'")),
                    };
                    options.orderby.push((field.to_string(), descending));
                }
            }
            "$inlinecount" => {
                options.inline_count = match value.as_str() {
                    "allpages" => true,
                    "none" => false,
                    other => return fail(format!("Invalid value '{other}' for $inlinecount")),
                }
            }
            "$format" => {
                options.format_json = Some(match value.as_str() {
                    "json" => true,
                    "xml" | "atom" => false,
                    other => return fail(format!("Format '{other}' is not supported")),
                })
            }
            "$skiptoken" => {}
            other => return fail(format!("System query option '{other}' is not supported")),
        }
    }
    Ok(options)
}

// ----------------------------------------------------------------- $filter

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpOp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Prop(String),
    Lit(Lit),
    Call(String, Vec<Expr>),
}

/// A parsed, type-checked `$filter` for one entity set.
#[derive(Debug, Clone)]
pub struct Filter {
    expr: Expr,
    kinds: BTreeMap<String, Kind>,
}

struct Parser {
    tokens: Vec<Token>,
    index: usize,
}

impl Parser {
    fn peek_word(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.index), Some(Token::Ident(found)) if found == word)
    }
    fn expect(&mut self, token: Token) -> Result<(), QueryError> {
        if self.tokens.get(self.index) == Some(&token) {
            self.index += 1;
            Ok(())
        } else {
            fail(format!(
                "Expected {token:?} at position {} of $filter",
                self.index
            ))
        }
    }
    fn or(&mut self) -> Result<Expr, QueryError> {
        let mut left = self.and()?;
        while self.peek_word("or") {
            self.index += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }
    fn and(&mut self) -> Result<Expr, QueryError> {
        let mut left = self.unary()?;
        while self.peek_word("and") {
            self.index += 1;
            left = Expr::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }
    fn unary(&mut self) -> Result<Expr, QueryError> {
        if self.peek_word("not") {
            self.index += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        let left = self.operand()?;
        let op = match self.tokens.get(self.index) {
            Some(Token::Ident(word)) => match word.as_str() {
                "eq" => Some(CmpOp::Eq),
                "ne" => Some(CmpOp::Ne),
                "gt" => Some(CmpOp::Gt),
                "ge" => Some(CmpOp::Ge),
                "lt" => Some(CmpOp::Lt),
                "le" => Some(CmpOp::Le),
                _ => None,
            },
            _ => None,
        };
        match op {
            Some(op) => {
                self.index += 1;
                let right = self.operand()?;
                Ok(Expr::Cmp(op, Box::new(left), Box::new(right)))
            }
            None => Ok(left),
        }
    }
    fn operand(&mut self) -> Result<Expr, QueryError> {
        match self.tokens.get(self.index).cloned() {
            Some(Token::Open) => {
                self.index += 1;
                let inner = self.or()?;
                self.expect(Token::Close)?;
                Ok(inner)
            }
            Some(Token::Lit(lit)) => {
                self.index += 1;
                Ok(Expr::Lit(lit))
            }
            Some(Token::Ident(word)) => {
                self.index += 1;
                if ["and", "or", "eq", "ne", "gt", "ge", "lt", "le"].contains(&word.as_str()) {
                    return fail(format!("Unexpected '{word}' in $filter"));
                }
                if self.tokens.get(self.index) == Some(&Token::Open) {
                    self.index += 1;
                    let mut arguments = Vec::new();
                    if self.tokens.get(self.index) != Some(&Token::Close) {
                        loop {
                            arguments.push(self.or()?);
                            if self.tokens.get(self.index) == Some(&Token::Comma) {
                                self.index += 1;
                            } else {
                                break;
                            }
                        }
                    }
                    self.expect(Token::Close)?;
                    Ok(Expr::Call(word, arguments))
                } else {
                    Ok(Expr::Prop(word))
                }
            }
            _ => fail("Incomplete $filter expression"),
        }
    }
}

/// The static type of an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Null,
    Str,
    Number,
    Date,
    Dto,
    DateTimeLiteral,
    DateTimeOffsetLiteral,
    Bool,
    Guid,
}

fn property_type(kind: Kind) -> Ty {
    match kind {
        Kind::Str(_) => Ty::Str,
        Kind::Dec(..) => Ty::Number,
        Kind::Date => Ty::Date,
        Kind::Dto(_) => Ty::Dto,
        Kind::Bool => Ty::Bool,
        Kind::Guid => Ty::Guid,
    }
}

fn comparable(left: Ty, right: Ty) -> bool {
    use Ty::*;
    let pair = |a: Ty, b: Ty| {
        matches!(
            (a, b),
            (Str, Str)
                | (Number, Number)
                | (Bool, Bool)
                | (Guid, Guid)
                | (Date, Date | DateTimeLiteral)
                | (Dto, Dto | DateTimeOffsetLiteral | DateTimeLiteral)
                | (DateTimeLiteral, DateTimeLiteral)
                | (DateTimeOffsetLiteral, DateTimeOffsetLiteral)
                | (Null, _)
        )
    };
    pair(left, right) || pair(right, left)
}

fn check(
    expr: &Expr,
    set: &EntitySet,
    kinds: &mut BTreeMap<String, Kind>,
) -> Result<Ty, QueryError> {
    match expr {
        Expr::Or(left, right) | Expr::And(left, right) => {
            for side in [left, right] {
                if check(side, set, kinds)? != Ty::Bool {
                    return fail("The operands of 'and'/'or' must be Boolean expressions");
                }
            }
            Ok(Ty::Bool)
        }
        Expr::Not(inner) => {
            if check(inner, set, kinds)? != Ty::Bool {
                return fail("The operand of 'not' must be a Boolean expression");
            }
            Ok(Ty::Bool)
        }
        Expr::Cmp(op, left, right) => {
            let (left, right) = (check(left, set, kinds)?, check(right, set, kinds)?);
            if !comparable(left, right) {
                return fail(format!(
                    "Operator {op:?} is not compatible with the operand types {left:?} and {right:?}"
                ));
            }
            let ordered = !matches!(op, CmpOp::Eq | CmpOp::Ne);
            if ordered
                && [left, right]
                    .iter()
                    .any(|ty| matches!(ty, Ty::Bool | Ty::Guid | Ty::Null))
            {
                return fail(format!("Operator '{op:?}' cannot order these operands"));
            }
            Ok(Ty::Bool)
        }
        Expr::Prop(name) => {
            let Some(prop) = set.prop(name) else {
                return fail(format!(
                    "Property {name} not found in type {}",
                    set.type_name
                ));
            };
            if !prop.filterable {
                return fail(format!("Property {name} is not filterable"));
            }
            kinds.insert(name.clone(), prop.kind);
            Ok(property_type(prop.kind))
        }
        Expr::Lit(lit) => Ok(match lit {
            Lit::Null => Ty::Null,
            Lit::Str(_) => Ty::Str,
            Lit::Number(_) => Ty::Number,
            Lit::DateTime(_) => Ty::DateTimeLiteral,
            Lit::DateTimeOffset(_) => Ty::DateTimeOffsetLiteral,
            Lit::Bool(_) => Ty::Bool,
            Lit::Guid(_) => Ty::Guid,
        }),
        Expr::Call(name, arguments) => {
            let types = arguments
                .iter()
                .map(|argument| check(argument, set, kinds))
                .collect::<Result<Vec<_>, _>>()?;
            match (name.as_str(), types.as_slice()) {
                ("substringof" | "startswith" | "endswith", [Ty::Str, Ty::Str]) => Ok(Ty::Bool),
                ("tolower" | "toupper" | "trim", [Ty::Str]) => Ok(Ty::Str),
                ("length", [Ty::Str]) => Ok(Ty::Number),
                (name, _) => fail(format!(
                    "Function {name} with these arguments is not supported"
                )),
            }
        }
    }
}

impl Filter {
    pub fn parse(text: &str, set: &EntitySet) -> Result<Filter, QueryError> {
        let mut parser = Parser {
            tokens: tokenize(text)?,
            index: 0,
        };
        let expr = parser.or()?;
        if parser.index != parser.tokens.len() {
            return fail(format!(
                "Invalid $filter: unexpected {:?}",
                parser.tokens[parser.index]
            ));
        }
        let mut kinds = BTreeMap::new();
        if check(&expr, set, &mut kinds)? != Ty::Bool {
            return fail("$filter must be a Boolean expression");
        }
        Ok(Filter { expr, kinds })
    }

    /// Whether a row (wire values) matches.
    pub fn matches(&self, row: &serde_json::Map<String, Value>) -> bool {
        matches!(self.eval(&self.expr, row), Val::Bool(true))
    }

    fn eval(&self, expr: &Expr, row: &serde_json::Map<String, Value>) -> Val {
        match expr {
            Expr::Or(left, right) => Val::Bool(
                matches!(self.eval(left, row), Val::Bool(true))
                    || matches!(self.eval(right, row), Val::Bool(true)),
            ),
            Expr::And(left, right) => Val::Bool(
                matches!(self.eval(left, row), Val::Bool(true))
                    && matches!(self.eval(right, row), Val::Bool(true)),
            ),
            Expr::Not(inner) => Val::Bool(!matches!(self.eval(inner, row), Val::Bool(true))),
            Expr::Cmp(op, left, right) => {
                let (left, right) = (self.eval(left, row), self.eval(right, row));
                Val::Bool(match op {
                    CmpOp::Eq => left == right,
                    CmpOp::Ne => left != right,
                    _ if left == Val::Null || right == Val::Null => false,
                    CmpOp::Gt => left > right,
                    CmpOp::Ge => left >= right,
                    CmpOp::Lt => left < right,
                    CmpOp::Le => left <= right,
                })
            }
            Expr::Prop(name) => {
                let kind = self.kinds[name];
                row.get(name)
                    .and_then(|value| wire_value(kind, value).ok())
                    .unwrap_or(Val::Null)
            }
            Expr::Lit(lit) => lit.value(),
            Expr::Call(name, arguments) => {
                let values: Vec<Val> = arguments.iter().map(|a| self.eval(a, row)).collect();
                let text = |index: usize| match values.get(index) {
                    Some(Val::Str(text)) => text.clone(),
                    _ => String::new(),
                };
                match name.as_str() {
                    "substringof" => Val::Bool(text(1).contains(&text(0))),
                    "startswith" => Val::Bool(text(0).starts_with(&text(1))),
                    "endswith" => Val::Bool(text(0).ends_with(&text(1))),
                    "tolower" => Val::Str(text(0).to_lowercase()),
                    "toupper" => Val::Str(text(0).to_uppercase()),
                    "trim" => Val::Str(text(0).trim().to_string()),
                    "length" => Val::Dec(text(0).chars().count() as i128 * 10_i128.pow(DEC_SCALE)),
                    _ => Val::Null,
                }
            }
        }
    }
}
