//! The client commands of the real binary (`card`, `ask`, `triage`, `eval`):
//! without `--url` against the agent the binary starts in-process, with
//! `--url` against a separately started service, and every error path (an
//! unreachable port, endpoints that are not A2A, 401, JSON-RPC errors) as
//! one line on stderr with a non-zero exit and no panic.

use crate::helpers::key_server::*;
use crate::helpers::{TestApp, assert_schema};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Run the binary with `args` (and `envs`) off the async runtime; the
/// environment is cleaned of what would change its behaviour.
async fn run_with(args: &[&str], envs: &[(&str, &str)]) -> Run {
    let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
    let envs: Vec<(String, String)> = envs
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    tokio::task::spawn_blocking(move || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_order-exception-agent"));
        command
            .args(&args)
            .env("NO_COLOR", "1")
            // The in-process agent's store: hermetic, in memory.
            .env("AGENT__STORE__SQLITE_FILE", ":memory:")
            .env_remove("RUST_LOG")
            .env_remove("AGENT_TOKEN")
            .env_remove("AGENT_CONFIG")
            .env_remove("VCAP_APPLICATION")
            .env_remove("VCAP_SERVICES")
            .env_remove("PORT");
        for (name, value) in &envs {
            command.env(name, value);
        }
        let output = command.output().expect("the binary runs");
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    })
    .await
    .expect("the runner thread finishes")
}

async fn run(args: &[&str]) -> Run {
    run_with(args, &[]).await
}

impl Run {
    /// Exit 0 and nothing on stderr (the in-process agent logs quietly).
    fn assert_ok(&self) -> &Self {
        assert_eq!(
            self.code,
            Some(0),
            "exit code; stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        assert_eq!(self.stderr, "", "nothing on stderr");
        self
    }

    /// A non-zero `code`, one `error: …` line on stderr, no panic.
    fn assert_error(&self, code: i32, contains: &str) {
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        assert_eq!(self.code, Some(code), "stderr: {}", self.stderr);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line: {:?}", self.stderr);
        assert!(lines[0].starts_with("error: "), "{}", lines[0]);
        assert!(lines[0].contains(contains), "`{contains}` in: {}", lines[0]);
    }

    /// The value of a `label  value` line (first one).
    fn field(&self, label: &str) -> Option<String> {
        field_in(&self.stdout, label)
    }
}

fn field_in(text: &str, label: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim_start();
        let rest = line.strip_prefix(label)?;
        rest.starts_with(' ').then(|| rest.trim().to_string())
    })
}

fn url(app: &TestApp) -> String {
    format!("{}/", app.address)
}

/// The routing evaluation set shipped in the binary.
fn shipped_cases() -> Vec<Value> {
    serde_json::from_str(include_str!("../../../data/routing_eval.json")).expect("the shipped set")
}

fn temp_file(extension: &str, contents: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("cli-test-{}.{extension}", uuid::Uuid::new_v4()));
    std::fs::write(&path, contents).expect("temp file written");
    path
}

/// A loopback HTTP server that answers every request with one canned
/// response and records the requests it got (head and body).
struct CannedServer {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl CannedServer {
    fn start(status: &str, content_type: &str, body: &str) -> CannedServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("address").port();
        let response = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let request = read_request(&mut stream);
                recorded.lock().expect("lock").push(request);
                let _ = stream.write_all(response.as_bytes());
            }
        });
        CannedServer {
            url: format!("http://127.0.0.1:{port}/"),
            requests,
        }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("lock").clone()
    }
}

/// Head and body of one HTTP/1.1 request (by Content-Length).
fn read_request(stream: &mut std::net::TcpStream) -> String {
    let mut data = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&data).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                return text;
            }
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&data).to_string(),
            Ok(n) => data.extend_from_slice(&buffer[..n]),
        }
    }
}

/// The blocks `triage` prints, by order number.
fn triage_blocks(stdout: &str) -> Vec<(String, String)> {
    stdout
        .split("\n== ")
        .skip(1)
        .map(|block| {
            let order = block.split_whitespace().next().unwrap_or("").to_string();
            (order, block.to_string())
        })
        .collect()
}

// ---------------------------------------------------------------- card

