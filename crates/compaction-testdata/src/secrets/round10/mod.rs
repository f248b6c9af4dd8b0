//! Round 10's families: credentials in config languages, code, tools and text shapes that no
//! family or rule of earlier rounds was written for. `langs.rs` holds config languages and
//! code (CUE, Jsonnet, Pkl, KDL, EDN, Erlang terms, Lua tables, R and Julia, Haskell and OCaml,
//! protobuf text format, .NET user secrets, web framework secret keys, HMAC keys in code, SQL
//! rows and CSV exports, textual key files of 2024–2026 tools); `ops.rs` holds what tools,
//! logs and people write (NATS creds files, Kafka JAAS, Vault/Doppler/1Password tokens, PaaS
//! deploy tokens, Sentry DSNs, OAuth client JSON and token responses, recovery codes,
//! Kerberos/DPAPI blobs, kubeconfig users, CI variable syntaxes, heredocs, diff hunks, log
//! lines, stack traces, YAML block scalars, URL fragments, line continuations, MQTT/AMQP
//! clients, agent MCP configs, HAR captures, app passwords, build-tool remote headers).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod langs;
mod ops;

use base64::Engine as _;

use super::families::{B64, Carrier, Family, Made};
use super::values::{bytes, from_alphabet, password};
use crate::random::Rng;

/// Every round 10 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = langs::FAMILIES.to_vec();
    all.extend_from_slice(ops::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax (no quotes, backslashes, `$`,
/// backticks, braces, commas, semicolons, spaces, `&`, `%`, `#` or `:`).
fn plain_pw(rng: &mut Rng) -> String {
    password(rng)
        .replace(['"', '\'', '\\', '$', '`', '{', '}', ',', ';', ' ', '&', '%', '#', ':'], "x")
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
    Made { needles, secret, carrier: Carrier::Text(line) }
}
