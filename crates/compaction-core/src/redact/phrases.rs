//! Two shapes a rule of names and values does not see. A passphrase of words after its name
//! (`passphrase: nectar plume ledger quiver`, `--passphrase 'gravel oxide umbra cactus'`,
//! `Wallet passphrase (25th word): …`): a run of four words or more of letters (or three
//! joined by `-`, `.`, `_`, `+`, a number allowed at the end), none of them a word of a
//! sentence (`the`, `is`, `for`), standing to the end of its line or its quotes. And a grouped
//! product or licence key (`MPVP6-8YDKM-6Y8XB-CYQJP-W8FJV`): four groups or more of the same
//! length, 4 to 6 capitals and digits each, with letters beyond hex and digits in most groups.
//!
//! Invariant: a passphrase's range covers its run of words, never its name; a product key's
//! range covers the whole group of groups.

use std::ops::Range;

/// Names after which a run of words is a passphrase (lower case).
const PHRASE_NAMES: &[&str] = &["passphrase", "pass phrase", "seed phrase", "recovery phrase"];

/// Words of a sentence: a run holding one is prose, not a passphrase.
const FUNCTION_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "is",
    "are",
    "was",
    "be",
    "to",
    "of",
    "for",
    "and",
    "or",
    "in",
    "on",
    "with",
    "if",
    "not",
    "no",
    "you",
    "your",
    "it",
    "this",
    "that",
    "by",
    "as",
    "at",
    "from",
    "will",
    "can",
    "must",
    "should",
    "when",
    "which",
    "used",
    "use",
    "using",
    "enter",
    "set",
    "none",
    "null",
    "true",
    "false",
    "required",
    "optional",
    "empty",
    "same",
    "file",
    "key",
    "keys",
    "protected",
    "prompt",
    "see",
    "default",
    "there",
    "than",
    "then",
    "has",
    "have",
    "new",
];

/// Ranges of runs of words after a passphrase's name.
pub(super) fn passphrases(text: &str, out: &mut Vec<Range<usize>>) {
    let lower = text.to_ascii_lowercase();
    for name in PHRASE_NAMES {
        let mut from = 0;
        while let Some(found) = lower[from..].find(name) {
            let name_end = from + found + name.len();
            from = name_end;
            let line_end = text[name_end..].find('\n').map_or(text.len(), |at| name_end + at);
            // The rest of the name (`_PASSPHRASE`, `passphrase2`), then what joins it to its
            // value: separators, a copula, or a remark in brackets.
            let mut at = name_end;
            let bytes = text.as_bytes();
            while at < line_end && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            let rest = &text[at..line_end];
            let rest_lower = &lower[at..line_end];
            let skip = rest_lower.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(rest.len());
            let mut run_at = at + skip;
            let mut run = &text[run_at..line_end];
            for copula in ["is ", "was ", "= "] {
                if run.to_ascii_lowercase().starts_with(copula) {
                    run = &run[copula.len()..];
                    run_at += copula.len();
                    let trimmed = run.trim_start_matches(['"', '\'', '`', ' ']);
                    run_at += run.len() - trimmed.len();
                    run = trimmed;
                }
            }
            // A remark in brackets before the value (`(25th word):`).
            if let Some(close) = rest.find("):")
                && skip < close
            {
                let after = at + close + 2;
                let trimmed = text[after..line_end].trim_start_matches([' ', '"', '\'']);
                run_at = line_end - trimmed.len();
                run = trimmed;
            }
            let end = run.find(['"', '\'', '`', ')', ';', ',']).unwrap_or(run.len());
            let candidate = run[..end].trim_end();
            // Up to the end of its line or its quotes: nothing but blanks or an option after.
            let after = run[end..].trim_start_matches(['"', '\'', '`']).trim();
            if !after.is_empty() && !after.starts_with('-') && !after.starts_with('#') {
                continue;
            }
            if is_phrase(candidate) {
                out.push(run_at..run_at + candidate.len());
            }
        }
    }
}

/// Whether `candidate` is a run of words made like a passphrase.
fn is_phrase(candidate: &str) -> bool {
    let Some(sep) = [' ', '-', '.', '_', '+'].into_iter().find(|sep| candidate.contains(*sep))
    else {
        return false;
    };
    let mut words: Vec<&str> = candidate.split(sep).collect();
    // A number may end the run (`ripple.oxide.kettle.42`).
    if words.last().is_some_and(|last| !last.is_empty() && last.chars().all(|c| c.is_ascii_digit()))
    {
        words.pop();
    }
    let least = if sep == ' ' { 4 } else { 3 };
    words.len() >= least
        && words.len() <= 12
        && words.iter().all(|word| {
            (3..=10).contains(&word.len())
                && word.chars().all(|c| c.is_ascii_alphabetic())
                && word.chars().skip(1).all(|c| c.is_ascii_lowercase())
                && !FUNCTION_WORDS.contains(&word.to_ascii_lowercase().as_str())
        })
}

