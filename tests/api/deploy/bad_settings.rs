//! The real binary with bad settings: whichever check finds them (the
//! settings loader, the rule book, the identity settings), `serve` stops
//! with exit code 2 and one `error:` line that names the setting. Failures
//! that are not the settings' fault (a port in use) stay exit code 1. An
//! empty `AGENT__…` variable counts as unset.

use crate::helpers::binary::start_binary;
use crate::helpers::key_server::*;
use crate::helpers::wait_until;
use std::process::{Command, Stdio};
use std::time::Duration;

struct Exit {
    code: Option<i32>,
    stderr: String,
}

/// Run `serve` with `envs` (and a settings file holding `toml`, if any) and
/// wait for it to stop; a binary still running after 30 s started despite
/// the settings, which fails the test.
async fn serve_exit(envs: &[(&str, &str)], toml: Option<&str>) -> Exit {
    let file = toml.map(|text| {
        let path = std::env::temp_dir().join(format!("agent-{}.toml", uuid::Uuid::new_v4()));
        std::fs::write(&path, text).expect("the settings file is written");
        path
    });
    let mut command = Command::new(env!("CARGO_BIN_EXE_order-exception-agent"));
    command
        .arg("serve")
        .env("PORT", "0")
        .env("AGENT__SERVER__HOST", "127.0.0.1")
        .env("AGENT__STORE__SQLITE_FILE", ":memory:")
        .env("NO_COLOR", "1")
        .env_remove("AGENT_CONFIG")
        .env_remove("VCAP_APPLICATION")
        .env_remove("VCAP_SERVICES")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(path) = &file {
        command.arg("--config").arg(path);
    }
    for (name, value) in envs {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the binary starts");
    let mut exited = None;
    wait_until(Duration::from_secs(30), async || {
        exited = child.try_wait().expect("wait works");
        exited.is_some()
    })
    .await;
    let Some(status) = exited else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the binary started despite bad settings: {envs:?} {toml:?}");
    };
    if let Some(path) = &file {
        let _ = std::fs::remove_file(path);
    }
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    Exit {
        code: status.code(),
        stderr,
    }
}

impl Exit {
    /// Exit `code`, no panic, and exactly one `error:` line containing `says`.
    fn assert(&self, code: i32, says: &str) {
        assert_eq!(self.code, Some(code), "exit code; stderr: {}", self.stderr);
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        let errors: Vec<&str> = self
            .stderr
            .lines()
            .filter(|line| line.starts_with("error: "))
            .collect();
        assert_eq!(errors.len(), 1, "one error line: {}", self.stderr);
        assert!(errors[0].contains(says), "names the setting: {}", errors[0]);
    }
}

/// Identity settings that are complete and valid, to add one bad one to.
const IDENTITY: [(&str, &str); 2] = [
    ("AGENT__AUTH__CLIENT_ID", CLIENT_ID),
    ("AGENT__AUTH__DOMAINS", DOMAIN),
];

fn identity_and(extra: (&'static str, &'static str)) -> Vec<(&'static str, &'static str)> {
    let mut envs = IDENTITY.to_vec();
    envs.push(extra);
    envs
}

