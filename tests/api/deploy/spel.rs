//! A tiny evaluator for the part of SpEL the Joule files use: variables and
//! property paths (`a.b`, `a[0]`), `'…'` / `"…"` strings, `null`, `true`,
//! `false`, `==`, `!=`, `!`, `&&`, `||`, parentheses and `c ? a : b`, plus
//! `<? … ?>` templates. It is strict where SpEL is: a property of null, an
//! index out of range, an unknown variable or a condition that is not a
//! boolean is an error, so a path that would break in Joule fails the test.
//! A missing key of a JSON object is null.

use serde_json::Value;
use std::collections::HashMap;

pub type Scope = HashMap<String, Value>;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Index(usize),
    Dot,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Eq,
    Ne,
    And,
    Or,
    Not,
    Question,
    Colon,
}

#[derive(Debug)]
enum Step {
    Field(String),
    Index(usize),
}

#[derive(Debug)]
enum Expr {
    Literal(Value),
    Path(String, Vec<Step>),
    Equal(Box<Expr>, Box<Expr>, bool),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Choice(Box<Expr>, Box<Expr>, Box<Expr>),
}

fn tokenize(source: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '\'' || c == '"' {
            // A doubled quote inside is one quote (SpEL's escape).
            let mut text = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err(format!("unterminated string in `{source}`")),
                    Some(&q) if q == c && chars.get(i + 1) == Some(&c) => {
                        text.push(c);
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        text.push(other);
                        i += 1;
                    }
                }
            }
            tokens.push(Token::Str(text));
            continue;
        }
        if c.is_ascii_digit() || c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            tokens.push(if c.is_ascii_digit() {
                Token::Index(word.parse().map_err(|e| format!("`{word}`: {e}"))?)
            } else {
                Token::Ident(word)
            });
            continue;
        }
        let (token, width) = match (c, chars.get(i + 1).copied()) {
            ('.', _) => (Token::Dot, 1),
            ('[', _) => (Token::LBracket, 1),
            (']', _) => (Token::RBracket, 1),
            ('(', _) => (Token::LParen, 1),
            (')', _) => (Token::RParen, 1),
            ('?', _) => (Token::Question, 1),
            (':', _) => (Token::Colon, 1),
            ('=', Some('=')) => (Token::Eq, 2),
            ('!', Some('=')) => (Token::Ne, 2),
            ('!', _) => (Token::Not, 1),
            ('&', Some('&')) => (Token::And, 2),
            ('|', Some('|')) => (Token::Or, 2),
            (other, _) => return Err(format!("unsupported character `{other}` in `{source}`")),
        };
        tokens.push(token);
        i += width;
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn take(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn expect(&mut self, wanted: Token) -> Result<(), String> {
        match self.take() {
            Some(token) if token == wanted => Ok(()),
            other => Err(format!("expected {wanted:?}, found {other:?}")),
        }
    }

    fn choice(&mut self) -> Result<Expr, String> {
        let condition = self.or()?;
        if self.peek() == Some(&Token::Question) {
            self.take();
            let yes = self.choice()?;
            self.expect(Token::Colon)?;
            let no = self.choice()?;
            return Ok(Expr::Choice(
                Box::new(condition),
                Box::new(yes),
                Box::new(no),
            ));
        }
        Ok(condition)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while self.peek() == Some(&Token::Or) {
            self.take();
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.equality()?;
        while self.peek() == Some(&Token::And) {
            self.take();
            left = Expr::And(Box::new(left), Box::new(self.equality()?));
        }
        Ok(left)
    }

    fn equality(&mut self) -> Result<Expr, String> {
        let left = self.unary()?;
        let negated = match self.peek() {
            Some(Token::Eq) => false,
            Some(Token::Ne) => true,
            _ => return Ok(left),
        };
        self.take();
        let right = self.unary()?;
        Ok(Expr::Equal(Box::new(left), Box::new(right), negated))
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.peek() == Some(&Token::Not) {
            self.take();
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, String> {
        match self.take() {
            Some(Token::Str(text)) => Ok(Expr::Literal(Value::String(text))),
            Some(Token::LParen) => {
                let inner = self.choice()?;
                self.expect(Token::RParen)?;
                Ok(inner)
            }
            Some(Token::Ident(name)) => match name.as_str() {
                "null" => Ok(Expr::Literal(Value::Null)),
                "true" => Ok(Expr::Literal(Value::Bool(true))),
                "false" => Ok(Expr::Literal(Value::Bool(false))),
                _ => self.path(name),
            },
            other => Err(format!("unexpected {other:?}")),
        }
    }

    /// `name` followed by `.field` and `[index]` steps.
    fn path(&mut self, name: String) -> Result<Expr, String> {
        let mut steps = Vec::new();
        loop {
            match self.peek() {
                Some(Token::Dot) => {
                    self.take();
                    match self.take() {
                        Some(Token::Ident(field)) => steps.push(Step::Field(field)),
                        other => return Err(format!("expected a property, found {other:?}")),
                    }
                }
                Some(Token::LBracket) => {
                    self.take();
                    match self.take() {
                        Some(Token::Index(index)) => steps.push(Step::Index(index)),
                        other => return Err(format!("expected an index, found {other:?}")),
                    }
                    self.expect(Token::RBracket)?;
                }
                _ => return Ok(Expr::Path(name, steps)),
            }
        }
    }
}

fn parse(source: &str) -> Result<Expr, String> {
    let mut parser = Parser {
        tokens: tokenize(source)?,
        at: 0,
    };
    let expr = parser.choice()?;
    if parser.at != parser.tokens.len() {
        return Err(format!("trailing input in `{source}`"));
    }
    Ok(expr)
}

fn boolean(expr: &Expr, scope: &Scope) -> Result<bool, String> {
    match eval(expr, scope)? {
        Value::Bool(b) => Ok(b),
        other => Err(format!("{expr:?} is {other}, not a boolean")),
    }
}

fn eval(expr: &Expr, scope: &Scope) -> Result<Value, String> {
    match expr {
        Expr::Literal(value) => Ok(value.clone()),
        Expr::Path(name, steps) => {
            let mut value = scope
                .get(name)
                .cloned()
                .ok_or_else(|| format!("unknown variable `{name}`"))?;
            let mut walked = name.clone();
            for step in steps {
                value = match (step, &value) {
                    (Step::Field(field), Value::Object(map)) => {
                        map.get(field).cloned().unwrap_or(Value::Null)
                    }
                    (Step::Index(index), Value::Array(items)) => items
                        .get(*index)
                        .cloned()
                        .ok_or_else(|| format!("{walked}[{index}] is out of range"))?,
                    (step, other) => {
                        return Err(format!("{step:?} of `{walked}`, which is {other}"));
                    }
                };
                match step {
                    Step::Field(field) => walked = format!("{walked}.{field}"),
                    Step::Index(index) => walked = format!("{walked}[{index}]"),
                }
            }
            Ok(value)
        }
        Expr::Equal(left, right, negated) => {
            let same = eval(left, scope)? == eval(right, scope)?;
            Ok(Value::Bool(same != *negated))
        }
        Expr::And(left, right) => Ok(Value::Bool(boolean(left, scope)? && boolean(right, scope)?)),
        Expr::Or(left, right) => Ok(Value::Bool(boolean(left, scope)? || boolean(right, scope)?)),
        Expr::Not(inner) => Ok(Value::Bool(!boolean(inner, scope)?)),
        Expr::Choice(condition, yes, no) => {
            if boolean(condition, scope)? {
                eval(yes, scope)
            } else {
                eval(no, scope)
            }
        }
    }
}

/// A bare expression (a `condition:`).
pub fn evaluate(source: &str, scope: &Scope) -> Result<Value, String> {
    eval(&parse(source)?, scope).map_err(|error| format!("{error} (in `{source}`)"))
}

/// A condition: must be a boolean.
pub fn condition(source: &str, scope: &Scope) -> Result<bool, String> {
    match evaluate(source, scope)? {
        Value::Bool(b) => Ok(b),
        other => Err(format!("condition `{source}` is {other}, not a boolean")),
    }
}

/// A template: text with `<? expr ?>` parts. A template that is one
/// expression yields its value as is (null stays null); otherwise the parts
/// are joined as text (null as empty text).
pub fn render(template: &str, scope: &Scope) -> Result<Value, String> {
    let mut parts: Vec<Result<Value, String>> = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("<?") {
        if start > 0 {
            parts.push(Ok(Value::String(rest[..start].to_string())));
        }
        let after = &rest[start + 2..];
        let end = after
            .find("?>")
            .ok_or_else(|| format!("unterminated `<?` in `{template}`"))?;
        parts.push(evaluate(after[..end].trim(), scope));
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        parts.push(Ok(Value::String(rest.to_string())));
    }
    let parts: Vec<Value> = parts.into_iter().collect::<Result<_, _>>()?;
    if parts.len() == 1 && template.trim_start().starts_with("<?") {
        return Ok(parts.into_iter().next().unwrap_or(Value::Null));
    }
    Ok(Value::String(
        parts
            .iter()
            .map(|part| match part {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope() -> Scope {
        Scope::from([
            (
                "r".to_string(),
                json!({ "body": { "state": "done", "parts": [{ "text": "hi" }], "none": null } }),
            ),
            ("empty".to_string(), Value::Null),
        ])
    }

    #[test]
    fn paths_literals_and_operators_evaluate_like_spel() {
        let scope = scope();
        assert_eq!(evaluate("r.body.parts[0].text", &scope), Ok(json!("hi")));
        assert_eq!(evaluate("r.body.missing", &scope), Ok(Value::Null));
        assert_eq!(
            condition("r.body != null && r.body.state == 'done' || false", &scope),
            Ok(true)
        );
        assert_eq!(condition("!(r.body.state != \"done\")", &scope), Ok(true));
        assert_eq!(
            evaluate("r.body.state == 'x' ? 'a' : 'it''s'", &scope),
            Ok(json!("it's"))
        );
        assert_eq!(
            condition("empty == null || empty.anything == null", &scope),
            Ok(true),
            "|| short-circuits"
        );
    }

    #[test]
    fn what_would_throw_in_spel_is_an_error() {
        let scope = scope();
        assert!(
            evaluate("r.body.none.text", &scope).is_err(),
            "property of null"
        );
        assert!(
            evaluate("r.body.parts[1].text", &scope).is_err(),
            "index out of range"
        );
        assert!(evaluate("nobody", &scope).is_err(), "unknown variable");
        assert!(condition("r.body.state", &scope).is_err(), "not a boolean");
        assert!(
            evaluate("r.body.state +", &scope).is_err(),
            "unsupported syntax"
        );
    }

    #[test]
    fn templates_keep_a_single_value_and_join_text() {
        let scope = scope();
        assert_eq!(render("<? empty ?>", &scope), Ok(Value::Null));
        assert_eq!(
            render("Said: <? r.body.parts[0].text ?>!", &scope),
            Ok(json!("Said: hi!"))
        );
        assert_eq!(render("plain", &scope), Ok(json!("plain")));
        assert!(render("<? r.body", &scope).is_err());
    }
}
