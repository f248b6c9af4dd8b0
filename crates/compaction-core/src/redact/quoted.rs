//! A quoted literal after a secret's name is the value whole, whatever characters it holds:
//! `password: "2tj!Fz#qv:u=y*[LR4"`, `define( 'AUTH_KEY', 'bWPj]t.4DP!fH?Jds[(M~…' );`,
//! `db_password = "Ab3#kd9(Qz7wLp"`, `` * _passphrase_: `qCze:%HNdA[e34T2` ``. The rules'
//! value classes end a value at `;`, `(`, `[`, `{`, `<` or `=`, which a generated password
//! may hold; the quotes (`"`, `'` or a backtick) say where it ends.
//!
//! Invariant: a range covers one literal's content on the name's line, never its quotes; the
//! content has no space and is made like a generated value (three of lower case, upper case,
//! digits and symbols, not a reference or a template).

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// Longest literal taken.
const MAX_VALUE: usize = 200;

/// Ranges of `text` holding the content of a quoted literal after a secret's name.
pub(super) fn quoted_values(text: &str, out: &mut Vec<Range<usize>>) {
    static NAME: OnceLock<Option<Regex>> = OnceLock::new();
    if !text.contains(['"', '\'', '`']) {
        return;
    }
    let Some(name) = super::structure::regex(
        &NAME,
        r#"(?i)(?:pass|pwd|psk|secret|token|api[_\-]?key|auth[_\-]?key|salt|credential|private[_\-]?key)[A-Za-z0-9_\-.]*["'`]?[ \t]*(?:=>|:=|=|:|,)[ \t]*["'`]"#,
    ) else {
        return;
    };
    for found in name.find_iter(text) {
        let open = found.end() - 1;
        let quote = text.as_bytes()[open];
        let start = open + 1;
        let line_end = text[start..].find('\n').map_or(text.len(), |at| start + at);
        let Some(length) = text[start..line_end].find(char::from(quote)) else { continue };
        let value = &text[start..start + length];
        if is_generated_literal(value) {
            out.push(start..start + length);
        }
    }
}

/// Whether a literal's content is made like a generated value: 8 to [`MAX_VALUE`]
/// characters, no space, three of lower case, upper case, digits and symbols, and not a
/// reference, a template or a path.
fn is_generated_literal(value: &str) -> bool {
    if !(8..=MAX_VALUE).contains(&value.len())
        || value.chars().any(|c| c.is_whitespace() || !c.is_ascii())
        || value.contains("${")
        || value.contains("{{")
        || value.contains("%(")
        || value.contains("#{")
        || value.contains("://")
        || value.starts_with(['$', '%', '/', '<', '{', '.'])
    {
        return false;
    }
    super::checks::character_classes(value) >= 3
        && super::checks::looks_random(&value.replace(|c: char| c.is_ascii_punctuation(), ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        quoted_values(text, &mut out);
        out.into_iter().map(|range| &text[range]).collect()
    }

    #[test]
    fn a_quoted_value_is_taken_whole() {
        assert_eq!(found(r#"password: "2tj!Fz#qv:u=y*[LR4""#), ["2tj!Fz#qv:u=y*[LR4"]);
        assert_eq!(
            found("define( 'AUTH_KEY', 'bWPj]t.4DP!fH?Jds[(M~jK/u' );"),
            ["bWPj]t.4DP!fH?Jds[(M~jK/u"]
        );
        assert_eq!(found(r#"db_password = "Ab3#kd9(Qz7wLp""#), ["Ab3#kd9(Qz7wLp"]);
        assert_eq!(found("* _passphrase_: `qCze:%HNdA[e34T2`"), ["qCze:%HNdA[e34T2"]);
        assert_eq!(found(r#"SMTP_PASS='k4zzDw;PvKP(Gv7ER1B3'"#), ["k4zzDw;PvKP(Gv7ER1B3"]);
    }

    #[test]
    fn templates_and_prose_are_left() {
        assert!(found(r#"password: "Enter your password""#).is_empty());
        assert!(found(r#"token = "${API_TOKEN}""#).is_empty());
        assert!(found(r#"secret: "{{ .Values.secret }}""#).is_empty());
        assert!(found(r#"api_key: "getApiKey()""#).is_empty());
    }
}
