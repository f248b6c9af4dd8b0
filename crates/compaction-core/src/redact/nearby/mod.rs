//! A value after a secret's name on the same line, whatever the syntax between them: the
//! next few words after `password`, `secret`, `token`, `api_key` or `credential`, the word
//! for a password in other languages, or `pass`/`pwd`/`psk` ending a name (a path's
//! last segment `config/api/db_password '…'`, an indexed name `Password1 …`, a flag, a
//! positional argument) are read one by one, and a word made like a chosen or generated
//! password is the secret. The rules spell out syntaxes (`=`, `:`, a space, a call, a
//! table row); this finder needs none, so it reaches syntaxes no rule names.
//!
//! A name alone on its line with no value after it (a label `Password:`, a question "what's
//! the router password again?", a flag before a line continuation `--password \`) is read on
//! into the next line that holds anything, for a few words. After a PIN's name (`pin`, `puk`,
//! `pincode`, `passcode`) or a password's that ends its name, a number is the value.
//!
//! A finder rather than a rule: the names are found by a search for literals alone, and the
//! words after each are judged by hand with the checks every rule uses.
//!
//! Invariant: a range covers one word after a secret's name on the name's line or the next
//! line holding anything, never the name; a word is taken only when it is made like a
//! password (three of lower case, upper case, digits and symbols, generated letters, or words
//! and a number after a password's name), is not a reference, a path, a URL, an address or a
//! code name, and does not itself hold a secret's name; or, after a PIN's or password's name
//! ending the name, when it is 4 to 12 digits (see [`is_pin`]).

use std::ops::Range;
use std::sync::OnceLock;

mod judge;

use judge::judged_value;
pub(super) use judge::{judged_bare, judged_secret};

/// How many words after a name are read.
const WORDS_AFTER: usize = 5;
/// How far after a name the words may run, in bytes.
const REACH: usize = 128;
/// At most how many words may follow a name on its line for the value to be looked for on
/// the next line (`Password:`, `what's the router password again?`, `--reveal`).
const LABEL_WORDS: usize = 4;
/// How many words of that next line are read.
const NEXT_LINE_WORDS: usize = 3;

/// The secret names, English words that name nothing but a secret, found in any casing.
const NAMES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "credential",
    // A key named by its use in two words (`Your new API key`, `access key:`).
    "api key",
    "access key",
    "license key",
    // The word for a password in other languages (as `prose.rs` has them), in either case
    // where the case is not ASCII.
    "passwort",
    "kennwort",
    "wachtwoord",
    "lösenord",
    "passord",
    "adgangskode",
    "salasana",
    "contraseña",
    "mot de passe",
    "senha",
    "palavra-passe",
    "пароль",
    "Пароль",
    "hasło",
    "heslo",
    "jelszó",
    "şifre",
    "Şifre",
    "parool",
    "密码",
    "密碼",
    "口令",
    "パスワード",
    "비밀번호",
    "mật khẩu",
    "Mật khẩu",
    "รหัสผ่าน",
    "kata sandi",
    "parola",
    // A PIN's name (only a number after it is a value).
    "pincode",
    "pin",
    "puk",
    // A short form ending a name (`SMTP_PASS`, `dbPwd`, `wifi_psk`): taken only there.
    "pass",
    "pwd",
    "psk",
    // Short words people type for a password or a login, names only as whole words
    // (`pw for the staging db is …`, `creds: …`, `admin login: …`).
    "pw",
    "creds",
    "login",
];

/// The names of [`NAMES`] that name a secret only as a whole word (`pw`, not `upward`).
pub(super) const WHOLE: &[&str] = &["pw", "creds", "login"];

/// The names of [`NAMES`] that stand for a password (`pw for the nas`, `router pass?`).
/// (`login` is left out: `login: deploy-bot-2024` gives a user as often as a password.)
const SHORT_FOR_PASSWORD: &[&str] = &["pw", "pass", "pwd", "creds"];

/// The short forms of [`NAMES`], names only where they end a name.
const SHORT: &[&str] = &["pass", "pwd", "psk", "pin", "puk", "pincode"];