#[tokio::test]
async fn every_bad_setting_exits_2_with_one_line_naming_it() {
    // Found by the settings loader (exit 2 before this fix too: the control).
    serve_exit(&[("PORT", "eighty")], None)
        .await
        .assert(2, "`eighty` is not a port number");
    // Found by the rule book.
    serve_exit(&[], Some("[rules.roles]\nar_clerk = [\"release_order\"]\n"))
        .await
        .assert(2, "rules");
    serve_exit(&[], Some("[rules.proposals]\nastrology = []\n"))
        .await
        .assert(2, "unknown specialist `astrology`");
    serve_exit(
        &[],
        Some("[rules.decisions]\nrelease_order = [\"credit_manager\"]\n"),
    )
    .await
    .assert(2, "rules.decisions: unknown decision `release_order`");
    // Found by the identity settings.
    serve_exit(&[("AGENT__AUTH__CLIENT_ID", CLIENT_ID)], None)
        .await
        .assert(2, "no trusted IAS domains");
    serve_exit(
        &identity_and(("AGENT__AUTH__GROUP_ROLES", "Approvers")),
        None,
    )
    .await
    .assert(2, "auth.group_roles entry `Approvers` is not GROUP=role");
    serve_exit(
        &identity_and(("AGENT__AUTH__GROUP_ROLES", "Approvers=wizard")),
        None,
    )
    .await
    .assert(2, "auth.group_roles");
    serve_exit(
        &identity_and(("AGENT__AUTH__TEST_KEY_SERVER", "http://keys.example.com/")),
        None,
    )
    .await
    .assert(
        2,
        "auth.test_key_server must be a plain http:// loopback URL",
    );
    // Found by the store settings: a database URL that is not one.
    serve_exit(
        &[
            ("AGENT__STORE__BACKEND", "postgres"),
            ("AGENT__STORE__DATABASE_URL", "not a url"),
        ],
        None,
    )
    .await
    .assert(2, "store");
    // The conformance agent is a test hook: refused on Cloud Foundry.
    serve_exit(
        &[
            ("AGENT__CONFORMANCE__TCK_SCENARIOS", "true"),
            (
                "VCAP_APPLICATION",
                r#"{"application_uris": ["agent.example.com"]}"#,
            ),
        ],
        None,
    )
    .await
    .assert(
        2,
        "conformance.tck_scenarios is for tests and refused on Cloud Foundry",
    );
    // Found by the Cloud Foundry reader: bindings that are not JSON, for
    // every room alike (telemetry and the S/4HANA source used to skip them).
    serve_exit(&[("VCAP_SERVICES", "{\"identity\": [")], None)
        .await
        .assert(2, "VCAP_SERVICES is not valid JSON");
    serve_exit(&[("VCAP_APPLICATION", "not json")], None)
        .await
        .assert(2, "VCAP_APPLICATION is not valid JSON");
}

#[tokio::test]
async fn an_action_hook_url_the_guard_refuses_stops_the_start() {
    // Plain http without push.action_hook.allow_loopback_http: it used to
    // start, and every delivery failed.
    serve_exit(
        &[],
        Some("[push.action_hook]\nurl = \"http://127.0.0.1:9/hook\"\nallowed_hosts = [\"127.0.0.1\"]\n"),
    )
    .await
    .assert(2, "push.action_hook.url `http://127.0.0.1:9/hook` is refused");
    // Not on the allowlist (the list from the environment, comma-separated).
    serve_exit(
        &[
            (
                "AGENT__PUSH__ACTION_HOOK__URL",
                "https://hooks.example.com/approved",
            ),
            (
                "AGENT__PUSH__ACTION_HOOK__ALLOWED_HOSTS",
                "other.example.com,*.example.org",
            ),
        ],
        None,
    )
    .await
    .assert(
        2,
        "push.action_hook.url `https://hooks.example.com/approved` is refused",
    );
    // Named by scheme, host and path: user information and query may be
    // secrets.
    let exit = serve_exit(
        &[
            (
                "AGENT__PUSH__ACTION_HOOK__URL",
                "https://hook-user:pw-secret@hooks.example.com/approved?sig=q-secret",
            ),
            (
                "AGENT__PUSH__ACTION_HOOK__ALLOWED_HOSTS",
                "hooks.example.com",
            ),
        ],
        None,
    )
    .await;
    exit.assert(
        2,
        "push.action_hook.url `https://hooks.example.com/approved` is refused",
    );
    assert!(
        !exit.stderr.contains("secret") && !exit.stderr.contains("hook-user"),
        "{}",
        exit.stderr
    );
}

