//! The rooms of docs/architecture.md, held against the code: a test walks
//! `src/`, reads every file's `crate::…` paths (comments and string
//! literals skipped), maps each file to its room (`http/`, `config.rs`, …)
//! and fails on an import cycle between rooms, on an arrow the table
//! "Which may use which" does not allow, on a room used by one its "used
//! only by" note leaves out, and on actix outside `http/` and `main.rs`. The
//! table is parsed from the page itself, so the page and the code cannot
//! drift apart: change one, and this test asks for the other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files that are no room: the module list, and this check.
const NOT_ROOMS: [&str; 2] = ["lib.rs", "architecture_check.rs"];

/// The rooms that may name actix (the HTTP room, and the binary).
const ACTIX_ROOMS: [&str; 2] = ["http/", "main.rs"];

/// One `crate::` path in one file.
#[derive(Debug, Clone)]
struct Arrow {
    /// The file, relative to `src/` (`http/rpc.rs`).
    file: String,
    from: String,
    to: String,
}

/// What the table says about one room.
#[derive(Debug, Default, Clone)]
struct Rule {
    /// `None`: any room.
    may_use: Option<BTreeSet<String>>,
    /// `Some`: only files under these prefixes (rooms or sub-folders such as
    /// `agent/ledger`) may use it.
    used_only_by: Option<Vec<String>>,
    /// Every room may use it (the shared leaves).
    shared: bool,
}

/// The code with comments and string and char literals blanked out
/// (lengths kept, so nothing joins), lifetimes left alone.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !chars
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{..}'); otherwise a lifetime.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first segment of every `crate::…` path, including each item of
/// `use crate::{a, b::c}`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(is_ident) {
            continue;
        }
        let after = rest.trim_start();
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (index, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => item_start = true,
                    c if item_start && depth == 1 && is_ident(c) => {
                        let name: String = group[index..]
                            .chars()
                            .take_while(|c| is_ident(*c))
                            .collect();
                        found.push(name);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = after.chars().take_while(|c| is_ident(*c)).collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

fn uses_actix(code: &str) -> bool {
    let mut rest = code;
    while let Some(at) = rest.find("actix") {
        let before = rest[..at].chars().next_back();
        let tail = &rest[at..];
        let word: String = tail.chars().take_while(|c| is_ident(*c)).collect();
        if !before.is_some_and(is_ident) && tail[word.len()..].starts_with("::") {
            return true;
        }
        rest = &rest[at + word.len().max(1)..];
    }
    false
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

/// `http/rpc.rs` → `http/`; `config.rs` → `config.rs`.
fn room_of(file: &str) -> String {
    match file.split_once('/') {
        Some((room, _)) => format!("{room}/"),
        None => file.to_string(),
    }
}

/// The rooms on disk: every folder and top-level file of `src/` but
/// [`NOT_ROOMS`].
fn rooms(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .expect("src/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_string();
            if path.is_dir() {
                Some(format!("{name}/"))
            } else {
                (name.ends_with(".rs") && !NOT_ROOMS.contains(&name.as_str())).then_some(name)
            }
        })
        .collect()
}

fn arrows(src: &Path, rooms: &BTreeSet<String>) -> (Vec<Arrow>, Vec<String>) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut arrows = Vec::new();
    let mut actix = Vec::new();
    for path in files {
        let file = path
            .strip_prefix(src)
            .expect("under src/")
            .to_string_lossy()
            .replace('\\', "/");
        if NOT_ROOMS.contains(&file.as_str()) {
            continue;
        }
        let from = room_of(&file);
        let code = code_only(&std::fs::read_to_string(&path).expect("a source file"));
        if uses_actix(&code) && !ACTIX_ROOMS.contains(&from.as_str()) {
            actix.push(file.clone());
        }
        for name in crate_paths(&code) {
            let to = [format!("{name}/"), format!("{name}.rs")]
                .into_iter()
                .find(|room| rooms.contains(room));
            if let Some(to) = to
                && to != from
            {
                arrows.push(Arrow {
                    file: file.clone(),
                    from: from.clone(),
                    to,
                });
            }
        }
    }
    (arrows, actix)
}

/// The backticked names in `text` that are rooms (or, with `prefixes`,
/// folders inside one such as `agent/ledger`).
fn named(text: &str, rooms: &BTreeSet<String>, prefixes: bool) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| {
            rooms.contains(*name)
                || (prefixes && rooms.contains(&room_of(name)) && name.contains('/'))
        })
        .map(str::to_string)
        .collect()
}