#[tokio::test]
async fn card_prints_name_protocol_endpoint_and_every_skill() {
    let app = TestApp::spawn().await;
    let served = app.get_json("/.well-known/agent-card.json").await;
    let skill_ids: Vec<&str> = served["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|skill| skill["id"].as_str())
        .collect();
    assert_eq!(skill_ids.len(), 4);

    // In-process: the same card on an ephemeral loopback port.
    let local = run(&["card"]).await;
    local.assert_ok();
    assert!(
        local
            .stdout
            .starts_with(&format!("{}\n", served["name"].as_str().unwrap()))
    );
    assert_eq!(local.field("protocol").as_deref(), Some("A2A 0.3.0"));
    let endpoint = local.field("endpoint").expect("endpoint line");
    assert!(endpoint.starts_with("http://127.0.0.1:"), "{endpoint}");
    assert!(
        local.stdout.contains("in-process agent"),
        "{}",
        local.stdout
    );

    // Against a running service.
    let remote = run(&["card", "--url", &url(&app)]).await;
    remote.assert_ok();
    assert_eq!(
        remote.field("endpoint"),
        Some(format!("{} (JSONRPC)", served["url"].as_str().unwrap()))
    );
    assert!(!remote.stdout.contains("in-process"));
    for out in [&local.stdout, &remote.stdout] {
        for id in &skill_ids {
            let skill = served["skills"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["id"] == *id)
                .unwrap();
            let name = skill["name"].as_str().unwrap();
            assert!(out.contains(&format!("{name}: ")), "skill {id} in:\n{out}");
            assert!(field_in(out, id).is_some(), "a line for {id}:\n{out}");
        }
    }

    // --json: the card as served.
    let json = run(&["card", "--url", &url(&app), "--json"]).await;
    json.assert_ok();
    let printed: Value = serde_json::from_str(&json.stdout).expect("--json prints JSON");
    assert_eq!(printed, served);
    assert_schema("AgentCard", &printed);
}

// ---------------------------------------------------------------- ask

#[tokio::test]
async fn ask_in_process_prints_specialist_state_reply_proposal_and_next_step() {
    let out = run(&["ask", "why is order 4711 blocked by credit"]).await;
    out.assert_ok();
    let specialist = out.field("specialist").expect("specialist line");
    assert!(
        specialist.starts_with("credit  (text; credit "),
        "{specialist}"
    );
    assert_eq!(out.field("state").as_deref(), Some("completed"));
    let reply = out.field("reply").expect("reply line");
    assert!(reply.contains("50700.00 EUR"), "{reply}");
    assert!(reply.contains("1.4 percent over"), "{reply}");
    assert_eq!(
        out.field("proposal").as_deref(),
        Some("request_credit_review: Request a credit review for sales order 4711")
    );
    let context = out.field("context").expect("context line");
    let next = out.field("next").expect("next line");
    assert!(next.contains(&format!("--context {context}")), "{next}");
    assert!(out.field("note").unwrap_or_default().contains("in-process"));
}

#[tokio::test]
async fn ask_against_a_server_continues_the_task_with_the_printed_ids() {
    let app = TestApp::spawn().await;
    let first = run(&["ask", "why is it blocked by credit", "--url", &url(&app)]).await;
    first.assert_ok();
    assert_eq!(first.field("state").as_deref(), Some("input-required"));
    assert!(
        first
            .field("reply")
            .unwrap_or_default()
            .contains("Which sales order")
    );
    assert_eq!(first.field("proposal"), None, "nothing proposed yet");
    let task = first.field("task").expect("task line");
    let context = first.field("context").expect("context line");
    let next = first.field("next").expect("next line");
    assert!(
        next.contains(&format!(
            "--url {} --task {task} --context {context}",
            url(&app)
        )),
        "{next}"
    );
    assert_eq!(first.field("note"), None, "no in-process note with --url");

    let second = run(&[
        "ask",
        "4711",
        "--url",
        &url(&app),
        "--task",
        &task,
        "--context",
        &context,
    ])
    .await;
    second.assert_ok();
    assert_eq!(second.field("task"), Some(task.clone()), "the same task");
    assert_eq!(second.field("state").as_deref(), Some("completed"));
    assert!(
        second
            .field("specialist")
            .unwrap_or_default()
            .starts_with("credit")
    );
    // The server agrees.
    let stored = app
        .rpc("tasks/get", json!({ "id": task, "historyLength": 0 }))
        .await;
    assert_eq!(stored["result"]["status"]["state"], "completed");

    // --json prints the A2A task.
    let json = run(&[
        "ask",
        "Order 4725: Pricing: customer disputes the price.",
        "--url",
        &url(&app),
        "--json",
    ])
    .await;
    json.assert_ok();
    let printed: Value = serde_json::from_str(&json.stdout).expect("--json prints JSON");
    assert_schema("Task", &printed);
    assert_eq!(
        printed["status"]["message"]["metadata"]["routing"]["specialist"],
        "pricing"
    );
}

#[tokio::test]
async fn ask_sends_the_token_and_the_role_header() {
    let canned = CannedServer::start(
        "200 OK",
        "application/json",
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t-9","contextId":"c-9","status":{"state":"completed","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"done"}]}}}}"#,
    );
    let out = run_with(
        &[
            "ask",
            "order 4725",
            "--url",
            &canned.url,
            "--role",
            "credit_manager,ar_clerk",
        ],
        &[("AGENT_TOKEN", "token-from-env")],
    )
    .await;
    out.assert_ok();
    assert_eq!(
        out.field("specialist").as_deref(),
        Some("(not reported: no routing metadata)"),
        "nothing is guessed from the reply text"
    );
    assert_eq!(out.field("reply").as_deref(), Some("done"));
    let requests = canned.requests();
    assert_eq!(requests.len(), 1);
    let request = requests[0].to_ascii_lowercase();
    assert!(request.starts_with("post / "), "{request}");
    assert!(
        request.contains("authorization: bearer token-from-env"),
        "{request}"
    );
    assert!(
        request.contains("x-agent-role: credit_manager,ar_clerk"),
        "{request}"
    );
    assert!(request.contains("\"method\":\"message/send\""), "{request}");

    let flag = run_with(
        &[
            "ask",
            "order 4725",
            "--url",
            &canned.url,
            "--token",
            "from-flag",
        ],
        &[("AGENT_TOKEN", "token-from-env")],
    )
    .await;
    flag.assert_ok();
    let last = canned
        .requests()
        .pop()
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(last.contains("authorization: bearer from-flag"), "{last}");
    assert!(
        !last.contains("x-agent-role"),
        "no role unless asked: {last}"
    );
}

