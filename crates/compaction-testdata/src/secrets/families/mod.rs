//! The families of secrets: each makes one secret and the text (or JSON) a user, a tool or a
//! config file would hold it in, in one of several syntaxes drawn at random.
//!
//! This file holds what a family makes ([`Made`], [`Carrier`]) and the helpers every
//! round's families share; the first families live by kind: [`tools`] (credentials given
//! to a tool), [`configs`] (configuration and code), [`keys`] (key material and tokens by
//! shape) and [`carriers`] (encodings and carriers), drawn in that order.

mod carriers;
mod configs;
mod keys;
mod tools;

use base64::Engine as _;
use serde_json::{Value, json};

use super::values::{
    base64_bytes, base64url_bytes, mnemonic, nsec, password, pem_body, prefix, secret_key40,
    solana_keypair, token, token_between, uuid, wif,
};
use crate::random::Rng;

/// How a secret is carried.
#[derive(Debug, Clone, PartialEq)]
pub enum Carrier {
    /// A text: a line of a command, a config file, a message.
    Text(String),
    /// A JSON object: a tool's input (an MCP tool, a Codex function's arguments).
    Json(Value),
    /// The base64 `data` of an image block that is really a text file.
    Image(String),
}

/// One secret as a family makes it.
#[derive(Debug, Clone)]
pub struct Made {
    /// The secret itself.
    pub secret: String,
    /// Every form of the secret that must not survive (the secret, and encoded forms).
    pub needles: Vec<String>,
    /// What holds it.
    pub carrier: Carrier,
}

pub(super) fn text(secret: String, line: String) -> Made {
    Made { needles: vec![secret.clone()], secret, carrier: Carrier::Text(line) }
}

pub(super) fn pick_line(rng: &mut Rng, lines: Vec<String>) -> String {
    let index = rng.below(lines.len());
    lines.into_iter().nth(index).unwrap_or_default()
}

/// A family: a name and its maker.
pub(super) type Family = (&'static str, fn(&mut Rng) -> Made);

pub(super) const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
pub(super) const B64URL: base64::engine::GeneralPurpose =
    base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub(super) fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// URL encoding of every byte outside the unreserved set.
pub(super) fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An `.env` file holding `secret` under a secret-looking name among ordinary settings.
fn env_file(rng: &mut Rng, secret: &str) -> String {
    let name = rng.pick(&["DB_PASSWORD", "API_TOKEN", "SMTP_PASS", "SIGNING_SECRET", "APP_KEY"]);
    format!("APP_ENV=production\nDB_HOST=db.internal\n{name}={secret}\nLOG_LEVEL=info\n")
}

/// The families in the order the corpus draws them (the order decides each family's draws).
pub(super) fn families() -> Vec<Family> {
    let mut all = tools::FAMILIES.to_vec();
    all.extend_from_slice(configs::FAMILIES);
    all.extend_from_slice(keys::FAMILIES);
    all.extend_from_slice(carriers::FAMILIES);
    all
}
