//! The small HTTP pieces BTP service clients share: a client-credentials
//! token from an XSUAA/IAS token endpoint, URLs built segment by segment on
//! a binding's base URL, and reqwest errors told without their URL.

/// A reqwest error without the URL it carries (a query may hold a name).
pub use crate::telemetry::outbound::without_url;
use crate::telemetry::outbound::{Attempt, Peer, Request};
use serde_json::Value;
use std::time::Duration;

/// When a token answer gives no lifetime.
pub const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);

/// `base` (a binding's URL) with `segments` appended, each encoded as one
/// path segment (a destination name with `/` or `?` stays a name),
/// whatever `base` ends with.
pub fn endpoint(base: &str, segments: &[&str]) -> Result<reqwest::Url, EndpointError> {
    let mut url = reqwest::Url::parse(base).map_err(|source| EndpointError::DoesNotParse {
        url: base.to_string(),
        source,
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(EndpointError::NotHttp(base.to_string()));
    }
    url.set_query(None);
    url.set_fragment(None);
    url.path_segments_mut()
        .map_err(|()| EndpointError::WithoutPath(base.to_string()))?
        .pop_if_empty()
        .extend(segments);
    Ok(url)
}

/// Why a binding's URL cannot be used.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum EndpointError {
    #[error("the URL `{url}` does not parse: {source}")]
    DoesNotParse {
        url: String,
        source: url::ParseError,
    },
    #[error("the URL `{0}` is not http or https")]
    NotHttp(String),
    #[error("the URL `{0}` cannot have a path")]
    WithoutPath(String),
}

/// A client-credentials token from `<token_url>/oauth/token` and its
/// lifetime; the error says what failed, without a secret or a URL query.
/// The call is a client span of its own (`POST /oauth/token`).
pub async fn client_credentials(
    http: &reqwest::Client,
    token_url: &str,
    client_id: &str,
    client_secret: &str,
) -> Result<(String, Duration), String> {
    let endpoint = endpoint(token_url, &["oauth", "token"]).map_err(|e| e.to_string())?;
    let attempt = Attempt::start(&Request {
        peer: Peer::Token,
        method: "POST",
        url: &endpoint,
        template: Some("/oauth/token".into()),
        resend_count: 0,
        odata_service: None,
    });
    let request = http
        .post(endpoint.clone())
        .basic_auth(client_id, Some(client_secret))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("grant_type=client_credentials");
    let response = attempt.send(request).await.map_err(|error| {
        attempt.no_answer(&error);
        format!("the token request {}", without_url(&error))
    })?;
    let status = response.status().as_u16();
    attempt.answered(status);
    if status != 200 {
        return Err(format!("the token endpoint answered {status}"));
    }
    let body: Value = response
        .json()
        .await
        .map_err(|_| "the token answer is not JSON".to_string())?;
    let token = body["access_token"]
        .as_str()
        .filter(|token| !token.is_empty())
        .ok_or_else(|| "the token answer has no access_token".to_string())?;
    Ok((
        token.to_string(),
        seconds(&body["expires_in"]).unwrap_or(DEFAULT_LIFETIME),
    ))
}

/// `expires_in` as a string or a number of seconds.
pub fn seconds(value: &Value) -> Option<Duration> {
    value
        .as_u64()
        .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
        .map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn endpoints_are_built_on_the_parse() {
        for base in [
            "https://destination.cfapps.eu10.hana.ondemand.com",
            "https://destination.cfapps.eu10.hana.ondemand.com/",
        ] {
            assert_eq!(
                endpoint(base, &["oauth", "token"]).unwrap().as_str(),
                "https://destination.cfapps.eu10.hana.ondemand.com/oauth/token"
            );
        }
        assert_eq!(
            endpoint(
                "https://d.example/base/",
                &["destination-configuration", "v1", "destinations", "A/B?c#d"]
            )
            .unwrap()
            .as_str(),
            "https://d.example/base/destination-configuration/v1/destinations/A%2FB%3Fc%23d"
        );
        for base in ["d.example", "mailto:x@d.example", "https://"] {
            assert!(endpoint(base, &["oauth", "token"]).is_err(), "{base}");
        }
    }
}
