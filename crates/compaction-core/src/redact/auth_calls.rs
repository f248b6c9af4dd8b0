//! A password handed to a call whose name says it authenticates: `basic_auth("jdoe",
//! Some("…"))`, `red:auth("…")`, `create_superuser('ops', 'ops@acme.dev', '…')`,
//! `new UsernamePasswordCredentials("…", "…".toCharArray())`. No name says which argument
//! the password is; the call's name says one is, and the string literal after the login (or
//! the only one, for a call that takes the secret alone) is made like a password.
//!
//! Invariant: a range covers one literal's content, never its quotes; a literal that is an
//! address, a URL, a path or a host is never taken.

use std::ops::Range;

use super::checks::looks_like_password;

/// How far after the opening bracket the arguments are read, in bytes.
const REACH: usize = 300;

/// Call names (lower case, `_` removed) that take a login and a password, or a password.
const TAKES_LOGIN_AND_PASSWORD: &[&str] = &[
    "basicauth",
    "setbasicauth",
    "login",
    "signin",
    "logon",
    "authenticate",
    "createuser",
    "createsuperuser",
    "adduser",
    "addlogin",
    "credentials",
    "usernamepasswordcredentials",
    "passwordauthentication",
    "plainauth",
];

/// Call names that take the secret alone (`AUTH` of Redis, `setPassword`).
const TAKES_SECRET_ALONE: &[&str] = &["auth", "setpassword", "changepassword", "authenticate"];

/// Ranges of `text` holding a password literal in a call whose name says it authenticates.
pub(super) fn auth_call_literals(text: &str, out: &mut Vec<Range<usize>>) {
    if super::off("auth-calls") || !text.contains('(') {
        return;
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = text[at..].find('(') {
        let open = at + found;
        at = open + 1;
        let name_start = text[..open]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |at| at + 1);
        let name: String = text[name_start..open].chars().filter(|&c| c != '_').collect::<String>();
        let name = name.to_ascii_lowercase();
        let pair = TAKES_LOGIN_AND_PASSWORD.contains(&name.as_str());
        let alone = TAKES_SECRET_ALONE.contains(&name.as_str());
        if !pair && !alone {
            continue;
        }
        let literals = literals_in_call(bytes, open);
        let taken: &[Range<usize>] = match literals.len() {
            0 => &[],
            1 if alone => &literals,
            1 => &[],
            _ => &literals[1..],
        };
        for literal in taken {
            let value = &text[literal.clone()];
            if is_password_literal(value) {
                out.push(literal.clone());
            }
        }
    }
}

/// The contents of the string literals among a call's arguments, from the bracket at `open`
/// to its closing one (nested calls, `Some("…")`, `"…".toCharArray()`, read through).
fn literals_in_call(bytes: &[u8], open: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut at = open;
    let end = bytes.len().min(open + REACH);
    while at < end {
        match bytes[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b'\n' => break,
            quote @ (b'"' | b'\'') => {
                let start = at + 1;
                let Some(length) = bytes[start..end].iter().position(|&b| b == quote) else {
                    break;
                };
                out.push(start..start + length);
                at = start + length;
            }
            _ => {}
        }
        at += 1;
    }
    out
}

/// Whether a literal's content is made like a password: no space, not an address, a URL, a
/// path or a host, and letters with a digit or a symbol (or generated letters).
fn is_password_literal(value: &str) -> bool {
    (6..=128).contains(&value.len())
        && !value.contains([' ', '@', '/', '\\', ':', '$', '{', '%'])
        && !value.ends_with(".com")
        && value.split('.').count() < 3
        && looks_like_password(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        auth_call_literals(text, &mut out);
        out.into_iter().map(|range| &text[range]).collect()
    }

    #[test]
    fn a_password_in_an_authenticating_call_is_found() {
        assert_eq!(found(r#".basic_auth("jdoe", Some("quince5913"));"#), ["quince5913"]);
        assert_eq!(found(r#"local ok, err = red:auth("848Znw88qxpsxd5V")"#), ["848Znw88qxpsxd5V"]);
        assert_eq!(
            found("User.objects.create_superuser('ops', 'ops@acme.dev', 'Vg3UYEtAtfUxeKO')"),
            ["Vg3UYEtAtfUxeKO"]
        );
    }

    #[test]
    fn other_calls_and_arguments_are_left() {
        assert!(found(r#"login("deploy")"#).is_empty());
        assert!(found(r#"client.login("jdoe", "please")"#).is_empty());
        assert!(found(r#"connect("db.internal", "user7", "secret-2")"#).is_empty());
        assert!(found(r#"authenticate(user, "https://auth.example.com/v2")"#).is_empty());
        assert!(found(r#"auth("Bearer")"#).is_empty());
    }
}