// ---------------------------------------------------------------- triage

/// The demo data's blocked orders and the specialist each reaches.
const TRIAGE: [(&str, &str); 4] = [
    ("4711", "credit"),
    ("4723", "masterdata"),
    ("4725", "pricing"),
    ("4740", "delivery"),
];

fn assert_triage(stdout: &str) {
    let blocks = triage_blocks(stdout);
    let orders: Vec<&str> = blocks.iter().map(|(order, _)| order.as_str()).collect();
    assert_eq!(
        orders,
        TRIAGE.map(|(order, _)| order),
        "one block per blocked order; 4730 is not blocked:\n{stdout}"
    );
    for ((_, block), (order, specialist)) in blocks.iter().zip(TRIAGE) {
        // `== 4711 (credit, completed)`: the specialist of its own block.
        assert!(
            block.starts_with(&format!("{order} ({specialist}, ")),
            "{block}"
        );
        assert!(
            field_in(block, "reply").unwrap_or_default().contains(order),
            "{block}"
        );
    }
    // One request, one task.
    assert_eq!(
        field_in(stdout, "you").as_deref(),
        Some("show me all blocked orders"),
        "{stdout}"
    );
    assert!(field_in(stdout, "task").is_some(), "{stdout}");
    assert!(
        stdout
            .trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("4 orders: "),
        "{stdout}"
    );
}

#[tokio::test]
async fn triage_in_process_prints_one_block_per_blocked_order() {
    let out = run(&["triage"]).await;
    out.assert_ok();
    let header = out.stdout.lines().next().unwrap_or("");
    assert!(
        header.starts_with("Triage of 4 blocked orders as ar_clerk at http://127.0.0.1:"),
        "{header}"
    );
    assert_triage(&out.stdout);
}

#[tokio::test]
async fn triage_against_a_server_and_its_argument_checks() {
    let app = TestApp::spawn().await;
    let out = run(&[
        "triage",
        "--url",
        &url(&app),
        "--role",
        "viewer",
        "--approve",
        "4711",
    ])
    .await;
    out.assert_ok();
    assert!(out.stdout.starts_with(&format!(
        "Triage of 4 blocked orders as viewer at {}\n",
        url(&app)
    )));
    assert_triage(&out.stdout);
    // 4711 ends without a pending approval (no flow, or a viewer may not).
    let blocks = triage_blocks(&out.stdout);
    let credit = &blocks[0].1;
    assert_eq!(
        field_in(credit, "note").as_deref(),
        Some("--approve 4711: the agent asked for no approval on this order")
    );

    run(&["triage", "--url", &url(&app), "--approve", "4730"])
        .await
        .assert_error(2, "--approve 4730: not a blocked order the agent listed");
    run(&["triage", "--role", "chief"])
        .await
        .assert_error(2, "unknown role `chief`");
}

