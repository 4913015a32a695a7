//! How large one push config may be. A config is kept with its task for as
//! long as the task is, and every delivery sends its values: without bounds
//! one caller could make the instance hold (and list) megabytes per config.
//! The bounds are far above what a webhook needs (Joule's callback URL is
//! under 200 bytes, a bearer token about 1.5 kB); the count of configs per
//! task is `push.max_configs_per_task`, and the configs together count in
//! the task's bytes (`tasks.max_task_bytes`, see [`configs_bytes`]).

use crate::a2a::PushNotificationConfig;
use crate::a2a::decode::MAX_ID_BYTES;
use crate::tasks::{ConfigField, PushConfigError};

/// The most bytes a webhook URL may have (2 KiB).
pub const MAX_URL_BYTES: usize = 2 * 1024;
/// The most bytes a token or the authentication credentials may have
/// (4 KiB: room for a JWT with many claims).
pub const MAX_SECRET_BYTES: usize = 4 * 1024;
/// The most bytes one authentication scheme may have (`Bearer`, `Basic`).
pub const MAX_SCHEME_BYTES: usize = 64;
/// The most authentication schemes one config may name.
pub const MAX_SCHEMES: usize = 4;

/// Whether every value of `config` is within its bound; the error names the
/// field and the bound, never the value (it may be a secret).
pub(super) fn sizes_fit(config: &PushNotificationConfig) -> Result<(), PushConfigError> {
    let within = |field, value: &str, most| {
        if value.len() > most {
            return Err(PushConfigError::TooLong {
                field,
                len: value.len(),
                most,
            });
        }
        Ok(())
    };
    within(ConfigField::Url, &config.url, MAX_URL_BYTES)?;
    if let Some(id) = &config.id {
        within(ConfigField::Id, id, MAX_ID_BYTES)?;
    }
    if let Some(token) = &config.token {
        within(ConfigField::Token, token, MAX_SECRET_BYTES)?;
    }
    if let Some(auth) = &config.authentication {
        if auth.schemes.len() > MAX_SCHEMES {
            return Err(PushConfigError::TooManySchemes {
                count: auth.schemes.len(),
                most: MAX_SCHEMES,
            });
        }
        for (index, scheme) in auth.schemes.iter().enumerate() {
            within(ConfigField::Scheme(index), scheme, MAX_SCHEME_BYTES)?;
        }
        if let Some(credentials) = &auth.credentials {
            within(ConfigField::Credentials, credentials, MAX_SECRET_BYTES)?;
        }
    }
    Ok(())
}

/// What `configs` add to their task's bytes: their size as compact JSON,
/// as a store keeps them.
pub(super) fn configs_bytes<'a>(
    configs: impl IntoIterator<Item = &'a PushNotificationConfig>,
) -> usize {
    configs
        .into_iter()
        .map(|config| serde_json::to_vec(config).map_or(usize::MAX, |json| json.len()))
        .fold(0, usize::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::PushNotificationAuthenticationInfo;

    fn config(url: &str) -> PushNotificationConfig {
        serde_json::from_value(serde_json::json!({ "url": url })).unwrap()
    }

    #[test]
    fn each_value_is_held_to_its_bound_and_named() {
        let at_bound = config(&"u".repeat(MAX_URL_BYTES));
        assert!(sizes_fit(&at_bound).is_ok());
        let long_url = config(&"u".repeat(MAX_URL_BYTES + 1));
        assert!(matches!(
            sizes_fit(&long_url),
            Err(PushConfigError::TooLong {
                field: ConfigField::Url,
                most: MAX_URL_BYTES,
                ..
            })
        ));
        let mut with_auth = config("https://h/");
        with_auth.authentication = Some(PushNotificationAuthenticationInfo {
            schemes: vec!["Bearer".into(); MAX_SCHEMES + 1],
            credentials: None,
        });
        assert!(matches!(
            sizes_fit(&with_auth),
            Err(PushConfigError::TooManySchemes { .. })
        ));
        with_auth.authentication = Some(PushNotificationAuthenticationInfo {
            schemes: vec!["Bearer".into()],
            credentials: Some("c".repeat(MAX_SECRET_BYTES + 1)),
        });
        assert!(matches!(
            sizes_fit(&with_auth),
            Err(PushConfigError::TooLong {
                field: ConfigField::Credentials,
                ..
            })
        ));
    }

    #[test]
    fn configs_count_as_their_json() {
        let one = config("https://h/");
        let json = serde_json::to_vec(&one).unwrap().len();
        assert_eq!(configs_bytes([&one, &one]), 2 * json);
    }
}
