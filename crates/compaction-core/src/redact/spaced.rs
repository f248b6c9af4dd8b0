//! A view of text whose letters stand apart: text extracted from a PDF or read by OCR
//! (`P a s s w o r d :  river-Cobalt-344`), or characters a person spaced out to read them
//! aloud, read with the spaces between single characters removed, so that the rules see the
//! words. A space of two or more between such runs stays a word break.
//!
//! Invariant: only runs of at least [`MIN_RUN`] single characters, each apart from the next
//! by exactly one space, are joined; every other character is kept.

use super::views::{View, decode_escapes};

/// Fewest single characters in a run that is joined.
const MIN_RUN: usize = 6;

/// Whether `text` may hold a run of characters standing apart.
pub(super) fn has_spaced(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(2 * MIN_RUN - 1).any(|w| {
        w.iter()
            .enumerate()
            .all(|(i, &b)| if i % 2 == 1 { b == b' ' } else { b.is_ascii_graphic() })
    })
}

/// `text` with each run of single characters standing apart joined (see the module).
pub(super) fn joined_letters(text: &str) -> Option<View> {
    if !has_spaced(text) {
        return None;
    }
    decode_escapes(text, |bytes, at| {
        // A run starts a line or follows a blank, and its next character stands apart too.
        if at > 0 && !bytes[at - 1].is_ascii_whitespace() {
            return None;
        }
        let single = |i: usize| {
            bytes.get(i).is_some_and(u8::is_ascii_graphic)
                && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace())
        };
        let mut out = Vec::new();
        let mut i = at;
        while single(i) {
            out.push(bytes[i]);
            // Exactly one space goes on to the next character standing apart.
            if bytes.get(i + 1) == Some(&b' ') && single(i + 2) {
                i += 2;
            } else {
                break;
            }
        }
        if out.len() < MIN_RUN {
            return None;
        }
        let end = i + 1;
        Some((out, end - at))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_standing_apart_are_joined() {
        let view = joined_letters("P a s s w o r d :  river-Cobalt-344").unwrap();
        assert_eq!(view.text, "Password:  river-Cobalt-344");
        let view = joined_letters("code: K 7 q ! 2 m Z 9 (no spaces)").unwrap();
        assert_eq!(view.text, "code: K7q!2mZ9 (no spaces)");
        let at = view.text.find("K7q").unwrap();
        assert_eq!(view.source(at..at + 8), 6..21);
        for text in ["a b c d", "the quick brown fox", "1 2 3 4 5", "x = a + b"] {
            assert!(joined_letters(text).is_none_or(|v| v.text == text), "{text}");
        }
    }
}
