//! The webhook guard (SSRF): which URLs may receive push notifications.
//!
//! A webhook URL is parsed once, by `reqwest::Url` (the WHATWG parser of the
//! `url` crate, the one reqwest connects with), and that parse is judged:
//! scheme, user info, host allowlist, literal addresses, port. What does not
//! parse is refused; what passes is stored and delivered as the serialized
//! parse, so the URL judged is the URL sent to. A hand-split URL would read
//! `https://169.254.169.254\.a.sapdas.cloud.sap/` as a host under the
//! allowlist while the client connects to 169.254.169.254.
//!
//! At delivery the client resolves host names through [`GuardedResolver`],
//! which refuses forbidden addresses: the addresses checked are the addresses
//! connected to, with no second lookup in between. Literal IP hosts never
//! reach a resolver and are judged by [`GuardSettings::check`].

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::IpAddr;
use std::sync::Arc;
use url::Host;

#[derive(Debug, Clone)]
pub struct GuardSettings {
    /// Host patterns; `*.example.com` matches one or more labels in front.
    pub allowed_hosts: Vec<String>,
    /// TESTING: plain http to loopback hosts is allowed.
    pub allow_loopback_http: bool,
    /// TESTING: private, loopback and link-local addresses are allowed.
    pub allow_private_addresses: bool,
}

/// A webhook URL as the guard judged it.
#[derive(Debug, Clone, PartialEq)]
pub struct Webhook {
    /// The parse that was judged; deliveries go to exactly this URL.
    pub url: Url,
    /// The host as the allowlist saw it: lowercase (WHATWG), without a
    /// trailing dot, an IPv6 address without brackets.
    pub host: String,
}

/// Why a webhook URL is refused, in words for the caller (the JSON-RPC
/// error names the field in front of it).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WebhookRefused {
    #[error("the URL does not parse: {0}")]
    DoesNotParse(#[from] url::ParseError),
    #[error("the URL has no host")]
    NoHost,
    #[error("the URL must use https")]
    PlainHttp,
    #[error("the URL must start with https://")]
    NotHttps,
    #[error("the URL must not carry user information")]
    UserInformation,
    #[error("the URL has an invalid port (0)")]
    PortZero,
    #[error("host `{host}` is not on the webhook allowlist (push.allowed_hosts)")]
    NotOnAllowlist { host: String },
    #[error("the URL points at this machine")]
    ThisMachine,
    #[error("address {0} is private, loopback or link-local")]
    PrivateAddress(IpAddr),
    #[error("address {0} is an IPv6 form of an IPv4 address (NAT64, 6to4, Teredo, …)")]
    CarriesIpv4(IpAddr),
}

/// A webhook (or action hook) URL as logs, spans and error texts name it:
/// scheme, host, port and path; never its user information, query or
/// fragment, which may carry a secret.
pub fn shown(url: &Url) -> String {
    let host = match url.host() {
        Some(Host::Ipv6(ip)) => format!("[{ip}]"),
        Some(host) => host.to_string(),
        None => String::new(),
    };
    match url.port() {
        Some(port) => format!("{}://{host}:{port}{}", url.scheme(), url.path()),
        None => format!("{}://{host}{}", url.scheme(), url.path()),
    }
}

/// [`shown`] of a URL as text; one that does not parse is not repeated.
pub fn shown_text(text: &str) -> String {
    Url::parse(text)
        .map(|url| shown(&url))
        .unwrap_or_else(|_| "(a URL that does not parse)".into())
}

/// `*.example.com` matches any subdomain; anything else the host itself.
/// `host` is a [`Webhook::host`]; patterns compare without case.
pub fn host_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim().trim_end_matches('.').to_ascii_lowercase();
    match pattern.strip_prefix("*.") {
        Some(suffix) => host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}")),
        None => pattern == host,
    }
}

/// Addresses a webhook must never reach (unless allowed for tests):
/// loopback, private, link-local (incl. the 169.254.169.254 metadata
/// service), unspecified, CGNAT, IETF-assigned, benchmarking, reserved,
/// unique-local, site-local and multicast;
/// an IPv4-mapped address as its IPv4 address; and every IPv6 form that
/// carries an IPv4 address a translator or tunnel may take it to
/// ([`embeds_ipv4`]).
pub fn forbidden_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || (a == 100 && (64..128).contains(&b))
                || a == 0
                // IETF protocol assignments (192.0.0.0/24), benchmarking
                // (198.18.0.0/15) and reserved (240.0.0.0/4): no webhook
                // lives there, and a network may route them inside.
                || (a == 192 && b == 0 && v4.octets()[2] == 0)
                || (a == 198 && (b & 0xfe) == 18)
                || a >= 240
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || (first & 0xffc0) == 0xfec0
                || embeds_ipv4(v6)
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| forbidden_address(IpAddr::V4(v4)))
        }
    }
}