/// The orders come from the server's own backend: here S/4HANA (the
/// double), listed by one query, not from the demo data in the binary.
#[tokio::test]
async fn triage_lists_the_blocked_orders_of_the_servers_backend() {
    let sourced = crate::agent::sources::spawn(crate::agent::sources::Source::S4hana).await;
    let out = run(&["triage", "--url", &url(&sourced.app)]).await;
    out.assert_ok();
    assert_triage(&out.stdout);
    let s4 = sourced.s4.as_ref().expect("the S/4 double");
    let listed = s4
        .requests()
        .iter()
        .filter(|request| request.target.contains("A_SalesOrder?"))
        .count();
    assert_eq!(listed, 1, "one query lists the blocked orders");
}

/// The approval flow's contract: `--approve` files once, a second run
/// reports "already filed"; an ar_clerk may not request a credit review,
/// a credit manager may.
#[tokio::test]
async fn triage_approves_in_the_same_task_once_then_reports_already_filed() {
    let app = TestApp::spawn().await;
    let first = run(&["triage", "--url", &url(&app), "--approve", "4725"]).await;
    first.assert_ok();
    let blocks = triage_blocks(&first.stdout);
    let dispute = &blocks[2].1;
    assert!(
        dispute.contains("approval    pending: open_dispute_case on 4725"),
        "{dispute}"
    );
    assert!(
        first.stdout.contains("you         approve 4725"),
        "one answer approves the named orders in the same task: {}",
        first.stdout
    );
    assert!(
        dispute.contains("approval    filed: open_dispute_case on 4725"),
        "{dispute}"
    );
    let credit = &blocks[0].1;
    assert!(
        credit.contains("not permitted: role ar_clerk may not do request_credit_review"),
        "{credit}"
    );
    let masterdata = &blocks[1].1;
    assert!(
        masterdata.contains("not permitted: role ar_clerk"),
        "{masterdata}"
    );
    assert!(first.stdout.contains("filed 4725"), "{}", first.stdout);

    let second = run(&["triage", "--url", &url(&app), "--approve", "4725"]).await;
    second.assert_ok();
    let dispute = &triage_blocks(&second.stdout)[2].1;
    assert!(
        dispute.contains("approval    already filed: open_dispute_case on 4725"),
        "{dispute}"
    );

    let manager = run(&[
        "triage",
        "--url",
        &url(&app),
        "--role",
        "credit_manager",
        "--approve",
        "4711",
    ])
    .await;
    manager.assert_ok();
    let credit = &triage_blocks(&manager.stdout)[0].1;
    assert!(
        credit.contains("approval    filed: request_credit_review on 4711"),
        "{credit}"
    );
}

// ---------------------------------------------------------------- eval

#[tokio::test]
async fn eval_in_process_routes_the_shipped_set_and_writes_the_report() {
    let report_path =
        std::env::temp_dir().join(format!("cli-report-{}.json", uuid::Uuid::new_v4()));
    let out = run(&["eval", "--out", report_path.to_str().unwrap()]).await;
    let report = std::fs::read_to_string(&report_path);
    let _ = std::fs::remove_file(&report_path);
    out.assert_ok();
    let cases = shipped_cases();
    let lines: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("OK "))
        .collect();
    assert_eq!(lines.len(), cases.len(), "{}", out.stdout);
    for (line, case) in lines.iter().zip(&cases) {
        let expected = case["expected"].as_str().unwrap_or("none");
        assert!(line.ends_with(case["text"].as_str().unwrap()), "{line}");
        assert_eq!(line.split_whitespace().nth(1), Some(expected), "{line}");
    }
    let total = cases.len();
    assert!(
        out.stdout.contains(&format!(
            "{total}/{total} routed as expected: 100.0 % (threshold 100 %): passed"
        )),
        "{}",
        out.stdout
    );
    for language in ["de", "en", "es", "fr"] {
        let count = cases.iter().filter(|c| c["language"] == language).count();
        assert!(
            out.stdout.contains(&format!(
                "{language}: {count}/{count} routed as expected: 100.0 %"
            )),
            "{}",
            out.stdout
        );
    }
    let report: Value = serde_json::from_str(&report.expect("report written")).expect("JSON");
    assert_eq!(report["total"], total);
    assert_eq!(report["passed"], total);
    assert_eq!(report["byLanguage"]["de"]["accuracyPercent"], 100.0);
    assert!(report["byLanguage"]["de"]["total"].as_u64().unwrap_or(0) >= 30);
    assert_eq!(report["meetsThreshold"], true);
    assert_eq!(report["cases"][0]["text"], cases[0]["text"]);
    assert_eq!(report["cases"][0]["specialist"], "credit");
    assert_eq!(report["cases"][0]["routingReported"], true);
    assert!(
        report["cases"][0]["scores"]["credit"]
            .as_f64()
            .unwrap_or(0.0)
            > 0.0
    );
    assert_eq!(report["cases"][11]["specialist"], Value::Null);
}

