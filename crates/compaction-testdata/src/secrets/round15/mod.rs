//! Round 15's families: the classes still missed after round 14, each written in syntaxes no
//! earlier family used, so that they test a principle rather than a string. `commands.rs`
//! holds secrets fed to a command's input (pipes, here-strings, here-documents, `expect`
//! scripts) and values under abbreviated key names (`KEK=`, `dek:`, `pk=`, `sk:`, `creds=`,
//! `tok=`); `pairs.rs` holds a name and its value as two literals of one record (Kubernetes
//! and ECS environment lists, `setProperty("db.password", …)`, `(name, value)` rows), values
//! written before their name, and Markdown code spans beside a secret word; `speech.rs` holds
//! what people type in chat (answers that give a password, in English and other languages,
//! chat logs with speakers), symbol-rich passwords with no name in a credential context, word
//! passphrases, and grouped product and licence keys.
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod commands;
mod pairs;
mod speech;

use super::families::Family;
use super::values::password;
use crate::random::Rng;

/// Every round 15 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = commands::FAMILIES.to_vec();
    all.extend_from_slice(pairs::FAMILIES);
    all.extend_from_slice(speech::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax and on a shell line (no quotes,
/// backslashes, `$`, backticks, braces, brackets, commas, semicolons, spaces, `&`, `%`, `#`,
/// `:`, `@`, `|`, `<`, `>`, `/`, `!`, `*` or `=`).
fn safe_pw(rng: &mut Rng) -> String {
    password(rng).replace(
        [
            '"', '\'', '\\', '$', '`', '{', '}', '[', ']', ',', ';', ' ', '&', '%', '#', ':', '@',
            '/', '|', '<', '>', '!', '*', '=',
        ],
        "Q",
    )
}

/// A generated password rich in symbols that still fits in single quotes on a shell line.
fn symbolic_pw(rng: &mut Rng) -> String {
    const CHARS: &[u8] =
        b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789#%+-=?@^_~.:!*()[]";
    let length = rng.range(14, 22);
    let mut out: String = super::values::from_alphabet(rng, CHARS, length);
    // At least one of each class, so that every value is a strong password.
    out.push(char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZ"[rng.below(24)]));
    out.push(char::from(b"23456789"[rng.below(8)]));
    out.push(char::from(b"#%+=?@^~!*"[rng.below(10)]));
    out
}

/// A password a person makes from a word, a dash and a few random characters
/// (`hunter-Tq9vX2`).
fn word_dash_pw(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "hunter", "falcon", "summer", "dragon", "tiger", "winter", "rocket", "pepper", "shadow",
        "monkey", "sunset", "bishop",
    ];
    let length = rng.range(5, 9);
    let tail = rng.alphanumeric(length);
    format!("{}-{}{}", rng.pick(WORDS), tail, rng.range(1, 99))
}
