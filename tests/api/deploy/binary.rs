//! The release binary `cf push` ships must run on the cflinuxfs4 stack
//! (Ubuntu 22.04): no glibc symbol version above 2.35, and no OpenSSL.
//!
//! Reads `target/release/order-exception-agent` (or under `CARGO_TARGET_DIR`)
//! with `readelf` from binutils. Without the binary the tests say SKIPPED,
//! unless `RELEASE_BINARY_REQUIRED=1` (set by .ci/test, which builds it first)
//! makes that a failure.

use std::path::PathBuf;
use std::process::Command;

const CFLINUXFS4_GLIBC: (u32, u32) = (2, 35);

fn required() -> bool {
    std::env::var("RELEASE_BINARY_REQUIRED").is_ok_and(|v| v == "1")
}

/// The binary and `readelf -<flag> -W` on it, or `None` (skipped).
fn readelf(flag: &str) -> Option<String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let target = if target.is_relative() {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(target)
    } else {
        target
    };
    let binary = target.join("release").join(env!("CARGO_PKG_NAME"));
    if !binary.is_file() {
        assert!(
            !required(),
            "RELEASE_BINARY_REQUIRED=1 but {} is missing: cargo build --release",
            binary.display()
        );
        eprintln!(
            "SKIPPED: build the release binary first (cargo build --release); {} is missing",
            binary.display()
        );
        return None;
    }
    let output = match Command::new("readelf")
        .arg(flag)
        .arg("-W")
        .arg(&binary)
        .output()
    {
        Ok(output) => output,
        Err(error) => {
            assert!(
                !required(),
                "readelf (binutils) is needed to check the binary: {error}"
            );
            eprintln!("SKIPPED: readelf (binutils) is not installed: {error}");
            return None;
        }
    };
    assert!(
        output.status.success(),
        "readelf {flag} {} failed: {}",
        binary.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `GLIBC_2.34` → (2, 34); `GLIBC_2.3.4` → (2, 3).
fn glibc_version(name: &str) -> Option<(u32, u32)> {
    let mut parts = name.strip_prefix("GLIBC_")?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

#[test]
fn the_release_binary_needs_glibc_2_35_at_most() {
    let Some(versions) = readelf("-V") else {
        return;
    };
    // Only what the binary needs (.gnu.version_r), not what it defines.
    let needs = versions
        .split("Version needs section")
        .nth(1)
        .unwrap_or_default();
    let glibc: Vec<&str> = needs
        .split_whitespace()
        .filter(|word| word.starts_with("GLIBC_") && glibc_version(word).is_some())
        .collect();
    let Some(highest) = glibc.iter().filter_map(|name| glibc_version(name)).max() else {
        // A static binary (musl) asks for no glibc at all.
        assert!(
            !versions.contains("libc.so"),
            "a dynamically linked binary without GLIBC versions: readelf output not understood"
        );
        return;
    };
    let too_new: Vec<&&str> = glibc
        .iter()
        .filter(|name| glibc_version(name).is_some_and(|v| v > CFLINUXFS4_GLIBC))
        .collect();
    assert!(
        highest <= CFLINUXFS4_GLIBC,
        "the binary needs {too_new:?}, cflinuxfs4 has glibc 2.35; build on Ubuntu 22.04 or for musl (docs/deploy-btp.md, step 2)"
    );
}

#[test]
fn the_release_binary_links_no_openssl() {
    let Some(dynamic) = readelf("-d") else {
        return;
    };
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|line| line.contains("(NEEDED)"))
        .filter_map(|line| line.split('[').nth(1)?.split(']').next())
        .collect();
    assert!(
        !needed.is_empty() || dynamic.contains("There is no dynamic section"),
        "readelf -d output not understood:\n{dynamic}"
    );
    let openssl: Vec<&&str> = needed
        .iter()
        .filter(|library| library.starts_with("libssl") || library.starts_with("libcrypto"))
        .collect();
    assert!(
        openssl.is_empty(),
        "the binary links {openssl:?}; it must use rustls only (needed: {needed:?})"
    );
}
