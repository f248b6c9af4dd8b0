//! A value in the element after the one that names it: XML-RPC's
//! `<name>password</name><value><string>…</string></value>`, a property list's
//! `<key>Password</key>` ⏎ `<string>…</string>`, any `<…>name</…>` then `<…>value</…>`. The
//! name is an element's whole text, so the value is the text of the next element, whatever
//! the tags are called.
//!
//! Invariant: a range covers the next element's text only, and only when the naming element's
//! whole text is a password's name (`password`, `passwd`, `passphrase`, `pass`, `pwd`,
//! `secret`, `token`, `api_key`, any casing and separators) and the value is made like a
//! password as a value after that name is judged (or, as after a password's name, a word and a
//! number).

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::judge::judged_value;
use crate::redact::structure::regex;

/// Whether `name`, an element's whole text, names a password or a key: its letters alone,
/// lower-cased, are one of the names or end with one after a qualifier (`DbPassword`,
/// `smtp_pass`, `ApiToken`).
fn names_a_secret(name: &str) -> bool {
    let letters: String =
        name.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    ["password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "apikey"]
        .iter()
        .any(|end| letters.ends_with(end) && letters.len() <= end.len() + 12)
}

/// Ranges of values in the element after an element naming a secret.
pub(in crate::redact) fn sibling_values(text: &str, out: &mut Vec<Range<usize>>) {
    static NAMED: OnceLock<Option<Regex>> = OnceLock::new();
    if !text.contains("</") {
        return;
    }
    let Some(named) = regex(
        &NAMED,
        r"<[A-Za-z][\w:.-]*>[ \t]*(?P<name>[A-Za-z][\w .-]{1,40}?)[ \t]*</[A-Za-z][\w:.-]*>(?P<between>(?:\s*<[A-Za-z][\w:.-]*>){1,3})[ \t]*(?P<value>[^<>\s]{4,128})[ \t]*</",
    ) else {
        return;
    };
    for captures in named.captures_iter(text) {
        let (Some(name), Some(value)) = (captures.name("name"), captures.name("value")) else {
            continue;
        };
        let value_text = value.as_str();
        if names_a_secret(name.as_str())
            && (judged_value("", value_text, true) || super::word_and_number(value_text))
        {
            out.push(value.range());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        sibling_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_value_in_the_element_after_its_name_is_found() {
        assert_eq!(
            found(
                "<member><name>password</name><value><string>foxglove2197</string></value></member>"
            ),
            ["foxglove2197"]
        );
        assert_eq!(
            found("<dict>\n\t<key>Password</key>\n\t<string>Gq7#vR2mLx9p</string>\n</dict>"),
            ["Gq7#vR2mLx9p"]
        );
    }

    #[test]
    fn elements_of_other_names_and_values_stay() {
        assert!(found("<key>Server</key>\n<string>mysql-primary-1</string>").is_empty());
        assert!(found("<key>PasswordPolicy</key>\n<string>Strong</string>").is_empty());
        assert!(
            found("<name>password</name><value><string>${DB_PASSWORD}</string></value>").is_empty()
        );
        assert!(found("<key>TokenType</key><string>Bearer</string>").is_empty());
    }
}
