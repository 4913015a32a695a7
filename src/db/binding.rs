//! The `postgresql-db` binding as a database URL, built field by field, and
//! database URLs as logs may show them (no user info, no query).

use super::DbError;
use crate::cloud_foundry::VcapServices;
use serde_json::Value;
use std::path::Path;

pub(super) fn postgres_binding(services: &VcapServices) -> Option<&Value> {
    let credentials = services.credentials("postgresql-db")?;
    // One trial broker nests them once more.
    Some(credentials.get("credentials").unwrap_or(credentials))
}

fn text<'a>(credentials: &'a Value, key: &'static str) -> Result<&'a str, DbError> {
    credentials
        .get(key)
        .and_then(Value::as_str)
        .filter(|value| !value.is_empty())
        .ok_or(DbError::Binding(key))
}

/// The URL for a `postgresql-db` binding, built from the discrete fields
/// (its `uri` has been seen without credentials) with `reqwest::Url`
/// setters, so a field is always that field: `@`, `/`, `?`, `#` or `:` in a
/// user, password or database name are encoded, a host or port that is not
/// one is refused. Its root certificate is written next to the SQLite file,
/// since the driver reads it from a path.
pub(super) fn binding_url(credentials: &Value, data_dir: &Path) -> Result<String, DbError> {
    let host = text(credentials, "hostname")?;
    let port = match credentials.get("port") {
        Some(Value::String(port)) => port.trim().parse::<u16>().ok(),
        Some(Value::Number(port)) => port.as_u64().and_then(|p| u16::try_from(p).ok()),
        _ => return Err(DbError::Binding("port")),
    }
    .filter(|port| *port != 0)
    .ok_or(DbError::BindingField {
        field: "port",
        reason: "is not a port number",
    })?;
    let database = text(credentials, "dbname")?;
    let user = text(credentials, "username")?;
    let password = text(credentials, "password")?;
    let not_a_host = || DbError::BindingField {
        field: "hostname",
        reason: "is not a host name or IP address",
    };
    let mut url = reqwest::Url::parse("postgres://localhost").map_err(|_| not_a_host())?;
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => url.set_ip_host(ip).map_err(|_| not_a_host())?,
        // The driver takes the host as written (no decoding): names only.
        Err(_) if is_host_name(host) => url.set_host(Some(host)).map_err(|_| not_a_host())?,
        Err(_) => return Err(not_a_host()),
    }
    let encoded = |field| DbError::BindingField {
        field,
        reason: "cannot be put in a URL",
    };
    url.set_port(Some(port)).map_err(|_| encoded("port"))?;
    // Encoded here (the setters would leave `%` as it is), decoded by the driver.
    url.set_username(&percent_encode(user))
        .map_err(|_| encoded("username"))?;
    url.set_password(Some(&percent_encode(password)))
        .map_err(|_| encoded("password"))?;
    url.set_path(&format!("/{}", percent_encode(database)));
    if let Ok(pem) = text(credentials, "sslrootcert") {
        std::fs::create_dir_all(data_dir).map_err(|source| DbError::DataDir {
            path: data_dir.to_path_buf(),
            source,
        })?;
        let path = data_dir.join("postgresql-root.pem");
        std::fs::write(&path, pem).map_err(|source| DbError::RootCert {
            path: path.clone(),
            source,
        })?;
        url.query_pairs_mut()
            .append_pair("sslmode", "verify-full")
            .append_pair("sslrootcert", &path.to_string_lossy());
    } else {
        url.query_pairs_mut().append_pair("sslmode", "require");
    }
    Ok(url.into())
}

