//! Interop with the official Python A2A SDK (a2a-sdk 0.3.x): card, send,
//! get, cancel, errors, and the same over SSE (`streaming=True`) — `tests/interop/a2a_client.py` against this server.
//!
//! The interpreter comes from `A2A_INTEROP_PYTHON`, else `.venv/bin/python`
//! (see tests/interop/requirements.txt). Without one the test says it is
//! skipped, unless `A2A_INTEROP_REQUIRED=1` (set by .ci/run) makes that a failure.

use crate::helpers::TestApp;
use std::path::PathBuf;
use std::process::Command;

fn python() -> Option<PathBuf> {
    if let Ok(path) = std::env::var("A2A_INTEROP_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    venv.exists().then_some(venv)
}

#[tokio::test]
async fn the_official_python_client_resolves_sends_gets_and_cancels() {
    let required = std::env::var("A2A_INTEROP_REQUIRED").is_ok_and(|v| v == "1");
    let Some(python) = python() else {
        assert!(
            !required,
            "A2A_INTEROP_REQUIRED=1 but no Python with a2a-sdk was found"
        );
        eprintln!(
            "SKIPPED interop test: set A2A_INTEROP_PYTHON or create .venv \
             (python3 -m venv .venv && .venv/bin/pip install -r tests/interop/requirements.txt)"
        );
        return;
    };
    let app = TestApp::spawn().await;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/interop/a2a_client.py");
    let base_url = format!("{}/", app.address);
    for (mode, expected) in [
        (None, "interop: 7 passed, 0 failed"),
        (Some("--streaming"), "interop: 3 passed, 0 failed"),
    ] {
        let (python, script, base_url) = (python.clone(), script.clone(), base_url.clone());
        let output = tokio::task::spawn_blocking(move || {
            let mut command = Command::new(&python);
            command
                .arg(&script)
                .arg(&base_url)
                .env("NO_PROXY", "127.0.0.1,localhost");
            if let Some(mode) = mode {
                command.arg(mode);
            }
            command.output()
        })
        .await
        .expect("the client thread finishes")
        .expect("the Python client starts");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the Python client ({mode:?}) failed ({}):\n{stdout}\n{stderr}",
            output.status
        );
        assert!(stdout.contains(expected), "{stdout}\n{stderr}");
    }
}
