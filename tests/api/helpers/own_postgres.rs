//! A PostgreSQL cluster of the test's own, for the tests that crash the
//! database: `initdb` in a fresh folder, the server on a free loopback port
//! (its socket in that folder), stopped `immediate` (a crash: no
//! checkpoint, the WAL replayed at the next start), started again, and
//! stopped and removed when dropped. Never the shared server of
//! `TEST_DATABASE_URL`, which other tests use at the same time. As root
//! (initdb refuses root) the cluster runs as the `postgres` user.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct OwnPostgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres_user: bool,
}

/// The newest installed PostgreSQL's programs (`/usr/lib/postgresql/N/bin`).
fn postgres_bin() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

impl OwnPostgres {
    /// A new cluster, started; `None` after saying the test is skipped
    /// (the PostgreSQL tests are off without `TEST_DATABASE_URL`, or the
    /// server's programs are not installed).
    pub async fn start(test: &str) -> Option<OwnPostgres> {
        if std::env::var("TEST_DATABASE_URL").is_err() {
            eprintln!("SKIPPED {test}: TEST_DATABASE_URL is not set (PostgreSQL tests)");
            return None;
        }
        let Some(bin) = postgres_bin() else {
            eprintln!("SKIPPED {test}: no PostgreSQL server programs in /usr/lib/postgresql");
            return None;
        };
        let dir = std::env::temp_dir().join(format!("oea-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("the cluster's folder");
        let cluster = OwnPostgres {
            bin,
            dir,
            port: free_port(),
            as_postgres_user: running_as_root(),
        };
        if cluster.as_postgres_user {
            let owned = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(&cluster.dir)
                .status()
                .is_ok_and(|status| status.success());
            assert!(owned, "the cluster's folder given to the postgres user");
        }
        let data = cluster.data().to_string_lossy().to_string();
        cluster
            .run(
                "initdb",
                &["-D", &data, "-A", "trust", "-U", "postgres", "--no-sync"],
            )
            .await;
        cluster.start_again().await;
        Some(cluster)
    }

    /// The URL of its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Kill the server without a checkpoint, as a crash does.
    pub async fn crash(&self) {
        let data = self.data().to_string_lossy().to_string();
        self.run("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"])
            .await;
    }

    /// Start the server (again), waiting until it takes connections: after
    /// a crash, once it replayed its WAL.
    pub async fn start_again(&self) {
        let data = self.data().to_string_lossy().to_string();
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("server.log").to_string_lossy().to_string();
        self.run(
            "pg_ctl",
            &["-D", &data, "-o", &options, "-l", &log, "-w", "start"],
        )
        .await;
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Run one of the server's programs (as `postgres` when root), off the
    /// test's runtime (the service under test runs on it too); it must
    /// succeed.
    async fn run(&self, program: &str, args: &[&str]) {
        let command = command(&self.bin.join(program), args, self.as_postgres_user);
        let described = format!("{program} {args:?}");
        let output = tokio::task::spawn_blocking(move || {
            let mut command = command;
            command.output()
        })
        .await
        .expect("the command's thread")
        .unwrap_or_else(|error| panic!("{described} does not run: {error}"));
        assert!(
            output.status.success(),
            "{described} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn command(program: &Path, args: &[&str], as_postgres_user: bool) -> Command {
    let mut command = if as_postgres_user {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    command.args(args);
    command
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let data = self.data().to_string_lossy().to_string();
        let _ = command(
            &self.bin.join("pg_ctl"),
            &["-D", &data, "-m", "immediate", "-w", "stop"],
            self.as_postgres_user,
        )
        .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
