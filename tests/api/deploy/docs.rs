//! The documentation held against the repository: `README.md` stays a front
//! page (the two commands, a link to every page of `docs/`), every relative
//! link in it and in `docs/` leads to a file and heading that exist, the
//! settings the pages name are settings the code reads, and the local
//! container quick start uses the port the Dockerfile sets.

use super::support::{DEPLOY_GUIDE, doc_files, read, repo, setting_exists};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// The README is a front page; the rest lives in `docs/`.
const FRONT_PAGE_MAX_LINES: usize = 150;

/// The lines of a Markdown text outside fenced code blocks, with their
/// line numbers (1-based).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut prose = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push((index + 1, line));
        }
    }
    prose
}

/// A line without its inline code spans (`` `…` ``), which may hold `](`.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The targets of the inline links `[text](target)` on one line.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(start) = rest.find("](") {
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].to_string());
        rest = &after[end + 1..];
    }
    targets
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, everything but
/// letters, digits, `-` and `_` dropped; a repeated heading gets `-1`, `-2` ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let Some(heading) = line
            .strip_prefix('#')
            .map(|rest| rest.trim_start_matches('#'))
            .and_then(|rest| rest.strip_prefix(' '))
        else {
            continue;
        };
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = slug.clone();
        let mut repeat = 0;
        while seen.contains(&anchor) {
            repeat += 1;
            anchor = format!("{slug}-{repeat}");
        }
        seen.insert(anchor);
    }
    seen
}

/// `base/relative` with `.` and `..` resolved, without touching the disk;
/// `None` when it climbs out of the repository.
fn resolve(base: &Path, relative: &str) -> Option<PathBuf> {
    let mut path = PathBuf::new();
    for component in base.join(relative).components() {
        match component {
            Component::ParentDir => {
                if !path.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => path.push(other),
        }
    }
    Some(path)
}

/// Every broken relative link of one page (`file` is where `text` lives),
/// as `file:line: target (why)`.
fn broken_links(file: &str, text: &str) -> Vec<String> {
    let directory = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (number, line) in prose_lines(text) {
        for target in link_targets(line) {
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|scheme| target.starts_with(scheme));
            if external {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            if path.is_empty() {
                if !anchors(text).contains(anchor) {
                    broken.push(format!("{file}:{number}: {target} (no such heading)"));
                }
                continue;
            }
            let Some(linked) = resolve(directory, path) else {
                broken.push(format!(
                    "{file}:{number}: {target} (outside the repository)"
                ));
                continue;
            };
            let on_disk = repo().join(&linked);
            if !on_disk.exists() {
                broken.push(format!("{file}:{number}: {target} (no such file)"));
                continue;
            }
            if anchor.is_empty() || linked.extension().is_none_or(|ext| ext != "md") {
                continue;
            }
            let linked = linked.to_string_lossy().into_owned();
            if !anchors(&read(&linked)).contains(anchor) {
                broken.push(format!(
                    "{file}:{number}: {target} (no heading #{anchor} in {linked})"
                ));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_in_the_docs_points_to_an_existing_file_and_heading() {
    let mut broken = Vec::new();
    let mut pages = 0;
    for file in doc_files() {
        broken.extend(broken_links(&file, &read(&file)));
        pages += 1;
    }
    assert!(pages > 5, "README.md and the pages of docs/ ({pages})");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_reports_a_missing_file_a_missing_heading_and_an_escape() {
    // A page as if it were docs/example.md: two sound links, three broken
    // ones, and look-alikes in code that are no links.
    let page = "\
# Example

See [the interface](api.md), [task ids](api.md#task-ids), [the front page](../README.md#the-two-commands)
and [this page](#example). Broken: [gone](gone.md), [no heading](api.md#no-such-heading),
[outside](../../etc/passwd).

Not links: `[code](nowhere.md)` and

```
[fenced](nowhere.md)
```
";
    let broken = broken_links("docs/example.md", page);
    assert_eq!(
        broken,
        [
            "docs/example.md:4: gone.md (no such file)",
            "docs/example.md:4: api.md#no-such-heading (no heading #no-such-heading in docs/api.md)",
            "docs/example.md:5: ../../etc/passwd (outside the repository)",
        ]
    );
    assert!(anchors("# A\n## A\n").contains("a-1"), "a repeated heading");
}

#[test]
fn the_readme_is_a_front_page_with_the_two_commands_and_every_docs_page() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= FRONT_PAGE_MAX_LINES,
        "README.md has {lines} lines; move detail into docs/ (at most {FRONT_PAGE_MAX_LINES})"
    );
    let commands = readme
        .split_once("## The two commands\n")
        .and_then(|(_, rest)| rest.split_once("```sh\n"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("README.md shows the two commands in a sh block");
    let first_words: Vec<&str> = commands
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .collect();
    assert_eq!(first_words, ["cargo run --release", ".ci/test"]);
    assert!(repo().join(".ci/test").is_file(), "the test command exists");
    for page in doc_files().iter().filter(|file| file.starts_with("docs/")) {
        assert!(
            readme.contains(&format!("]({page})")),
            "README.md links {page}"
        );
    }
}

#[test]
fn the_docs_name_only_existing_settings() {
    let mut checked = 0;
    for file in doc_files() {
        let text = read(&file);
        for (index, _) in text.match_indices("AGENT__") {
            let name: String = text[index..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // `AGENT__PUSH__…` abbreviations end in `__` or `_`; the pattern
            // `AGENT__SECTION__KEY` explains the naming.
            if name.ends_with('_') || name == "AGENT__SECTION__KEY" {
                continue;
            }
            assert!(
                setting_exists(&name),
                "{file} mentions {name}, which src/config.rs lacks"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "the docs' settings were found ({checked})");
}

#[test]
fn the_local_container_quick_start_uses_the_port_the_dockerfile_sets() {
    let dockerfile = read("Dockerfile");
    let port = dockerfile
        .lines()
        .find_map(|line| line.strip_prefix("EXPOSE "))
        .map(str::trim)
        .expect("the Dockerfile exposes a port");
    assert!(
        dockerfile.contains(&format!("AGENT__SERVER__PORT={port}")),
        "the image listens on the port it exposes"
    );
    let guide = read(DEPLOY_GUIDE);
    let quick_start = guide
        .split_once("### On your machine\n")
        .map(|(_, rest)| rest.split("\n### ").next().unwrap_or(rest))
        .expect("the deploy guide has a local container quick start");
    assert!(quick_start.contains("docker build -t order-exception-agent ."));
    assert!(
        quick_start.contains(&format!(
            "docker run --rm -p {port}:{port} order-exception-agent"
        )),
        "the quick start maps port {port}"
    );
}