/// The table under "Which may use which": room → rule.
fn table(page: &str, rooms: &BTreeSet<String>) -> BTreeMap<String, Rule> {
    let section = page
        .split("### Which may use which")
        .nth(1)
        .expect("docs/architecture.md has the section `Which may use which`");
    let mut rules = BTreeMap::new();
    for line in section.lines().skip_while(|line| !line.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 3 || cells[0] == "room" || cells[0].starts_with("---") {
            continue;
        }
        let may_use = if cells[1].contains("any room") || cells[1].contains("every room") {
            None
        } else {
            Some(named(cells[1], rooms, false).into_iter().collect())
        };
        let used_only_by = cells[2]
            .split_once("used only by")
            .map(|(_, who)| named(who, rooms, true));
        let shared = cells[2].contains("every room may use");
        for room in named(cells[0], rooms, false) {
            rules.insert(
                room,
                Rule {
                    may_use: may_use.clone(),
                    used_only_by: used_only_by.clone(),
                    shared,
                },
            );
        }
    }
    rules
}

/// A cycle in the room graph, as the rooms along it, if there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        room: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|r| r == room) {
            let mut found = path[start..].to_vec();
            found.push(room.to_string());
            return Some(found);
        }
        if done.contains(room) {
            return None;
        }
        path.push(room.to_string());
        for next in edges.get(room).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(room.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|room| visit(room, edges, &mut Vec::new(), &mut done))
}

/// Every way the code in `src` breaks the rules of `page`.
fn violations(src: &Path, page: &str) -> Vec<String> {
    let rooms = rooms(src);
    let rules = table(page, &rooms);
    let (arrows, actix) = arrows(src, &rooms);
    let mut found = Vec::new();
    for room in &rooms {
        if !rules.contains_key(room) {
            found.push(format!("room `{room}` is not in the table"));
        }
    }
    for file in actix {
        found.push(format!("{file} uses actix, which only {ACTIX_ROOMS:?} may"));
    }
    let shared: BTreeSet<&String> = rules
        .iter()
        .filter(|(_, rule)| rule.shared)
        .map(|(room, _)| room)
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for arrow in &arrows {
        edges
            .entry(arrow.from.clone())
            .or_default()
            .insert(arrow.to.clone());
        let allowed = shared.contains(&arrow.to)
            || rules.get(&arrow.from).is_some_and(|rule| {
                rule.may_use
                    .as_ref()
                    .is_none_or(|may| may.contains(&arrow.to))
            });
        if !allowed {
            found.push(format!(
                "{} uses `{}`: the table does not let `{}` use it",
                arrow.file, arrow.to, arrow.from
            ));
        }
        if let Some(only) = rules
            .get(&arrow.to)
            .and_then(|rule| rule.used_only_by.as_ref())
            && !only
                .iter()
                .any(|who| arrow.file.starts_with(who.as_str()) || arrow.from == *who)
        {
            found.push(format!(
                "{} uses `{}`, which is used only by {only:?}",
                arrow.file, arrow.to
            ));
        }
    }
    if let Some(cycle) = cycle(&edges) {
        found.push(format!("import cycle between rooms: {}", cycle.join(" → ")));
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn the_code_keeps_the_rooms_of_docs_architecture_md() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let src = root.join("src");
    assert!(
        table(&page, &rooms(&src)).len() >= 10,
        "the table of docs/architecture.md was found and parsed"
    );
    let found = violations(&src, &page);
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn comments_and_strings_are_not_imports_and_groups_are() {
    let code = code_only(
        "// crate::http\n/* crate::push */ let s = \"crate::tasks\"; let r = r#\"crate::db\"#;\n\
         fn f<'a>(x: &'a str) -> char { 'c' }\nuse crate::{a2a::Task, clock};\nuse crate::agent;",
    );
    assert_eq!(crate_paths(&code), ["a2a", "clock", "agent"]);
    assert!(uses_actix("use actix_web::web;"));
    assert!(!uses_actix(&code_only(
        "const F: &str = \"info,actix_server=warn\";"
    )));
}

#[test]
fn a_cycle_is_found_with_its_rooms() {
    let edges = BTreeMap::from([
        ("a/".to_string(), BTreeSet::from(["b/".to_string()])),
        ("b/".to_string(), BTreeSet::from(["c.rs".to_string()])),
        ("c.rs".to_string(), BTreeSet::from(["a/".to_string()])),
    ]);
    assert_eq!(cycle(&edges).unwrap(), ["a/", "b/", "c.rs", "a/"]);
    let edges = BTreeMap::from([("a/".to_string(), BTreeSet::from(["b/".to_string()]))]);
    assert!(cycle(&edges).is_none());
}
