//! Round 9's families: credentials in tools, configs and languages of 2024–2026 that no family
//! or rule of earlier rounds was written for. `configs.rs` holds config files and code of
//! tools (Kubernetes Secret manifests, Ansible inventories, Docker and language package
//! registries, Composer, Spring/Quarkus properties, PHP defines, constants of compiled
//! languages, Apple plists, NetworkManager keyfiles, IaC and process managers, mobile build
//! tools, LDIF, dev-tool configs, API client collections, GitOps tools); `wire.rs` holds what
//! travels on a wire or a command line (git's credential protocol, HTTP clients' auth flags,
//! `Authorization` schemes, mail protocol dialogs, JDBC/ODBC strings, code-signing and
//! secret-manager CLIs, PuTTY and PGP key files, OTP URIs, webhook and bot URLs, SAS tokens,
//! presigned URLs, query languages, data-store admin commands, JVM properties, session
//! cookies, shell environment setters, tunnel and mesh-VPN auth keys).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod configs;
mod wire;

use base64::Engine as _;

use super::families::{B64, Family, Made};
use super::values::{bytes, password};
use crate::random::Rng;

/// Every round 9 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = configs::FAMILIES.to_vec();
    all.extend_from_slice(wire::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax (no quotes, backslashes, `$`,
/// backticks, braces, commas, semicolons or spaces).
fn plain_pw(rng: &mut Rng) -> String {
    password(rng).replace(['"', '\'', '\\', '$', '`', '{', '}', ',', ';', ' ', '&', '%'], "x")
}

/// RFC 4648 base32 (A–Z, 2–7) of `length` characters, as OTP seeds are written.
fn base32(rng: &mut Rng, length: usize) -> String {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    super::values::from_alphabet(rng, CHARS, length)
}

/// Lower-case letters and digits (Mattermost hook ids, session ids).
fn lower_alnum(rng: &mut Rng, length: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    super::values::from_alphabet(rng, CHARS, length)
}

/// Base64 (standard) of a text.
fn b64(text: &str) -> String {
    B64.encode(text)
}

/// Base64 of `length` random bytes.
fn b64_random(rng: &mut Rng, length: usize) -> String {
    B64.encode(bytes(rng, length))
}

/// A secret whose needles are the secret and some encoded forms of it.
fn with_forms(secret: String, forms: Vec<String>, line: String) -> Made {
    let mut needles = vec![secret.clone()];
    needles.extend(forms);
    Made { needles, secret, carrier: super::families::Carrier::Text(line) }
}
