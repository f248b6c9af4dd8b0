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

use super::checks::passes;
use super::rules::Check;

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
            // A tag of markup (`<value>`, `</name>`) is syntax, not a word.
            if start > 0
                && bytes[start - 1] == b'<'
                && bytes.get(at) == Some(&b'>')
                && !super::off("tags")
            {
                continue;
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
    !super::off("wordnum")
        && !matches!(
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
pub(super) fn word_and_number(word: &str) -> bool {
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
                && super::shape::word_pair_share(word) >= 0.75)
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
pub(super) fn judged_bare(before: &str, word: &str) -> bool {
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
        && !super::checks::is_camel_case_name(word)
        && judged_secret(before, word)
}

/// Whether `word`, after `before` on its line, is a value made like a password.
pub(super) fn judged_secret(before: &str, word: &str) -> bool {
    judged_value(before, word, false)
}

/// [`judged_secret`], where words and a number also count when the name is known to stand
/// for a password (`for_password`: `pw`, `pass`, `creds`), as they do after `password`.
fn judged_value(before: &str, word: &str, for_password: bool) -> bool {
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
                && super::words::is_part(word, found.range())
        })
    });
    let holds_short = ["pass", "pwd", "key", "auth", "user"].iter().any(|part| {
        lower.match_indices(part).any(|(at, _)| super::words::is_part(word, at..at + part.len()))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        values_after_names(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_password_like_word_after_a_name_is_found_in_any_syntax() {
        assert_eq!(
            found("consul kv put config/api/db_password '7BoYwHHvf7xKAl'"),
            ["7BoYwHHvf7xKAl"]
        );
        assert_eq!(
            found("Backlog SSID1 Home; Password1 Saffron^8102Cobalt; MqttHost x"),
            ["Saffron^8102Cobalt"]
        );
        // A value five words after its name.
        assert_eq!(
            found("A temporary password is generated for root@localhost: 9dbemJTHn3JDmTxDTI1"),
            ["9dbemJTHn3JDmTxDTI1"]
        );
        // A short form ending a name, and the word in other languages.
        assert_eq!(found("etcdctl put /svc/smtp-pass  x3Jq#92kLm"), ["x3Jq#92kLm"]);
        assert_eq!(found("Backlog WifiPwd Saffron^8102Cobalt"), ["Saffron^8102Cobalt"]);
        assert_eq!(found("Пароль от базы Falcon-river-448x"), ["Falcon-river-448x"]);
        assert_eq!(found("şifre: Qz8!rT2vLp"), ["Qz8!rT2vLp"]);
        assert_eq!(found("redis-cli HSET creds password Qz8!rT2vLp"), ["Qz8!rT2vLp"]);
        // Short words for a password or a login, as whole words.
        assert_eq!(found("[10:42] mike: pw for prod redis Qz8!rT2vLp"), ["Qz8!rT2vLp"]);
        assert_eq!(found("**carol** — 3:12 PM\nadmin login: sunset-U6s6S65"), ["sunset-U6s6S65"]);
        assert_eq!(
            found("RADDR is allowed to login as LOCUSER.  Non-IPv4 (e.g., IPv6) are"),
            Vec::<&str>::new()
        );
        assert_eq!(found("upward Qz8!rT2vLp"), Vec::<&str>::new());
        // Words and a number after a short name are judged as after `password`; not after
        // `login`, which as often gives a user.
        assert_eq!(found("pw for prod redis: Harvest-pebble-4821"), ["Harvest-pebble-4821"]);
        assert_eq!(found("router pass? Winter_lantern_7963"), ["Winter_lantern_7963"]);
        assert_eq!(found("login: release-bot-2024"), Vec::<&str>::new());
        // A name inside another word (`turkey`) leaves a value a value; a name that is a part
        // of the word (`DB_KEY_FILE`) makes it a name.
        assert_eq!(found("pw for the vpn: turkey-Rq8xK2mZ9w"), ["turkey-Rq8xK2mZ9w"]);
        assert_eq!(found("password: DB_KEY_FILE_A8x92"), Vec::<&str>::new());
    }

    #[test]
    fn a_value_on_the_line_after_its_label_is_found() {
        assert_eq!(found("Password:\nSaffron^8102Cobalt"), ["Saffron^8102Cobalt"]);
        assert_eq!(found("<dt>Password</dt>\n<dd>MpHtEvOIxecaqepCQv</dd>"), ["MpHtEvOIxecaqepCQv"]);
        assert_eq!(
            found("Admin password (generated)\n-----------\nbGokJy^e4SGQ"),
            ["bGokJy^e4SGQ"]
        );
        assert_eq!(found("DB_PASSWORD=\\\nCobalt^5630lantern"), ["Cobalt^5630lantern"]);
        assert_eq!(
            found("Ana: what's the router admin password again?\nBen: HFf4xut8QXjcbgepi"),
            ["HFf4xut8QXjcbgepi"]
        );
        assert_eq!(
            found("name=\"passwd\"\r\n\r\nember-thistle-151\r\n--boundary--"),
            ["ember-thistle-151"]
        );
        // Not past a line that holds its own value, nor two lines on, nor after a sentence.
        assert_eq!(found("password: Saffron^8102Cobalt\nQz8!rT2vLpQ"), ["Saffron^8102Cobalt"]);
        assert_eq!(found("Password:\nuser: ops\nQz8!rT2vLpQ"), Vec::<&str>::new());
        assert_eq!(
            found("the password is kept in the vault for everyone\nQz8!rT2vLpQ"),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn a_number_after_a_pin_or_password_name_is_found() {
        assert_eq!(found("SIM PIN: 76121825\nPUK: (on the card)"), ["76121825"]);
        assert_eq!(found("  door_pin: 4501"), ["4501"]);
        assert_eq!(found("SetupPIN 537424 ; printer"), ["537424"]);
        assert_eq!(found("yubico-piv-tool -a verify-pin --pin=8317326"), ["8317326"]);
        assert_eq!(found("participant PIN 482913#"), ["482913"]);
        assert_eq!(found("Passcode: 8812"), ["8812"]);
        assert_eq!(found("{\"pin\": \"2383453\"}"), ["2383453"]);
        assert_eq!(found("mysql password 48213377"), ["48213377"]);
        // Numbers that are no PIN: counts, constants, years, dates, short PINs after a
        // password's name, a digest after a certificate pin.
        for text in [
            "PASS_MAX_DAYS\t99999",
            "#define NID_kx_psk              1043",
            "\tAVS_TKN_PIN_FMT_INDEX_U32\t\t\t= 2201,",
            "#define FDC_82078\t0x60\t/* 44pin 82078 or 64pin 82078SL */",
            "yppasswdd\t100009\typpasswd",
            "#  define NSS_BUFLEN_PASSWD\t1024",
            "#define YPPASSWDPROG 100009",
            "GPIO pin 17 drives the relay",
            "the PIN 2026 campaign",
            "password last changed 20260101",
            "password: 4821",
            "spinning at 7200 rpm",
            "Public-Key-Pins: pin-sha256=\"E9CZ9INDbd+2eRQozYqqbQ2yXLVKB9+xcprMF+44U1g=\"",
            "the token expires in 360000 seconds",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn words_and_a_number_after_a_password_name_are_found() {
        assert_eq!(found("passwd river-maple-495"), ["river-maple-495"]);
        assert_eq!(found("wifi password: ember.thistle.151"), ["ember.thistle.151"]);
        for text in [
            "#password_encryption = scram-sha-256\t# scram-sha-256 or md5",
            "    submodule honor -c credential.* from command line, 2016-02-29)",
            "INCS:=$(shell $(PKG_CONFIG) --cflags libsecret-1 glib-2.0)",
            "token: release-bot-2024",
            "password: change-me-later",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn a_word_and_a_number_right_after_a_password_name_is_found() {
        assert_eq!(found("password: cinder9457"), ["cinder9457"]);
        assert_eq!(
            found("await page.getByLabel('Password').fill('Hickory1987');"),
            ["Hickory1987"]
        );
        // Tags of markup are no words between a name and its value.
        assert_eq!(
            found("<member><name>password</name><value><string>foxglove2197</string></value>"),
            ["foxglove2197"]
        );
        for text in [
            "token: release2024",
            "secret_type: base64",
            "password hashing uses pbkdf2 with sha256",
            "password_policy: strict, see the docs for windows10",
            "password: passwd2024",
            "pin: abcdef12",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn code_names_paths_and_addresses_after_a_name_stay() {
        for text in [
            "let token = Token::new(Kind::Ident, span);",
            "password_file: /run/secrets/db_password",
            "token: ${{ secrets.GITHUB_TOKEN }}",
            "api_key = os.environ[\"API_KEY\"]",
            "--password-stdin ghcr.io/acme/api:1.2.3",
            "secret: ops@acme.dev",
            "TokenStream2 TokenKind::Ident",
            "the token expires at 10:01:22.118Z",
            "passwordless login via https://sso.acme.dev/start",
            "secret_key_base: <%= ENV[\"SECRET_KEY_BASE\"] %>",
            "SECStatus PK11_InitToken(PK11SlotInfo *slot, PRBool loadCerts);",
            "int p11_kit_uri_match_token_info (const P11KitUri *uri,",
            "  int (*xTokenize)(Fts5Context*,",
            "    stop_token(const _Stop_state_ref& __state) noexcept",
            "<code>crypto.pbkdf2Sync(password, salt, iterations, keylen, digest)</code>",
            "<a href=\"#pbkdf2password-salt\"><code>crypto.pbkdf2Sync(password, salt)</code>",
            // A short form inside a longer word names nothing.
            "it passes Qz8!rT2vLp through; bypassing x3Jq#92kLm",
            "the compass bearing 270deg",
        ] {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
    }
}
