//! For the authenticated benchmark: writes a static OpenID discovery document
//! and JWKS (the throwaway test key) into a folder that `python3 -m
//! http.server` serves on loopback, and prints a user token signed with that
//! key, valid for two hours; with COUNT, that many different tokens (one a
//! line, each with its own `jti`), for timing the first call of a new token.
//!
//! Run: cargo run --release --example bench_token -- DIR KEY_SERVER_URL [COUNT]

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: bench_token DIR KEY_SERVER_URL")?);
    let key_server = args.next().ok_or("usage: bench_token DIR KEY_SERVER_URL")?;
    let count: usize = args
        .next()
        .map(|count| count.parse())
        .transpose()?
        .unwrap_or(1);
    let keys: Value = serde_json::from_str(include_str!("../tests/fixtures/test-keys.json"))?;
    let key = &keys["key-1"];
    std::fs::create_dir_all(dir.join(".well-known"))?;
    std::fs::create_dir_all(dir.join("oauth2"))?;
    std::fs::write(
        dir.join(".well-known/openid-configuration"),
        json!({ "issuer": "https://tenant.accounts.test", "jwks_uri": format!("{key_server}/oauth2/certs") })
            .to_string(),
    )?;
    std::fs::write(
        dir.join("oauth2/certs"),
        json!({ "keys": [{ "kty": "RSA", "kid": "key-1", "alg": "RS256", "use": "sig", "n": key["n"], "e": key["e"] }] })
            .to_string(),
    )?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("key-1".into());
    let pem = key["private_pem"].as_str().ok_or("fixture key missing")?;
    let signing_key = EncodingKey::from_rsa_pem(pem.as_bytes())?;
    for n in 0..count {
        let claims = json!({
            "iss": "https://tenant.accounts.test", "aud": "bench-client", "sub": "P000123",
            "azp": "joule-proxy-client", "app_tid": "bench-tenant", "exp": now + 7200, "iat": now,
            "sap_id_type": "user", "user_uuid": "bench-user", "ias_apis": ["order-exception-agent"],
            "groups": ["viewer"], "jti": format!("bench-{n}")
        });
        println!("{}", jsonwebtoken::encode(&header, &claims, &signing_key)?);
    }
    Ok(())
}