/// IPv6 ranges whose addresses stand for an IPv4 address: NAT64
/// (`64:ff9b::/96`, and `64:ff9b:1::/48` where the IPv4 address may sit at
/// any of RFC 6052's offsets), 6to4 (`2002::/16`), Teredo (`2001::/32`),
/// IPv4-compatible (`::/96` but `::` and `::1`) and IPv4-translated (`::ffff:0:0:0/96`). A
/// network that routes them reaches the IPv4 address inside, private or
/// not, and no webhook (Joule's or any other) is only reachable so: all of
/// them are refused rather than judged by the address they carry.
fn embeds_ipv4(v6: std::net::Ipv6Addr) -> bool {
    let s = v6.segments();
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    let nat64_local = s[..3] == [0x64, 0xff9b, 1];
    let six_to_four = s[0] == 0x2002;
    let teredo = s[..2] == [0x2001, 0];
    // `::` and `::1` are the unspecified and loopback addresses.
    let compatible = s[..6] == [0; 6] && !v6.is_loopback() && !v6.is_unspecified();
    let translated = s[..6] == [0, 0, 0, 0, 0xffff, 0];
    nat64 || nat64_local || six_to_four || teredo || compatible || translated
}

/// A name for this machine (RFC 6761: `localhost` and the names under it),
/// with or without a trailing dot; for refusing, never for allowing.
fn names_this_machine(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    name == "localhost" || name.ends_with(".localhost")
}

impl GuardSettings {
    /// Parse and judge a webhook URL; the error says why, in words for the
    /// caller. Used at set time and again before every delivery (settings
    /// may have changed since the config was stored).
    pub fn check(&self, text: &str) -> Result<Webhook, WebhookRefused> {
        let url = Url::parse(text)?;
        let host = url.host().ok_or(WebhookRefused::NoHost)?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_loopback_http && crate::loopback::is_loopback_host(&host) => {}
            "http" => return Err(WebhookRefused::PlainHttp),
            _ => return Err(WebhookRefused::NotHttps),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(WebhookRefused::UserInformation);
        }
        if url.port() == Some(0) {
            return Err(WebhookRefused::PortZero);
        }
        let name = match &host {
            Host::Domain(name) => name.trim_end_matches('.').to_string(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => ip.to_string(),
        };
        if name.is_empty() {
            return Err(WebhookRefused::NoHost);
        }
        if !self.allowed_hosts.iter().any(|p| host_matches(p, &name)) {
            return Err(WebhookRefused::NotOnAllowlist { host: name });
        }
        if !self.allow_private_addresses {
            let literal = match host {
                Host::Domain(_) if names_this_machine(&name) => {
                    return Err(WebhookRefused::ThisMachine);
                }
                Host::Domain(_) => None,
                Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
                Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
            };
            match literal {
                Some(IpAddr::V6(ip)) if embeds_ipv4(ip) => {
                    return Err(WebhookRefused::CarriesIpv4(IpAddr::V6(ip)));
                }
                Some(ip) if forbidden_address(ip) => {
                    return Err(WebhookRefused::PrivateAddress(ip));
                }
                _ => {}
            }
        }
        Ok(Webhook { url, host: name })
    }

    /// The resolver for the delivery client under these settings.
    pub fn resolver(&self) -> GuardedResolver {
        GuardedResolver {
            allow_private_addresses: self.allow_private_addresses,
        }
    }
}

/// A host name resolved to an address webhooks must not reach.
#[derive(Debug, thiserror::Error)]
#[error(
    "host `{host}` resolves to {address}, a private, loopback or link-local address or an IPv6 \
     form of an IPv4 address"
)]
pub struct ForbiddenResolution {
    pub host: String,
    pub address: IpAddr,
}