/// The names of a PIN: only a number after them is a value (a certificate's `pin-sha256`
/// holds a digest).
const PIN_NAMES: &[&str] = &["pin", "puk", "pincode"];

/// Names whose value may be a number: a PIN's, and a password's (from six digits).
const NUMBERED: &[&str] = &["pin", "puk", "pincode", "passcode", "password", "passwd", "pwd"];

/// The searcher for [`NAMES`]: literals alone, ASCII case ignored.
pub(super) fn names() -> Option<&'static aho_corasick::AhoCorasick> {
    static SEARCHER: OnceLock<Option<aho_corasick::AhoCorasick>> = OnceLock::new();
    SEARCHER
        .get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(NAMES)
                .ok()
        })
        .as_ref()
}

/// Whether `range` of `bytes` is a whole word: no letter, digit or `_` on either side.
pub(super) fn is_whole_word(bytes: &[u8], range: Range<usize>) -> bool {
    let inside = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    !(range.start > 0 && inside(&bytes[range.start - 1])
        || bytes.get(range.end).is_some_and(inside))
}

/// Whether a byte ends a word: a space, a quote, a bracket, a separator of a list or a
/// pipe, `=`, or a backslash (of an escape).
pub(super) fn ends_word(byte: u8) -> bool {
    byte.is_ascii_whitespace()
        || matches!(
            byte,
            b'"' | b'\''
                | b'`'
                | b','
                | b';'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'<'
                | b'>'
                | b'|'
                | b'='
                | b'\\'
        )
}

