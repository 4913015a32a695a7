//! Reading OTLP exports and `/metrics` in the telemetry tests, and the
//! certificates their TLS collectors and clients use.

use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};

/// Trace and span ids as W3C hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An attribute's value as text (numbers and booleans printed).
pub fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
        .map(|value| match value {
            AnyValue::StringValue(s) => s.clone(),
            AnyValue::IntValue(i) => i.to_string(),
            AnyValue::DoubleValue(d) => d.to_string(),
            AnyValue::BoolValue(b) => b.to_string(),
            other => format!("{other:?}"),
        })
}

/// An attribute that must be an OTLP integer (`IntValue`); `None` when it
/// is missing or of another type (a number exported as a string).
pub fn int(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
    {
        Some(AnyValue::IntValue(value)) => Some(*value),
        _ => None,
    }
}

/// An attribute that must be an OTLP string (`StringValue`).
pub fn string(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref()?.value.as_ref())
    {
        Some(AnyValue::StringValue(value)) => Some(value.clone()),
        _ => None,
    }
}

/// The value of one Prometheus series (`name{labels}`) the binary on
/// `port` serves at `/metrics`; `None` while it has no such series.
pub async fn prometheus_value(port: u16, series: &str) -> Option<u64> {
    let text = crate::helpers::http_client()
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
}

/// A CA, and a certificate for 127.0.0.1 (server) or a client, signed by it.
pub struct Pki {
    pub ca_pem: String,
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Pki {
    pub fn new(name: &str) -> Pki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Pki {
            ca_pem: issuer.pem(),
            issuer,
        }
    }

    /// (certificate PEM, PKCS#8 key PEM).
    pub fn leaf(&self, names: &[&str], usage: ExtendedKeyUsagePurpose) -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// A CA certificate and a client certificate + key written to files, as the
/// `OTEL_EXPORTER_OTLP_*CERTIFICATE`/`_CLIENT_KEY` variables name them;
/// the folder goes when this is dropped.
pub struct PemFiles {
    folder: std::path::PathBuf,
    pub ca: String,
    pub cert: String,
    pub key: String,
}

impl PemFiles {
    pub fn write(ca_pem: &str, client: &(String, String)) -> PemFiles {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let folder = std::env::temp_dir().join(format!(
            "otlp-certs-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&folder).unwrap();
        let file = |name: &str, pem: &str| {
            let path = folder.join(name);
            std::fs::write(&path, pem).unwrap();
            path.to_string_lossy().into_owned()
        };
        PemFiles {
            ca: file("ca.pem", ca_pem),
            cert: file("client.pem", &client.0),
            key: file("client.key", &client.1),
            folder,
        }
    }

    /// The three variables, for `start_binary`.
    pub fn variables(&self) -> [(&'static str, &str); 3] {
        [
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", self.ca.as_str()),
            ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", self.cert.as_str()),
            ("OTEL_EXPORTER_OTLP_CLIENT_KEY", self.key.as_str()),
        ]
    }
}

impl Drop for PemFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}
