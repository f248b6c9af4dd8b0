//! How deep a line's JSON nests: serde_json's recursion limit, checked quickly so a line
//! that would exceed it is a diagnostic, never a stack overflow.

/// The deepest nesting serde_json parses (its recursion limit).
pub const MAX_JSON_DEPTH: usize = 127;

/// Whether arrays and objects in `json` nest deeper than `limit`. Linear; strings are
/// skipped with `memchr`, so long text content costs little.
pub fn json_depth_exceeds(json: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while at < json.len() {
        match json[at] {
            b'"' => {
                // Jump to the closing quote, skipping escaped characters.
                let mut cursor = at + 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &json[cursor.min(json.len())..]) {
                        Some(found) if json[cursor + found] == b'\\' => cursor += found + 2,
                        Some(found) => {
                            cursor += found;
                            break;
                        }
                        None => return false,
                    }
                }
                at = cursor + 1;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
                at += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                at += 1;
            }
            _ => at += 1,
        }
    }
    false
}

/// How many `[` and `{` bytes `json` holds (in strings or not): an upper bound of its
/// nesting depth, counted much faster than [`json_depth_exceeds`] walks it, so the walk only
/// runs on the rare lines where the bound is over the limit.
pub(super) fn openers(json: &[u8]) -> usize {
    // Counting in 255-byte runs into a `u8` lets the compiler vectorize the comparison.
    json.chunks(255)
        .map(|run| {
            let count: u8 = run.iter().map(|&byte| u8::from(byte == b'[' || byte == b'{')).sum();
            usize::from(count)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::entry::{Entry, EntryError};

    #[test]
    fn depth_check_agrees_with_serde_json_limit() {
        for depth in 120..136 {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let serde_ok = serde_json::from_str::<Value>(&text).is_ok();
            assert_eq!(!json_depth_exceeds(text.as_bytes(), MAX_JSON_DEPTH), serde_ok, "{depth}");
        }
        assert!(!json_depth_exceeds(br#"{"a":"[[[[\"[[[["}"#, 2));
    }

    #[test]
    fn opener_count_bounds_depth() {
        let text = format!("{}{}", "[{".repeat(300), "}]".repeat(300));
        assert_eq!(openers(text.as_bytes()), 600);
        assert_eq!(openers(br#"{"a":"[x"}"#), 2);
        assert_eq!(openers(b""), 0);
        // A deep value inside a skipped field is still caught after the count.
        let deep = format!(
            r#"{{"type":"custom","id":"a","parentId":null,"data":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(Entry::parse(2, &deep), Err(EntryError::TooDeep));
    }
}
