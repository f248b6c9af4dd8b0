//! Round 17's families: the classes round 16 left open and carriers no earlier family used,
//! each written in several syntaxes so that it tests a principle rather than a string.
//! `chat.rs` holds passwords whose random part has one capital or none, passwords built on a
//! word that holds a secret's name (`monkey-…`, `passport…`), chat logs whose stamp and
//! speaker stand before the answer on the next line, and labels in languages and scripts no
//! family used; `config.rs` holds maps from users to their passwords, symbol-rich values
//! holding `:` or `[`, a secret's name and its value as two fields of one record
//! (`- name: DB_PASS` / `value: …`), the flags of login tools no family used, and connection
//! URIs of less common schemes; `carriers.rs` holds `user:password` in base64 (Basic
//! authorization, Docker's `auth`, Kubernetes `data:`), secrets in URL-encoded or
//! doubly escaped text, credential files of tools, and session cookies.
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod carriers;
mod chat;
mod config;

use super::families::Family;
use crate::random::Rng;

/// Every round 17 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = chat::FAMILIES.to_vec();
    all.extend_from_slice(config::FAMILIES);
    all.extend_from_slice(carriers::FAMILIES);
    all
}

/// Lower-case words people start a password with (other words than round 16's).
const STARTS: &[&str] = &[
    "sunset", "shadow", "harvest", "velvet", "winter", "meadow", "pebble", "falcon", "willow",
    "thunder", "copper", "lantern",
];

/// Lower-case letters and digits, no capital.
fn lower_digits(rng: &mut Rng, length: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijkmnopqrstuvwxyz0123456789";
    let mut out: String = super::values::from_alphabet(rng, CHARS, length);
    // At least one digit, so that the part is no word.
    let at = rng.below(length);
    out.replace_range(at..=at, &char::from(b"23456789"[rng.below(8)]).to_string());
    out
}

/// A word, a separator and a random part with one capital or none, and a number
/// (`sunset-F0izuru99`, `cedar-ec7t517`): the conversation rules of round 16 want two capitals.
fn weak_case_pw(rng: &mut Rng) -> String {
    let word = *rng.pick(STARTS);
    let sep = *rng.pick(&["-", "_", ".", ""]);
    let length = rng.range(5, 8);
    let mut tail = lower_digits(rng, length);
    if rng.chance(0.5) {
        let at = rng.below(length);
        let upper = tail[at..=at].to_ascii_uppercase();
        tail.replace_range(at..=at, &upper);
    }
    format!("{word}{sep}{tail}{}", rng.range(10, 99))
}

/// A password built on a word that holds a secret's name as a substring, not as a part
/// (`monkey`, `passport`, `author`, `tokenizer`), and a random case-mixed tail.
fn name_holding_pw(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "monkey", "turkey", "whiskey", "donkey", "jockey", "passport", "compass", "author",
        "trespass", "hockey", "keystone", "surpass",
    ];
    let word = *rng.pick(WORDS);
    let sep = *rng.pick(&["-", "_", ""]);
    let length = rng.range(8, 12);
    format!("{word}{sep}{}", rng.alphanumeric(length))
}

/// A generated password rich in symbols that always holds `:` and `[` or `]` among others
/// (`Wq:7[zR#p…`).
fn colon_bracket_pw(rng: &mut Rng) -> String {
    const CHARS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789#%+-=?@^~.!*";
    let length = rng.range(12, 18);
    let mut out: String = super::values::from_alphabet(rng, CHARS, length);
    let colon = rng.range(2, length - 3);
    out.insert(colon, ':');
    let bracket = rng.range(colon + 2, out.len());
    out.insert(bracket, *rng.pick(&['[', ']']));
    out.push(char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZ"[rng.below(24)]));
    out.push(char::from(b"23456789"[rng.below(8)]));
    out
}

/// Two or three capitalised and lower-case words and a number (`Harvest-pebble-4821`).
fn words_number_pw(rng: &mut Rng) -> String {
    let sep = *rng.pick(&["-", ".", "_"]);
    let count = rng.range(2, 3);
    let mut parts: Vec<String> = (0..count)
        .map(|i| {
            let word = *rng.pick(STARTS);
            if i % 2 == 0 {
                let mut chars = word.chars();
                chars
                    .next()
                    .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            } else {
                word.to_owned()
            }
        })
        .collect();
    parts.push(rng.range(100, 9999).to_string());
    parts.join(sep)
}

/// A generated password of letters, digits and one or two plain symbols (`tR7x!Kp2mQ9z`).
fn generated_pw(rng: &mut Rng) -> String {
    let length = rng.range(12, 18);
    let mut out = rng.alphanumeric(length);
    let at = rng.range(1, length - 1);
    out.insert(at, *rng.pick(&['!', '#', '%', '+', '=', '?', '@']));
    out.push(char::from(b"23456789"[rng.below(8)]));
    out
}

/// A login name.
fn user(rng: &mut Rng) -> &'static str {
    const USERS: &[&str] =
        &["deploy", "ops", "svc-backup", "ci", "grafana", "etl_reader", "admin", "jdoe"];
    rng.pick::<&str>(USERS)
}
