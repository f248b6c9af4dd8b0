//! Generated values recognised by their statistics alone: no known prefix, no secret-like
//! name before them. A token a service or a tool generates is a run of one of the alphabets
//! generators use (base62, base64 and base64url, base58, base32) whose characters switch
//! class (lower case, upper case, digit) far more often than a name's do, with the character
//! entropy of a random draw and no run of words in it.
//!
//! Left alone, because they are ids or data rather than credentials: hex digests and UUIDs,
//! identifiers made of words (CamelCase, snake_case, kebab-case), paths, values after a
//! digest's name (`sha256:`, `integrity`, `commit`, `h1:`…), base64 that decodes to text (the
//! encoded rules look into it), lines of a base64 block (certificates, signatures, public
//! keys), public keys (`AAAA…`), and tokens with a lower-case type prefix (`msg_…`, `toolu_…`;
//! the prefixed-token finder judges those).
//!
//! Invariant: a range covers one run of the token's alphabet, never the text around it.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::structure::{bip39_words, entropy, joins_words, made_of_words};

/// Shortest and longest token body taken (a generated password of 16 characters of base62
/// holds 95 bits; a 64-byte key is 88 characters of base64 or base58; longer runs are data).
/// A body shorter than [`FULL_TOKEN`] is taken only with all three classes (upper case,
/// lower case, digits): a set of option letters (`q{mhlDriFfXqnTdULva}`, `[dDFgGhHlnNpP]`)
/// has no digit.
const MIN_TOKEN: usize = 16;
/// 22 characters of base62 hold 128 bits, what generators draw at least for a token.
const FULL_TOKEN: usize = 22;
const MAX_TOKEN: usize = 128;

/// Words before a value that make it a digest, an id, or public or encrypted data, not a
/// credential.
const DIGEST_CONTEXT: &[&str] = &[
    "sha",
    "md5",
    "hash",
    "digest",
    "checksum",
    "integrity",
    "fingerprint",
    "etag",
    "commit",
    "revision",
    "nonce",
    "blake",
    "crc",
    "h1:",
    "sum",
    "uuid",
    "guid",
    "oid",
    "base64,",
    "signature",
    "certificate",
    "cipher",
    "x509",
    "modulus",
    "public",
    "pubkey",
];

/// Ranges of `text` holding a generated token with no prefix or name to tell it by.
pub(super) fn bare_tokens(text: &str, out: &mut Vec<Range<usize>>) {
    static RUN: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(run) = RUN.get_or_init(|| Regex::new(r"[A-Za-z0-9+/_\-]{16,}={0,2}").ok()).as_ref()
    else {
        return;
    };
    for found in run.find_iter(text) {
        let (start, end) = (found.start(), found.end());
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        // A variable, an anchor, an escape sequence's tail, an argument list: not a value.
        if matches!(before, Some('$' | '@' | '%' | '&' | '#' | '.' | '\\'))
            || matches!(after, Some('(' | '@'))
        {
            // A URL's path after its host: the segments are judged below.
            if !(before == Some('.') && found.as_str().contains('/')) {
                continue;
            }
        }
        if in_digest_context(text, start, end) || in_base64_block(text, start, end) {
            continue;
        }
        let run = found.as_str();
        if run.contains('/') {
            // A path or a URL path: each segment on its own, unless the whole run is one
            // base64 value (no segment of words).
            let whole = generated(run) && !run.split('/').any(is_plain_word);
            if whole {
                out.push(start..end);
                continue;
            }
            let mut at = start;
            for segment in run.split('/') {
                // A short id in a URL's path (a short link, a form) is a name of a page.
                if segment.len() >= FULL_TOKEN && generated(segment) {
                    out.push(at..at + segment.len());
                }
                at += segment.len() + 1;
            }
            continue;
        }
        if generated(run) {
            out.push(start..end);
        }
    }
}

