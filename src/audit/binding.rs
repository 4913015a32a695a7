//! The `auditlog` service binding (VCAP_SERVICES, label `auditlog`):
//! plan `oauth2` (client id and secret) or `premium` (an X.509 certificate
//! and key, mutual TLS to the token endpoint), read once at start.
//! `standard` is refused (deprecated, Basic authentication), as is a
//! binding without a field it needs, naming the field. Field names are
//! those of reference/audit-log.md §1.2.

use crate::cloud_foundry::VcapServices;
use crate::secret::Secret;
use serde_json::Value;

/// The service label the binding is found by.
pub const LABEL: &str = "auditlog";

/// How the token is fetched.
#[derive(Debug, Clone)]
pub enum TokenCredentials {
    /// Plan `oauth2`: a client secret.
    Secret { client_secret: Secret },
    /// Plan `premium`: an X.509 certificate and its key (PEM), mutual TLS.
    X509 { certificate: Secret, key: Secret },
}

/// A usable `auditlog` binding.
#[derive(Debug, Clone)]
pub struct AuditBinding {
    /// `oauth2` or `premium`.
    pub plan: String,
    /// `credentials.url`: the write API's base.
    pub api_url: String,
    /// Where `/oauth/token` is: `uaa.certurl` for X.509, else `uaa.url`.
    pub token_url: String,
    pub client_id: String,
    pub credentials: TokenCredentials,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindingError {
    #[error(
        "audit: the auditlog binding has plan `standard`, which SAP deprecated (HTTP Basic to \
         /audit-log/v2); bind plan `oauth2` or `premium` instead (docs/deploy-btp.md)"
    )]
    StandardPlan,
    #[error(
        "audit: the auditlog binding has plan `{0}`; only `oauth2` and `premium` are supported"
    )]
    UnknownPlan(String),
    #[error("audit: the auditlog binding lacks `{0}`")]
    Missing(&'static str),
}

impl AuditBinding {
    /// The first `auditlog` binding; `Ok(None)` when none is bound.
    pub fn from_services(services: &VcapServices) -> Result<Option<AuditBinding>, BindingError> {
        let Some(binding) = services
            .bindings()
            .find(|binding| binding.get("label").and_then(Value::as_str) == Some(LABEL))
        else {
            return Ok(None);
        };
        let credentials = binding
            .get("credentials")
            .ok_or(BindingError::Missing("credentials"))?;
        let plan = binding
            .get("plan")
            .and_then(Value::as_str)
            .map(str::to_string)
            // CAP's inference (audit-log.md §1.4) when the plan is not named.
            .unwrap_or_else(|| match credentials.get("uaa") {
                None => "standard".into(),
                Some(uaa) if text(uaa, "credential-type").ok() == Some("x509") => "premium".into(),
                Some(_) => "oauth2".into(),
            });
        match plan.as_str() {
            "standard" => return Err(BindingError::StandardPlan),
            "oauth2" | "premium" => {}
            other => return Err(BindingError::UnknownPlan(other.to_string())),
        }
        let api_url = text(credentials, "url").map_err(|_| BindingError::Missing("url"))?;
        let uaa = credentials.get("uaa").ok_or(BindingError::Missing("uaa"))?;
        let client_id = text(uaa, "clientid").map_err(|_| BindingError::Missing("uaa.clientid"))?;
        let x509 = text(uaa, "credential-type").ok() == Some("x509")
            || (plan == "premium" && uaa.get("clientsecret").is_none());
        let (token_url, credentials) = if x509 {
            let certificate =
                text(uaa, "certificate").map_err(|_| BindingError::Missing("uaa.certificate"))?;
            let key = text(uaa, "key").map_err(|_| BindingError::Missing("uaa.key"))?;
            let token_url =
                text(uaa, "certurl").map_err(|_| BindingError::Missing("uaa.certurl"))?;
            (
                token_url,
                TokenCredentials::X509 {
                    certificate: Secret::new(pem(certificate)),
                    key: Secret::new(pem(key)),
                },
            )
        } else {
            let secret =
                text(uaa, "clientsecret").map_err(|_| BindingError::Missing("uaa.clientsecret"))?;
            let token_url = text(uaa, "url").map_err(|_| BindingError::Missing("uaa.url"))?;
            (
                token_url,
                TokenCredentials::Secret {
                    client_secret: Secret::new(secret),
                },
            )
        };
        Ok(Some(AuditBinding {
            plan,
            api_url: api_url.to_string(),
            token_url: token_url.to_string(),
            client_id: client_id.to_string(),
            credentials,
        }))
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Result<&'a str, ()> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty())
        .ok_or(())
}

/// PEM text as bound: `\n` escapes (audit-log.md §1.2) become line breaks.
fn pem(text: &str) -> String {
    text.replace("\\n", "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn services(json: &str) -> VcapServices {
        VcapServices::parse(json).expect("JSON")
    }

    #[test]
    fn oauth2_and_premium_are_read_and_their_secrets_never_shown() {
        let bound = AuditBinding::from_services(&services(
            r#"{"auditlog":[{"label":"auditlog","plan":"oauth2","credentials":{
                "url":"https://api.auditlog.example","uaa":{"clientid":"c1",
                "clientsecret":"s3cr3t","url":"https://sub.authentication.example"}}}]}"#,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(bound.plan, "oauth2");
        assert_eq!(bound.token_url, "https://sub.authentication.example");
        assert!(!format!("{bound:?}").contains("s3cr3t"));
        let premium = AuditBinding::from_services(&services(
            r#"{"auditlog":[{"label":"auditlog","plan":"premium","credentials":{
                "url":"https://api.auditlog.example:6081","uaa":{"clientid":"c2",
                "credential-type":"x509","certificate":"-----BEGIN CERTIFICATE-----\\nAA\\n",
                "key":"-----BEGIN PRIVATE KEY-----\\nBB\\n",
                "certurl":"https://sub.authentication.cert.example",
                "url":"https://sub.authentication.example"}}}]}"#,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(premium.token_url, "https://sub.authentication.cert.example");
        let TokenCredentials::X509 { certificate, .. } = &premium.credentials else {
            panic!("x509");
        };
        assert!(certificate.expose().contains("CERTIFICATE-----\nAA\n"));
        assert!(!format!("{premium:?}").contains("PRIVATE"));
    }

    #[test]
    fn standard_and_missing_fields_are_refused_by_name() {
        let standard = AuditBinding::from_services(&services(
            r#"{"auditlog":[{"label":"auditlog","plan":"standard","credentials":{
                "url":"https://a","user":"u","password":"p"}}]}"#,
        ));
        assert_eq!(standard.unwrap_err(), BindingError::StandardPlan);
        let no_secret = AuditBinding::from_services(&services(
            r#"{"auditlog":[{"label":"auditlog","plan":"oauth2","credentials":{
                "url":"https://a","uaa":{"clientid":"c","url":"https://t"}}}]}"#,
        ));
        assert_eq!(
            no_secret.unwrap_err(),
            BindingError::Missing("uaa.clientsecret")
        );
        let no_key = AuditBinding::from_services(&services(
            r#"{"auditlog":[{"label":"auditlog","plan":"premium","credentials":{
                "url":"https://a","uaa":{"clientid":"c","credential-type":"x509",
                "certificate":"C","certurl":"https://t"}}}]}"#,
        ));
        assert_eq!(no_key.unwrap_err(), BindingError::Missing("uaa.key"));
        assert!(
            AuditBinding::from_services(&services("{}"))
                .unwrap()
                .is_none()
        );
    }
}