#[tokio::test]
async fn eval_fails_below_the_threshold_on_a_wrong_expectation() {
    let app = TestApp::spawn().await;
    let mut cases = shipped_cases();
    // The ninth case shares "delivery" with the delivery card; it belongs to masterdata.
    assert_eq!(cases[8]["expected"], "masterdata");
    cases[8]["expected"] = json!("delivery");
    let set = temp_file("json", &cases_json(&cases));
    let out = run(&["eval", "--url", &url(&app), "--set", set.to_str().unwrap()]).await;
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stderr.contains("panicked"));
    let miss: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("MISS"))
        .collect();
    assert_eq!(miss.len(), 1, "{}", out.stdout);
    assert!(
        miss[0].starts_with("MISS  masterdata  Incomplete: delivery address data missing.  (expected delivery; text; masterdata "),
        "{}",
        miss[0]
    );
    let total = cases.len();
    let line = format!(
        "{}/{total} routed as expected: {:.1} % (threshold 100 %): FAILED",
        total - 1,
        (total - 1) as f64 * 100.0 / total as f64
    );
    assert!(out.stdout.contains(&line), "{line}\n{}", out.stdout);

    // A lower threshold lets the same result pass.
    let lenient = run(&[
        "eval",
        "--url",
        &url(&app),
        "--set",
        set.to_str().unwrap(),
        "--threshold",
        "90%",
    ])
    .await;
    let _ = std::fs::remove_file(&set);
    lenient.assert_ok();
    assert!(
        lenient.stdout.contains("(threshold 90 %): passed"),
        "{}",
        lenient.stdout
    );
}

fn cases_json(cases: &[Value]) -> String {
    serde_json::to_string_pretty(cases).expect("JSON")
}

#[tokio::test]
async fn eval_reads_toml_sets_and_refuses_bad_ones() {
    let set = temp_file(
        "toml",
        "[[case]]\ntext = \"customer wants a later delivery date on 4740\"\nexpected = \"delivery\"\n\n\
         [[case]]\ntext = \"book a meeting room for tomorrow\"\nexpected = \"none\"\n\n\
         [[case]]\ntext = \"what address data is missing on 4723\"\nexpected = \"masterdata\"\n",
    );
    let out = run(&["eval", "--set", set.to_str().unwrap()]).await;
    let _ = std::fs::remove_file(&set);
    out.assert_ok();
    assert!(
        out.stdout
            .contains("OK    delivery    customer wants a later delivery date on 4740")
    );
    assert!(
        out.stdout
            .contains("OK    none        book a meeting room for tomorrow")
    );
    assert!(
        out.stdout.contains("3/3 routed as expected"),
        "{}",
        out.stdout
    );

    let broken = temp_file("toml", "[[case]]\nexpected = \"credit\"\n");
    run(&["eval", "--set", broken.to_str().unwrap()])
        .await
        .assert_error(2, "missing field `text`");
    let _ = std::fs::remove_file(&broken);
    let other = temp_file("yaml", "- text: x\n");
    run(&["eval", "--set", other.to_str().unwrap()])
        .await
        .assert_error(2, "must end in .json or .toml");
    let _ = std::fs::remove_file(&other);
    let over = run(&["eval", "--threshold", "120"]).await;
    assert_eq!(over.code, Some(2), "clap refuses a threshold over 100");
    assert!(
        over.stderr.contains("not a percentage from 0 to 100"),
        "{}",
        over.stderr
    );
}

// ---------------------------------------------------------------- errors