/// Whether a value from `start` to `end` has a digest's or an id's name next to it on its
/// line: before it, or after it as markup's closing tag (`…</SignatureValue>`).
fn in_digest_context(text: &str, start: usize, end: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |at| end + at);
    let mut from = start.saturating_sub(64).max(line_start);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let mut to = (end + 40).min(line_end);
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    let before_as_written = &text[from..start];
    let before = before_as_written.to_ascii_lowercase();
    let closing = text[end..to].trim_start().strip_prefix("</");
    // A value named an id or an address is one ("program ID: …", `account_id`, "address
    // …"): it names a thing; a credential is named for what it grants.
    // A file name (`id.json`) names no value.
    let named_id = before
        .split(|c: char| c.is_ascii_whitespace() || "\"'`:=(,[{".contains(c))
        .rev()
        .filter(|word| !word.is_empty())
        .take(3)
        .flat_map(|word| word.split(['_', '-']))
        .any(|word| ID_NAMES.contains(&word));
    named_id
        || DIGEST_CONTEXT.iter().any(|word| {
            names_part(before_as_written, word) || closing.is_some_and(|tag| names_part(tag, word))
        })
}

/// Whether `word` (lower case) begins a part of a name in `text`: a run of letters (a case
/// switch from lower to upper starts a new one) equal to it or its plural, or, for a word
/// of four letters or more, starting with it (`sha` in `sha256:`, `hash` in `fileHashes`,
/// `cipher` in `ciphertext`); not a piece inside a longer word (`oid` in `android`, `sum` in
/// `consumer`, `sha` in `shared`). A word holding a digit or a sign (`md5`, `x509`, `h1:`,
/// `base64,`) is matched as written.
fn names_part(text: &str, word: &str) -> bool {
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return text.to_ascii_lowercase().contains(word);
    }
    let bytes = text.as_bytes();
    let mut start = 0;
    for at in 0..=bytes.len() {
        let boundary = at == bytes.len()
            || !bytes[at].is_ascii_alphabetic()
            || at > start && bytes[at].is_ascii_uppercase() && bytes[at - 1].is_ascii_lowercase();
        if !boundary {
            continue;
        }
        let part = bytes[start..at].to_ascii_lowercase();
        let word = word.as_bytes();
        if part == word
            || part.strip_suffix(b"s").is_some_and(|stem| stem == word)
            || part.strip_suffix(b"es").is_some_and(|stem| stem == word)
            || word.len() >= 4 && part.starts_with(word)
        {
            return true;
        }
        start = if at < bytes.len() && bytes[at].is_ascii_alphabetic() { at } else { at + 1 };
    }
    false
}

/// Words that name an identifier, matched as whole words among the three before a value.
const ID_NAMES: [&str; 6] = ["id", "ids", "address", "addresses", "addr", "pda"];

/// Whether the run is a line of a base64 block: alone on its line, with a neighbouring line
/// that is also one long base64 run.
fn in_base64_block(text: &str, start: usize, end: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |at| end + at);
    // Quotes, commas and braces around a line of a block in source code do not count.
    let framing = |part: &str| {
        part.chars()
            .all(|c| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ';' | '{' | '}' | '+'))
    };
    if !framing(&text[line_start..start]) || !framing(&text[end..line_end]) {
        return false;
    }
    // A line of standard base64 alone is a piece of a block (a certificate, a signature,
    // encrypted data), even when its neighbours are not in view: a token is given with words
    // around it.
    let run = &text[start..end];
    if !run.contains(['-', '_']) {
        return true;
    }
    let base64_line = |line: &str| {
        let line = line.trim();
        line.len() >= 40
            && line.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    };
    let previous = text[..line_start.saturating_sub(1)].rsplit('\n').next().unwrap_or_default();
    let next =
        text.get(line_end + 1..).and_then(|rest| rest.split('\n').next()).unwrap_or_default();
    line_start > 0 && base64_line(previous) || line_end < text.len() && base64_line(next)
}

/// A word of lower-case letters (a path's directory, a URL's route).
fn is_plain_word(segment: &str) -> bool {
    segment.len() >= 3 && segment.bytes().all(|b| b.is_ascii_lowercase())
}

