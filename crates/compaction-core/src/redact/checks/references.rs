//! Values that name something rather than hold a secret: words, variables, placeholders,
//! type names, paths, digests and ids.

use super::*;

/// Words that, assigned to a secret-looking name, are not secrets themselves.
pub(super) const NOT_SECRETS: &[&str] = &[
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
pub(super) fn is_reference(value: &str) -> bool {
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
pub(super) fn is_type_name(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && value.chars().all(|c| c.is_ascii_alphabetic())
        && value.chars().any(|c| c.is_ascii_lowercase())
        && !generated_letters(value)
}

/// A bare word assigned in code (`token = nextchar`, `self.password = password`): with
/// spaces around `=`, a name without digits is a variable. (`.env` files and YAML, where
/// words are literals, have no spaces before `=` or use `:`.)
pub(super) fn is_code_reference(before: &str, value: &str) -> bool {
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
pub(super) fn is_quote(after: &str) -> bool {
    !after.is_empty() && after.chars().all(|c| matches!(c, '"' | '\'' | '\\'))
}

/// A word without digits (`cursor`, `polling`): followed by `,`, `)` or another word it is a
/// variable in code or a word in a sentence, not a secret.
pub(super) fn is_word(value: &str) -> bool {
    value.chars().all(|c| c.is_ascii_alphabetic() || c == '_')
}

/// A name in CamelCase (`CreateOAuth2TokenRequestBody`, `KMS_DisabledException`): most of
/// it capitalised words, at most two digits. Random tokens are not made of such words.
pub(in crate::redact) fn is_camel_case_name(value: &str) -> bool {
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
pub(super) fn is_path_name(before: &str) -> bool {
    // `$env:NAME = "…"` (PowerShell) assigns; a path is followed by `=>` or nothing.
    (before.contains("=>") || !before.contains('='))
        && before
            .strip_prefix(':')
            .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Type names of Rust and C that annotate a secret-named field (`token: u64`,
/// `AUTH_KEY: c_int = 15`).
pub(super) fn is_primitive_type(value: &str) -> bool {
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
pub(super) fn is_digest_or_id(value: &str) -> bool {
    let value = value.trim_end_matches(['.', ',']);
    let hex = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_hexdigit());
    let uuid = value.len() == 36 && value.split('-').map(str::len).eq([8, 4, 4, 4, 12]);
    hex(value) || (uuid && value.split('-').all(hex))
}
