//! The checks a captured value must pass before it is redacted: references and placeholders
//! are not secrets, random-looking values and passwords are, and a cookie header is redacted
//! cookie by cookie.
//!
//! Invariant: every check is a pure function of the text before the value and the value.

use super::REDACTED;
use super::encoded::decodes_to_secret;
use super::rules::Check;

/// Whether the match whose secret is `value`, preceded by `before` and followed by `after`
/// (inside the match), is redacted.
pub(super) fn passes(check: Check, before: &str, value: &str, after: &str, depth: u8) -> bool {
    if !matches!(check, Check::None | Check::Encoded | Check::Cookies | Check::UrlPassword)
        && (super::words::names_an_ordinary_word(before)
            || ends_in_entity(value)
            || super::words::names_its_own_kind(value))
    {
        return false;
    }
    match check {
        Check::None => true,
        Check::UrlPassword => {
            !ends_in_entity(value)
                && !is_password_placeholder(value)
                && value.chars().count() >= MIN_URL_PASSWORD
        }
        Check::AssignedValue if is_env_assignment(before) => !is_env_reference(value),
        Check::AssignedValue => {
            !is_reference(value)
                && !is_code_reference(before, value)
                && !is_path_name(before)
                && (after.is_empty()
                    || !is_word(value)
                    || is_quote(after) && value.chars().any(|c| c.is_ascii_uppercase()))
        }
        Check::HighEntropy => looks_random(value),
        Check::RandomNotDigest => {
            looks_random(value) && !is_digest_or_id(value) && !is_reference(value)
        }
        Check::Password => looks_like_password(value),
        Check::StrongValue => strong_value(value, names_a_password(before)),
        Check::PasswordValue => strong_value(value, true),
        Check::Encoded => decodes_to_secret(value, depth.saturating_sub(1)),
        // Cookie headers are replaced cookie by cookie (`cookie_values`), never whole.
        Check::Cookies => false,
    }
}

/// The fewest characters a URL's password is taken with: a shorter one (`https://a:b@…`,
/// `abc:xyz@`, `abc:123@`) is found by trying every value of its length in well under a
/// second, so hiding it protects nothing, and it is what documentation writes as a stand-in.
const MIN_URL_PASSWORD: usize = 4;

/// Whether `value` is made like a chosen or generated password; words and a number count
/// only when what names it names a password (`for_password`).
fn strong_value(value: &str, for_password: bool) -> bool {
    (looks_like_strong_password(value) || is_memorable_compound(value) && for_password)
        && (!is_word_compound(value) || for_password)
        && !value.trim_end_matches('=').contains('=')
}

/// Whether a value runs into an HTML character reference (`correct.&quot`, `1&rdquo`): the
/// markup's quote, not the value's end. The decoded view of the text judges the value.
pub(super) fn ends_in_entity(value: &str) -> bool {
    let Some(at) = value.rfind('&') else { return false };
    let name = &value[at + 1..];
    let numeric = name.strip_prefix('#').is_some_and(|code| {
        let code = code.strip_prefix(['x', 'X']).unwrap_or(code);
        !code.is_empty() && code.chars().all(|c| c.is_ascii_hexdigit())
    });
    numeric
        || (2..=8).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphabetic())
            && ["quot", "apos", "lt", "gt", "amp", "nbsp", "quo", "laquo", "raquo"]
                .iter()
                .any(|entity| name.ends_with(entity))
}

/// Whether the text before a value is a `.env`/shell assignment (`DB_PASSWORD=`,
/// `export API_TOKEN="`): an upper-case name, `=`, no spaces. Such values are literals
/// (no code around them), so only references like `$VAR` are left alone.
fn is_env_assignment(before: &str) -> bool {
    let before = before.trim_end_matches(['"', '\'', '\\']);
    let Some(name) = before.strip_suffix('=') else { return false };
    // Skip what came before the name: a separator, or a JSON escape such as `\n`.
    let mut name = name;
    loop {
        name =
            name.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '\\');
        match name.strip_prefix('\\') {
            Some(escaped) => name = escaped.get(1..).unwrap_or_default(),
            None => break,
        }
    }
    let name = name.strip_prefix("export ").unwrap_or(name);
    !name.is_empty()
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A `.env` value that points elsewhere: `$VAR`, `${VAR}`, `%VAR%`, a placeholder.
fn is_env_reference(value: &str) -> bool {
    value.starts_with(['$', '%', '<', '{']) && !generated_after_sigil(value) || is_masked(value)
}

/// A value already hidden: a redaction marker, or a mask (`****`, `xxxx`, `...`).
fn is_masked(value: &str) -> bool {
    value.starts_with(REDACTED)
        || value.chars().all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '…' | '-' | '_' | '•'))
}