/// DNS labels (letters, digits, `-`, `_`) joined by dots.
fn is_host_name(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 253
        && host.trim_end_matches('.').split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Everything but RFC 3986's unreserved characters, for user info and the
/// database name (the driver percent-decodes them).
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// `postgres://user:secret@host/db?…` → `postgres://host/db`, for logs: the
/// parse without user info, query and fragment; a URL that does not parse
/// is not shown at all (it may hold a password anywhere).
pub(super) fn redact(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            // Both fail only for URLs without a host, which carry no user info.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.into()
        }
        Err(error) => format!("(a database URL that does not parse: {error})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::str::FromStr;

    #[test]
    fn binding_url_is_built_from_the_discrete_fields() {
        let credentials = json!({
            "hostname": "db.example", "port": "5432", "dbname": "d",
            "username": "u", "password": "p@ss:word",
            "uri": "postgres://db.example:5432/d"
        });
        let url = binding_url(&credentials, Path::new("/tmp")).expect("url");
        assert_eq!(
            url,
            "postgres://u:p%40ss%3Aword@db.example:5432/d?sslmode=require"
        );
        assert_eq!(redact(&url), "postgres://db.example:5432/d");
    }

    /// `%XX` back to bytes, as the driver reads user info.
    fn percent_decode(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() {
                out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("hex"));
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn binding_fields_stay_fields_whatever_they_contain() {
        let password = "p@ss/w?rd#1:%41 é";
        let credentials = json!({
            "hostname": "db.example", "port": 6543, "dbname": "d/b?x#1%41",
            "username": "u@s:er/", "password": password,
        });
        let url = binding_url(&credentials, Path::new("/tmp")).expect("url");
        // The driver's own reading of the URL.
        let options = sqlx::postgres::PgConnectOptions::from_str(&url).expect("sqlx parses it");
        assert_eq!(options.get_host(), "db.example", "{url}");
        assert_eq!(options.get_port(), 6543, "{url}");
        assert_eq!(options.get_username(), "u@s:er/", "{url}");
        assert_eq!(options.get_database(), Some("d/b?x#1%41"), "{url}");
        assert!(
            matches!(options.get_ssl_mode(), sqlx::postgres::PgSslMode::Require),
            "{url}"
        );
        let parsed = reqwest::Url::parse(&url).unwrap();
        assert_eq!(
            percent_decode(parsed.password().unwrap()),
            password,
            "{url}"
        );
        assert_eq!(
            redact(&url),
            "postgres://db.example:6543/d%2Fb%3Fx%231%2541"
        );
        assert!(!redact(&url).contains("ss"), "no password in the location");
    }

    #[test]
    fn a_host_or_port_that_is_not_one_is_refused() {
        for (host, port) in [
            ("evil.example/other", json!(5432)),
            ("u:p@evil.example", json!(5432)),
            ("db.example?host=evil", json!(5432)),
            ("db.example:5433", json!(5432)),
            ("db example", json!(5432)),
            ("db.example", json!("5432/x")),
            ("db.example", json!(70000)),
            ("db.example", json!(0)),
        ] {
            let credentials = json!({"hostname": host, "port": port, "dbname": "d",
                "username": "u", "password": "p"});
            let error = binding_url(&credentials, Path::new("/tmp"))
                .expect_err("refused")
                .to_string();
            assert!(
                error.contains("binding's `hostname`") || error.contains("binding's `port`"),
                "{host} {port}: {error}"
            );
        }
        for host in ["10.1.2.3", "::1", "db-1.internal_zone.example."] {
            let credentials = json!({"hostname": host, "port": "5432", "dbname": "d",
                "username": "u", "password": "p"});
            let url = binding_url(&credentials, Path::new("/tmp")).expect(host);
            let options = sqlx::postgres::PgConnectOptions::from_str(&url).expect("sqlx parses it");
            assert_eq!(options.get_host().trim_matches(['[', ']']), host, "{url}");
        }
    }

    #[test]
    fn the_root_certificate_path_is_a_query_value() {
        let dir =
            std::env::temp_dir().join(format!("oea db & ?{}#", uuid::Uuid::new_v4().simple()));
        let credentials = json!({"hostname": "h", "port": 5432, "dbname": "d",
            "username": "u", "password": "p", "sslrootcert": "-----BEGIN CERTIFICATE-----"});
        let url = binding_url(&credentials, &dir).expect("url");
        let _ = std::fs::remove_dir_all(&dir);
        let parsed = reqwest::Url::parse(&url).unwrap();
        let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
        assert_eq!(
            pairs,
            [
                ("sslmode".to_string(), "verify-full".to_string()),
                (
                    "sslrootcert".to_string(),
                    dir.join("postgresql-root.pem")
                        .to_string_lossy()
                        .into_owned()
                )
            ]
        );
        assert_eq!(parsed.fragment(), None, "{url}");
    }

    #[test]
    fn a_url_that_does_not_parse_is_not_shown() {
        let shown = redact("postgres://u:sec ret@[db/x");
        assert!(!shown.contains("sec"), "{shown}");
        assert_eq!(
            redact("postgres://u:secret@db.example:5432/d?sslmode=require&password=x#f"),
            "postgres://db.example:5432/d"
        );
    }

    #[test]
    fn a_binding_without_a_password_is_named() {
        let credentials = json!({"hostname": "h", "port": 5432, "dbname": "d", "username": "u"});
        let error = binding_url(&credentials, Path::new("/tmp")).expect_err("no password");
        assert_eq!(
            error.to_string(),
            "store: the postgresql-db binding lacks `password`"
        );
    }
}
