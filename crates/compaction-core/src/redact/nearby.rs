//! A value after a secret's name on the same line, whatever the syntax between them: the
//! next few words after `password`, `secret`, `token`, `api_key` or `credential`, the word
//! for a password in other languages, or `pass`/`pwd`/`psk` ending a name (a path's
//! last segment `config/api/db_password '…'`, an indexed name `Password1 …`, a flag, a
//! positional argument) are read one by one, and a word made like a chosen or generated
//! password is the secret. The rules spell out syntaxes (`=`, `:`, a space, a call, a
//! table row); this finder needs none, so it reaches syntaxes no rule names.
//!
//! A finder rather than a rule: the names are found by a search for literals alone, and the
//! words after each are judged by hand with the checks every rule uses.
//!
//! Invariant: a range covers one word after a secret's name on the name's line, never the
//! name; a word is taken only when it is made like a password (three of lower case, upper
//! case, digits and symbols, or generated letters), is not a reference, a path, a URL, an
//! address or a code name, and does not itself hold a secret's name.

use std::ops::Range;
use std::sync::OnceLock;

use super::checks::passes;
use super::rules::Check;

/// How many words after a name are read.
const WORDS_AFTER: usize = 5;
/// How far after a name the words may run, in bytes.
const REACH: usize = 128;

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
    // A short form ending a name (`SMTP_PASS`, `dbPwd`, `wifi_psk`): taken only there.
    "pass",
    "pwd",
    "psk",
];

/// The short forms of [`NAMES`], names only where they end a name.
const SHORT: &[&str] = &["pass", "pwd", "psk"];

/// The searcher for [`NAMES`]: literals alone, ASCII case ignored.
fn names() -> Option<&'static aho_corasick::AhoCorasick> {
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

/// Whether a byte ends a word: a space, a quote, a bracket, a separator of a list or a
/// pipe, `=`, or a backslash (of an escape).
fn ends_word(byte: u8) -> bool {
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
        // A short form inside a word (`passes`, `bypassing`, `pwdx`) names nothing.
        if SHORT.contains(&&text[found.range()].to_ascii_lowercase()[..])
            && bytes.get(found.end()).is_some_and(|b| b.is_ascii_alphanumeric())
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
        let line_start = text[..found.start()].rfind('\n').map_or(0, |at| at + 1);
        let limit = bytes.len().min(at + REACH);
        let mut words = 0;
        while at < limit && words < WORDS_AFTER {
            if bytes[at] == b'\n' || text[at..].starts_with("\\n") {
                break;
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
            if word.len() < 8 || word.len() > 128 || !text.is_char_boundary(start) {
                continue;
            }
            let end = start + word.len();
            // A word right before `(` names a call.
            let call = bytes.get(at) == Some(&b'(');
            if !call && judged_secret(&text[line_start..start], word) {
                out.push(start..end);
            }
        }
        next_free = at;
    }
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
        && (word.starts_with('_')
            || word.chars().filter(char::is_ascii_digit).count() <= 3
                && super::shape::word_pair_share(word) >= 0.75)
}

/// Whether `word`, after `before` on its line, is a value made like a password.
fn judged_secret(before: &str, word: &str) -> bool {
    if is_code_name(word) {
        return false;
    }
    let lower = word.to_ascii_lowercase();
    // A name (`--password-file`, `SECRET_NAME`), an address (`ops@acme.dev`,
    // `bob@10.0.0.5`), an option or a key path (`ssl:certfile`) is not a value.
    if names().is_some_and(|names| names.is_match(word))
        || ["pass", "pwd", "key", "auth", "user"].iter().any(|part| lower.contains(part))
        || word.starts_with('-')
        || word.contains('@') && word.contains('.')
        || word.contains(':')
        || word.contains("..")
    {
        return false;
    }
    passes(Check::StrongValue, before, word, "", 0)
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