/// Whether `run` looks generated: the length of a key, two classes of characters or more,
/// frequent switches between them, high entropy, no words, not hex, not text in base64.
fn generated(run: &str) -> bool {
    let body = run.trim_end_matches('=');
    let n = body.len();
    if !(MIN_TOKEN..=MAX_TOKEN).contains(&n)
        || body.starts_with(['-', '_', '+'])
        || body.ends_with(['-', '_'])
        || body.contains("__")
        || body.contains("--")
        || body.starts_with("AAAA")
    {
        return false;
    }
    let bytes = body.as_bytes();
    let upper = bytes.iter().filter(|b| b.is_ascii_uppercase()).count();
    let lower = bytes.iter().filter(|b| b.is_ascii_lowercase()).count();
    let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
    let symbols = n - upper - lower - digits;
    let classes = [upper, lower, digits].iter().filter(|&&count| count >= 2).count();
    if classes < 2 || symbols * 8 > n {
        return false;
    }
    // A shorter run is more often a name with numbers (`xmlSecHrefAes128Cbc`,
    // `HpkeKdfHkdfSha256`, `Iop_QDMulHi16Sx4`): taken only with all three classes, no joint
    // and no run of capitalised words.
    if n < FULL_TOKEN
        && (upper == 0
            || lower == 0
            || digits == 0
            || body.contains(['_', '-'])
            || made_of_words(body))
    {
        return false;
    }
    // A hex digest, or one with a suffix (`…3f7alt1`).
    if bytes.iter().filter(|b| b.is_ascii_hexdigit()).count() * 10 >= n * 9 {
        return false;
    }
    // A type prefix (`msg_…`, `toolu_…`): an id, or a token the prefixed finder judges.
    if let Some(at) = body.find(['_', '-'])
        && (2..=12).contains(&at)
        && bytes[..at].iter().all(u8::is_ascii_lowercase)
    {
        return false;
    }
    if joins_words(body)
        || reads_as_words(body)
        || decodes_to_text_or_data(body)
        || public_checksummed(body)
    {
        return false;
    }
    // Switches a name rarely makes: lower case to upper case, and between letters and digits
    // (an upper-case letter starting a word does not count).
    let switches = bytes
        .windows(2)
        .filter(|pair| {
            let (a, b) = (pair[0], pair[1]);
            a.is_ascii_lowercase() && b.is_ascii_uppercase()
                || a.is_ascii_alphabetic() && b.is_ascii_digit()
                || a.is_ascii_digit() && b.is_ascii_alphabetic()
        })
        .count();
    // CamelCase made of capitalised words whose letter pairs are mostly word-like is a name
    // with abbreviations in it (`xmlSecTransformAes128CbcId`, `XF86KbdInputAssistPrev`).
    if made_of_words(body) && word_pair_share(body) >= 0.6 {
        return false;
    }
    let needed_entropy = ((n as f64).log2() - 0.6).min(4.2);
    switches * 100 >= (n - 1) * 22 && entropy(body) >= needed_entropy
}

/// A public value whose format carries a checksum: a bech32 address or id (`bc1…`, `npub1…`;
/// secret prefixes are found by their own finder) or a base58check value that is not a
/// private key (an address; WIF and extended private keys are found by their own finder).
fn public_checksummed(body: &str) -> bool {
    use sha2::{Digest, Sha256};
    if body.contains('1') && bech32::decode(body).is_ok() {
        return true;
    }
    let Ok(bytes) = bs58::decode(body).into_vec() else { return false };
    if bytes.len() < 5 {
        return false;
    }
    let (payload, check) = bytes.split_at(bytes.len() - 4);
    Sha256::digest(Sha256::digest(payload))[..4] == *check
}

/// Which pairs of letters occur in two or more English words (of the BIP39 list), indexed
/// `26 * first + second`.
fn common_bigrams() -> &'static [bool; 676] {
    static TABLE: OnceLock<[bool; 676]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut counts = [0u16; 676];
        for word in bip39_words() {
            for pair in word.as_bytes().windows(2) {
                if pair.iter().all(u8::is_ascii_lowercase) {
                    counts[usize::from(pair[0] - b'a') * 26 + usize::from(pair[1] - b'a')] += 1;
                }
            }
        }
        // A pair seen once may be a loan word's; twice or more, English's.
        counts.map(|count| count >= 2)
    })
}

