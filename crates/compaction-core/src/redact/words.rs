//! Judgements of one word after a secret's name that `nearby.rs` shares: whether a secret's
//! name inside a word is a *part* of it (`db_key`, `dbPass`) or only letters of another word
//! (`monkey`, `passport`), and the value between quotes that holds the marks which end a word
//! elsewhere (`"2tj!Fz#qv:u=y*[LR4"`).
//!
//! Invariant: both look at one word or one quoted value of one line and never reach past it.

use std::ops::Range;

/// Whether the name at `range` of `word` is a part of it: at a boundary on both sides, a
/// mark or a digit, the word's start or end, or a change from lower to upper case
/// (`db_password`, `SMTP_PASS`, `dbPwd`, `apiKeyId`, `passwords`); not letters inside another
/// word (`monkey`, `turkey`, `passport`, `author`, `compass`, `username`), which a person
/// building a password from a word may well use.
pub(super) fn is_part(word: &str, range: Range<usize>) -> bool {
    let bytes = word.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.get(range.start), bytes.get(range.end - 1)) else {
        return false;
    };
    let starts = range.start == 0 || {
        let before = bytes[range.start - 1];
        !before.is_ascii_alphabetic() || before.is_ascii_lowercase() && first.is_ascii_uppercase()
    };
    // A plural `s` (`passwords`, `TOKENS`) keeps the name a part.
    let end = if bytes.get(range.end).is_some_and(|b| b.eq_ignore_ascii_case(&b's'))
        && bytes.get(range.end + 1).is_none_or(|b| !b.is_ascii_lowercase())
    {
        range.end + 1
    } else {
        range.end
    };
    let ends = end == bytes.len() || {
        let after = bytes[end];
        !after.is_ascii_alphabetic() || last.is_ascii_lowercase() && after.is_ascii_uppercase()
    };
    starts && ends
}

/// The end of a value that opens right after a quote at `start` and runs to the same quote
/// on its line, when the value holds a mark that ends a word elsewhere (`:`, `[`, `]`) and is
/// made like a password: rich in symbols, or judged as a word after a name is with those
/// marks left out (`password: "2tj!Fz#qv:u=y*[LR4"`, `` `qCze:%HNdA[e34T2` ``). A quote bounds a value better than any mark inside it; a key
/// path (`ssl:certfile`), a URL or an expression (`a[i]`) is not symbol-rich.
pub(super) fn quoted_symbol_value(text: &str, start: usize) -> Option<usize> {
    let quote = *text.as_bytes().get(start.checked_sub(1)?)?;
    if !matches!(quote, b'"' | b'\'' | b'`') {
        return None;
    }
    let rest = &text[start..];
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let close = line.find(char::from(quote))?;
    let value = &line[..close];
    // Judged as a word after a name would be with those marks left out.
    let judged = || {
        super::unnamed::symbol_rich(value)
            || super::nearby::judged_secret("", &value.replace([':', '[', ']'], ""))
    };
    ((8..=64).contains(&value.len())
        && !value.contains(char::is_whitespace)
        && value.contains([':', '[', ']'])
        && !value.contains("://")
        && judged())
    .then_some(start + close)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(word: &str, name: &str) -> bool {
        let at = word.to_ascii_lowercase().find(name).unwrap();
        is_part(word, at..at + name.len())
    }

    #[test]
    fn a_name_is_a_part_only_at_a_boundary() {
        assert!(part("db_key", "key"));
        assert!(part("SMTP_PASS", "pass"));
        assert!(part("dbPwd", "pwd"));
        assert!(part("apiKeyId", "key"));
        assert!(part("passwords", "password"));
        assert!(part("token2", "token"));
        assert!(!part("monkey-K3ulNRj6a62", "key"));
        assert!(!part("passportX8k2LmQ9", "pass"));
        assert!(!part("author", "auth"));
        assert!(!part("username", "user"));
        assert!(!part("TURKEY", "key"));
    }

    #[test]
    fn a_quoted_symbol_rich_value_runs_to_its_quote() {
        let text = r#"password: "2tj!Fz#qv:u=y*[LR4" x"#;
        let start = text.find('2').unwrap();
        assert_eq!(
            quoted_symbol_value(text, start).map(|end| &text[start..end]),
            Some("2tj!Fz#qv:u=y*[LR4")
        );
        // A key path, an expression, a URL stay words.
        for text in [
            r#"name: "ssl:certfile""#,
            r#"token: "items[index]:value""#,
            r#"url: "https://a.b/c?d=[x]""#,
        ] {
            let start = text.find(": \"").unwrap() + 3;
            assert_eq!(quoted_symbol_value(text, start), None, "{text}");
        }
    }
}
