//! A cookie header, redacted cookie by cookie.

use super::*;

/// Cookie names that carry a session or a credential.
pub(super) fn is_secret_cookie_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["sess", "sid", "token", "auth", "csrf", "xsrf", "remember", "login", "jwt", "secret", "key"]
        .iter()
        .any(|word| lower.contains(word))
}

/// Attributes of a `Set-Cookie` header, never secrets.
pub(super) const COOKIE_ATTRIBUTES: &[&str] =
    &["path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority"];

/// A cookie header's value with the value of each secret-looking cookie redacted.
pub(in crate::redact) fn cookie_values(header: &str) -> String {
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
