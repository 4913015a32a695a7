//! The Cloud Foundry environment, read once: `VCAP_APPLICATION` (who and
//! where this process is), `VCAP_SERVICES` (the bound service instances and
//! their credentials) and `CF_INSTANCE_INDEX`. One error policy: a variable
//! that is set but not valid JSON is a settings error (exit code 2), for
//! every room alike; an unset one means "not on Cloud Foundry" or "nothing
//! bound". A leaf: it imports nothing from the crate, and every room that
//! needs a binding takes it from [`CloudFoundry`] (built by `config.rs`,
//! passed in), never from the process environment. The environment itself
//! is an [`EnvSource`], so tests give a fixed one instead of process globals.

use serde::Deserialize;
use serde_json::{Map, Value};

/// The environment as a function, so tests need not touch process globals.
pub trait EnvSource {
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment; an empty variable counts as unset.
pub struct ProcessEnv;

impl EnvSource for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|value| !value.is_empty())
    }
}

/// A fixed environment for unit tests: `StaticEnv(&[("PORT", "8080")])`.
#[cfg(test)]
pub(crate) struct StaticEnv(pub &'static [(&'static str, &'static str)]);

#[cfg(test)]
impl EnvSource for StaticEnv {
    fn var(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.to_string())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CloudFoundryError {
    #[error("VCAP_APPLICATION is not valid JSON: {0}")]
    Application(serde_json::Error),
    #[error("VCAP_SERVICES is not valid JSON: {0}")]
    Services(serde_json::Error),
}

/// What Cloud Foundry says about this process; `Default` is "not on Cloud
/// Foundry, nothing bound" (local runs, in-process tests).
#[derive(Debug, Clone, Default)]
pub struct CloudFoundry {
    /// `VCAP_APPLICATION`; `None` off Cloud Foundry.
    pub application: Option<CfApplication>,
    /// `VCAP_SERVICES`; empty when unset.
    pub services: VcapServices,
    /// `CF_INSTANCE_INDEX` as given; `None` when unset.
    pub instance_index: Option<String>,
}

impl CloudFoundry {
    /// Read the three variables from `env`.
    pub fn from_env(env: &dyn EnvSource) -> Result<CloudFoundry, CloudFoundryError> {
        let instance_index = env.var("CF_INSTANCE_INDEX");
        let application = match env.var("VCAP_APPLICATION") {
            Some(text) => {
                let mut application: CfApplication =
                    serde_json::from_str(&text).map_err(CloudFoundryError::Application)?;
                application.instance_index = instance_index.clone().unwrap_or_else(|| "0".into());
                Some(application)
            }
            None => None,
        };
        let services = match env.var("VCAP_SERVICES") {
            Some(text) => VcapServices::parse(&text)?,
            None => VcapServices::default(),
        };
        Ok(CloudFoundry {
            application,
            services,
            instance_index,
        })
    }

    /// Whether this process runs on Cloud Foundry (`VCAP_APPLICATION` set):
    /// the settings meant for tests are refused there ([`refuse_tests_only`]).
    pub fn on_cloud_foundry(&self) -> bool {
        self.application.is_some()
    }
}

/// A TESTS ONLY switch (a loopback key server, plain http or private
/// addresses allowed, the conformance agent) that is on where the app runs
/// on Cloud Foundry: the one refusal every room gives, naming the switch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{switch} is for tests and refused on Cloud Foundry")]
pub struct TestsOnlyRefused {
    /// The setting's key (`push.allow_loopback_http`).
    pub switch: &'static str,
}

/// The first of `switches` (key, whether it is on) that is on, refused
/// when the app runs on Cloud Foundry; off Cloud Foundry every switch may be.
pub fn refuse_tests_only(
    on_cloud_foundry: bool,
    switches: &[(&'static str, bool)],
) -> Result<(), TestsOnlyRefused> {
    match switches.iter().find(|(_, on)| *on) {
        Some((switch, _)) if on_cloud_foundry => Err(TestsOnlyRefused { switch }),
        _ => Ok(()),
    }
}

/// The parts of `VCAP_APPLICATION` the service uses: its identity for log
/// fields and resource attributes, and its routes for the public URL.
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
    #[serde(default)]
    pub application_uris: Vec<String>,
    /// The older name of `application_uris`.
    #[serde(default)]
    pub uris: Vec<String>,
    /// `CF_INSTANCE_INDEX`, `0` when unset.
    #[serde(skip)]
    pub instance_index: String,
}

impl CfApplication {
    /// The first route, without a scheme (`agent.cfapps.eu10.hana.ondemand.com`).
    pub fn first_route(&self) -> Option<&str> {
        self.application_uris
            .first()
            .or(self.uris.first())
            .map(String::as_str)
    }
}

/// `VCAP_SERVICES`: service label → its bindings. `Debug` names the labels
/// only: credentials hold passwords, client secrets and private keys.
#[derive(Clone, Default)]
pub struct VcapServices(Map<String, Value>);

impl std::fmt::Debug for VcapServices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("VcapServices")
            .field(&self.0.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl VcapServices {
    /// The text of `VCAP_SERVICES`: a JSON object, else an error.
    pub fn parse(text: &str) -> Result<VcapServices, CloudFoundryError> {
        match serde_json::from_str(text).map_err(CloudFoundryError::Services)? {
            Value::Object(services) => Ok(VcapServices(services)),
            // JSON, but not an object: no label can be in it.
            other => Err(CloudFoundryError::Services(serde::de::Error::custom(
                format!(
                    "expected an object of service labels, found {}",
                    kind(&other)
                ),
            ))),
        }
    }

    /// The `credentials` of the first binding labelled `label`.
    pub fn credentials(&self, label: &str) -> Option<&Value> {
        self.0.get(label)?.get(0)?.get("credentials")
    }

    /// Every binding of every label (each an object with `label`, `name`,
    /// `tags`, `credentials`), for lookups by tag.
    pub fn bindings(&self) -> impl Iterator<Item = &Value> {
        self.0
            .values()
            .filter_map(Value::as_array)
            .flat_map(|bindings| bindings.iter())
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tests_only_switch_is_refused_by_name_on_cloud_foundry_only() {
        let switches = [("x.allow_a", false), ("x.allow_b", true)];
        assert_eq!(refuse_tests_only(false, &switches), Ok(()));
        assert_eq!(refuse_tests_only(true, &[("x.allow_a", false)]), Ok(()));
        let refused = refuse_tests_only(true, &switches).expect_err("on Cloud Foundry");
        assert_eq!(
            refused.to_string(),
            "x.allow_b is for tests and refused on Cloud Foundry"
        );
    }

    #[test]
    fn reads_the_application_the_instance_and_the_services() {
        let cf = CloudFoundry::from_env(&StaticEnv(&[
            (
                "VCAP_APPLICATION",
                r#"{"application_id":"a1","application_name":"agent","space_name":"dev",
                    "organization_name":"acme","application_uris":["agent.example.com"]}"#,
            ),
            ("CF_INSTANCE_INDEX", "2"),
            (
                "VCAP_SERVICES",
                r#"{"identity":[{"label":"identity","credentials":{"clientid":"c"}}]}"#,
            ),
        ]))
        .unwrap();
        assert!(cf.on_cloud_foundry());
        let app = cf.application.unwrap();
        assert_eq!(app.application_id, "a1");
        assert_eq!(app.application_name, "agent");
        assert_eq!(app.space_name, "dev");
        assert_eq!(app.organization_name, "acme");
        assert_eq!(app.instance_index, "2");
        assert_eq!(app.first_route(), Some("agent.example.com"));
        assert_eq!(cf.instance_index.as_deref(), Some("2"));
        assert_eq!(
            cf.services.credentials("identity").unwrap()["clientid"],
            "c"
        );
        assert!(cf.services.credentials("xsuaa").is_none());
        assert_eq!(cf.services.bindings().count(), 1);
    }

    #[test]
    fn nothing_set_is_not_cloud_foundry_with_nothing_bound() {
        let cf = CloudFoundry::from_env(&StaticEnv(&[])).unwrap();
        assert!(!cf.on_cloud_foundry());
        assert!(cf.instance_index.is_none());
        assert_eq!(cf.services.bindings().count(), 0);
        let app = CloudFoundry::from_env(&StaticEnv(&[("VCAP_APPLICATION", "{}")]))
            .unwrap()
            .application
            .unwrap();
        assert_eq!(app.instance_index, "0");
        assert_eq!(app.first_route(), None);
    }

    #[test]
    fn text_that_is_not_json_is_an_error_naming_the_variable() {
        for (variable, text) in [
            ("VCAP_APPLICATION", "{"),
            ("VCAP_SERVICES", "{"),
            ("VCAP_SERVICES", "[]"),
        ] {
            let pairs: &'static [(&'static str, &'static str)] =
                Box::leak(Box::new([(variable, text)]));
            let error = CloudFoundry::from_env(&StaticEnv(pairs)).unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("{variable} is not valid JSON")),
                "{error}"
            );
        }
    }

    #[test]
    fn debug_names_the_labels_not_the_credentials() {
        let services =
            VcapServices::parse(r#"{"postgresql-db":[{"credentials":{"password":"hunter2"}}]}"#)
                .unwrap();
        let shown = format!("{services:?}");
        assert!(shown.contains("postgresql-db"), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
    }
}
