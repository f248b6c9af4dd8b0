//! Values told by their characters: generated letters, random tokens, entropy, passwords
//! people make.

use super::*;

/// Letters only, in both cases, made like a generator's output rather than a name: frequent
/// switches from lower to upper case (a name makes one per word), and letter pairs English
/// words rarely make (`AzXZBgxZuuku`, `ioPaSJxXCgGgpil`; not `SecretString`,
/// `XMLHttpRequest`, `UIApplicationDelegate`).
pub(in crate::redact) fn generated_letters(value: &str) -> bool {
    let upper = value.chars().filter(char::is_ascii_uppercase).count();
    let lower = value.chars().filter(char::is_ascii_lowercase).count();
    let switches = value
        .as_bytes()
        .windows(2)
        .filter(|pair| pair[0].is_ascii_lowercase() && pair[1].is_ascii_uppercase())
        .count();
    value.len() >= 10
        && switches >= 2
        && switches * 100 >= (value.len() - 1) * 15
        && value.len() <= 128
        && upper >= 2
        && lower >= 2
        && upper + lower == value.len()
        // camelCase as well as CamelCase (`getElementById`, `iPhoneSimulator`).
        && !is_camel_case_name(&(value[..1].to_ascii_uppercase() + &value[1..]))
        && crate::redact::shape::word_pair_share(value) < 0.75
        && shannon_entropy(value) >= 3.0
}

/// Whether a value looks randomly generated: letters and digits mixed, and at least 3.5
/// bits of character entropy (a word, a path or a version number stays below that).
pub(in crate::redact) fn looks_random(value: &str) -> bool {
    let value = value.trim_end_matches('=');
    if is_word_compound(value) {
        return false;
    }
    let has_digit = value.chars().any(|c| c.is_ascii_digit());
    let has_letter = value.chars().any(|c| c.is_ascii_alphabetic());
    // Hex has 16 symbols, so its entropy tops out at 4 bits: a random 32-digit hex value
    // often measures under 3.5.
    let hex = value.chars().all(|c| c.is_ascii_hexdigit());
    let threshold = if hex { 3.0 } else { 3.5 };
    has_digit && has_letter && shannon_entropy(value) >= threshold
}

/// Letters only, with the character entropy of a generated value (4 bits and more).
pub(super) fn looks_random_letters(value: &str) -> bool {
    shannon_entropy(value) >= 4.0
}

/// Words and short numbers joined by `-`, `_` or `.` (`BSD-3-clause-generic`,
/// `GPL-2.0-or-later`): a name, not a generated value.
pub(super) fn is_word_compound(value: &str) -> bool {
    let parts: Vec<&str> = value.split(['-', '_', '.']).collect();
    parts.len() >= 2
        && parts.iter().all(|part| {
            part.chars().all(|c| c.is_ascii_alphabetic())
                || part.len() <= 4 && part.chars().all(|c| c.is_ascii_digit())
        })
}

/// Whether `value` is a memorable password in one case: two or more words of four letters
/// or more and a number, joined by `-`, `_` or `.` (`ember-thistle-151`); not a version
/// (`glib-2.0`, `scram-sha-256`) or a date.
pub(super) fn is_memorable_compound(value: &str) -> bool {
    let parts: Vec<&str> = value.split(['-', '_', '.']).collect();
    let words = parts.iter().filter(|part| part.chars().all(|c| c.is_ascii_alphabetic())).count();
    is_word_compound(value)
        && words >= 2
        && parts.iter().any(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().all(|part| part.len() >= 4 || part.chars().all(|c| c.is_ascii_digit()))
}

/// Shannon entropy of the characters of `value`, in bits per character.
pub(super) fn shannon_entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut total = 0u32;
    for byte in value.bytes() {
        counts[usize::from(byte)] += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    let total = f64::from(total);
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}
/// A word made like a password: letters and a digit or a symbol, not a reference, a path,
/// a number or a version.
pub(in crate::redact) fn looks_like_password(value: &str) -> bool {
    let value = value.trim_end_matches(|c: char| c.is_ascii_punctuation());
    if value.len() < 6
        || is_reference(value)
        || value.contains("://")
        || value.starts_with('_')
        || value.contains('/')
    {
        return false;
    }
    let letters = value.chars().filter(char::is_ascii_alphabetic).count();
    let digits = value.chars().filter(char::is_ascii_digit).count();
    // `_`, `-` and `.` join words in names; other symbols mark a made-up password.
    let symbols =
        value.chars().filter(|c| c.is_ascii_punctuation() && !matches!(c, '_' | '-' | '.')).count();
    letters > 0 && (digits > 0 || symbols > 0) || generated_letters(value)
}

/// How many of lower case, upper case, digits and symbols `value` holds (`_`, `-` and `.`
/// join words and do not count as symbols).
pub(in crate::redact) fn character_classes(value: &str) -> usize {
    let lower = value.chars().any(|c| c.is_ascii_lowercase());
    let upper = value.chars().any(|c| c.is_ascii_uppercase());
    let digit = value.chars().any(|c| c.is_ascii_digit());
    let symbol = value.chars().any(|c| c.is_ascii_punctuation() && !matches!(c, '_' | '-' | '.'));
    [lower, upper, digit, symbol].iter().filter(|&&class| class).count()
}

/// A value made like a chosen or a generated password, for a name followed by a space
/// rather than `=` or `:`: 8 characters or more, not a reference, a path or a URL, and
/// three of lower case, upper case, digits and symbols (`_`, `-`, `.` join words and do not
/// count), and not a number literal.
pub(super) fn looks_like_strong_password(value: &str) -> bool {
    let value = value.trim_end_matches(['.', ',', ';', ':', ')']);
    if value.len() < 8
        || is_reference(value)
        || value.contains("://")
        || value.contains(['/', '\\'])
    {
        return false;
    }
    let classes = character_classes(value);
    // A name in code (`OBJ_pkcs9`, `sk_type`) or a reference marked up in a comment
    // (`|certPriv|`, `` `token` ``) is not a password.
    let snake = value.contains('_')
        && value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let first = value.chars().next().unwrap_or(' ');
    let marked = first.is_ascii_punctuation() && value.len() > 2 && value.ends_with(first);
    if snake || marked {
        return false;
    }
    // A number literal (`0x00000003UL`) is not a password.
    let number = value.starts_with(|c: char| c.is_ascii_digit())
        && value
            .trim_start_matches("0x")
            .trim_end_matches(['u', 'U', 'l', 'L'])
            .chars()
            .all(|c| c.is_ascii_hexdigit());
    (classes >= 3 || generated_letters(value)) && !number
}

/// Whether the name before a value says it is a password or a shared secret (where a
/// value made of words, `river-Quartz-356`, is one too).
pub(super) fn names_a_password(before: &str) -> bool {
    let lower = before.to_ascii_lowercase();
    ["password", "passwd", "passphrase", "secret", "community", "credential", "pwd", "psk"]
        .iter()
        .any(|word| lower.contains(word))
}

/// A value after `$`, `%` or `*` that is not a name but a generated string: mixed case,
/// digits, random (`$UBhu4Qp3sGxWrjFDt`). Variables and globs are words or upper case.
pub(super) fn generated_after_sigil(value: &str) -> bool {
    let rest = value.trim_start_matches(['$', '%', '*']);
    rest.len() >= 10
        && rest.len() + 1 == value.len()
        && rest.chars().all(|c| c.is_ascii_alphanumeric())
        && rest.chars().any(|c| c.is_ascii_uppercase())
        && rest.chars().any(|c| c.is_ascii_lowercase())
        && looks_random(rest)
        && !is_camel_case_name(rest)
}
