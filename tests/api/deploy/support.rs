//! Reading the repository's deployment files: paths, YAML (as JSON values),
//! JSON, and the settings the code knows.

use crate::helpers::Settings;
use serde_json::{Map, Number, Value};
use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

/// The repository root (the crate's manifest directory).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn read(relative: &str) -> String {
    let path = repo().join(relative);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{} is readable: {error}", path.display()))
}

pub fn json_file(relative: &str) -> Value {
    serde_json::from_str(&read(relative))
        .unwrap_or_else(|error| panic!("{relative} is JSON: {error}"))
}

/// A YAML file with exactly one document, as a JSON value.
pub fn yaml_file(relative: &str) -> Value {
    let text = read(relative);
    let documents = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|error| panic!("{relative} is YAML: {error}"));
    assert_eq!(documents.len(), 1, "{relative} holds one YAML document");
    to_json(&documents[0]).unwrap_or_else(|error| panic!("{relative}: {error}"))
}

fn to_json(yaml: &Yaml) -> Result<Value, String> {
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::Number((*i).into()),
        Yaml::Real(text) => {
            let number = text
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .ok_or_else(|| format!("`{text}` is not a finite number"))?;
            Value::Number(number)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(hash) => {
            let mut map = Map::new();
            for (key, value) in hash {
                let key = match key {
                    Yaml::String(s) => s.clone(),
                    other => return Err(format!("mapping key {other:?} is not a string")),
                };
                if map.insert(key.clone(), to_json(value)?).is_some() {
                    return Err(format!("duplicate key `{key}`"));
                }
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err(format!("unsupported YAML node {yaml:?}")),
    })
}

/// The files of a directory (relative to the repository) ending in `suffix`,
/// sorted, as repository-relative paths.
pub fn files_in(directory: &str, suffix: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(repo().join(directory))
        .unwrap_or_else(|error| panic!("{directory} exists: {error}"))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_file())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_string();
            name.ends_with(suffix)
                .then(|| format!("{directory}/{name}"))
        })
        .collect();
    files.sort();
    files
}

pub fn file_stem(relative: &str) -> String {
    Path::new(relative)
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.split('.').next())
        .unwrap_or_default()
        .to_string()
}

/// `value[key]` as a string, or a failure naming the file.
pub fn text<'a>(value: &'a Value, key: &str, what: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: `{key}` is a string, got {}", value[key]))
}

/// Whether `AGENT__SECTION__KEY` names a setting the code reads (a key of
/// the serialized default settings).
pub fn setting_exists(variable: &str) -> bool {
    let Some(path) = variable.strip_prefix("AGENT__") else {
        return false;
    };
    let defaults = serde_json::to_value(Settings::default()).expect("settings serialize");
    let mut node = &defaults;
    for segment in path.split("__") {
        let Some(map) = node.as_object() else {
            return false;
        };
        // An empty object is a map (`rules.roles`): any entry may be named.
        if map.is_empty() {
            return true;
        }
        match map.get(&segment.to_lowercase()) {
            Some(next) => node = next,
            None => return false,
        }
    }
    true
}

/// Every `<PLACEHOLDER>` in a string.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        match after.find('>') {
            Some(end) => {
                found.push(format!("<{}>", &after[..end]));
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    found
}

/// The deploy guide: the BTP steps the deployment files serve.
pub const DEPLOY_GUIDE: &str = "docs/deploy-btp.md";

/// The documentation: `README.md` (the front page) and every page of
/// `docs/`, as repository-relative paths.
pub fn doc_files() -> Vec<String> {
    let mut files = vec!["README.md".to_string()];
    files.extend(files_in("docs", ".md"));
    files
}
