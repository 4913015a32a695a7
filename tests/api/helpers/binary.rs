//! The real binary as Cloud Foundry starts it: `PORT=0`, the environment
//! cleaned of what would change its behaviour, stdout and stderr read line
//! by line; stopped with SIGTERM like `cf stop`, killed when dropped.

use super::{TestApp, wait_until};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub struct Running {
    pub child: Child,
    pub port: u16,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

/// Start the binary with `envs` and wait for its "listening on port" line.
pub async fn start_binary(envs: &[(&str, &str)]) -> Running {
    let mut command = Command::new(env!("CARGO_BIN_EXE_order-exception-agent"));
    command
        .env("PORT", "0")
        .env("AGENT__SERVER__HOST", "127.0.0.1")
        .env("NO_COLOR", "1")
        .env("AGENT__STORE__SQLITE_FILE", ":memory:")
        .env_remove("VCAP_APPLICATION")
        .env_remove("VCAP_SERVICES")
        .stderr(Stdio::piped())
        .stdout(Stdio::piped());
    for (name, value) in envs {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the binary starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (lines_tx, lines) = mpsc::channel();
    // Text logs go to stderr, JSON logs (Cloud Foundry) to stdout.
    let stdout_tx = lines_tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if stdout_tx.send(line).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut running = Running {
        child,
        port: 0,
        lines,
        seen: Vec::new(),
    };
    wait_until(Duration::from_secs(30), async || {
        running.drain();
        running.port = running
            .seen
            .iter()
            .filter_map(|line| line.split("listening on port ").nth(1))
            .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .find_map(|digits| digits.parse().ok())
            .unwrap_or(0);
        running.port != 0
    })
    .await;
    if running.port == 0 {
        let _ = running.child.kill();
        panic!(
            "the binary never said which port it listens on: {:?}",
            running.seen
        );
    }
    running
}

impl Running {
    /// The running binary as a [`TestApp`] to call.
    pub fn app(&self) -> TestApp {
        TestApp::at(self.port)
    }

    fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
    }

    /// SIGTERM, then wait (CF kills after 10 s); returns everything logged.
    pub async fn terminate(mut self) -> Vec<String> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let mut exit = None;
        wait_until(Duration::from_secs(10), async || {
            exit = self.child.try_wait().expect("wait works");
            exit.is_some()
        })
        .await;
        let Some(exit) = exit else {
            let _ = self.child.kill();
            panic!("the binary did not stop within 10 s of SIGTERM");
        };
        assert!(exit.success(), "a clean exit after SIGTERM: {exit}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.drain();
        std::mem::take(&mut self.seen)
    }
}

/// A binary a test did not terminate (it panicked, or left a restarted
/// binary running) is killed with the test: it must not outlive the test
/// run, holding its files and ports.
impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
