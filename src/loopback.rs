//! Whether a URL stays on this machine, judged on its WHATWG parse
//! (`reqwest::Url`, the parse reqwest connects with), never on its text:
//! `http://127.0.0.1.example.com/` and `http://127.0.0.1@example.com/` begin
//! like loopback and are not; `http://0x7f.1/` and `http://[::1]/` are.

use reqwest::Url;
use url::Host;

/// `localhost` or a loopback address. Names under `.localhost` are not
/// counted: the system resolver may send them to DNS.
pub fn is_loopback_host(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// The URL's host is on this machine.
pub fn is_loopback(url: &Url) -> bool {
    url.host().is_some_and(|host| is_loopback_host(&host))
}

/// A plain `http://` URL to this machine with nothing but a path: parsed,
/// judged, and returned as parsed; `None` for anything else.
pub fn plain_http_loopback(text: &str) -> Option<Url> {
    let url = Url::parse(text).ok()?;
    let plain = url.scheme() == "http"
        && url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none()
        && url.fragment().is_none();
    (plain && is_loopback(&url)).then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_read_from_the_parse() {
        for url in [
            "http://127.0.0.1:9999",
            "http://127.0.0.1:9999/keys/",
            "http://localhost:9999",
            "http://LOCALHOST:9999",
            "http://[::1]:9999",
            "http://127.1:9999",
            "http://0x7f.0.0.1:9999",
            "http://2130706433:9999",
            "http://127.9.9.9",
        ] {
            assert!(plain_http_loopback(url).is_some(), "{url}");
        }
        for url in [
            // Text that begins like loopback, hosts that are not.
            "http://127.0.0.1.keys.example.com/",
            "http://127.0.0.1@keys.example.com/",
            "http://localhost@keys.example.com/",
            "http://localhost.keys.example.com/",
            r"http://keys.example.com\@127.0.0.1/",
            "http://[::1].example.com/",
            "http://keys.localhost/",
            // Loopback, but not plain http.
            "https://127.0.0.1:9999",
            "http://u:p@127.0.0.1:9999",
            "http://127.0.0.1:9999/?next=http://keys.example.com",
            "http://127.0.0.1:9999/#x",
            "127.0.0.1:9999",
            "",
        ] {
            assert!(plain_http_loopback(url).is_none(), "{url}");
        }
        assert_eq!(
            plain_http_loopback("http://0x7f.1:9999").unwrap().as_str(),
            "http://127.0.0.1:9999/"
        );
    }
}
