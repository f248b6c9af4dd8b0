//! Secrets held as the value of a name/value pair: a record whose one field names the secret
//! and whose sibling field holds it. JSON objects (`{"Key": "Password", "Value": "…"}`,
//! `{"name": "DB_PASSWORD", "value": "…"}`, an item's `{"label": "password", …, "value":
//! "…"}`), XML elements (`<name>password</name><value><string>…</string></value>`, a
//! plist's `<key>Password</key><string>…</string>`), and a line naming a secret's column
//! before its `value=` (`cf:password  timestamp=…, value=…`). The name is not beside the
//! value, so the rules that read `name: value` miss it; the record's structure pairs them.
//!
//! Invariant: a range covers the value of the sibling field only, and only when the naming
//! field's whole value is a secret's name (`db_password`, `apiSecret`, `credential`).

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// Whether a field's value names a secret (its last word: `DB_PASSWORD`, `apiSecret`,
/// `/prod/db-password`, `credential`).
fn names_a_secret(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() || c.is_ascii_uppercase() && previous_lower {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words.last().is_some_and(|last| {
        [
            "password",
            "passwd",
            "pass",
            "pwd",
            "secret",
            "token",
            "passphrase",
            "credential",
            "apikey",
        ]
        .contains(&last.as_str())
            || last == "key" && words.len() >= 2 && words[words.len() - 2] == "api"
    })
}

/// A value a record holds as a secret, not a placeholder, a reference or a sentence.
fn plain_value(value: &str) -> bool {
    value.len() >= 6
        && value.len() <= 200
        && !value.starts_with(['$', '{', '<', '%', '*', '('])
        && !value.contains(char::is_whitespace)
        && value.chars().any(|c| c.is_ascii_digit() || !c.is_ascii_alphabetic())
}

/// Ranges of values held in a name/value pair whose name field names a secret.
pub(super) fn pair_values(text: &str, out: &mut Vec<Range<usize>>) {
    if super::s21_off("pairs") {
        return;
    }
    static JSON: OnceLock<Option<Regex>> = OnceLock::new();
    static JSON_VALUE: OnceLock<Option<Regex>> = OnceLock::new();
    static XML: OnceLock<Option<Regex>> = OnceLock::new();
    static LINE: OnceLock<Option<Regex>> = OnceLock::new();
    let lower = text.to_ascii_lowercase();
    if !lower.contains("value") && !lower.contains("<string") {
        return;
    }
    // JSON: a naming field, then within the same object a value field.
    let json = JSON.get_or_init(|| {
        Regex::new(
            r#"(?i)"(?:name|key|id|label|field|parameterkey|attribute|variable)"\s*:\s*"([^"\\]{1,80})""#,
        )
        .ok()
    });
    let json_value = JSON_VALUE.get_or_init(|| {
        Regex::new(r#"(?i)"(?:value|val|v|parametervalue)"\s*:\s*"([^"\\]{1,200})""#).ok()
    });
    if let (Some(json), Some(json_value)) = (json, json_value) {
        for found in json.captures_iter(text) {
            let (Some(whole), Some(name)) = (found.get(0), found.get(1)) else { continue };
            if !names_a_secret(name.as_str()) {
                continue;
            }
            // The object around the naming field: back to its `{`, on to its `}`.
            let start = text[..whole.start()].rfind(['{', '}']).map_or(0, |i| i + 1);
            let end = text[whole.end()..].find(['{', '}']).map_or(text.len(), |i| whole.end() + i);
            if whole.start() - start > 600 || end - whole.end() > 600 {
                continue;
            }
            for value in json_value.captures_iter(&text[start..end]) {
                let Some(value) = value.get(1) else { continue };
                let range = start + value.start()..start + value.end();
                if plain_value(value.as_str()) && !out.contains(&range) {
                    out.push(range);
                }
            }
        }
    }
    // XML: a naming element, then the first text inside a value element after it.
    let xml = XML.get_or_init(|| {
        Regex::new(
            r"(?i)<(name|key)>([^<]{1,80})</(?:name|key)>\s*(?:</[^>]+>\s*)?(?:<(?:value|string|val|data)(?:\s[^>]*)?>\s*){1,3}([^<\s]{1,200})\s*</",
        )
        .ok()
    });
    if let Some(xml) = xml {
        for found in xml.captures_iter(text) {
            let (Some(name), Some(value)) = (found.get(2), found.get(3)) else { continue };
            if names_a_secret(name.as_str()) && plain_value(value.as_str()) {
                out.push(value.range());
            }
        }
    }
    // A line naming a secret's column or field, then its `value=`.
    let line = LINE.get_or_init(|| {
        Regex::new(r"(?im)^[^\n]*?[\w.:/-]*(?:password|passwd|secret|token|pwd)\b[^\n]{0,80}?\bvalue=([^\s,;}]{1,200})").ok()
    });
    if let Some(line) = line {
        for found in line.captures_iter(text) {
            let Some(value) = found.get(1) else { continue };
            if plain_value(value.as_str()) && super::tables::made_like_a_password(value.as_str()) {
                out.push(value.range());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        pair_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn values_paired_with_a_secret_name_are_found() {
        assert_eq!(
            found(
                r#"[{"Key": "Host", "Value": "db1"}, {"Key": "Password", "Value": "Plover771"}]"#
            ),
            ["Plover771"]
        );
        assert_eq!(found(r#"{"name": "DB_PASSWORD", "value": "x8Kq2pLm9Z"}"#), ["x8Kq2pLm9Z"]);
        assert_eq!(
            found(
                r#"{"id": "password", "type": "CONCEALED", "label": "password", "value": "Heron-ivy-12"}"#
            ),
            ["Heron-ivy-12"]
        );
        assert_eq!(
            found(
                "<member><name>password</name><value><string>gannet2291</string></value></member>"
            ),
            ["gannet2291"]
        );
        assert_eq!(found("<key>Password</key>\n\t<string>Fennel#221</string>"), ["Fennel#221"]);
        assert_eq!(
            found(" cf:password  timestamp=2026-12-07T09:14:02.118, value=Alder!2290x"),
            ["Alder!2290x"]
        );
    }

    #[test]
    fn ordinary_pairs_are_left_alone() {
        assert!(found(r#"{"name": "Host", "value": "db1.example.com"}"#).is_empty());
        assert!(found(r#"{"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"}"#).is_empty());
        assert!(found(r#"{"name": "token", "value": "see vault"}"#).is_empty());
        assert!(found("<key>PasswordPolicy</key>\n<string>strict</string>").is_empty());
        assert!(found("<key>Password</key>\n<true/>").is_empty());
    }
}
