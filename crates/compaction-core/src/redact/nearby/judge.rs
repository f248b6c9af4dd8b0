//! How a word after (or before) a secret's name is judged: whether it is a name in code, a
//! number a person chose, and whether it is made like a password as a value of its name or
//! of a label that need not name a secret.
//!
//! Invariant: every judgement looks at the word and the text before it on its line only.

use super::super::checks::passes;
use super::super::rules::Check;
use super::{WHOLE, names};

/// Whether `word` is a name in code: an identifier or a dotted path of them (C pointer and
/// reference marks around it aside) whose letters read as words and that holds few digits
/// (`PK11SlotInfo`, `Fts5Context*`, `crypto.pbkdf2Sync`, `_Stop_state_ref&`). A generated
/// value's letters make rare pairs; a chosen one has more digits or a symbol.
fn is_code_name(word: &str) -> bool {
    let word = word.trim_matches(['*', '&']);
    let part = |part: &str| {
        part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    !word.is_empty()
        && word.split('.').all(part)
        && !has_chosen_number(word)
        && (word.starts_with('_')
            || word.chars().filter(char::is_ascii_digit).count() <= 3
                && super::super::shape::word_pair_share(word) >= 0.75)
}

/// Whether `word` is words with a number a person chose between or after them
/// (`GraniteK284Cobalt`, `Tulip42Harbor7`): two capitalised words of four letters or more,
/// and a number of three digits or more that is no width of code (`Sha256Digest`,
/// `Float32Array`, `X509Store` keep theirs), or numbers in two places. A number in a name in
/// code is a width, a version or an index; a password's is drawn.
pub(super) fn has_chosen_number(word: &str) -> bool {
    const WIDTHS: &[&str] =
        &["128", "256", "384", "512", "509", "1024", "2048", "4096", "8192", "3986"];
    if !word.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let words = word
        .split(|c: char| !c.is_ascii_alphabetic())
        .flat_map(|part| {
            let mut pieces = Vec::new();
            let mut start = 0;
            for (at, c) in part.char_indices().skip(1) {
                if c.is_ascii_uppercase() {
                    pieces.push(&part[start..at]);
                    start = at;
                }
            }
            pieces.push(&part[start..]);
            pieces
        })
        .filter(|piece| {
            piece.len() >= 4
                && piece.starts_with(|c: char| c.is_ascii_uppercase())
                && piece[1..].bytes().all(|b| b.is_ascii_lowercase())
        })
        .count();
    let numbers: Vec<&str> =
        word.split(|c: char| !c.is_ascii_digit()).filter(|run| !run.is_empty()).collect();
    words >= 2
        && (numbers.len() >= 2 || numbers.iter().any(|run| run.len() >= 3 && !WIDTHS.contains(run)))
}

/// Whether `word`, after a label (`before`) that need not name a secret, is a value made
/// like a password: the checks of a value after a name, and neither a name in CamelCase nor
/// words and short numbers joined (a license, a version).
pub(in crate::redact) fn judged_bare(before: &str, word: &str) -> bool {
    // Words and short numbers joined by `-`, `_`, `.` or `+` (`GFDL-1.3+-no-invariant`) name
    // a license or a version.
    let parts: Vec<&str> = word.split(['-', '_', '.', '+']).filter(|p| !p.is_empty()).collect();
    // A part may be a name with its version glued on (`LGPLv3+_or_GPLv2+`, `LGPLv2.1+`).
    let versioned = |part: &str| {
        let letters = part.trim_end_matches(|c: char| c.is_ascii_digit());
        let digits = part.len() - letters.len();
        (1..=3).contains(&digits)
            && letters.len() >= 2
            && letters.chars().all(|c| c.is_ascii_alphabetic())
    };
    let compound = parts.len() >= 2
        && parts.iter().all(|part| {
            part.chars().all(|c| c.is_ascii_alphabetic())
                || part.len() <= 4 && part.chars().all(|c| c.is_ascii_digit())
                || versioned(part)
        });
    // Parts joined by `-`, `~`, `+` or `.`, one of them a word, and no number of three
    // digits or more (`GPL-2+-or-X11`, `GAP~Makefile.in`, `BSD-3-Viagénie`): a name; a chosen
    // password glues a longer number to its words (`Granite+1589Cobalt`).
    let joined: Vec<&str> = word.split(['-', '~', '+', '.']).filter(|p| !p.is_empty()).collect();
    let long_number = word.as_bytes().windows(3).any(|w| w.iter().all(u8::is_ascii_digit));
    let named = joined.len() >= 2
        && !long_number
        && joined.iter().any(|part| part.len() >= 2 && part.chars().all(char::is_alphabetic));
    // A number literal with digit separators or a suffix (`0x8000'0000'0000'0000ull;`).
    let number = word.starts_with(|c: char| c.is_ascii_digit())
        && word.chars().all(|c| c.is_ascii_hexdigit() || "xXuUlL'_;,".contains(c));
    // An expression of code (`BufPtr+Size;`, `!Disabled`, `1.23015e+3`): every part between
    // its symbols a name in code or a number.
    let plain = |part: &&str| {
        part.len() >= 4
            && part.chars().filter(char::is_ascii_digit).count() <= 1
            && is_code_name(part)
            || part.starts_with(|c: char| c.is_ascii_digit())
                && part.len() <= 8
                && part.chars().all(|c| c.is_ascii_hexdigit())
    };
    let expression = word
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .iter()
        .all(plain);
    !compound
        && !named
        && !number
        && !expression
        && !super::super::checks::is_camel_case_name(word)
        && judged_secret(before, word)
}

/// Whether `word`, after `before` on its line, is a value made like a password.
pub(in crate::redact) fn judged_secret(before: &str, word: &str) -> bool {
    judged_value(before, word, false)
}

/// [`judged_secret`], where words and a number also count when the name is known to stand
/// for a password (`for_password`: `pw`, `pass`, `creds`), as they do after `password`.
pub(super) fn judged_value(before: &str, word: &str, for_password: bool) -> bool {
    if is_code_name(word) {
        return false;
    }
    let lower = word.to_ascii_lowercase();
    // A name (`--password-file`, `SECRET_NAME`), an address (`ops@acme.dev`,
    // `bob@10.0.0.5`), an option or a key path (`ssl:certfile`) is not a value.
    // Only a name that is a part of the word (`db_key`, `dbPass`) makes it a name; letters of
    // another word (`monkey-…`, `passport…`) are how people build passwords.
    let holds_name = names().is_some_and(|names| {
        names.find_iter(word).any(|found| {
            !WHOLE.contains(&&*word[found.range()].to_ascii_lowercase())
                && super::super::words::is_part(word, found.range())
        })
    });
    let holds_short = ["pass", "pwd", "key", "auth", "user"].iter().any(|part| {
        lower
            .match_indices(part)
            .any(|(at, _)| super::super::words::is_part(word, at..at + part.len()))
    });
    if holds_name
        || holds_short
        || word.starts_with('-')
        || word.contains('@') && word.contains('.')
        || word.contains(':')
        || word.contains("..")
    {
        return false;
    }
    let check = if for_password { Check::PasswordValue } else { Check::StrongValue };
    passes(check, before, word, "", 0)
}