/// Words that, where a password goes (a URL's user info), name the field instead of
/// filling it.
const PASSWORD_PLACEHOLDERS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "pw",
    "secret",
    "token",
    "mypassword",
    "my_password",
    "my-password",
    "yourpassword",
    "your_password",
    "your-password",
];

/// Whether a value where a password goes stands for one instead of being one: a variable
/// or a template (`$DB_PASSWORD`, `${PASS}`, `{password}`, `%s`, `%(password)s`,
/// `%DB_PASS%`, `{{ pass }}`), a mask (`****`, `xxxx`, `...`), a redaction marker, or a
/// word naming the field (`password`, `YOUR_PASSWORD`). A password that begins with a
/// sigil and then looks generated (`$Xk9…`), or with a percent-encoded character (`%40…`),
/// is a password.
fn is_password_placeholder(value: &str) -> bool {
    let percent_encoded = value.len() >= 3
        && value.as_bytes()[0] == b'%'
        && value.as_bytes()[1].is_ascii_hexdigit()
        && value.as_bytes()[2].is_ascii_hexdigit()
        && !value[1..].ends_with('%');
    (value.starts_with(['$', '%', '{']) && !generated_after_sigil(value) && !percent_encoded)
        || is_masked(value)
        || PASSWORD_PLACEHOLDERS.contains(&value.to_ascii_lowercase().as_str())
}

/// Words that, assigned to a secret-looking name, are not secrets themselves.
const NOT_SECRETS: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "nil",
    "undefined",
    "yes",
    "no",
    "on",
    "off",
    "required",
    "optional",
    "string",
    "str",
    "bytes",
    "int",
    "integer",
    "bool",
    "boolean",
    "number",
    "any",
    "object",
    "secret",
    "password",
    "token",
    "value",
    "default",
    "empty",
    "redacted",
    "env",
    "self",
    "this",
    "new",
    "await",
    "function",
    "lambda",
    "return",
    "unknown",
    "missing",
    "present",
    "set",
    "unset",
    "hidden",
    "masked",
    "stdin",
    "file",
    "read",
    "write",
    "match",
    "else",
    "let",
    "const",
    "var",
    "yield",
    "not",
    "and",
];

/// Whether a value assigned to a secret-looking name refers to something else instead of
/// being the secret: a variable, a field path, a call, a type, a placeholder, a path.
fn is_reference(value: &str) -> bool {
    let value = value.trim_end_matches([')', ']', '}', '.', ':']);
    if value.len() < 3 || value.starts_with(REDACTED) {
        return true;
    }
    // A location (`https://github.com/org/repo#setting-up-credentials`): a URL without a
    // password in it; one with user info is judged by the URL rules.
    if value.contains("://") && !value.contains('@') {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if NOT_SECRETS.contains(&lower.as_str())
        || is_primitive_type(value)
        || is_camel_case_name(value)
        || value.contains("?.")
        || value.starts_with("this.")
        || value.starts_with("self.")
        || value.starts_with("++")
        || value.split('*').next().is_some_and(|factor| {
            !factor.is_empty()
                && factor.len() < value.len()
                && factor.bytes().all(|b| b.is_ascii_digit())
        })
    {
        return true;
    }
    // A hexadecimal constant (`NEW_TOKEN = 0x07`); 32 digits and more are key material.
    if value.len() > 2
        && value.len() < 34
        && value.starts_with("0x")
        && value[2..].chars().all(|c| c.is_ascii_hexdigit() || c == '_')
    {
        return true;
    }
    // A constant (`token=EOF`, `KEY = NONE`): upper-case letters only.
    if value.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
        return true;
    }
    // A short lower-case word (`KEY = 'win'`, `id-token: write`): a word, not a secret.
    if value.len() < 6 && value.chars().all(|c| c.is_ascii_lowercase()) {
        return true;
    }
    // A number, a port mapping or an address (`max_token: 4096`, `-p 8080:80`).
    if value.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '_' | ':' | '/')) {
        return true;
    }
    let first = value.chars().next().unwrap_or(' ');
    if generated_after_sigil(value) {
        return false;
    }
    if matches!(
        first,
        '$' | '%' | '{' | '<' | '[' | '(' | '&' | '*' | '@' | '#' | '/' | '~' | '?' | ':'
    ) || value.starts_with("./")
        || value.starts_with("../")
    {
        return true;
    }
    if value.contains(['(', '[', '{', '<', '>']) || value.contains("=>") || value.contains("::") {
        return true;
    }
    // Placeholders: xxxx, ****, ...., <redacted>.
    if value.chars().all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '…' | '-' | '_' | '•')) {
        return true;
    }
    let identifier = |part: &str| {
        part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // A field path (`config.api_key`, `process.env.TOKEN`, `self.password`); a password
    // such as `blue.iscqx817` has digits in a part that does not start an object path.
    if value.contains('.') && value.split('.').all(identifier) {
        let objects = [
            "self",
            "this",
            "config",
            "cfg",
            "conf",
            "settings",
            "process",
            "os",
            "env",
            "options",
            "opts",
            "args",
            "ctx",
            "params",
            "req",
            "request",
            "res",
            "app",
            "secrets",
            "vault",
            "credentials",
            "creds",
            "data",
            "props",
            "state",
            "window",
        ];
        let first = value.split('.').next().unwrap_or_default().to_ascii_lowercase();
        let last = value.rsplit('.').next().unwrap_or_default();
        if !last.chars().any(|c| c.is_ascii_digit()) || objects.contains(&first.as_str()) {
            return true;
        }
    }
    // A YAML mapping or a sentence on the line after the name (`type: string`).
    if value.contains(": ") {
        return true;
    }
    if identifier(value) && !value.chars().any(|c| c.is_ascii_digit()) {
        // A variable named after the secret (`token = new_token`, `apiKey: apiKey`).
        let secret_words = ["pass", "pwd", "secret", "token", "key", "cred", "auth"];
        if secret_words.iter().any(|word| lower.contains(word)) {
            return true;
        }
        // A type (`token: String`, `password: SecretString`, `key: Option`).
        if is_type_name(value) {
            return true;
        }
    }
    false
}

