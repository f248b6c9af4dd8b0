//! The checks a captured value must pass before it is redacted: references and placeholders
//! are not secrets, random-looking values and passwords are, and a cookie header is redacted
//! cookie by cookie.
//!
//! Invariant: every check is a pure function of the text before the value and the value.
//!
//! Stages: this file decides ([`passes`]) and holds the placeholders a password may be;
//! [`references`] tells values that name something (variables, types, paths, ids) from
//! secrets, [`shapes`] tells random and password-like values by their characters, and
//! [`cookies`] redacts a cookie header cookie by cookie.

mod cookies;
mod references;
mod shapes;

pub(super) use cookies::cookie_values;
pub(super) use references::is_camel_case_name;
use references::*;
use shapes::*;
pub(super) use shapes::{character_classes, generated_letters, looks_like_password, looks_random};

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
