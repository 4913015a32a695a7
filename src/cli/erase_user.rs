//! `order-exception-agent erase-user`: erase one user's data in the store
//! the settings name (as `serve` would open it), for an operator on the
//! instance (`cf ssh`) — what `POST /users/erase` does for a data
//! protection officer (docs/personal-data.md): the user's tasks with their
//! contexts and push configs deleted, their ledger rows kept with the
//! approver replaced by `erased`, one data-modification audit message
//! stored before the command ends. The user is named as their tokens name
//! them: the user id, the identity service (`--issuer`, default `ias`) and
//! the tenant (`--tenant`, default the IAS binding's `app_tid`). Exit
//! codes: 0 erased (also when nothing was there), 1 a store that cannot be
//! opened or failed part-way (run it again: what is erased stays erased),
//! 2 bad settings or arguments; 141 standard output closed early.

use super::{error_line, print};
use crate::audit::{Audit, ErasedCounts, ErasedUser, user_data_erased};
use crate::config::Settings;
use crate::startup::{EXIT_BAD_SETTINGS, EXIT_START_FAILED};
use crate::tasks::{IdentityRealm, OwnerScope};
use std::path::PathBuf;
use std::process::ExitCode;

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent erase-user --user 0b4e5c1a-7f3d-4f8e-9a62-3c1d2e4f5a6b
  order-exception-agent erase-user --user P000123 --issuer xsuaa --tenant 5d6f… --json
  cf ssh order-exception-agent -c 'app/order-exception-agent erase-user --user … --by dpo@example.com'";

#[derive(Debug, Clone, clap::Args)]
pub struct EraseUserArgs {
    /// The user id as it appears in the user's tokens (IAS `user_uuid`,
    /// else `scim_id`, else `sub`; XSUAA `user_id`).
    #[arg(long, value_name = "USER_ID")]
    pub user: String,
    /// The identity service that issues the user's tokens.
    #[arg(long, value_name = "ias|xsuaa", default_value = "ias", value_parser = ["ias", "xsuaa"])]
    pub issuer: String,
    /// The user's tenant (IAS `app_tid`, XSUAA `zid`); default: the IAS
    /// binding's (or `auth.app_tid`).
    #[arg(long, value_name = "TENANT")]
    pub tenant: Option<String>,
    /// Who erases, as the audit message names them.
    #[arg(long, value_name = "NAME", default_value = "operator")]
    pub by: String,
    /// One JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// Why the arguments or settings do not name one user to erase.
#[derive(Debug, thiserror::Error)]
enum ArgumentError {
    #[error(
        "name the user's tenant with --tenant: the settings name no IAS tenant (auth.app_tid or \
         the identity binding's app_tid){0}"
    )]
    NoTenant(&'static str),
    #[error(
        "the store is in memory: it holds nothing outside the serving process; erase the user \
         there with POST /users/erase (docs/personal-data.md)"
    )]
    MemoryStore,
    #[error("--user must not be empty")]
    EmptyUser,
}

pub async fn run(config: Option<PathBuf>, args: EraseUserArgs) -> ExitCode {
    let settings = match Settings::load(config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(EXIT_BAD_SETTINGS);
        }
    };
    let tenant = match tenant(&settings, &args) {
        Ok(tenant) => tenant,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(EXIT_BAD_SETTINGS);
        }
    };
    let stores = match crate::startup::open_stores(&settings).await {
        Ok(stores) => stores,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(error.exit_code());
        }
    };
    if stores.database.is_none() {
        error_line(&ArgumentError::MemoryStore);
        return ExitCode::from(EXIT_BAD_SETTINGS);
    }
    let audit = match Audit::start(
        &settings.audit,
        &settings.cloud_foundry.services,
        stores.database.clone(),
    ) {
        Ok(audit) => audit,
        Err(error) => {
            error_line(&error);
            return ExitCode::from(EXIT_BAD_SETTINGS);
        }
    };
    let realm = IdentityRealm::new(&args.issuer, &tenant);
    let key = OwnerScope::user(&realm, &args.user)
        .owner()
        .unwrap_or_default()
        .to_string();
    let mut counts = ErasedCounts::default();
    let outcome = crate::http::erase_user_data(
        stores.tasks.as_ref(),
        stores.ledger.as_ref(),
        &key,
        &mut counts,
    )
    .await;
    let user = ErasedUser {
        issuer: &args.issuer,
        tenant: &tenant,
        user_id: &args.user,
    };
    audit
        .record_and_wait(user_data_erased(&args.by, user, counts, outcome.is_ok()))
        .await;
    if let Err(error) = outcome {
        error_line(&format!(
            "erasing stopped part-way ({error}); run the command again: what is erased stays erased"
        ));
        return ExitCode::from(EXIT_START_FAILED);
    }
    match report(user, counts, &stores.location, args.json) {
        Ok(()) => ExitCode::SUCCESS,
        Err(super::CliError::StdoutClosed) => ExitCode::from(print::EXIT_STDOUT_CLOSED),
        Err(error) => {
            error_line(&error);
            ExitCode::from(error.exit_code())
        }
    }
}

/// The tenant the user is of: `--tenant`, else the IAS tenant the settings
/// name (with `--issuer ias`).
fn tenant(settings: &Settings, args: &EraseUserArgs) -> Result<String, ArgumentError> {
    if args.user.is_empty() {
        return Err(ArgumentError::EmptyUser);
    }
    if let Some(tenant) = &args.tenant {
        return Ok(tenant.clone());
    }
    if args.issuer != "ias" {
        return Err(ArgumentError::NoTenant(
            " (an XSUAA tenant is always named)",
        ));
    }
    match crate::auth::resolve(&settings.auth, &settings.cloud_foundry) {
        Ok(crate::auth::ResolvedAuth::Required(identity)) => {
            identity.app_tid.clone().ok_or(ArgumentError::NoTenant(""))
        }
        Ok(crate::auth::ResolvedAuth::Off) | Err(_) => Err(ArgumentError::NoTenant("")),
    }
}

fn report(
    user: ErasedUser<'_>,
    counts: ErasedCounts,
    location: &str,
    json: bool,
) -> Result<(), super::CliError> {
    if json {
        return print::line(
            &serde_json::json!({
                "userId": user.user_id,
                "issuer": user.issuer,
                "tenant": user.tenant,
                "erased": counts,
            })
            .to_string(),
        );
    }
    print::line(&format!(
        "erased user {} ({} tenant {}) in {location}:",
        user.user_id, user.issuer, user.tenant
    ))?;
    print::line(&format!(
        "  {} task(s), {} context(s), {} push config(s) deleted",
        counts.tasks, counts.contexts, counts.push_configs
    ))?;
    print::line(&format!(
        "  {} action ledger row(s) kept with the approver replaced by `erased`",
        counts.ledger_rows
    ))
}