/// Whether the letters of `body` read as words: nearly every pair of letters inside a word
/// (not across a lower-to-upper case switch, which starts a new word) is a pair English
/// words have. Random letters make a rare pair about every other time (`qm`, `xg`, `CQ`).
fn reads_as_words(body: &str) -> bool {
    word_pair_share(body) >= 0.75
}

/// The share of pairs of letters inside words (see [`reads_as_words`]) that English words
/// have; 1 when there are fewer than 4 pairs.
pub(super) fn word_pair_share(body: &str) -> f64 {
    let table = common_bigrams();
    let (mut pairs, mut common) = (0usize, 0usize);
    for pair in body.as_bytes().windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if !a.is_ascii_alphabetic() || !b.is_ascii_alphabetic() {
            continue;
        }
        if a.is_ascii_lowercase() && b.is_ascii_uppercase() {
            continue;
        }
        pairs += 1;
        let (a, b) = (a.to_ascii_lowercase() - b'a', b.to_ascii_lowercase() - b'a');
        if table[usize::from(a) * 26 + usize::from(b)] {
            common += 1;
        }
    }
    if pairs < 4 { 1.0 } else { common as f64 / pairs as f64 }
}

/// Whether base64 (standard or URL-safe) `body` decodes to printable UTF-8 text or to a
/// file whose format its first bytes name (PNG, JPEG, GIF, PDF, ZIP, gzip, RIFF, WebP…):
/// encoded data, not a token.
fn decodes_to_text_or_data(body: &str) -> bool {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let standard = body.replace('-', "+").replace('_', "/");
    let Ok(bytes) = engine.decode(standard.trim_end_matches('=')) else { return false };
    const MAGIC: &[&[u8]] = &[
        b"\x89PNG",
        b"\xff\xd8\xff",
        b"GIF8",
        b"%PDF",
        b"PK\x03\x04",
        b"\x1f\x8b",
        b"RIFF",
        b"BM",
        b"\x00\x00\x00",
        b"II*\x00",
        b"MM\x00*",
        b"OggS",
        b"fLaC",
        b"ID3",
        b"\x7fELF",
    ];
    if MAGIC.iter().any(|magic| bytes.starts_with(magic)) {
        return true;
    }
    match std::str::from_utf8(&bytes) {
        Ok(text) => !text.is_empty() && text.chars().all(|c| !c.is_control() || c.is_whitespace()),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        bare_tokens(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn generated_tokens_are_found_without_a_prefix_or_a_name() {
        for token in [
            "Jit9m9gFTqmauCExgwCQsebl",
            "q7ZPa0Lr2Xv9sKd3TfB8wNc1yHm4",
            "BxBZrbxzFasm1ovynPCfrAezuQMRWKExqeSqS17Cj",
            "JBSWY3DPEHPK3PXP4Q7ZK2LMNO5RSTUV",
            "3mXkq9v2pz7rt0w8yb4nc6d1fh5gj2ka",
            "4NbxS1tZ8fJ2mQeR7kWcYv3HdLpA9uXg6oTs5iBz2EyGq8rK1wNa3VjM7hPc4DfU",
        ] {
            assert_eq!(found(&format!("here you go: {token} ok")), [token], "{token}");
        }
        let url = "curl https://relay.example.net/in/q7ZPa0Lr2Xv9sKd3TfB8wNc1yHm4";
        assert_eq!(found(url), ["q7ZPa0Lr2Xv9sKd3TfB8wNc1yHm4"]);
    }

    #[test]
    fn a_shorter_generated_value_is_found_with_all_three_classes() {
        for token in ["e9EvTUkXc0WvWKLHzW", "wrA19FZRqRUui4PN5JZ"] {
            assert_eq!(found(&format!("/oper admin {token}")), [token], "{token}");
        }
        for text in [
            "foreach my $subname (map \"opt_$_\", split '', q{mhlDriFfXqnTdULva}) {",
            "(r'[dDFgGhHlnNpPqQxz=]', Keyword),",
            "kCFStringEncodingUTF8 and XML_PARSE_NOENT",
            // Look-alikes of the large corpus (xmlsec, NSS, Valgrind, X11, Node's docs).
            "XMLSEC_EXPORT_VAR const xmlChar xmlSecHrefAes128Cbc[];",
            "    HpkeKdfHkdfSha256 = 1,",
            "      Iop_QRDMulHi16Sx8, Iop_QRDMulHi32Sx4, /* (V128, V128) -> V128 */",
            "#define XF86XK_KbdLcdMenu1\t\t_EVDEVK(0x2B8)\t\t/* v5.5  KEY_KBD_LCD_MENU1 */",
            "[Contributor Spotlight nomination](https://forms.gle/dXBXZn8yu83HLJ57A)",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    #[test]
    fn a_digest_word_inside_a_longer_word_does_not_make_a_digest() {
        let token = "BxBZrbxzFasm1ovynPCfrAezuQMRWKExqeSqS17Cj";
        for text in [
            format!("    android:value=\"{token}\" />"),
            format!("consumer_secret: {token}"),
            format!("SHARED_ACCESS_KEY={token}"),
        ] {
            assert_eq!(found(&text), [token], "{text}");
        }
        for text in [
            format!("sha256sum: {token}"),
            format!("fileHashes: [\"{token}\"]"),
            format!("ciphertext: {token}"),
            format!("<SignatureValue>{token}</SignatureValue>"),
        ] {
            assert!(found(&text).is_empty(), "{text}");
        }
    }

    #[test]
    fn names_digests_ids_and_data_are_left_alone() {
        for text in [
            "ossl_der_oid_sha512_256WithRSAEncryption",
            "CreateOAuth2TokenRequestBody and kCFStringEncodingMacRomanLatin1",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "id 550e8400-e29b-41d4-a716-446655440000",
            "\"integrity\": \"sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXGOVyH1pH5xJvTiDO1Br2SNB8oOw==\"",
            "toolu_01A09q90qw90lq917835lq9 msg_01XFDUDYJgAACzvnptvVoYEL",
            "echo SGVsbG8gV29ybGQsIHRoaXMgaXMgdGV4dA== | base64 -d",
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG9sZm9vYmFyYmF6cXV4cXV1eHh4eXl5enp6 me@host",
            "/usr/lib/x86_64-linux-gnu/libssl.so.3 src/compaction/summarizer_module",
            "go.sum: h1:q7ZPa0Lr2Xv9sKd3TfB8wNc1yHm4aaaa=",
            "BSD-3-clause-generic GPL-2.0-or-later SPDX-License-Identifier",
            "#define xmlSecTransformAes128CbcId xmlSecTransformAes128CbcGetKlass()",
            "{ \"XF86KbdInputAssistPrev\", 0x10081260 }, #define LN_pbeWithMD2AndDES_CBC",
            "#define SQLITE_SOURCE_ID \"2022-12-28 df5c253c0b3dd24916e4ec7cf77d3db5294cc9fd45ae7b9c5e82ad8197f3alt1\"",
            "const pubkey256 = 'SIXvRyDmBJSgatgTQRGbInBaAK+hZOQ18UmrSwnDlK8=';",
            // Values named ids or addresses: on-chain program ids, accounts, wallets.
            "the actual program ID is BaSZuLcwjfh75T3TjbVYpTH4qpJt1tNoZ3S6PTkvNhCb",
            "account_id: 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
            "deposit address 3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy4Zq9xPkT2b",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
        // A file named `id.json` names no value: the key after it is still found.
        let keypair = "solana-keygen recover -o id.json 4f3nB8xq9VYm2TzKw7LpR5dGhJc6EuQaXs1vNiHoPb";
        assert!(!found(keypair).is_empty(), "{keypair}");
        // The last line of a certificate, seen alone.
        assert!(found("pPVWQxaZLPSkVrQ0uGE3ycJYgBugl6H8WY3pEfbRD0tVNEYqi4Y7").is_empty());
        let block = "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\nRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n";
        assert!(found(block).is_empty(), "{:?}", found(block));
    }
}
