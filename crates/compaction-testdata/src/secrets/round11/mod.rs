//! Round 11's families: credentials in contexts that no family or rule of earlier rounds was
//! written for. `shell.rs` holds what people type and what tools print (shell history
//! listings, `kubectl set env`, forge CLI logins, prompt automation, password-manager and
//! bootstrap outputs, environment dumps of processes, runtimes and containers, debug prints of
//! structs, HTTP wire dumps, WebSocket/GraphQL auth, key-value store writes, cloud CLIs'
//! creation outputs); `admin.rs` holds what administrators write (mount credentials, smaller
//! clouds' CLI configs, game server configs, SQL replication and foreign-data links, Windows
//! remote admin flags, proxy settings, crontabs, exception messages with arguments); `files.rs`
//! holds config files and code (language registry credential files, keyed XML settings,
//! OpenAPI examples, observability pipelines, task runners and dev environments, config
//! management, IoT firmware, abbreviated names, the word "password" in further languages,
//! onboarding messages, values split across lines, wrapped base64, browser storage, CDN
//! signed URLs, notebook JSON cells, IDE run configurations).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod admin;
mod files;
mod shell;

use base64::Engine as _;

use super::families::{B64, Carrier, Family, Made};
use super::values::{from_alphabet, password};
use crate::random::Rng;

/// Every round 11 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = shell::FAMILIES.to_vec();
    all.extend_from_slice(admin::FAMILIES);
    all.extend_from_slice(files::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax (no quotes, backslashes, `$`,
/// backticks, braces, commas, semicolons, spaces, `&`, `%`, `#`, `:`, `@` or `/`).
fn plain_pw(rng: &mut Rng) -> String {
    password(rng).replace(
        ['"', '\'', '\\', '$', '`', '{', '}', ',', ';', ' ', '&', '%', '#', ':', '@', '/'],
        "x",
    )
}

/// Base64 (standard) of a text.
fn b64(text: &str) -> String {
    B64.encode(text)
}

/// A secret whose needles are the secret and some other forms of it.
fn with_forms(secret: String, forms: Vec<String>, line: String) -> Made {
    let mut needles = vec![secret.clone()];
    needles.extend(forms);
    Made { needles, secret, carrier: Carrier::Text(line) }
}

const HEX: &[u8] = b"0123456789abcdef";
const B64URL_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const UPPER_DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
