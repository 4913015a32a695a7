//! Reading OTLP exports and `/metrics` in the telemetry tests.

use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;

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
