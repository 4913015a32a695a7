//! The client commands of the real binary with a standard output nobody
//! reads any more (`order-exception-agent card --json | head -c 100`): each
//! ends quietly with exit code 141, as a Unix tool that SIGPIPE ended, with
//! no panic and no error line.

use crate::helpers::wait_until;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

struct Ended {
    code: Option<i32>,
    stderr: String,
}

/// Run the binary with `args`, its stdout a pipe whose read end is closed
/// before the binary starts: its first write fails with `BrokenPipe`
/// (Rust ignores SIGPIPE), whatever the machine's speed.
async fn run_with_closed_stdout(args: &[&str]) -> Ended {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_order-exception-agent"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("AGENT__STORE__SQLITE_FILE", ":memory:")
        .env_remove("RUST_LOG")
        .env_remove("AGENT_TOKEN")
        .env_remove("AGENT_CONFIG")
        .env_remove("VCAP_APPLICATION")
        .env_remove("VCAP_SERVICES")
        .env_remove("PORT")
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut exited = None;
    wait_until(Duration::from_secs(60), async || {
        exited = child.try_wait().expect("wait works");
        exited.is_some()
    })
    .await;
    let Some(status) = exited else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{args:?} did not end within 60 s of its stdout closing");
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    Ended {
        code: status.code(),
        stderr,
    }
}

#[tokio::test]
async fn every_client_command_ends_quietly_when_its_stdout_is_closed() {
    for args in [
        &["card"][..],
        &["card", "--json"],
        &["ask", "why is order 4711 blocked by credit"],
        &["ask", "why is order 4711 blocked by credit", "--json"],
        &["triage"],
        &["eval"],
        &["actions"],
        &["actions", "--json"],
    ] {
        let ended = run_with_closed_stdout(args).await;
        assert!(
            !ended.stderr.contains("panicked"),
            "{args:?} panicked: {}",
            ended.stderr
        );
        assert_eq!(
            ended.code,
            Some(141),
            "{args:?} ends with the code of a SIGPIPE end: {}",
            ended.stderr
        );
        assert!(
            !ended.stderr.contains("error:"),
            "{args:?} says nothing about it: {}",
            ended.stderr
        );
    }
}