#[tokio::test]
async fn an_unreachable_url_is_one_line_and_exit_3() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("address").port()
    };
    let dead = format!("http://127.0.0.1:{port}/");
    for command in [
        vec!["card", "--url", &dead],
        vec!["ask", "why is order 4711 blocked by credit", "--url", &dead],
        vec!["triage", "--url", &dead],
        vec!["eval", "--url", &dead],
    ] {
        run(&command)
            .await
            .assert_error(3, &format!("cannot reach http://127.0.0.1:{port}/"));
    }
    run(&["ask", "hello", "--url", "localhost:8080"])
        .await
        .assert_error(2, "`localhost:8080` is not a usable URL");
}

#[tokio::test]
async fn endpoints_that_are_not_a2a_are_named_as_such() {
    let html = CannedServer::start("200 OK", "text/html", "<html><body>Welcome</body></html>");
    run(&["ask", "hello", "--url", &html.url])
        .await
        .assert_error(
            3,
            "is not an A2A endpoint: POST answered text/html, not a JSON-RPC response",
        );
    run(&["card", "--url", &html.url])
        .await
        .assert_error(3, "answered text/html, not an agent card");
    let json = CannedServer::start("200 OK", "application/json", r#"{"status":"UP"}"#);
    run(&["eval", "--url", &json.url]).await.assert_error(
        3,
        "is not an A2A endpoint: its answer is JSON but not a JSON-RPC 2.0 response",
    );

    let app = TestApp::spawn().await;
    run(&["ask", "hello", "--url", &format!("{}/health", app.address)])
        .await
        .assert_error(3, "answered HTTP 405: POST /health is not allowed");
}

#[tokio::test]
async fn json_rpc_errors_are_one_line_with_the_code() {
    let app = TestApp::spawn().await;
    run(&["ask", "   ", "--url", &url(&app)])
        .await
        .assert_error(
            3,
            "JSON-RPC error -32602: params.message.parts: the message has no text",
        );
}

#[tokio::test]
async fn with_authentication_on_a_missing_or_bad_token_is_401_and_a_valid_one_works() {
    let keys = KeyServer::start().await;
    let app = TestApp::builder().auth(&keys).spawn().await;
    let endpoint = url(&app);

    run(&[
        "ask",
        "why is order 4711 blocked by credit",
        "--url",
        &endpoint,
    ])
    .await
    .assert_error(3, "refused the call (HTTP 401, unauthorized)");
    run(&[
        "ask",
        "why is order 4711 blocked by credit",
        "--url",
        &endpoint,
        "--token",
        "not-a-jwt",
    ])
    .await
    .assert_error(3, "refused the call (HTTP 401, invalid_token)");
    let other_api = token(&with(user_claims(), "ias_apis", json!(["some-other-api"])));
    run_with(
        &["eval", "--url", &endpoint],
        &[("AGENT_TOKEN", other_api.as_str())],
    )
    .await
    .assert_error(3, "refused the call (HTTP 403, insufficient_scope)");

    let good = token(&user_claims());
    let out = run_with(
        &[
            "ask",
            "why is order 4711 blocked by credit",
            "--url",
            &endpoint,
        ],
        &[("AGENT_TOKEN", good.as_str())],
    )
    .await;
    out.assert_ok();
    assert_eq!(out.field("state").as_deref(), Some("completed"));
    // The card stays public and says how to authenticate.
    let card = run(&["card", "--url", &endpoint]).await;
    card.assert_ok();
    assert!(
        card.field("security")
            .unwrap_or_default()
            .contains("openIdConnect")
    );
}

#[tokio::test]
async fn every_command_has_help_with_an_example() {
    for command in ["card", "ask", "triage", "eval"] {
        let out = run(&[command, "--help"]).await;
        out.assert_ok();
        assert!(
            out.stdout.contains("Examples:"),
            "{command}: {}",
            out.stdout
        );
        assert!(
            out.stdout
                .contains(&format!("order-exception-agent {command}")),
            "{command}: {}",
            out.stdout
        );
        assert!(out.stdout.contains("--url <URL>"), "{command}");
    }
    let top = run(&["--help"]).await;
    top.assert_ok();
    // The service speaks both protocol versions, and says so.
    assert!(
        top.stdout.contains("A2A 0.3.0 and 1.0 agent"),
        "{}",
        top.stdout
    );
    for command in ["card", "ask", "triage", "eval", "serve"] {
        assert!(top.stdout.contains(command), "{command} in the overview");
    }
}