/// Ranges of the rest of a quoted value whose first word a rule has already replaced
/// (`--passphrase '[REDACTED] oxide umbra cactus'`: the flag's rule takes one word, the
/// passphrase is the whole quoted run). A quoted value is one value: what a rule took the
/// start of is continued to the closing quote, when the rest is words of letters (a number
/// may end them) and no word of a sentence, on the same line.
pub(super) fn continued_runs(text: &str, out: &mut Vec<Range<usize>>) {
    const PLACEHOLDER: &str = super::REDACTED;
    let mut from = 0;
    while let Some(found) = text[from..].find(PLACEHOLDER) {
        let start = from + found;
        let end = start + PLACEHOLDER.len();
        from = end;
        let Some(quote) = text[..start].chars().next_back() else { continue };
        if !matches!(quote, '\'' | '"' | '`') {
            continue;
        }
        let line_end = text[end..].find('\n').map_or(text.len(), |at| end + at);
        let Some(close) = text[end..line_end].find(quote) else { continue };
        let rest = &text[end..end + close];
        let words = rest.trim_start_matches([' ', '-', '.', '_', '+']);
        if words.len() == rest.len() || words.is_empty() {
            continue;
        }
        // The placeholder stands for one word of the run.
        let sep = rest.chars().next().unwrap_or(' ');
        if is_phrase(&format!("word{sep}{words}")) {
            out.push(end + (rest.len() - words.len())..end + close);
        }
    }
}

/// Ranges of grouped product and licence keys.
pub(super) fn product_keys(text: &str, out: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !(bytes[at].is_ascii_uppercase() || bytes[at].is_ascii_digit())
            || at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'-')
        {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len()
            && (bytes[at].is_ascii_uppercase() || bytes[at].is_ascii_digit() || bytes[at] == b'-')
        {
            at += 1;
        }
        let word = &text[start..at];
        let bounded = at == bytes.len() || !bytes[at].is_ascii_alphanumeric();
        if bounded && is_product_key(word) {
            out.push(start..at);
        }
    }
}

/// Whether `word` is groups of capitals and digits of one length joined by `-`.
fn is_product_key(word: &str) -> bool {
    let groups: Vec<&str> = word.split('-').collect();
    let size = groups[0].len();
    groups.len() >= 4
        && (4..=6).contains(&size)
        && groups.iter().all(|group| group.len() == size)
        && word.bytes().any(|b| b.is_ascii_uppercase() && b > b'F')
        && groups.iter().filter(|group| group.bytes().any(|b| b.is_ascii_digit())).count() * 2
            > groups.len()
        && groups.iter().filter(|group| group.bytes().any(|b| b.is_ascii_uppercase())).count() * 2
            > groups.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrases(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        passphrases(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    fn keys(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        product_keys(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn word_passphrases_after_their_name_are_found() {
        assert_eq!(
            phrases("passphrase: nectar plume ledger quiver"),
            ["nectar plume ledger quiver"]
        );
        assert_eq!(
            phrases("gpg --batch --passphrase 'gravel oxide umbra cactus' --symmetric b.tar"),
            ["gravel oxide umbra cactus"]
        );
        assert_eq!(
            phrases("my passphrase is \"walnut gravel lunar koala\""),
            ["walnut gravel lunar koala"]
        );
        assert_eq!(
            phrases("Wallet passphrase (25th word): zephyr nomad umbra kettle"),
            ["zephyr nomad umbra kettle"]
        );
        assert_eq!(
            phrases("KEYSTORE_PASSPHRASE=ripple.oxide.kettle.42"),
            ["ripple.oxide.kettle.42"]
        );
    }

    #[test]
    fn sentences_and_options_after_a_passphrase_name_stay() {
        for line in [
            "The passphrase is used to protect the private key.",
            "passphrase: enter the passphrase for unlocking",
            "--passphrase-file FILE   read the passphrase from FILE",
            "Passphrase protected keys are supported",
            "passphrase = getpass.getpass()",
            "passphrase_file: /etc/keys/pass.txt",
            "If no passphrase is given, gpg prompts for one",
        ] {
            assert!(phrases(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn grouped_product_keys_are_found() {
        assert_eq!(
            keys("<Serial>MPVP6-8YDKM-6Y8XB-CYQJP-W8FJV</Serial>"),
            ["MPVP6-8YDKM-6Y8XB-CYQJP-W8FJV"]
        );
        assert_eq!(keys("slmgr /ipk M2S7-YVLM-3T86-PSB2"), ["M2S7-YVLM-3T86-PSB2"]);
    }

    #[test]
    fn uuids_dates_and_names_in_capitals_stay() {
        for line in [
            "id 123E4567-E89B-12D3-A456-426614174000",
            "date +%Y-%m-%dT%H:%M:%SZ",
            "ISO-8859-1 and UTF-16 and UCS-4",
            "RFC-2119-TEXT-BODY",
            "CVE-2024-3094",
            "0000-0000-0000-0000",
            "ABCD-EFGH-IJKL-MNOP",
            "KEY-VALUE-PAIR-LIST",
            "2024-01-01-1200",
        ] {
            assert!(keys(line).is_empty(), "{line}");
        }
    }
}
