//! `serve`: load the settings, set up telemetry from them, build the
//! application and run it until SIGTERM; the exit code says why it stopped.

use crate::cli::error_line;
use crate::cloud_foundry::ProcessEnv;
use crate::config::Settings;
use crate::startup::{self, Application};
use crate::telemetry;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// How long pending spans may take to export at shutdown.
const TELEMETRY_FLUSH: Duration = Duration::from_secs(2);

/// Serves the A2A endpoint: exit 0 after a graceful stop, 2 on bad
/// settings (whichever check found them), 1 on other failures to start.
pub async fn serve(config: Option<PathBuf>) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(startup::EXIT_BAD_SETTINGS);
        }
    };
    let telemetry =
        telemetry::init_service(&settings.telemetry, &settings.cloud_foundry, &ProcessEnv);
    let application = match Application::build(settings).await {
        Ok(application) => application,
        Err(error) => {
            error_line(&error);
            telemetry.shutdown(TELEMETRY_FLUSH).await;
            return ExitCode::from(error.exit_code());
        }
    };
    tracing::info!(
        port = application.port(),
        public_url = application.public_url(),
        "listening on port {}; agent card at {}.well-known/agent-card.json",
        application.port(),
        application.public_url()
    );
    let code = match application.run_until_stopped().await {
        Ok(()) => {
            tracing::info!("stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            error_line(&format!("server failed: {error}"));
            ExitCode::from(startup::EXIT_START_FAILED)
        }
    };
    // After the server's own shutdown (about 5 s): inside CF's 10 s window.
    telemetry.shutdown(TELEMETRY_FLUSH).await;
    code
}
