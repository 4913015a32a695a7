//! The webhook guard (SSRF): which URLs may receive push notifications.
//! At set time: scheme, userinfo, host allowlist, literal addresses. At
//! delivery time: every address the host resolves to, again.

use std::net::IpAddr;

#[derive(Debug, Clone)]
pub struct GuardSettings {
    /// Host patterns; `*.example.com` matches one or more labels in front.
    pub allowed_hosts: Vec<String>,
    /// TESTING: plain http to loopback hosts is allowed.
    pub allow_loopback_http: bool,
    /// TESTING: private, loopback and link-local addresses are allowed.
    pub allow_private_addresses: bool,
}

/// A URL split into what the guard looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub https: bool,
    pub host: String,
    pub port: u16,
}

fn parse(url: &str) -> Result<Target, String> {
    let (https, rest) = if let Some(rest) = url.strip_prefix("https://") {
        (true, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (false, rest)
    } else {
        return Err("the URL must start with https://".into());
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains('@') {
        return Err("the URL must not carry user information".into());
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            match port.parse::<u16>() {
                Ok(port) => (host, port),
                Err(_) if authority.starts_with('[') && authority.ends_with(']') => {
                    (authority, if https { 443 } else { 80 })
                }
                Err(_) => return Err("the URL has an invalid port".into()),
            }
        }
        _ => (authority, if https { 443 } else { 80 }),
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    if host.is_empty() {
        return Err("the URL has no host".into());
    }
    Ok(Target { https, host, port })
}

/// `*.example.com` matches any subdomain; anything else the host itself.
pub fn host_matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}")),
        None => pattern.eq_ignore_ascii_case(host),
    }
}

/// Addresses a webhook must never reach (unless allowed for tests):
/// loopback, private, link-local (incl. the 169.254.169.254 metadata
/// service), unspecified, CGNAT, unique-local and multicast.
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
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| forbidden_address(IpAddr::V4(v4)))
        }
    }
}

fn is_loopback_host(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl GuardSettings {
    /// The set-time check; the error says why, in words for the caller.
    pub fn check(&self, url: &str) -> Result<Target, String> {
        let target = parse(url)?;
        let plain_http_allowed = self.allow_loopback_http && is_loopback_host(&target.host);
        if !(target.https || plain_http_allowed) {
            return Err("the URL must use https".into());
        }
        if !self
            .allowed_hosts
            .iter()
            .any(|p| host_matches(p, &target.host))
        {
            return Err(format!(
                "host `{}` is not on the webhook allowlist (push.allowed_hosts)",
                target.host
            ));
        }
        if !self.allow_private_addresses {
            if target.host == "localhost" {
                return Err("the URL points at this machine".into());
            }
            if let Ok(ip) = target.host.parse::<IpAddr>()
                && forbidden_address(ip)
            {
                return Err(format!("address {ip} is private, loopback or link-local"));
            }
        }
        Ok(target)
    }

    /// The delivery-time check: every address the host resolves to now.
    pub async fn check_resolved(&self, target: &Target) -> Result<(), String> {
        if self.allow_private_addresses {
            return Ok(());
        }
        let addresses = tokio::net::lookup_host((target.host.as_str(), target.port))
            .await
            .map_err(|error| format!("host `{}` does not resolve: {error}", target.host))?;
        for address in addresses {
            if forbidden_address(address.ip()) {
                return Err(format!(
                    "host `{}` resolves to {}, a private, loopback or link-local address",
                    target.host,
                    address.ip()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn joule_callback_hosts_pass_by_default() {
        assert!(
            guard()
                .check("https://sapdas.eu10.sapdas.cloud.sap/api/agent/v1/callback/a2a")
                .is_ok()
        );
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
        ] {
            let error = guard().check(url).unwrap_err();
            assert!(error.contains(reason), "{url}: {error}");
        }
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
        ] {
            assert!(forbidden_address(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "2a00:1450::1"] {
            assert!(!forbidden_address(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused_at_delivery() {
        let target = Target {
            https: true,
            host: "localhost".into(),
            port: 443,
        };
        let error = guard().check_resolved(&target).await.unwrap_err();
        assert!(error.contains("loopback"), "{error}");
        let allowed = GuardSettings {
            allow_private_addresses: true,
            ..guard()
        };
        assert!(allowed.check_resolved(&target).await.is_ok());
    }
}
