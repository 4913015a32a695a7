//! The Cloud Foundry identity of this process (`VCAP_APPLICATION`,
//! `CF_INSTANCE_INDEX`), for log fields and resource attributes.

use crate::config::EnvSource;
use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
pub struct CfApplication {
    #[serde(default)]
    pub application_id: String,
    #[serde(default)]
    pub application_name: String,
    #[serde(default)]
    pub organization_id: String,
    #[serde(default)]
    pub organization_name: String,
    #[serde(default)]
    pub space_id: String,
    #[serde(default)]
    pub space_name: String,
    #[serde(default)]
    pub process_id: String,
    #[serde(default)]
    pub process_type: String,
    #[serde(skip)]
    pub instance_index: String,
}

impl CfApplication {
    /// `None` off Cloud Foundry; an unreadable `VCAP_APPLICATION` still
    /// counts as Cloud Foundry, with empty fields.
    pub fn from_env(env: &dyn EnvSource) -> Option<CfApplication> {
        let text = env.var("VCAP_APPLICATION")?;
        let mut app: CfApplication = serde_json::from_str(&text).unwrap_or_default();
        app.instance_index = env.var("CF_INSTANCE_INDEX").unwrap_or_else(|| "0".into());
        Some(app)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::config::StaticEnv as Env;

    #[test]
    fn reads_the_application_and_instance() {
        let app = CfApplication::from_env(&Env(&[
            (
                "VCAP_APPLICATION",
                r#"{"application_id":"a1","application_name":"agent","space_name":"dev","organization_name":"acme"}"#,
            ),
            ("CF_INSTANCE_INDEX", "2"),
        ]))
        .unwrap();
        assert_eq!(app.application_id, "a1");
        assert_eq!(app.application_name, "agent");
        assert_eq!(app.space_name, "dev");
        assert_eq!(app.organization_name, "acme");
        assert_eq!(app.instance_index, "2");
        assert!(CfApplication::from_env(&Env(&[])).is_none());
    }
}
