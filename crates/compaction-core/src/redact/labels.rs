//! A value made like a password after a short label in any language: a line that is only a
//! label of one to three words (letters of any script, or a key joined by `_`, `-`, `.`), a
//! separator (`:`, `：`, ` - `, ` – `, ` = `, Ethiopic `፦`, Khmer `៖`), and one word
//! (`Kupuhipa: fZTCuB9MFUIjC`, `Fjalëkalimi: 1gkQTd7GwCBDn7~v3T`). No list of the word for a
//! password in every language is needed: a line made that way holds a credential whatever its
//! label says, when its one word is made like a strong password.
//!
//! Invariant: a range covers the one word of such a line, made like a strong password (three
//! classes of characters, or generated letters), neither a name in code or in CamelCase nor
//! words and short numbers joined (`GFDL-1.3+-no-invariant`).

use std::ops::Range;

/// Separators between a label and its value.
const SEPARATORS: &[&str] = &[": ", "：", " - ", " – ", " = ", "፦ ", "៖ ", ":\t"];

/// Ranges of the one word after a short label on a line of its own.
pub(super) fn labelled_values(text: &str, out: &mut Vec<Range<usize>>) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_end();
        let lead = trimmed.len() - trimmed.trim_start().len();
        let body = &trimmed[lead..];
        for sep in SEPARATORS {
            let Some(at) = body.find(sep) else { continue };
            let (label, value) = (&body[..at], body[at + sep.len()..].trim_start());
            let words = label.split_whitespace().count();
            if words == 0
                || words > 3
                || label.chars().count() > 32
                || !label.chars().all(is_label_char)
                || value.len() < 8
                || value.len() > 64
                || value.contains(char::is_whitespace)
            {
                continue;
            }
            if super::nearby::judged_bare(label, value) {
                let value_at = start + lead + (body.len() - value.len());
                out.push(value_at..value_at + value.len());
            }
            break;
        }
    }
}

/// A character of a label: a letter of any script, a combining mark or vowel sign (Brahmic,
/// Myanmar, Khmer, Thai and Lao signs are not letters to `char::is_alphabetic`), a space, a
/// zero-width non-joiner, or `_`, `-`, `.` joining the parts of a key.
fn is_label_char(c: char) -> bool {
    c.is_alphabetic()
        || matches!(c, ' ' | '\u{200c}' | '_' | '-' | '.')
        || matches!(
            u32::from(c),
            0x0300..=0x036F | 0x0900..=0x0DFF | 0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        labelled_values(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_password_after_a_label_in_any_language_is_found() {
        assert_eq!(found("Kupuhipa: fZTCuB9MFUIjC"), ["fZTCuB9MFUIjC"]);
        assert_eq!(found("Fjalëkalimi: 1gkQTd7GwCBDn7~v3T"), ["1gkQTd7GwCBDn7~v3T"]);
        assert_eq!(found("  Slaptažodis - Quartz?5821Tulip\n"), ["Quartz?5821Tulip"]);
        assert_eq!(
            found("header\nkalmar_sirri: Granite+1589Cobalt\nport: 5432"),
            ["Granite+1589Cobalt"]
        );
        assert_eq!(found("ពាក្យសម្ងាត់៖ xK9#mQ2vL8pT"), ["xK9#mQ2vL8pT"]);
    }

    #[test]
    fn licenses_versions_names_and_sentences_after_a_label_stay() {
        for line in [
            "License: GFDL-1.3+-no-invariant",
            "License: BSD-3-clause-generic",
            "Version: 1.2.3-beta4",
            "Default: XmlHttpRequest",
            "Type: std::vec::Vec<u8>",
            "See also: the manual page for details",
            "Checksum: 9f86d081884c7d659a2feaa0c55ad015",
            "Homepage: https://example.org/Project2",
            "Maintainer: Jane Doe <jane@example.org>",
            "Build-Depends: debhelper-compat (= 13)",
            "Note: use --Password2 instead",
            "    BufEnd = BufPtr+Size;",
            "    CompilingLazily = !Disabled;",
            "  defm vadc : RISCVBinaryWithV0;",
            "canonical: 1.23015e+3",
            "License: LGPLv3+_or_GPLv2+",
            "License: LGPLv2.1+",
            "License: GPL-2+-or-X11",
            "License: X11R5-permissive",
            "License: GAP~Makefile.in",
            "License: BSD-3-Viagénie",
            "License:   GPL-3.0+~OpenSSL",
            "    const _ULLong __tmp = 0x8000'0000'0000'0000ull;",
        ] {
            assert!(found(line).is_empty(), "{line}");
        }
    }
}
