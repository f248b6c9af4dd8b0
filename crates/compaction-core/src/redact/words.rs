//! Whether a secret's name inside a word is a *part* of it (`db_key`, `dbPass`) or only
//! letters of another word (`monkey`, `passport`): `nearby.rs` judges a word holding a part
//! to be a name, not a value; a password built on an ordinary word stays a value.
//!
//! Also: whether the name before a value is an English word that only ends like a secret's
//! name (`bypass`, `compass`), which `checks.rs` asks before judging the value; and whether a
//! value of words names its own kind (`'a secret'`), which it asks too.
//!
//! Invariant: looks at one word (or one value) and never past it.

use std::ops::Range;

/// Whether the name at `range` of `word` is a part of it: at a boundary on both sides, a
/// mark or a digit, the word's start or end, or a change from lower to upper case
/// (`db_password`, `SMTP_PASS`, `dbPwd`, `apiKeyId`, `passwords`); not letters inside another
/// word (`monkey`, `turkey`, `passport`, `author`, `compass`, `username`), which a person
/// building a password from a word may well use.
pub(super) fn is_part(word: &str, range: Range<usize>) -> bool {
    let bytes = word.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.get(range.start), bytes.get(range.end - 1)) else {
        return false;
    };
    let starts = range.start == 0 || {
        let before = bytes[range.start - 1];
        !before.is_ascii_alphabetic() || before.is_ascii_lowercase() && first.is_ascii_uppercase()
    };
    // A plural `s` (`passwords`, `TOKENS`) keeps the name a part.
    let end = if bytes.get(range.end).is_some_and(|b| b.eq_ignore_ascii_case(&b's'))
        && bytes.get(range.end + 1).is_none_or(|b| !b.is_ascii_lowercase())
    {
        range.end + 1
    } else {
        range.end
    };
    let ends = end == bytes.len() || {
        let after = bytes[end];
        !after.is_ascii_alphabetic() || last.is_ascii_lowercase() && after.is_ascii_uppercase()
    };
    starts && ends
}

/// English words that end in `pass` (a name ending in `pass` is otherwise taken for a
/// password's).
const WORDS_ENDING_IN_PASS: &[&str] = &[
    "bypass",
    "compass",
    "surpass",
    "trespass",
    "overpass",
    "underpass",
    "encompass",
    "multipass",
    "subpass",
    "renderpass",
    "firstpass",
    "onepass",
    "singlepass",
];

/// Whether the name just before a value is an English word that only looks like a secret
/// name (`bypass = …`, `compass: …`).
pub(super) fn names_an_ordinary_word(before: &str) -> bool {
    let name = before.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
    let start = name
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_ascii_alphanumeric())
        .map_or(0, |(at, c)| at + c.len_utf8());
    let name = name[start..].to_ascii_lowercase();
    WORDS_ENDING_IN_PASS.iter().any(|word| name.ends_with(word))
}

/// Whether `value` is words apart that name the kind of secret it stands in for
/// (`'Password used to generate key'`, `'a secret'`, `'top secret'`, `'your api token'`): a
/// value that describes itself is a stand-in in documentation or a prompt, not the secret. A
/// value of one word (`Secret-Falcon-2024`, `tokenX9…`) is not read this way.
pub(super) fn names_its_own_kind(value: &str) -> bool {
    const KINDS: &[&str] =
        &["password", "passwd", "passphrase", "secret", "key", "token", "pin", "credential"];
    value.contains(' ')
        && value.split_whitespace().any(|word| {
            let word = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            KINDS.contains(&word.to_ascii_lowercase().as_str())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(word: &str, name: &str) -> bool {
        let at = word.to_ascii_lowercase().find(name).unwrap();
        is_part(word, at..at + name.len())
    }

    #[test]
    fn a_name_is_a_part_only_at_a_boundary() {
        assert!(part("db_key", "key"));
        assert!(part("SMTP_PASS", "pass"));
        assert!(part("dbPwd", "pwd"));
        assert!(part("apiKeyId", "key"));
        assert!(part("passwords", "password"));
        assert!(part("token2", "token"));
        assert!(!part("monkey-K3ulNRj6a62", "key"));
        assert!(!part("passportX8k2LmQ9", "pass"));
        assert!(!part("author", "auth"));
        assert!(!part("username", "user"));
        assert!(!part("TURKEY", "key"));
    }
}
