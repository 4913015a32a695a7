//! With authentication off, the caller says who they are (`X-Agent-Role`),
//! so a web page that reaches the service could approve as anyone: by DNS
//! rebinding (its own name made to resolve to 127.0.0.1, so the browser
//! sends the page's requests to this machine as same-origin) or by a plain
//! cross-origin request. A rebound request still names the page's host in
//! `Host`, and a browser's request names the page in `Origin`, which no
//! script can set. So with authentication off a request is served only when
//! its `Host` is a loopback name or address or the public URL's host (else
//! 421 Misdirected Request), and its `Origin`, when it has one, is a
//! loopback origin or the public URL's origin (else 403). The raw `Host` is
//! judged, never `X-Forwarded-Host` or `Forwarded`, which a script may set.
//! `GET /health` answers whatever the `Host` (a probe names the container's
//! address); it reads nothing a caller stored.

use super::error_response::error_response;
use actix_web::HttpResponse;
use actix_web::dev::ServiceRequest;
use actix_web::http::{Method, StatusCode, header};
use reqwest::Url;

/// Where requests may come from while authentication is off.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOrigins {
    /// The public URL's host (lowercase, an IPv6 address in brackets), if
    /// it has one.
    public_host: Option<String>,
    /// The public URL's origin (`http://agent.example.com:8080`).
    public_origin: Option<String>,
}

impl LocalOrigins {
    /// Loopback, and the host and origin of `public_url` (the card's URL).
    pub fn new(public_url: &str) -> LocalOrigins {
        let parsed = Url::parse(public_url).ok();
        LocalOrigins {
            public_host: parsed
                .as_ref()
                .and_then(|url| url.host_str().map(str::to_string)),
            public_origin: parsed
                .map(|url| url.origin())
                .filter(|origin| origin.is_tuple())
                .map(|origin| origin.ascii_serialization()),
        }
    }

    /// A `Host` value (`localhost:8080`, `[::1]`, `agent.example.com`)
    /// names this machine or the public URL's host.
    fn host_allowed(&self, host: &str) -> bool {
        let Ok(url) = Url::parse(&format!("http://{host}/")) else {
            return false;
        };
        let plain = url.username().is_empty()
            && url.password().is_none()
            && url.path() == "/"
            && url.query().is_none()
            && url.fragment().is_none();
        plain
            && (crate::loopback::is_loopback(&url)
                || url.host_str().is_some() && url.host_str() == self.public_host.as_deref())
    }

    /// An `Origin` value is a loopback origin (any port) or the public
    /// URL's origin; `null` and anything else are not.
    fn origin_allowed(&self, origin: &str) -> bool {
        let Ok(url) = Url::parse(origin) else {
            return false;
        };
        let origin = url.origin();
        origin.is_tuple()
            && (matches!(url.scheme(), "http" | "https") && crate::loopback::is_loopback(&url)
                || Some(origin.ascii_serialization()) == self.public_origin)
    }

    /// The answer to a request that may not be served, if it may not.
    pub(super) fn refusal(&self, request: &ServiceRequest) -> Option<HttpResponse> {
        if request.method() == Method::GET && request.path() == "/health" {
            return None;
        }
        let headers = request.headers();
        let host = match headers.get(header::HOST) {
            Some(value) => value.to_str().ok(),
            None => request
                .uri()
                .authority()
                .map(|authority| authority.as_str()),
        };
        if headers.contains_key(header::HOST) || host.is_some() {
            let allowed = host.is_some_and(|host| self.host_allowed(host));
            if !allowed {
                return Some(refused(
                    StatusCode::MISDIRECTED_REQUEST,
                    "authentication is off, so only requests to localhost, a loopback address \
                     or the public URL's host (server.public_url) are served",
                ));
            }
        }
        let origin_allowed = headers
            .get(header::ORIGIN)
            .is_none_or(|origin| origin.to_str().is_ok_and(|o| self.origin_allowed(o)));
        if !origin_allowed {
            return Some(refused(
                StatusCode::FORBIDDEN,
                "authentication is off, so only pages on this machine or of the public URL \
                 (server.public_url) may call the service",
            ));
        }
        None
    }
}

fn refused(status: StatusCode, reason: &str) -> HttpResponse {
    let mut response = error_response(status, reason);
    // The body, if any, is not read: the connection is not reused.
    response
        .head_mut()
        .set_connection_type(actix_web::http::ConnectionType::Close);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_the_public_host_are_served() {
        let origins = LocalOrigins::new("https://agent.example.com/");
        for host in [
            "localhost",
            "localhost:8080",
            "LOCALHOST:8080",
            "127.0.0.1:8080",
            "127.9.9.9",
            "[::1]:8080",
            "agent.example.com",
            "Agent.Example.com:443",
        ] {
            assert!(origins.host_allowed(host), "{host}");
        }
        for host in [
            "attacker.example:8080",
            "agent.example.com.attacker.example",
            "localhost.attacker.example",
            "127.0.0.1.attacker.example",
            "192.168.1.5:8080",
            "user@localhost",
            "localhost/x",
            "",
        ] {
            assert!(!origins.host_allowed(host), "{host}");
        }
    }

    #[test]
    fn loopback_origins_and_the_public_origin_are_served() {
        let origins = LocalOrigins::new("http://agent.example.com:8080/");
        for origin in [
            "http://localhost:3000",
            "http://127.0.0.1:8080",
            "https://[::1]",
            "http://agent.example.com:8080",
        ] {
            assert!(origins.origin_allowed(origin), "{origin}");
        }
        for origin in [
            "null",
            "http://attacker.example:8080",
            "http://agent.example.com",
            "https://agent.example.com:8080",
            "file:///tmp/x.html",
            "",
        ] {
            assert!(!origins.origin_allowed(origin), "{origin}");
        }
    }
}
