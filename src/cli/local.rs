//! The service in-process for client commands without `--url`: 127.0.0.1 on
//! an ephemeral port, the embedded demo data, authentication off, and the
//! store `serve` would use (SQLite in `var/` by default, `AGENT__STORE__…`
//! honoured), so an action filed by `triage --approve` stays filed. It lives
//! as long as the command (the process exits when the command is done).

use crate::auth::{AuthMode, AuthSettings};
use crate::backend::BackendSettings;
use crate::config::Settings;
use crate::startup::{Application, StartupError};

pub struct LocalAgent {
    url: String,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Settings of the in-process agent: defaults (no config file, no other
/// `AGENT__…` variables), so every clone behaves the same; only the store
/// comes from the environment, shared with a local `serve`.
pub fn settings() -> Settings {
    let mut settings = Settings::default();
    settings.server.host = Some("127.0.0.1".into());
    settings.server.port = 0;
    settings.server.public_url = None;
    settings.server.workers = Some(1);
    settings.auth = AuthSettings {
        mode: Some(AuthMode::Off),
        ..AuthSettings::default()
    };
    settings.backend = BackendSettings::default();
    settings.store = Settings::load(None)
        .map(|loaded| loaded.store)
        .unwrap_or_default();
    settings
}

impl LocalAgent {
    /// Bind and start serving (needs a running tokio runtime).
    pub async fn start() -> Result<LocalAgent, StartupError> {
        let application = Application::build(settings()).await?;
        let url = application.public_url().to_string();
        let server = tokio::spawn(application.run_until_stopped());
        Ok(LocalAgent { url, server })
    }

    /// The JSON-RPC endpoint, `http://127.0.0.1:<port>/`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for LocalAgent {
    fn drop(&mut self) {
        self.server.abort();
    }
}
