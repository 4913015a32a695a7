//! The SAP Cloud Logging binding in `VCAP_SERVICES`: where OTLP goes
//! (gRPC, mutual TLS) and with which certificates. A binding labelled
//! `cloud-logging`, or a user-provided one tagged `Cloud Logging`, counts
//! when it has all four OTLP keys; one missing any is skipped with a note,
//! as SAP's own exporters do.

use crate::cloud_foundry::VcapServices;
use crate::secret::Secret;
use serde_json::Value;

/// The four OTLP credentials of one binding; the client key a [`Secret`].
#[derive(Debug, Clone)]
pub struct CloudLoggingBinding {
    /// The service instance name, for the start-up log.
    pub name: String,
    /// `host:port`, no scheme.
    pub endpoint: String,
    pub client_cert_pem: String,
    pub client_key_pem: Secret,
    pub server_ca_pem: String,
}

impl CloudLoggingBinding {
    /// The gRPC endpoint: the binding gives no scheme, ingestion is TLS.
    pub fn url(&self) -> String {
        format!("https://{}", self.endpoint)
    }

    /// The host the server certificate must name.
    pub fn host(&self) -> &str {
        let endpoint = self.endpoint.as_str();
        match endpoint.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => endpoint,
        }
        .trim_start_matches('[')
        .trim_end_matches(']')
    }
}

const OTLP_KEYS: [&str; 4] = [
    "ingest-otlp-endpoint",
    "ingest-otlp-cert",
    "ingest-otlp-key",
    "server-ca",
];

/// What `VCAP_SERVICES` holds for Cloud Logging.
#[derive(Debug, Default)]
pub struct CloudLoggingLookup {
    /// The first binding with all four OTLP keys.
    pub binding: Option<CloudLoggingBinding>,
    /// One sentence per binding that was skipped, naming what it lacks.
    pub skipped: Vec<String>,
}

/// Look the binding up; nothing bound finds nothing.
pub fn lookup(services: &VcapServices) -> CloudLoggingLookup {
    let mut found = CloudLoggingLookup::default();
    let bindings = services
        .bindings()
        .filter(|binding| is_cloud_logging(binding));
    for binding in bindings {
        let name = binding["name"]
            .as_str()
            .unwrap_or("cloud-logging")
            .to_string();
        let credentials = &binding["credentials"];
        let missing: Vec<&str> = OTLP_KEYS
            .iter()
            .copied()
            .filter(|key| credentials[*key].as_str().is_none_or(str::is_empty))
            .collect();
        if !missing.is_empty() {
            // The instance parameter is a JSON boolean; only bindings made
            // after it was set carry the OTLP keys.
            let instance = binding["instance_name"].as_str().unwrap_or(&name);
            found.skipped.push(format!(
                "the Cloud Logging binding `{name}` lacks {} (enable OTLP ingestion with \
                 `cf update-service {instance} -c '{{\"ingest_otlp\":{{\"enabled\":true}}}}'` \
                 and bind it again)",
                missing.join(", ")
            ));
            continue;
        }
        if found.binding.is_none() {
            let text = |key: &str| credentials[key].as_str().unwrap_or_default().to_string();
            found.binding = Some(CloudLoggingBinding {
                name,
                endpoint: text("ingest-otlp-endpoint")
                    .trim_start_matches("https://")
                    .trim_end_matches('/')
                    .to_string(),
                client_cert_pem: text("ingest-otlp-cert"),
                client_key_pem: Secret::new(text("ingest-otlp-key")),
                server_ca_pem: text("server-ca"),
            });
        }
    }
    found
}

fn is_cloud_logging(binding: &Value) -> bool {
    binding["label"] == "cloud-logging"
        || binding["tags"]
            .as_array()
            .is_some_and(|tags| tags.iter().any(|tag| tag == "Cloud Logging"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup_in(text: &str) -> CloudLoggingLookup {
        lookup(&VcapServices::parse(text).unwrap())
    }

    #[test]
    fn a_binding_with_the_four_keys_is_found() {
        let found = lookup_in(
            r#"{"cloud-logging":[{"label":"cloud-logging","name":"logs","tags":["Cloud Logging"],
                "credentials":{"ingest-otlp-endpoint":"ingest-otlp.example.com:443",
                "ingest-otlp-cert":"CERT","ingest-otlp-key":"KEY","server-ca":"CA"}}]}"#,
        );
        let binding = found.binding.unwrap();
        assert_eq!(binding.url(), "https://ingest-otlp.example.com:443");
        assert_eq!(binding.host(), "ingest-otlp.example.com");
        assert_eq!(binding.name, "logs");
        assert_eq!(binding.client_key_pem.expose(), "KEY");
        assert!(
            !format!("{binding:?}").contains("KEY"),
            "the key is never printed"
        );
        assert!(found.skipped.is_empty());
    }

    #[test]
    fn a_user_provided_service_tagged_cloud_logging_counts() {
        let found = lookup_in(
            r#"{"user-provided":[{"label":"user-provided","name":"ups","tags":["Cloud Logging"],
                "credentials":{"ingest-otlp-endpoint":"[::1]:4317",
                "ingest-otlp-cert":"C","ingest-otlp-key":"K","server-ca":"S"}}]}"#,
        );
        assert_eq!(found.binding.unwrap().host(), "::1");
    }

    #[test]
    fn a_binding_without_otlp_keys_is_skipped_with_a_reason() {
        let found = lookup_in(
            r#"{"cloud-logging":[{"label":"cloud-logging","name":"old",
                "credentials":{"ingest-endpoint":"x","ingest-otlp-endpoint":"h:443"}}],
                "xsuaa":[{"label":"xsuaa","credentials":{}}]}"#,
        );
        assert!(found.binding.is_none());
        assert_eq!(found.skipped.len(), 1);
        assert!(found.skipped[0].contains("`old`"), "{:?}", found.skipped);
        assert!(found.skipped[0].contains("ingest-otlp-cert, ingest-otlp-key, server-ca"));
        assert!(lookup(&VcapServices::default()).binding.is_none());
    }

    #[test]
    fn the_skip_note_names_the_instance_parameter_as_cloud_logging_takes_it() {
        // `ingest_otlp.enabled` is a JSON boolean (SAP's configuration
        // parameters); the note is what an admin copies into `cf update-service`.
        let found = lookup_in(
            r#"{"cloud-logging":[{"label":"cloud-logging","name":"logs","credentials":{}}]}"#,
        );
        let note = &found.skipped[0];
        assert!(
            note.contains(r#"cf update-service logs -c '{"ingest_otlp":{"enabled":true}}'"#),
            "{note}"
        );
        assert!(!note.contains(r#""enabled":"true""#), "{note}");
    }
}
