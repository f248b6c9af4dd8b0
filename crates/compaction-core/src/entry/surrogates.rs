//! Lone UTF-16 surrogate escapes in JSON strings: `"\ud83d"` is valid JSON, and
//! JavaScript's `JSON.parse` (so pi) keeps the lone surrogate in the string, but a Rust
//! string cannot hold one and serde_json refuses the line. Such a line is read with each
//! lone surrogate escape replaced by `\ufffd` (U+FFFD, what a lone surrogate displays as);
//! pairs (`\ud83d\ude00`) are left alone.
//!
//! Invariant: only `\uD800`–`\uDFFF` escapes that are not half of a pair change; every other
//! byte of the line is kept.

/// The code unit of the `\uXXXX` escape starting at `at` (the backslash), if there is one.
fn escape_at(bytes: &[u8], at: usize) -> Option<u16> {
    if bytes.get(at + 1) != Some(&b'u') {
        return None;
    }
    let hex = std::str::from_utf8(bytes.get(at + 2..at + 6)?).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// `raw` with every lone surrogate escape replaced by `\ufffd`; `None` when it has none.
pub(crate) fn replace_lone_surrogates(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    // Fast path: most lines have no `\uD…` escape at all.
    let finder = memchr::memmem::Finder::new(b"\\u");
    if !finder.find_iter(bytes).any(|at| matches!(bytes.get(at + 2), Some(b'd' | b'D'))) {
        return None;
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        let start = at + found;
        let Some(unit) = escape_at(bytes, start) else {
            // Any other escape (`\\`, `\"`, `\n`): skip the escaped character too.
            at = start + 2;
            continue;
        };
        let paired = match unit {
            0xD800..=0xDBFF => {
                matches!(escape_at(bytes, start + 6), Some(0xDC00..=0xDFFF)).then_some(12)
            }
            0xDC00..=0xDFFF => None,
            _ => Some(6),
        };
        match paired {
            Some(length) => at = start + length,
            None => {
                let text = out.get_or_insert_with(|| String::with_capacity(raw.len()));
                text.push_str(&raw[copied..start]);
                text.push_str("\\ufffd");
                copied = start + 6;
                at = copied;
            }
        }
    }
    let mut text = out?;
    text.push_str(&raw[copied..]);
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::replace_lone_surrogates;

    #[test]
    fn only_lone_surrogates_are_replaced() {
        assert_eq!(replace_lone_surrogates(r#"{"a":"x"}"#), None);
        assert_eq!(replace_lone_surrogates(r#""\ud83d\ude00""#), None);
        assert_eq!(replace_lone_surrogates(r#""\\ud83d""#), None);
        assert_eq!(replace_lone_surrogates(r#""a\ud83d b""#).as_deref(), Some(r#""a\ufffd b""#));
        assert_eq!(
            replace_lone_surrogates(r#""\uDE00\ud83d\ude00\uD83D""#).as_deref(),
            Some(r#""\ufffd\ud83d\ude00\ufffd""#)
        );
    }
}