/// `String`, `SecretString`, `HashMap` — an upper-case initial followed by lower-case
/// letters and no digits (a password rarely looks like this; a type name usually does).
fn is_type_name(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && value.chars().all(|c| c.is_ascii_alphabetic())
        && value.chars().any(|c| c.is_ascii_lowercase())
        && !generated_letters(value)
}

/// Letters only, in both cases, made like a generator's output rather than a name: frequent
/// switches from lower to upper case (a name makes one per word), and letter pairs English
/// words rarely make (`AzXZBgxZuuku`, `ioPaSJxXCgGgpil`; not `SecretString`,
/// `XMLHttpRequest`, `UIApplicationDelegate`).
pub(super) fn generated_letters(value: &str) -> bool {
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
        && super::shape::word_pair_share(value) < 0.75
        && shannon_entropy(value) >= 3.0
}

/// Whether a value looks randomly generated: letters and digits mixed, and at least 3.5
/// bits of character entropy (a word, a path or a version number stays below that).
pub(super) fn looks_random(value: &str) -> bool {
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
fn looks_random_letters(value: &str) -> bool {
    shannon_entropy(value) >= 4.0
}

/// Words and short numbers joined by `-`, `_` or `.` (`BSD-3-clause-generic`,
/// `GPL-2.0-or-later`): a name, not a generated value.
fn is_word_compound(value: &str) -> bool {
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
fn is_memorable_compound(value: &str) -> bool {
    let parts: Vec<&str> = value.split(['-', '_', '.']).collect();
    let words = parts.iter().filter(|part| part.chars().all(|c| c.is_ascii_alphabetic())).count();
    is_word_compound(value)
        && words >= 2
        && parts.iter().any(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().all(|part| part.len() >= 4 || part.chars().all(|c| c.is_ascii_digit()))
}

/// Shannon entropy of the characters of `value`, in bits per character.
fn shannon_entropy(value: &str) -> f64 {
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

/// A bare word assigned in code (`token = nextchar`, `self.password = password`): with
/// spaces around `=`, a name without digits is a variable. (`.env` files and YAML, where
/// words are literals, have no spaces before `=` or use `:`.)
fn is_code_reference(before: &str, value: &str) -> bool {
    let before = before.trim_end_matches(['"', '\'']);
    let assigned = before.ends_with(" = ") || before.ends_with(" =") || before.ends_with(" := ");
    let word = value.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !value.chars().any(|c| c.is_ascii_digit());
    // A long name in mixed case without a separator is a generated value, not a variable.
    let generated = value.len() >= 20
        && !value.contains('_')
        && value.chars().filter(char::is_ascii_uppercase).count() >= 3
        && value.chars().filter(char::is_ascii_lowercase).count() >= 3
        && looks_random_letters(value);
    assigned && word && !generated && !before.trim_end().ends_with(['"', '\''])
}

/// The closing quote of a quoted literal (`"`, `'`, an escaped `\"`).
fn is_quote(after: &str) -> bool {
    !after.is_empty() && after.chars().all(|c| matches!(c, '"' | '\'' | '\\'))
}

/// A word without digits (`cursor`, `polling`): followed by `,`, `)` or another word it is a
/// variable in code or a word in a sentence, not a secret.
fn is_word(value: &str) -> bool {
    value.chars().all(|c| c.is_ascii_alphabetic() || c == '_')
}

/// A name in CamelCase (`CreateOAuth2TokenRequestBody`, `KMS_DisabledException`): most of
/// it capitalised words, at most two digits. Random tokens are not made of such words.
pub(super) fn is_camel_case_name(value: &str) -> bool {
    let bytes = value.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_uppercase)
        || !value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || value.chars().filter(char::is_ascii_digit).count() > 2
    {
        return false;
    }
    let mut covered = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_uppercase() {
            let run = bytes[at + 1..].iter().take_while(|b| b.is_ascii_lowercase()).count();
            // A word of four letters or more has a vowel (`Kdpgk` in a generated value
            // has none).
            let word = &bytes[at..at + run + 1];
            if run >= 2 && (run < 3 || word.iter().any(|b| b"aeiouyAEIOUY".contains(b))) {
                covered += run + 1;
                at += run + 1;
                continue;
            }
        }
        at += 1;
    }
    covered * 10 >= bytes.len() * 7
}

/// A name that is part of a path (`Error::Token => "…"`, `token::Comma`): an enum variant
/// or a module, not an assignment.
fn is_path_name(before: &str) -> bool {
    // `$env:NAME = "…"` (PowerShell) assigns; a path is followed by `=>` or nothing.
    (before.contains("=>") || !before.contains('='))
        && before
            .strip_prefix(':')
            .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Type names of Rust and C that annotate a secret-named field (`token: u64`,
/// `AUTH_KEY: c_int = 15`).
fn is_primitive_type(value: &str) -> bool {
    const TYPES: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64", "char", "str", "&str", "&[u8]", "bool", "int", "long", "short", "float",
        "double", "byte", "uint", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
        "int64", "float32", "float64", "rune", "size_t", "ssize_t",
    ];
    TYPES.contains(&value)
        || value.starts_with("c_")
        || value.starts_with("_bindgen_ty_")
        || value.starts_with("__u")
        || value.starts_with("__s")
        || value.starts_with("__kernel_")
}

/// A hex digest (a commit, a checksum) or a UUID: ids, not secrets, under a broad name.
fn is_digest_or_id(value: &str) -> bool {
    let value = value.trim_end_matches(['.', ',']);
    let hex = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_hexdigit());
    let uuid = value.len() == 36 && value.split('-').map(str::len).eq([8, 4, 4, 4, 12]);
    hex(value) || (uuid && value.split('-').all(hex))
}

/// A word made like a password: letters and a digit or a symbol, not a reference, a path,
/// a number or a version.
pub(super) fn looks_like_password(value: &str) -> bool {
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
pub(super) fn character_classes(value: &str) -> usize {
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
fn looks_like_strong_password(value: &str) -> bool {
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
fn names_a_password(before: &str) -> bool {
    let lower = before.to_ascii_lowercase();
    ["password", "passwd", "passphrase", "secret", "community", "credential", "pwd", "psk"]
        .iter()
        .any(|word| lower.contains(word))
}

/// A value after `$`, `%` or `*` that is not a name but a generated string: mixed case,
/// digits, random (`$UBhu4Qp3sGxWrjFDt`). Variables and globs are words or upper case.
fn generated_after_sigil(value: &str) -> bool {
    let rest = value.trim_start_matches(['$', '%', '*']);
    rest.len() >= 10
        && rest.len() + 1 == value.len()
        && rest.chars().all(|c| c.is_ascii_alphanumeric())
        && rest.chars().any(|c| c.is_ascii_uppercase())
        && rest.chars().any(|c| c.is_ascii_lowercase())
        && looks_random(rest)
        && !is_camel_case_name(rest)
}

/// Cookie names that carry a session or a credential.
fn is_secret_cookie_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["sess", "sid", "token", "auth", "csrf", "xsrf", "remember", "login", "jwt", "secret", "key"]
        .iter()
        .any(|word| lower.contains(word))
}

/// Attributes of a `Set-Cookie` header, never secrets.
const COOKIE_ATTRIBUTES: &[&str] =
    &["path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority"];

/// A cookie header's value with the value of each secret-looking cookie redacted.
pub(super) fn cookie_values(header: &str) -> String {
    header
        .split(';')
        .map(|pair| {
            let Some((name, value)) = pair.split_once('=') else { return pair.to_owned() };
            let trimmed = name.trim();
            let secret = !COOKIE_ATTRIBUTES.contains(&trimmed.to_ascii_lowercase().as_str())
                && value.trim().len() >= 8
                && !value.trim().starts_with(REDACTED)
                && !is_reference(value.trim())
                && (is_secret_cookie_name(trimmed) || looks_random(value.trim()));
            if secret { format!("{name}={REDACTED}") } else { pair.to_owned() }
        })
        .collect::<Vec<_>>()
        .join(";")
}
