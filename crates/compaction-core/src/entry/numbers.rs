//! Numbers past the range of `f64` (`1e400`): valid JSON, which JavaScript's `JSON.parse`
//! (so pi) reads as `Infinity`, but which serde_json refuses ("number out of range"), losing
//! the whole line. Such a line is read with each of them replaced by the largest finite
//! `f64` of the same sign, the closest value a Rust number holds (a count read from it
//! saturates, as every count from a file does).
//!
//! Invariant: only number tokens outside strings whose value overflows `f64` change; every
//! other byte of the text is kept.

/// What an overflowing positive number is read as.
const LARGEST: &str = "1.7976931348623157e308";

/// `raw` with every number past the `f64` range replaced by the largest finite `f64` of its
/// sign; `None` when it has none.
pub(crate) fn saturate_huge_numbers(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    // Fast path: a number can only overflow through an exponent or 309+ digits.
    if !bytes.iter().any(|&b| b == b'e' || b == b'E') && bytes.len() < 309 {
        return None;
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                // Skip the string, escapes included.
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = at;
                at += 1;
                while at < bytes.len()
                    && matches!(bytes[at], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    at += 1;
                }
                let token = &raw[start..at];
                if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    let text = out.get_or_insert_with(|| String::with_capacity(raw.len()));
                    text.push_str(&raw[copied..start]);
                    if token.starts_with('-') {
                        text.push('-');
                    }
                    text.push_str(LARGEST);
                    copied = at;
                }
            }
            _ => at += 1,
        }
    }
    let mut text = out?;
    text.push_str(&raw[copied..]);
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::saturate_huge_numbers;

    #[test]
    fn only_numbers_past_f64_outside_strings_change() {
        assert_eq!(saturate_huge_numbers(r#"{"a":1e300,"b":"1e400"}"#), None);
        assert_eq!(
            saturate_huge_numbers(r#"{"a":1e400,"b":"1e400","c":[-2E+999]}"#).as_deref(),
            Some(r#"{"a":1.7976931348623157e308,"b":"1e400","c":[-1.7976931348623157e308]}"#)
        );
        assert_eq!(saturate_huge_numbers(r#"{"s":"\"1e400","n":1e-400}"#), None);
        let wide = format!("[{}]", "9".repeat(400));
        assert_eq!(saturate_huge_numbers(&wide).as_deref(), Some("[1.7976931348623157e308]"));
    }
}
