//! Round 16's families: the classes round 15 left open, each written in syntaxes no earlier
//! family used, so that they test a principle rather than a string. `chat.rs` holds what
//! people type in chat with no secret's name or a name no list holds (`creds are admin and …`,
//! `try … for the vpn`), chat logs whose speaker or stamp comes before a short name, and values
//! written before a name the lists lack; `code.rs` holds CamelCase-with-digits and
//! words-and-a-number passwords in code and rows, word passphrases after a tool's flag (one
//! rule takes the first word, another must take the rest), and secrets fed to a command through
//! a pipe continued onto the next line; `notes.rs` holds Markdown notes with emphasis around
//! the label or a user and a password in two code spans, symbol-rich passwords with one strong
//! symbol, and passwords beside a user no list names.
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod chat;
mod code;
mod notes;

use super::families::Family;
use crate::random::Rng;

/// Every round 16 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = chat::FAMILIES.to_vec();
    all.extend_from_slice(code::FAMILIES);
    all.extend_from_slice(notes::FAMILIES);
    all
}

/// Words people build passwords from.
const WORDS: &[&str] = &[
    "Copper", "Falcon", "Tulip", "Granite", "Harbor", "Quartz", "Meadow", "Cobalt", "Ember",
    "Saffron", "Thistle", "Lantern", "Violet", "Maple", "Orbit", "River", "Badger", "Cedar",
];

/// A password a person makes from a word, a dash and a few random characters
/// (`walnut-Tq9vX2` shape, other words than round 15's).
fn word_dash_pw(rng: &mut Rng) -> String {
    const LOWER: &[&str] = &[
        "walnut", "comet", "harbor", "badger", "cedar", "pixel", "maple", "otter", "raven",
        "cobalt", "juniper", "sparrow",
    ];
    let length = rng.range(5, 9);
    let tail = rng.alphanumeric(length);
    format!("{}-{}{}", rng.pick(LOWER), tail, rng.range(1, 99))
}

/// A CamelCase password with digits inside (`CopperQ789Falcon`, `Tulip42Harbor7`).
fn camel_digit_pw(rng: &mut Rng) -> String {
    let first = *rng.pick(WORDS);
    let second = *rng.pick(WORDS);
    match rng.below(3) {
        0 => {
            let letter = char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZ"[rng.below(24)]);
            format!("{first}{letter}{}{second}", rng.range(100, 999))
        }
        1 => format!("{first}{}{second}{}", rng.range(10, 99), rng.range(1, 9)),
        _ => format!("{}{first}{second}{}", rng.range(1, 9), rng.range(100, 9999)),
    }
}

/// Two or three words and a number joined by one separator (`Falcon-orbit-761`).
fn words_number_pw(rng: &mut Rng) -> String {
    let sep = *rng.pick(&["-", ".", "_"]);
    let count = rng.range(2, 3);
    let mut parts: Vec<String> = (0..count)
        .map(|i| {
            let word = *rng.pick(WORDS);
            if i % 2 == 1 { word.to_ascii_lowercase() } else { word.to_owned() }
        })
        .collect();
    parts.push(rng.range(100, 9999).to_string());
    parts.join(sep)
}

/// A generated password of letters and digits with a single symbol of the strong kind and
/// a few weak ones (`4SSxC:NLGkUv3:.X7X6?`).
fn one_symbol_pw(rng: &mut Rng) -> String {
    let length = rng.range(14, 20);
    let mut out = rng.alphanumeric(length);
    let weak = *rng.pick(&[":", ".", "-", "_"]);
    let at = rng.range(2, out.len() - 2);
    out.insert_str(at, weak);
    out.push(char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZ"[rng.below(24)]));
    out.push(char::from(b"23456789"[rng.below(8)]));
    out.push(char::from(b"?!#%+=~^"[rng.below(8)]));
    out
}

/// A generated password rich in symbols that fits in single quotes and in Markdown code spans.
fn symbolic_pw(rng: &mut Rng) -> String {
    const CHARS: &[u8] =
        b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789#%+-=?@^~.:!()[]";
    let length = rng.range(14, 22);
    let mut out: String = super::values::from_alphabet(rng, CHARS, length);
    out.push(char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZ"[rng.below(24)]));
    out.push(char::from(b"23456789"[rng.below(8)]));
    out.push(char::from(b"#%+=?@^~!"[rng.below(9)]));
    out
}

/// Lower-case words of a diceware-like list (other words than round 15's).
const DICE: &[&str] = &[
    "anchor", "bramble", "candle", "dingo", "easel", "ferret", "goblet", "hermit", "igloo",
    "jasper", "kernel", "locket", "marble", "nutmeg", "orchid", "parrot", "quill", "rustic",
    "sequin", "trellis", "urchin", "vortex", "wombat", "yodel",
];

/// A diceware-like passphrase: 4 to 6 words joined by `sep`.
fn dice_phrase(rng: &mut Rng, sep: &str) -> String {
    let count = rng.range(4, 6);
    (0..count).map(|_| *rng.pick(DICE)).collect::<Vec<_>>().join(sep)
}