/// The delivery client's DNS resolver: the system resolver, then every
/// address judged; one forbidden address refuses the whole answer (a mixed
/// answer is how rebinding tricks look). reqwest connects only to addresses
/// this returns.
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    allow_private_addresses: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private_addresses = self.allow_private_addresses;
        Box::pin(async move {
            let host = name.as_str().to_string();
            // Port 0: reqwest puts in the URL's port.
            let addresses: Vec<_> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !allow_private_addresses
                && let Some(address) = addresses.iter().find(|a| forbidden_address(a.ip()))
            {
                return Err(Box::new(ForbiddenResolution {
                    host,
                    address: address.ip(),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

/// The refusal inside a failed delivery, if the resolver refused.
pub fn refused_resolution(error: &reqwest::Error) -> Option<&ForbiddenResolution> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if let Some(refused) = error.downcast_ref::<ForbiddenResolution>() {
            return Some(refused);
        }
        cause = error.source();
    }
    None
}

/// The HTTP client for webhook deliveries: no redirects (a 3xx would send
/// the body elsewhere), no proxy (the resolver, not a proxy, decides where
/// it connects), host names resolved by [`GuardedResolver`].
pub fn delivery_client(settings: &GuardSettings) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        // Few idle connections: webhooks are many hosts, each called rarely.
        .pool_max_idle_per_host(8)
        .dns_resolver(Arc::new(settings.resolver()))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_url_has_no_user_information_query_or_fragment() {
        for (url, shown) in [
            (
                "https://user:pw-secret@hooks.example.com:8443/a/b?sig=q-secret#f-secret",
                "https://hooks.example.com:8443/a/b",
            ),
            (
                "https://hooks.example.com?token=q-secret",
                "https://hooks.example.com/",
            ),
            ("http://[::1]:9/x?k=v", "http://[::1]:9/x"),
        ] {
            assert_eq!(shown_text(url), shown, "{url}");
        }
        assert_eq!(
            shown_text("not a url secret"),
            "(a URL that does not parse)"
        );
    }

    fn guard() -> GuardSettings {
        GuardSettings {
            allowed_hosts: vec![
                "*.sapdas.cloud.sap".into(),
                "hooks.example.com".into(),
                "10.1.2.3".into(),
                "localhost".into(),
            ],
            allow_loopback_http: false,
            allow_private_addresses: false,
        }
    }

    /// The guard with the metadata address and other literals on the
    /// allowlist, so the address rule (not the allowlist) has to refuse.
    fn guard_allowing_literals() -> GuardSettings {
        let mut guard = guard();
        guard.allowed_hosts.extend(
            [
                "169.254.169.254",
                "127.0.0.1",
                "::1",
                "::ffff:169.254.169.254",
                "*.localhost",
            ]
            .map(String::from),
        );
        guard
    }

    #[test]
    fn joule_callback_hosts_pass_by_default() {
        let webhook = guard()
            .check("https://sapdas.eu10.sapdas.cloud.sap/api/agent/v1/callback/a2a")
            .unwrap();
        assert_eq!(webhook.host, "sapdas.eu10.sapdas.cloud.sap");
        assert!(guard().check("https://hooks.example.com:8443/x").is_ok());
    }

    #[test]
    fn everything_else_is_refused_with_a_reason() {
        for (url, reason) in [
            ("http://sapdas.eu10.sapdas.cloud.sap/cb", "https"),
            ("ftp://hooks.example.com/", "https://"),
            ("https://evil.example.com/", "allowlist"),
            ("https://sapdas.cloud.sap.evil.com/", "allowlist"),
            ("https://user:pw@hooks.example.com/", "user information"),
            ("https://10.1.2.3/", "private"),
            ("https://localhost/", "this machine"),
            ("https://hooks.example.com:99999/", "port"),
            ("https://hooks.example.com:0/", "port"),
            ("hooks.example.com/cb", "does not parse"),
            ("https://", "does not parse"),
            ("", "does not parse"),
        ] {
            let error = guard().check(url).unwrap_err().to_string();
            assert!(error.contains(reason), "{url}: {error}");
        }
    }

    #[test]
    fn the_backslash_ends_the_host_as_the_client_reads_it() {
        // WHATWG: in an https URL a backslash is a path separator, so the
        // host is 169.254.169.254, not a name under *.sapdas.cloud.sap.
        let url = r"https://169.254.169.254\.a.sapdas.cloud.sap/cb";
        let error = guard().check(url).unwrap_err().to_string();
        assert!(error.contains("`169.254.169.254`"), "{error}");
        let error = guard_allowing_literals()
            .check(url)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("address 169.254.169.254 is private"),
            "{error}"
        );
        // And the client would indeed go there.
        let parsed = Url::parse(url).unwrap();
        assert_eq!(parsed.host_str(), Some("169.254.169.254"));
    }

    #[test]
    fn parser_differentials_are_judged_on_the_parse() {
        // Every spelling of the metadata address is that address.
        for url in [
            "https://0xA9FEA9FE/",
            "https://2852039166/",
            "https://0251.0376.0251.0376/",
            "https://169.254.43518/",
            "https://169.254.169.254./",
            "https://%31%36%39.254.169.254/",
            "https://169.254.169\t.254/",
            "https://169.254.\n169.254/",
            " https://169.254.169.254/ ",
            "https://[::ffff:169.254.169.254]/",
        ] {
            let error = guard_allowing_literals()
                .check(url)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("is private, loopback or link-local"),
                "{url:?}: {error}"
            );
            let error = guard().check(url).unwrap_err().to_string();
            assert!(error.contains("allowlist"), "{url:?}: {error}");
        }
        // User info in front of an allowed-looking name.
        for url in [
            "https://a.sapdas.cloud.sap@169.254.169.254/",
            "https://a.sapdas.cloud.sap:x@169.254.169.254/",
            "https://:x@hooks.example.com/",
        ] {
            let error = guard_allowing_literals()
                .check(url)
                .unwrap_err()
                .to_string();
            assert!(error.contains("user information"), "{url}: {error}");
        }
        // Loopback, whatever the spelling.
        for (url, reason) in [
            ("https://LOCALHOST/", "this machine"),
            ("https://localhost./", "this machine"),
            ("https://hooks.localhost/", "this machine"),
            ("https://127.1/", "private"),
            ("https://0x7f.0.0.1/", "private"),
            ("https://[::1]:8443/", "private"),
            ("https://[0:0:0:0:0:0:0:1]/", "private"),
        ] {
            let error = guard_allowing_literals()
                .check(url)
                .unwrap_err()
                .to_string();
            assert!(error.contains(reason), "{url}: {error}");
        }
        // What WHATWG cannot read is refused, not guessed at.
        for url in [
            "https://a.sapdas.cloud.sap%40169.254.169.254/",
            "https://[fe80::1%25eth0]/",
            "https://[::1/",
            "https://999.1.1.1/",
            "https://hooks example.com/",
        ] {
            let error = guard().check(url).unwrap_err().to_string();
            assert!(error.contains("does not parse"), "{url}: {error}");
        }
    }

    #[test]
    fn what_passes_is_the_normalized_parse() {
        for (url, stored) in [
            ("https://HOOKS.Example.COM/x", "https://hooks.example.com/x"),
            (
                "https://hooks.exa\tmple.com/x",
                "https://hooks.example.com/x",
            ),
            (
                "https://hooks%2Eexample.com/x",
                "https://hooks.example.com/x",
            ),
            (
                "https://hooks.example.com./x",
                "https://hooks.example.com./x",
            ),
            (
                "https://hooks.example.com:443/x",
                "https://hooks.example.com/x",
            ),
            // Empty credentials are no credentials: the parse drops the `@`.
            (
                "https://@hooks.example.com/x",
                "https://hooks.example.com/x",
            ),
            (
                r"https://sapdas.eu10.sapdas.cloud.sap\api\cb",
                "https://sapdas.eu10.sapdas.cloud.sap/api/cb",
            ),
        ] {
            let webhook = guard().check(url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(webhook.url.as_str(), stored, "{url}");
            // Judging the stored form again gives the same URL.
            assert_eq!(guard().check(stored).unwrap().url, webhook.url);
        }
    }

    #[test]
    fn plain_http_only_to_loopback_and_only_when_testing() {
        let testing = GuardSettings {
            allow_loopback_http: true,
            allow_private_addresses: true,
            ..guard_allowing_literals()
        };
        for url in [
            "http://127.0.0.1:9/x",
            "http://localhost:9/x",
            "http://[::1]:9/x",
        ] {
            assert!(testing.check(url).is_ok(), "{url}");
        }
        for url in [
            "http://hooks.example.com/x",
            "http://127.0.0.1.hooks.example.com/x",
            "http://127.0.0.1@hooks.example.com/x",
            // Refused as this machine, but not a loopback host to allow
            // plain http to: the system resolver may ask DNS for it.
            "http://hooks.localhost:9/x",
        ] {
            let error = testing.check(url).unwrap_err().to_string();
            assert!(error.contains("https"), "{url}: {error}");
        }
        // Loopback http, but loopback addresses still need their own allowance.
        let http_only = GuardSettings {
            allow_private_addresses: false,
            ..testing
        };
        let error = http_only
            .check("http://localhost:9/x")
            .unwrap_err()
            .to_string();
        assert!(error.contains("this machine"), "{error}");
    }

    #[test]
    fn patterns_match_labels_not_text() {
        assert!(host_matches("*.sapdas.cloud.sap", "a.sapdas.cloud.sap"));
        assert!(host_matches("*.SAPDAS.cloud.sap.", "a.b.sapdas.cloud.sap"));
        assert!(!host_matches("*.sapdas.cloud.sap", "sapdas.cloud.sap"));
        assert!(!host_matches("*.sapdas.cloud.sap", "evilsapdas.cloud.sap"));
        assert!(host_matches("Hooks.Example.com", "hooks.example.com"));
    }

    #[test]
    fn forbidden_ranges() {
        for ip in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "192.0.0.170",
            "198.18.0.1",
            "198.19.255.254",
            "240.0.0.1",
            "255.255.255.254",
        ] {
            assert!(forbidden_address(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "2a00:1450::1",
            "192.0.2.1",
            "198.20.0.1",
            "223.255.255.1",
        ] {
            assert!(!forbidden_address(ip.parse().unwrap()), "{ip}");
        }
    }

    /// Every IPv6 form that carries an IPv4 address is refused, whether
    /// the address inside is private (the metadata service) or public.
    #[test]
    fn ipv6_forms_of_ipv4_addresses_are_refused() {
        for (form, ips) in [
            ("NAT64", ["64:ff9b::a9fe:a9fe", "64:ff9b::808:808"]),
            (
                "NAT64 local use",
                ["64:ff9b:1::a9fe:a9fe", "64:ff9b:1:a9fe:a9fe::"],
            ),
            ("6to4", ["2002:a9fe:a9fe::", "2002:808:808::1"]),
            (
                "Teredo",
                ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"],
            ),
            ("IPv4-compatible", ["::a9fe:a9fe", "::808:808"]),
            (
                "IPv4-translated",
                ["::ffff:0:a9fe:a9fe", "::ffff:0:808:808"],
            ),
            ("site-local", ["fec0::1", "feff:ffff::1"]),
        ] {
            for ip in ips {
                assert!(forbidden_address(ip.parse().unwrap()), "{form}: {ip}");
            }
        }
        // Neighbours of those ranges are public addresses.
        for ip in [
            "64:ff9c::1",
            "64:ff9b:2::1",
            "2003::1",
            "2001:1::1",
            "ff::1",
            "::1:0:0:1",
        ] {
            assert!(!forbidden_address(ip.parse().unwrap()), "{ip}");
        }
        // As literals in a webhook URL, on the allowlist or not.
        let ip: std::net::Ipv6Addr = "64:ff9b::a9fe:a9fe".parse().unwrap();
        let mut guard = guard();
        guard.allowed_hosts.push(ip.to_string());
        let error = guard.check("https://[64:ff9b::a9fe:a9fe]/cb").unwrap_err();
        assert_eq!(error, WebhookRefused::CarriesIpv4(IpAddr::V6(ip)));
        assert!(error.to_string().contains("IPv6 form of an IPv4 address"));
    }

    #[tokio::test]
    async fn the_resolver_refuses_a_name_that_resolves_to_loopback() {
        let name: Name = "localhost".parse().unwrap();
        let error = match guard().resolver().resolve(name).await {
            Ok(addresses) => panic!("resolved: {:?}", addresses.collect::<Vec<_>>()),
            Err(error) => error,
        };
        let refused = error
            .downcast_ref::<ForbiddenResolution>()
            .expect("a refusal");
        assert_eq!(refused.host, "localhost");
        assert!(refused.address.is_loopback(), "{refused}");
        let testing = GuardSettings {
            allow_private_addresses: true,
            ..guard()
        };
        let addresses: Vec<_> = testing
            .resolver()
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(!addresses.is_empty());
        assert!(
            addresses.iter().all(|a| a.ip().is_loopback()),
            "{addresses:?}"
        );
    }
}
