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

/// Every file of the rooms (relative to `src/`) with its code, comments
/// and strings blanked.
fn sources(src: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let file = path
                .strip_prefix(src)
                .expect("under src/")
                .to_string_lossy()
                .replace('\\', "/");
            if NOT_ROOMS.contains(&file.as_str()) {
                return None;
            }
            let code = code_only(&std::fs::read_to_string(&path).expect("a source file"));
            Some((file, code))
        })
        .collect()
}

fn arrows(sources: &[(String, String)], rooms: &BTreeSet<String>) -> (Vec<Arrow>, Vec<String>) {
    let mut arrows = Vec::new();
    let mut actix = Vec::new();
    for (file, code) in sources {
        let from = room_of(file);
        if uses_actix(code) && !ACTIX_ROOMS.contains(&from.as_str()) {
            actix.push(file.clone());
        }
        for name in crate_paths(code) {
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

/// The module path of a file under `src/`: `tasks/engine.rs` →
/// `tasks::engine`, `tasks/sql/mod.rs` → `tasks::sql`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// A parser of the paths in a file's code: `a::b::{c, d::e}` as its
/// paths, each with where it starts.
struct Paths {
    chars: Vec<char>,
    at: usize,
}

impl Paths {
    fn skip_space(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn word(&mut self) -> Option<String> {
        self.skip_space();
        let start = self.at;
        while self.chars.get(self.at).is_some_and(|c| is_ident(*c)) {
            self.at += 1;
        }
        (self.at > start).then(|| self.chars[start..self.at].iter().collect())
    }

    fn double_colon(&mut self) -> bool {
        let mut at = self.at;
        while self.chars.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        if self.chars.get(at) == Some(&':') && self.chars.get(at + 1) == Some(&':') {
            self.at = at + 2;
            true
        } else {
            false
        }
    }

    /// The rest of a path after `prefix` (its `::` already read): a name,
    /// `*`, or a `{…}` group, each path with the name it is imported as.
    fn tree(&mut self, prefix: Vec<String>, into: &mut Vec<(Vec<String>, String)>) {
        self.skip_space();
        match self.chars.get(self.at) {
            Some('*') => {
                self.at += 1;
                let mut path = prefix;
                path.push("*".into());
                into.push((path, String::new()));
            }
            Some('{') => {
                self.at += 1;
                loop {
                    self.skip_space();
                    match self.chars.get(self.at) {
                        Some('}') | None => {
                            self.at += 1;
                            break;
                        }
                        Some(',') => self.at += 1,
                        _ => {
                            let before = self.at;
                            self.tree(prefix.clone(), into);
                            if self.at == before {
                                self.at += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                let Some(name) = self.word() else {
                    return;
                };
                let mut path = prefix;
                path.push(name);
                if self.double_colon() {
                    self.tree(path, into);
                    return;
                }
                let save = self.at;
                let alias = match self.word().as_deref() {
                    Some("as") => self.word(),
                    _ => {
                        self.at = save;
                        None
                    }
                };
                let name = path.last().cloned().unwrap_or_default();
                let alias = alias.unwrap_or(if name == "self" {
                    path.iter().rev().nth(1).cloned().unwrap_or_default()
                } else {
                    name
                });
                if path.last().is_some_and(|last| last == "self") {
                    path.pop();
                }
                into.push((path, alias));
            }
        }
    }
}

/// Every path of `code` that starts with `crate`, `super`, `self` or one
/// of `children` (paths into the file's own child modules), with the
/// number of inline modules (`mod tests { … }`) around it; and the names
/// the file's own `use` items bring in (outside inline modules), each
/// with its path.
type FilePaths = (Vec<(usize, Vec<String>)>, BTreeMap<String, Vec<String>>);

fn file_paths(code: &str, children: &BTreeSet<String>) -> FilePaths {
    let mut parser = Paths {
        chars: code.chars().collect(),
        at: 0,
    };
    let mut found = Vec::new();
    let mut aliases = BTreeMap::new();
    // The brace depth at which each open inline module began.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut last_word = String::new();
    let mut in_use = false;
    while parser.at < parser.chars.len() {
        let c = parser.chars[parser.at];
        let before = parser.at.checked_sub(1).map(|at| parser.chars[at]);
        if c == '{' {
            depth += 1;
            parser.at += 1;
            continue;
        }
        if c == '}' {
            if inline.last() == Some(&depth) {
                inline.pop();
            }
            depth -= 1;
            parser.at += 1;
            continue;
        }
        if c == ';' {
            in_use = false;
        }
        if !is_ident(c) || before.is_some_and(|b| is_ident(b) || b == ':') {
            parser.at += 1;
            continue;
        }
        let Some(word) = parser.word() else {
            parser.at += 1;
            continue;
        };
        if last_word == "mod" {
            parser.skip_space();
            if parser.chars.get(parser.at) == Some(&'{') {
                depth += 1;
                parser.at += 1;
                inline.push(depth);
            }
            last_word = word;
            continue;
        }
        if word == "use" {
            in_use = true;
        }
        let starts_path = matches!(word.as_str(), "crate" | "super" | "self")
            || children.contains(&word)
            || (in_use && inline.is_empty());
        if starts_path && parser.double_colon() {
            let mut paths = Vec::new();
            parser.tree(vec![word.clone()], &mut paths);
            for (path, alias) in paths {
                if in_use && inline.is_empty() && !alias.is_empty() {
                    aliases.insert(alias, path.clone());
                }
                found.push((inline.len(), path));
            }
        } else if in_use && inline.is_empty() && word != "use" && word != "pub" {
            // `use name;`: an external crate or a child module.
            aliases.insert(word.clone(), vec![word.clone()]);
        }
        last_word = word;
    }
    (found, aliases)
}

/// The module a path names, seen from `module`: the deepest module of
/// `modules` it walks through, past the names `use` brought into a module
/// (`aliases`) to where they come from. `None` for a path that leaves
/// `modules` (another room, a crate).
fn resolve(
    module: &[String],
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    aliases: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    hops: usize,
) -> Option<Vec<String>> {
    if hops > 8 {
        return None;
    }
    let mut current = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            current.clear();
            rest = &rest[1..];
        }
        Some("super" | "self") => {
            while let Some(first) = rest.first().map(String::as_str) {
                match first {
                    "super" => {
                        current.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => {}
    }
    let start = rest.len();
    while let Some(name) = rest.first() {
        let mut child = current.clone();
        child.push(name.clone());
        if !modules.contains(&child) {
            break;
        }
        current = child;
        rest = &rest[1..];
    }
    if let Some(name) = rest.first()
        && let Some(target) = aliases.get(&current).and_then(|names| names.get(name))
    {
        let mut followed = target.clone();
        followed.extend(rest[1..].iter().cloned());
        return resolve(&current, &followed, modules, aliases, hops + 1)
            .or_else(|| modules.contains(&current).then(|| current.clone()));
    }
    let named_nothing_here = rest.len() == start
        && !matches!(
            path.first().map(String::as_str),
            Some("crate" | "super" | "self")
        );
    (!named_nothing_here && modules.contains(&current)).then_some(current)
}

/// Which file of a room uses which other file of it: `files` are the
/// room's files (relative to `src/`) with their code (comments and
/// strings blanked). A name a module brings in with `use` (a re-export)
/// counts as the file it comes from.
fn file_edges(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let file_of: BTreeMap<Vec<String>, &String> = files
        .iter()
        .map(|(file, _)| (module_of(file), file))
        .collect();
    let modules: BTreeSet<Vec<String>> = file_of.keys().cloned().collect();
    let children = |module: &[String]| -> BTreeSet<String> {
        modules
            .iter()
            .filter(|other| other.len() == module.len() + 1 && other.starts_with(module))
            .filter_map(|other| other.last().cloned())
            .collect()
    };
    let mut paths = BTreeMap::new();
    let mut aliases = BTreeMap::new();
    for (file, code) in files {
        let module = module_of(file);
        let (found, names) = file_paths(code, &children(&module));
        paths.insert(file.clone(), found);
        aliases.insert(module, names);
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, found) in &paths {
        let module = module_of(file);
        for (inline, path) in found {
            // Inside `mod tests { … }`, the first `super` is the file itself.
            let supers = path.iter().take_while(|s| *s == "super").count();
            let path: Vec<String> = match path.first().map(String::as_str) {
                Some("super") if supers <= *inline => continue,
                Some("super") => path[*inline..].to_vec(),
                Some("self") if *inline > 0 => continue,
                _ => path.clone(),
            };
            let Some(target) = resolve(&module, &path, &modules, &aliases, 0) else {
                continue;
            };
            if let Some(to) = file_of.get(&target)
                && *to != file
            {
                edges.entry(file.clone()).or_default().insert((*to).clone());
            }
        }
    }
    edges
}

/// The rooms whose files import one way, as the page names them (the
/// sentence that begins "Files import one way").
fn one_way_rooms(page: &str, rooms: &BTreeSet<String>) -> Vec<String> {
    page.lines()
        .filter(|line| line.starts_with("Files import one way"))
        .flat_map(|line| named(line, rooms, false))
        .collect()
}

/// A cycle in a graph (of rooms, or of a room's files), as the nodes
/// along it, if there is one.
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
    let sources = sources(src);
    let (arrows, actix) = arrows(&sources, &rooms);
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
    for room in one_way_rooms(page, &rooms) {
        let files: Vec<(String, String)> = sources
            .iter()
            .filter(|(file, _)| room_of(file) == room)
            .cloned()
            .collect();
        if let Some(cycle) = cycle(&file_edges(&files)) {
            found.push(format!(
                "import cycle between files of `{room}`: {}",
                cycle.join(" → ")
            ));
        }
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

/// A room of three files where `b.rs` uses `a.rs` through the name
/// `mod.rs` re-exports, and `a.rs` uses `b.rs`.
fn a_room_with_a_circle(b_uses: &str) -> Vec<(String, String)> {
    [
        (
            "r/mod.rs",
            "mod a;\nmod b;\npub use a::{A, Other as Renamed};",
        ),
        (
            "r/a.rs",
            "use super::b::B;\npub struct A(B);\n#[cfg(test)]\nmod tests {\n    use super::*;\n}",
        ),
        ("r/b.rs", b_uses),
    ]
    .into_iter()
    .map(|(file, code)| (file.to_string(), code_only(code)))
    .collect()
}

#[test]
fn a_circle_between_files_of_a_room_is_found_through_a_re_export() {
    let edges = file_edges(&a_room_with_a_circle(
        "pub struct B;\nfn f() -> Option<super::Renamed> { None }",
    ));
    assert_eq!(cycle(&edges).unwrap(), ["r/a.rs", "r/b.rs", "r/a.rs"]);
    // `use super::*` in a test module is the file itself; `super::super`
    // there is the room.
    let edges = file_edges(&a_room_with_a_circle(
        "pub struct B;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::{a::A};\n}",
    ));
    assert!(edges["r/b.rs"].contains("r/a.rs"), "{edges:?}");
    let edges = file_edges(&a_room_with_a_circle(
        "pub struct B;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}",
    ));
    assert!(cycle(&edges).is_none(), "{edges:?}");
    assert_eq!(
        edges["r/mod.rs"],
        BTreeSet::from(["r/a.rs".to_string()]),
        "mod.rs re-exports a.rs"
    );
}