/// Real S/4HANA writes on Cloud Foundry need the durable store: with
/// SQLite on the container's disk a restart forgets what was carried out.
#[tokio::test]
async fn real_writes_on_cloud_foundry_without_postgresql_stop_the_start() {
    serve_exit(
        &[
            ("AGENT__ACTIONS__EXECUTOR", "s4hana"),
            (
                "VCAP_APPLICATION",
                r#"{"application_uris": ["agent.example.com"]}"#,
            ),
        ],
        None,
    )
    .await
    .assert(
        2,
        "actions.executor = s4hana carries approved actions out in S/4HANA, and on Cloud Foundry that needs a durable store",
    );
}

#[tokio::test]
async fn a_note_text_id_that_is_the_customers_note_stops_the_start() {
    serve_exit(
        &[("AGENT__BACKEND__BLOCKS__CUSTOMER_NOTE_TEXT_ID", "Z001")],
        None,
    )
    .await
    .assert(
        2,
        "actions.note_text_id `Z001` is also backend.blocks.customer_note_text_id",
    );
    serve_exit(&[], Some("[actions]\nnote_text_id = \"0001\"\n"))
        .await
        .assert(
            2,
            "actions.note_text_id `0001` is also backend.blocks.customer_note_text_id",
        );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_hook_configured_from_the_environment_starts() {
    // `expected a sequence for key push.action_hook.allowed_hosts` used to
    // stop this start: on Cloud Foundry the hook could not be set up.
    let running = start_binary(&[
        (
            "AGENT__PUSH__ACTION_HOOK__URL",
            "https://hooks.example.com/approved",
        ),
        (
            "AGENT__PUSH__ACTION_HOOK__ALLOWED_HOSTS",
            "hooks.example.com",
        ),
        (
            "AGENT__BACKEND__BLOCKS__BLOCK_TEXTS",
            "ZL=customer asked for a later date",
        ),
        (
            "AGENT__RULES__ROLES__AR_CLERK",
            "open_dispute_case,request_credit_review",
        ),
    ])
    .await;
    let health = crate::helpers::http_client()
        .get(format!("http://127.0.0.1:{}/health", running.port))
        .send()
        .await
        .expect("the binary serves");
    assert_eq!(health.status().as_u16(), 200);
    running.terminate().await;
}

#[tokio::test]
async fn a_port_in_use_is_not_a_settings_error_and_exits_1() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = taken.local_addr().expect("its address").port().to_string();
    serve_exit(&[("PORT", port.as_str())], None)
        .await
        .assert(1, "cannot listen on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_variables_count_as_unset() {
    let keys = KeyServer::start().await;
    // `AGENT__AUTH__GROUP_ROLES=` used to be one empty entry (start refused);
    // `AGENT__AUTH__APP_TID=` a tenant "" no token matches.
    let running = start_binary(&[
        ("AGENT__AUTH__CLIENT_ID", CLIENT_ID),
        ("AGENT__AUTH__DOMAINS", "accounts.test,accounts.cloud.test"),
        ("AGENT__AUTH__URL", ISSUER),
        ("AGENT__AUTH__TEST_KEY_SERVER", &keys.url),
        ("AGENT__AUTH__APP_TID", ""),
        ("AGENT__AUTH__GROUP_ROLES", ""),
        ("AGENT__CARD__NAME", ""),
    ])
    .await;
    let client = crate::helpers::http_client();
    let base = format!("http://127.0.0.1:{}", running.port);
    let response = client
        .post(format!("{base}/"))
        .header("Authorization", format!("Bearer {}", token(&user_claims())))
        .json(&serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": { "message": crate::helpers::user_message("why is order 4711 blocked by credit") }
        }))
        .send()
        .await
        .expect("the binary serves");
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.expect("a JSON answer");
    assert_eq!(status, 200, "a valid token is accepted: {body}");
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");
    let card: serde_json::Value = client
        .get(format!("{base}/.well-known/agent-card.json"))
        .send()
        .await
        .expect("the card is served")
        .json()
        .await
        .expect("the card is JSON");
    assert_eq!(
        card["name"], "Order Exception Agent",
        "an empty AGENT__CARD__NAME keeps the default"
    );
    running.terminate().await;
}
