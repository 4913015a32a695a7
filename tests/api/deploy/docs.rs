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

/// The bench README's memory section says who the bench token's user is,
/// as `bench/token.rs` mints it: a figure measured with another role is
/// marked as predating the change, not explained as today's bench.
#[test]
fn the_bench_readme_names_the_role_the_bench_token_carries() {
    let token = read("bench/token.rs");
    let role = token
        .split_once("\"groups\": [\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(role, _)| role)
        .expect("bench/token.rs gives its user one group");
    let readme = read("bench/README.md");
    let section = readme
        .split_once("## Why the authenticated service peaked")
        .and_then(|(_, rest)| rest.split("\n## ").next())
        .expect("bench/README.md explains the authenticated service's memory");
    let opening = section
        .split("\n\n")
        .nth(1)
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        opening.contains(&format!("the bench token's user is a `{role}` now"))
            && opening.contains("predate"),
        "the section opens with the role of bench/token.rs ({role}) and that its figures predate it:\n{opening}"
    );
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

/// The `sh` blocks of a page, in order, each as its commands: a line ending
/// in `\` joined with the next, blank lines and comment lines dropped.
fn shell_commands(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```sh" {
            continue;
        }
        let mut commands = Vec::new();
        let mut pending = String::new();
        for line in lines.by_ref() {
            if line.trim_start().starts_with("```") {
                break;
            }
            match line.trim_end().strip_suffix('\\') {
                Some(start) => pending.push_str(start),
                None => {
                    pending.push_str(line);
                    let command = pending.trim().to_string();
                    if !command.is_empty() && !command.starts_with('#') {
                        commands.push(command);
                    }
                    pending.clear();
                }
            }
        }
        blocks.push(commands);
    }
    blocks
}

/// One command line split into its simple commands (`&&`, `;`, `|`), each
/// as its words; a subshell `( … )` is marked by `true`.
fn simple_commands(line: &str) -> Vec<(bool, Vec<String>)> {
    let code = line.split(" # ").next().unwrap_or(line);
    let (subshell, code) = match code.trim().strip_prefix('(') {
        Some(inner) => (true, inner.trim_end().trim_end_matches(')')),
        None => (false, code),
    };
    code.split("&&")
        .flat_map(|part| part.split(';'))
        .flat_map(|part| part.split('|'))
        .map(|part| {
            let words = part.split_whitespace().map(str::to_string).collect();
            (subshell, words)
        })
        .collect()
}

