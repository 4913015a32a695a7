//! The binary `cf push` ships must run on the cflinuxfs4 stack
//! (Ubuntu 22.04): no glibc symbol version above 2.35, and no OpenSSL.
//!
//! `deploy/stage.sh` refuses such a release binary before it stages it;
//! these tests find the dependency or C code that would make it so earlier,
//! on every test run. They read with `readelf` (binutils, which the Rust
//! linker needs anyway):
//!
//! - always, the service binary this `cargo test` built, the one the API
//!   tests start. It is the release binary's code with more on top (the
//!   dev-dependencies' features, which only add; no LTO to drop unused
//!   code), so the libraries and glibc versions it needs include the
//!   release binary's, and it costs no build of its own (why that
//!   matters for CI: docs/development.md).
//! - also `target/release/order-exception-agent` (or under
//!   `CARGO_TARGET_DIR`) when it is there, after `cargo run --release` or
//!   `deploy/stage.sh`; the tests say SKIPPED for it otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

const CFLINUXFS4_GLIBC: (u32, u32) = (2, 35);

/// The binaries to check: the test build's, and the release build's if
/// one was built.
fn binaries() -> Vec<PathBuf> {
    let mut binaries = vec![PathBuf::from(env!("CARGO_BIN_EXE_order-exception-agent"))];
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let target = if target.is_relative() {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(target)
    } else {
        target
    };
    let release = target.join("release").join(env!("CARGO_PKG_NAME"));
    if release.is_file() {
        binaries.push(release);
    } else {
        eprintln!(
            "SKIPPED for the release binary (checked the test build's): {} is missing",
            release.display()
        );
    }
    binaries
}

/// `readelf -<flag> -W` on `binary`.
fn readelf(flag: &str, binary: &Path) -> String {
    let output = Command::new("readelf")
        .arg(flag)
        .arg("-W")
        .arg(binary)
        .output()
        .unwrap_or_else(|error| {
            panic!("readelf (binutils) is needed to check the binary: {error}")
        });
    assert!(
        output.status.success(),
        "readelf {flag} {} failed: {}",
        binary.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `GLIBC_2.34` → (2, 34); `GLIBC_2.3.4` → (2, 3).
fn glibc_version(name: &str) -> Option<(u32, u32)> {
    let mut parts = name.strip_prefix("GLIBC_")?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

#[test]
fn the_service_binary_needs_glibc_2_35_at_most() {
    for binary in binaries() {
        needs_glibc_2_35_at_most(&binary);
    }
}

fn needs_glibc_2_35_at_most(binary: &Path) {
    let versions = readelf("-V", binary);
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
            "{}: a dynamically linked binary without GLIBC versions: readelf output not understood",
            binary.display()
        );
        return;
    };
    let too_new: Vec<&&str> = glibc
        .iter()
        .filter(|name| glibc_version(name).is_some_and(|v| v > CFLINUXFS4_GLIBC))
        .collect();
    assert!(
        highest <= CFLINUXFS4_GLIBC,
        "{} needs {too_new:?}, cflinuxfs4 has glibc 2.35; build on Ubuntu 22.04 or for musl (docs/deploy-btp.md, step 2)",
        binary.display()
    );
}

#[test]
fn the_service_binary_links_no_openssl() {
    for binary in binaries() {
        links_no_openssl(&binary);
    }
}

fn links_no_openssl(binary: &Path) {
    let dynamic = readelf("-d", binary);
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|line| line.contains("(NEEDED)"))
        .filter_map(|line| line.split('[').nth(1)?.split(']').next())
        .collect();
    assert!(
        !needed.is_empty() || dynamic.contains("There is no dynamic section"),
        "{}: readelf -d output not understood:\n{dynamic}",
        binary.display()
    );
    let openssl: Vec<&&str> = needed
        .iter()
        .filter(|library| library.starts_with("libssl") || library.starts_with("libcrypto"))
        .collect();
    assert!(
        openssl.is_empty(),
        "{} links {openssl:?}; it must use rustls only (needed: {needed:?})",
        binary.display()
    );
}
