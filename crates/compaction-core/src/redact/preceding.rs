//! A value written before its name on the same line: `SELECT '…' as password`, `'…' =>
//! 'admin_password'`, `"…" was the token they gave us`, `…  # api key (staging)`, `const X =
//! "…"; // smtp password`. The finder of values after a name (`nearby.rs`) reads the words
//! after each secret's name; this one reads the few words before it, with the same names and
//! the same judgement of a word made like a password, so a value is found on whichever side
//! of its name it stands.
//!
//! Invariant: a range covers one word among the [`WORDS_BEFORE`] words before a secret's
//! name (or `api key`, `access key`, `signing key` written with a space) on the name's line,
//! made like a password by the judgement of `nearby.rs` (three classes of characters or
//! generated letters; not a name in code, a reference, a path or an address, and holding no
//! secret's name itself); never the name.

use std::ops::Range;

use super::nearby::{WHOLE, ends_word, is_whole_word, judged_secret, names};

/// How many words before a name are read.
const WORDS_BEFORE: usize = 4;

/// Names written as two words, a kind and `key`, that name a secret key.
const SPACED: &[&str] = &["api key", "access key", "secret key", "signing key", "private key"];

/// Ranges of `text` holding a value made like a password among the few words before a
/// secret's name on the same line.
pub(super) fn values_before_names(text: &str, out: &mut Vec<Range<usize>>) {
    let Some(names) = names() else { return };
    let bytes = text.as_bytes();
    let mut starts: Vec<usize> = names
        .find_iter(text)
        .filter(|found| {
            // A short form (`pass`, `pwd`, `psk`, `pin`) names a secret only ending a name,
            // and a PIN's name holds a number only: neither is read backwards.
            let matched = text[found.range()].to_ascii_lowercase();
            !matches!(matched.as_str(), "pass" | "pwd" | "psk" | "pin" | "puk" | "pincode")
                && (!WHOLE.contains(&matched.as_str()) || is_whole_word(bytes, found.range()))
        })
        .map(|found| found.start())
        .collect();
    let lower = text.to_ascii_lowercase();
    for spaced in SPACED {
        let mut from = 0;
        while let Some(at) = lower[from..].find(spaced) {
            starts.push(from + at);
            from += at + spaced.len();
        }
    }
    // A key named by the word before it (`the wifi key for the lab`, `license key`): `key`
    // as a whole word after a word of letters.
    let mut from = 0;
    while let Some(found) = lower[from..].find(" key") {
        let at = from + found;
        from = at + 4;
        let kind = text[..at].rsplit(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
        // A word of prose, not a name in code (`xmlSecKeyPtr key`).
        let prose = kind.bytes().all(|b| b.is_ascii_lowercase());
        if kind.len() >= 3 && prose && is_whole_word(bytes, at + 1..at + 4) {
            starts.push(at - kind.len());
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let mut taken_until = 0;
    for name_start in starts {
        // Back to the start of the name the match is part of (`admin_password`, `DB_TOKEN`).
        let mut at = name_start;
        while at > 0
            && (bytes[at - 1].is_ascii_alphanumeric()
                || matches!(bytes[at - 1], b'_' | b'-' | b'.'))
        {
            at -= 1;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |at| at + 1);
        let mut words = 0;
        while at > line_start.max(taken_until) && words < WORDS_BEFORE {
            if ends_word(bytes[at - 1]) || bytes[at - 1] == b':' {
                at -= 1;
                continue;
            }
            let end = at;
            while at > line_start && !ends_word(bytes[at - 1]) {
                at -= 1;
            }
            words += 1;
            if !text.is_char_boundary(at) || !text.is_char_boundary(end) {
                continue;
            }
            let word = text[at..end].trim_end_matches([':', '.', ',', '!', '?', ';']);
            if word.len() < 8 || word.len() > 128 {
                continue;
            }
            // A word right before `(` names a call.
            if bytes.get(end) == Some(&b'(') {
                continue;
            }
            if judged_secret(&text[line_start..at], word) {
                out.push(at..at + word.len());
                taken_until = at + word.len();
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        values_before_names(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_value_before_its_name_is_found() {
        assert_eq!(found("SELECT 'thistleQ4960Tulip' as password;"), ["thistleQ4960Tulip"]);
        assert_eq!(found("'Copper^789Falcon' => 'admin_password',"), ["Copper^789Falcon"]);
        assert_eq!(found("\"NyY6W5hB^ixYm1cl\" was the token they gave us"), ["NyY6W5hB^ixYm1cl"]);
        assert_eq!(found("v9+H1N535E2sv   # api key (staging)"), ["v9+H1N535E2sv"]);
        // Short names as whole words, and a key named by the word before it.
        assert_eq!(found("Qz8!rT2vLpQ (root pw on the NAS)"), ["Qz8!rT2vLpQ"]);
        assert_eq!(found("riverQ7310lantern is the wifi key"), ["riverQ7310lantern"]);
        assert_eq!(
            found("const X = \"YUmfRtpMKpkobgh97vu\"; // smtp password"),
            ["YUmfRtpMKpkobgh97vu"]
        );
    }

    #[test]
    fn names_and_words_before_a_secret_name_stay() {
        for line in [
            "let hashed = hashPassword(input); // password hashing",
            "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
            "See RFC7617 for the password encoding",
            "    if (strcmp(argv[i], \"--password\") == 0) {",
            "uses HMAC-SHA256 with the secret key",
            "BufferSize: 4096 # api key length",
            "a1b2c3d4e5f6a7b8 as password",
            "XMLSEC_EXPORT const xmlChar*    xmlSecKeyGetName        (xmlSecKeyPtr key);",
        ] {
            assert!(found(line).is_empty(), "{line}");
        }
    }
}