#[test]
fn the_deploy_guide_runs_in_order_from_the_repository_root() {
    // Each repository path a command names must be there from the folder
    // the guide's earlier `cd`s leave the reader in (a `cd` in a subshell
    // does not last).
    let guide = read(DEPLOY_GUIDE);
    let mut cwd = PathBuf::new();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for command in shell_commands(&guide).into_iter().flatten() {
        let mut here = cwd.clone();
        for (subshell, words) in simple_commands(&command) {
            let Some(first) = words.first() else { continue };
            if first == "cd" {
                let target = words.get(1).map(String::as_str).unwrap_or("");
                here = resolve(&here, target).unwrap_or_default();
                if !subshell {
                    cwd = here.clone();
                }
                continue;
            }
            for word in &words {
                let word = word.trim_matches(|c| c == '\'' || c == '"');
                let repository_path = word.contains('/')
                    && !word.contains(['$', '<', ':', '='])
                    && !word.starts_with(['/', '-', '.'])
                    && repo().join(word).exists();
                if !repository_path {
                    continue;
                }
                checked += 1;
                if !repo().join(&here).join(word).exists() {
                    wrong.push(format!(
                        "`{command}`: {word} is not there from {}/",
                        here.display()
                    ));
                }
            }
        }
    }
    assert!(checked > 5, "repository paths were checked ({checked})");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_path_check_follows_cd_and_forgets_a_subshell_cd() {
    let page = "```sh\ncd joule\njoule deploy\n```\n\n```sh\n( cd joule && joule deploy )\n```\n";
    let blocks = shell_commands(page);
    assert_eq!(
        blocks,
        [
            vec!["cd joule", "joule deploy"],
            vec!["( cd joule && joule deploy )"]
        ]
    );
    let words = simple_commands(&blocks[1][0]);
    assert_eq!(
        words[0],
        (true, vec!["cd".to_string(), "joule".to_string()])
    );
    assert_eq!(
        shell_commands("```sh\ncurl -d a \\\n  -d b   # note\n# only a comment\n```\n"),
        [vec!["curl -d a   -d b   # note"]]
    );
}

#[test]
fn every_token_the_docs_fetch_by_hand_is_a_jwt() {
    // Without token_format=jwt IAS may hand out an opaque token, which the
    // agent (and the Destination service) cannot read.
    let mut fetched = 0;
    for file in doc_files() {
        for command in shell_commands(&read(&file)).into_iter().flatten() {
            if command.contains("/oauth2/token") {
                fetched += 1;
                assert!(
                    command.contains("token_format=jwt"),
                    "{file}: `{command}` asks for a JWT"
                );
            }
        }
    }
    assert!(fetched >= 2, "the docs fetch tokens by hand ({fetched})");
}

#[test]
fn the_cloud_logging_parameter_is_the_boolean_cloud_logging_takes() {
    let boolean = r#"{"ingest_otlp":{"enabled":true}}"#;
    for file in doc_files() {
        let text = read(&file);
        assert!(
            !text.contains(r#""enabled":"true""#),
            "{file}: `ingest_otlp.enabled` is a boolean"
        );
    }
    for file in [DEPLOY_GUIDE, "docs/telemetry.md"] {
        assert!(read(file).contains(boolean), "{file} gives {boolean}");
    }
}

#[test]
fn the_deploy_and_s4hana_pages_say_first_what_ran_only_against_loopback_doubles() {
    for file in [DEPLOY_GUIDE, "docs/s4hana.md"] {
        let text = read(file);
        let introduction = text
            .split("\n## ")
            .next()
            .unwrap_or_default()
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for words in ["loopback doubles", "not yet", "real landscape", "expected"] {
            assert!(
                introduction.contains(words),
                "{file}'s introduction says `{words}`"
            );
        }
    }
}

#[test]
fn the_deploy_guide_names_the_ias_application_as_the_admin_console_lists_it() {
    let identity = super::support::json_file("deploy/identity.json");
    let display_name = identity["display-name"]
        .as_str()
        .expect("identity.json has a display-name");
    let guide = read(DEPLOY_GUIDE);
    assert!(
        guide.contains(&format!("*{display_name}*")),
        "{DEPLOY_GUIDE} names the application as the IAS console lists it: *{display_name}*"
    );
}

#[tokio::test]
async fn the_deploy_guides_health_sample_is_what_the_deployed_service_answers() {
    // As deployed by the guide: authentication on, the embedded demo data,
    // the bound PostgreSQL.
    let Some(url) = crate::helpers::postgres_url(
        "the_deploy_guides_health_sample_is_what_the_deployed_service_answers",
    )
    .await
    else {
        return;
    };
    let guide = read(DEPLOY_GUIDE);
    let line = guide
        .lines()
        .find(|line| line.contains("curl -s \"https://$AGENT_ROUTE/health\""))
        .expect("the guide checks /health after the push");
    let sample = line
        .split_once("# expected: ")
        .map(|(_, json)| json.trim())
        .unwrap_or_else(|| panic!("`{line}` gives the expected answer"));
    let sample: serde_json::Value =
        serde_json::from_str(sample).unwrap_or_else(|error| panic!("{sample}: {error}"));
    let keys = crate::helpers::key_server::KeyServer::start().await;
    let app = crate::helpers::TestApp::builder()
        .auth(&keys)
        .store(crate::helpers::Store::Postgres(url))
        .spawn()
        .await;
    let health = app.get_json("/health").await;
    assert_eq!(sample, health, "{DEPLOY_GUIDE}'s /health sample");
}
