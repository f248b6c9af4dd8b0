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

/// Ranges of the one word after a short label on a line of its own; and of the value after
/// a label that follows a login's (`Benutzer: ops` ⏎ `Kennwort: …`, `usuario: ops, clave:
/// …`), made like a password a person chooses (see [`record_value`]).
pub(super) fn labelled_values(text: &str, out: &mut Vec<Range<usize>>) {
    let mut offset = 0;
    // Whether the last labelled field of the line before gave a login name.
    let mut after_login = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_end();
        let lead = trimmed.len() - trimmed.trim_start().len();
        let body = &trimmed[lead..];
        if body.is_empty() {
            continue;
        }
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
        after_login = record_fields(body, start + lead, after_login, out);
    }
}

/// The fields of a record on one line (`usuario: ops, clave: …`): each value after a login's
/// field (on this line or, `after_login`, the line before) made like a password a person
/// chooses is a range. Whether the line's last field gives a login.
fn record_fields(
    body: &str,
    body_at: usize,
    after_login: bool,
    out: &mut Vec<Range<usize>>,
) -> bool {
    let mut follows_login = after_login;
    let mut from = 0;
    for (index, field) in fields(body).into_iter().enumerate() {
        let field_at = body[from..].find(field).map_or(from, |found| from + found);
        from = field_at + field.len();
        let Some((_, value)) = labelled(field) else {
            if index == 0 {
                return false;
            }
            follows_login = false;
            continue;
        };
        if follows_login
            && !super::off("record")
            && (8..=64).contains(&value.len())
            && record_value(value)
        {
            let value_at = body_at + field_at + field.len() - value.len();
            out.push(value_at..value_at + value.len());
        }
        follows_login = is_login(value);
    }
    follows_login
}

/// The fields of a line: apart by `, `, `; ` or a tab; the whole line when it has none.
fn fields(body: &str) -> Vec<&str> {
    body.split([',', ';', '\t']).map(str::trim).filter(|field| !field.is_empty()).collect()
}

/// A field's label and its one word of value (`Label: value`), when it is one.
fn labelled(field: &str) -> Option<(&str, &str)> {
    // A colon of any script, not `=` or a dash (code assigns with `=`).
    for sep in [": ", "：", ":\t", "፦ ", "៖ "] {
        let Some(at) = field.find(sep) else { continue };
        let (label, value) = (&field[..at], field[at + sep.len()..].trim_start());
        let words = label.split_whitespace().count();
        if words == 0
            || words > 3
            || label.chars().count() > 32
            || !label.chars().all(is_label_char)
            || value.is_empty()
            || value.contains(char::is_whitespace)
        {
            return None;
        }
        return Some((label, value));
    }
    None
}

/// A login name: a lower-case letter, then lower-case letters, digits, `_` or `-` (no dots:
/// a host's name is not a login).
fn is_login(value: &str) -> bool {
    (2..=32).contains(&value.len())
        && value.starts_with(|c: char| c.is_ascii_lowercase())
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// A value made like a password a person chooses or a generator makes, for a field that
/// follows a login's: three classes of characters (an `=` inside allowed), a word and a
/// number (`cinder1559`), or words and a number (`maple-Cobalt-536`).
fn record_value(value: &str) -> bool {
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let symbol =
        value.bytes().any(|b| b.is_ascii_punctuation() && !matches!(b, b'_' | b'-' | b'.'));
    let classes = [lower, upper, digit, symbol].iter().filter(|&&class| class).count();
    let words_and_number = {
        let parts: Vec<&str> = value.split(['-', '_', '.']).collect();
        parts.len() >= 2
            && parts.last().is_some_and(|p| p.len() >= 2 && p.bytes().all(|b| b.is_ascii_digit()))
            && parts[..parts.len() - 1]
                .iter()
                .all(|p| p.len() >= 4 && p.bytes().all(|b| b.is_ascii_alphabetic()))
    };
    !value.contains("://")
        && !value.contains(['/', '\\', '@', '<', '>', '(', ')', '[', ']', '{', '}', '"', '\''])
        && (classes >= 3 || super::nearby::word_and_number(value) || words_and_number)
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
    fn a_value_after_a_login_field_is_found() {
        assert_eq!(found("ഉപയോക്താവ്: runner\nപാസ്‌വേഡ്: cinder1559"), ["cinder1559"]);
        assert_eq!(found("વપરાશકર્તા: svc_sync, પાસવર્ડ: larkspur1657"), ["larkspur1657"]);
        assert_eq!(
            found("Пайдаланушы: nightly\nҚұпия сөз: k4zzDwPvKP=Gv7ER1B3"),
            ["k4zzDwPvKP=Gv7ER1B3"]
        );
        assert_eq!(found("kasutaja: ops\nparool: maple-Cobalt-536"), ["maple-Cobalt-536"]);
        for text in [
            "User: deploy\nHost: db01.corp.local",
            "user: ops\nshell: /bin/bash",
            "Host: cache.internal\nDatabase: orders2024",
            "owner: root\ngroup: wheel",
            "name: web\nimage: nginx-1.25",
            "user: ops\nport: 5432",
            "bool ExtStorage: false, class GT: GraphTraits<GraphT>>",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
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