/// Ranges of `text` holding a value made like a password among the few words after a
/// secret's name on the same line.
pub(super) fn values_after_names(text: &str, out: &mut Vec<Range<usize>>) {
    let Some(names) = names() else { return };
    let bytes = text.as_bytes();
    let mut next_free = 0;
    for found in names.find_iter(text) {
        if found.start() < next_free {
            continue;
        }
        let matched = text[found.range()].to_ascii_lowercase();
        let pin = PIN_NAMES.contains(&matched.as_str());
        // A two-word name starts a word (`an API key`, not `rapi key`).
        if matched.ends_with(" key") && !is_whole_word(bytes, found.range()) {
            continue;
        }
        // A short form inside a word (`passes`, `bypassing`, `pwdx`) names nothing.
        if SHORT.contains(&matched.as_str())
            && bytes.get(found.end()).is_some_and(|b| b.is_ascii_alphanumeric())
        {
            continue;
        }
        if WHOLE.contains(&matched.as_str()) && !is_whole_word(bytes, found.range()) {
            continue;
        }
        // `login` names a secret only as a label (`admin login: …`, `login=…`); in a sentence
        // it is the act (`allowed to login as …`).
        if matched == "login"
            && !text[found.end()..].trim_start_matches([' ', '\t']).starts_with([':', '='])
        {
            continue;
        }
        // A PIN's name starts a word or a part of a name (`door_pin`, `SetupPIN`), never
        // inside one (`spin`, `mapping`, `44pin`).
        if pin
            && found.start() > 0
            && bytes[found.start() - 1].is_ascii_alphanumeric()
            && !(bytes[found.start() - 1].is_ascii_lowercase()
                && bytes[found.start()].is_ascii_uppercase())
        {
            continue;
        }
        // The rest of the name (`db_password_2`, `tokens`, `secretName`).
        let mut at = found.end();
        while at < bytes.len()
            && (bytes[at].is_ascii_alphanumeric() || matches!(bytes[at], b'_' | b'-' | b'.'))
        {
            at += 1;
        }
        // A number is a value only after a PIN's or a password's name that ends the name
        // (`door_pin: …`, `SIM PIN …`; not `PASS_MAX_DAYS 99999`, `…_PIN_U8 = 1508`).
        let numbered = NUMBERED.contains(&matched.as_str()) && at == found.end();
        let line_start = text[..found.start()].rfind('\n').map_or(0, |at| at + 1);
        let mut limit = bytes.len().min(at + REACH);
        let mut words = 0;
        let mut crossed = false;
        let mut taken = false;
        while at < limit && words < WORDS_AFTER {
            if bytes[at] == b'\n' || text[at..].starts_with("\\n") {
                // A label alone on its line (`Password:`, `**Secret**`, `password \`): its
                // value is the next line that holds anything.
                if crossed || taken || words > LABEL_WORDS || bytes[at] != b'\n' {
                    break;
                }
                let Some(next) = next_content_line(text, at) else { break };
                at = next;
                crossed = true;
                words = WORDS_AFTER - NEXT_LINE_WORDS;
                limit = bytes.len().min(at + REACH);
                continue;
            }
            if ends_word(bytes[at]) || bytes[at] == b':' {
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && !ends_word(bytes[at]) {
                at += 1;
            }
            words += 1;
            let word = text[start..at].trim_end_matches([':', '.', ',', '!', '?']);
            if !text.is_char_boundary(start) {
                continue;
            }
            if numbered
                && is_pin(word.trim_end_matches('#'), words == 1, pin || matched == "passcode")
            {
                out.push(start..start + word.trim_end_matches('#').len());
                taken = true;
                continue;
            }
            if pin {
                continue;
            }
            if word.len() < 8 || word.len() > 128 {
                continue;
            }
            let end = start + word.len();
            // A word right before `(` names a call.
            let call = bytes.get(at) == Some(&b'(');
            // A short name (`pw`, `pass`, `creds`) names a password as the long one does.
            let for_password = SHORT_FOR_PASSWORD.contains(&matched.as_str());
            if !call && judged_value(&text[line_start..start], word, for_password)
                || !call && words <= 2 && names_the_password(&matched) && word_and_number(word)
            {
                out.push(start..end);
                taken = true;
            }
        }
        next_free = at;
    }
}

/// Whether a name of [`NAMES`] is the word for a password itself (in any language), not a
/// token's, a key's, a PIN's or a login's.
fn names_the_password(matched: &str) -> bool {
    !matches!(
        matched,
        "secret"
            | "token"
            | "apikey"
            | "api_key"
            | "api-key"
            | "credential"
            | "pincode"
            | "pin"
            | "puk"
            | "psk"
            | "creds"
            | "login"
            | "passcode"
    )
}

/// Whether `word` is a word and a number, as people choose a password (`cinder9457`,
/// `Hickory1987`): five letters or more, then two to six digits, and nothing else; and not
/// itself holding a secret's name or a short one (`passwd12`, `apikey99`).
fn word_and_number(word: &str) -> bool {
    let letters = word.bytes().take_while(u8::is_ascii_alphabetic).count();
    let digits = word.len() - letters;
    let lower = word.to_ascii_lowercase();
    letters >= 5
        && (2..=6).contains(&digits)
        && word.bytes().skip(letters).all(|b| b.is_ascii_digit())
        && !["pass", "pwd", "key", "auth", "user", "secret", "token"]
            .iter()
            .any(|part| lower.contains(part))
}

/// The start of the next line after the line break at `at` that holds anything but blanks
/// and a rule (`-----`, `═══`), within three lines.
fn next_content_line(text: &str, mut at: usize) -> Option<usize> {
    for _ in 0..3 {
        let start = at + 1;
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        let line = &text[start..end];
        if line.chars().any(|c| !c.is_whitespace() && !"-=_*#~─━═+".contains(c)) {
            return Some(start);
        }
        if end >= text.len() {
            return None;
        }
        at = end;
    }
    None
}

/// Whether `word` is a PIN: 4 to 12 digits (6 or more after a password's name); under 6
/// only as the first word after the name, and not a year; not a date written as 8 digits.
fn is_pin(word: &str, first: bool, pin_name: bool) -> bool {
    let n = word.len();
    if !(4..=12).contains(&n) || !word.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let year = |w: &str| w.starts_with("19") || w.starts_with("20");
    if n < 6 && (!pin_name || !first || n == 4 && year(word)) {
        return false;
    }
    let date = n == 8
        && year(word)
        && matches!(word[4..6].parse::<u8>(), Ok(1..=12))
        && matches!(word[6..8].parse::<u8>(), Ok(1..=31));
    !date
}

#[cfg(test)]
mod tests;
