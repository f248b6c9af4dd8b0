//! Secrets recognised by their structure rather than by a name before them: key material
//! whose format carries a checksum or a fixed shape (BIP39 mnemonics checked against the
//! word list, WIF keys and extended private keys by their base58 checksum, bech32 secret
//! keys by theirs, Solana keypair arrays, JWK private members), tokens made of a service
//! prefix and a long random body, and webhook URLs whose path is the secret.
//!
//! Each finder returns byte ranges of the text to replace; [`spans`] gathers them.
//!
//! Invariant: a range covers the secret only (a mnemonic's words, a key, a URL's secret path
//! segment), never the text around it.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use sha2::{Digest, Sha256};

use super::checks::looks_random;

/// The official BIP39 English word list.
const BIP39_ENGLISH: &str = include_str!("bip39-english.txt");

/// Fewest consecutive list words taken for a mnemonic (the shortest BIP39 phrase).
const MIN_MNEMONIC_WORDS: usize = 12;

pub(super) fn regex(
    cell: &'static OnceLock<Option<Regex>>,
    pattern: &str,
) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

/// Every range of `text` that the structural finders take for a secret, sorted and merged.
pub(super) fn spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    mnemonics(text, &mut out);
    base58_keys(text, &mut out);
    bech32_keys(text, &mut out);
    byte_arrays(text, &mut out);
    jwk_members(text, &mut out);
    prefixed_tokens(text, &mut out);
    webhook_paths(text, &mut out);
    super::shape::bare_tokens(text, &mut out);
    super::prose::password_values(text, &mut out);
    super::tables::secret_columns(text, &mut out);
    super::columns::columns_under_a_header(text, &mut out);
    super::nearby::values_after_names(text, &mut out);
    super::preceding::values_before_names(text, &mut out);
    super::fed::fed_values(text, &mut out);
    super::phrases::passphrases(text, &mut out);
    super::phrases::continued_runs(text, &mut out);
    super::phrases::product_keys(text, &mut out);
    super::unnamed::unnamed_passwords(text, &mut out);
    super::accounts::user_and_password_fields(text, &mut out);
    super::accounts::conversation_passwords(text, &mut out);
    super::positional::literal_arguments(text, &mut out);
    super::quoted::quoted_values(text, &mut out);
    super::outputs::printed_values(text, &mut out);
    super::labels::labelled_values(text, &mut out);
    super::hex_keys::hex_keys(text, &mut out);
    merge(out)
}

/// Sorts and merges overlapping ranges.
pub(super) fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|span| (span.start, span.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => out.push(span),
        }
    }
    out
}

pub(super) fn bip39_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| BIP39_ENGLISH.lines().map(str::trim).collect())
}

/// Runs of 12 or more BIP39 words separated only by spaces, commas, line breaks or list
/// numbers (`1. abandon 2. ability`). English prose never runs that long without a word
/// outside the list (`the`, `and`, `of`, `to`, `is` are not in it).
fn mnemonics(text: &str, out: &mut Vec<Range<usize>>) {
    if text.len() < MIN_MNEMONIC_WORDS * 4 {
        return;
    }
    let words = bip39_words();
    let bytes = text.as_bytes();
    let mut run_start: Option<usize> = None;
    let mut run_end = 0;
    let mut count = 0;
    let mut run_words: HashSet<&str> = HashSet::new();
    let mut at = 0;
    // A drawn phrase repeats few words; `word word word …` is not one.
    let close =
        |start: Option<usize>, end: usize, count: usize, distinct: usize, out: &mut Vec<_>| {
            if let Some(start) = start
                && count >= MIN_MNEMONIC_WORDS
                && distinct * 3 >= count * 2
            {
                out.push(start..end);
            }
        };
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_lowercase() {
            let end = at + bytes[at..].iter().take_while(|b| b.is_ascii_lowercase()).count();
            // A word glued to letters of another script, or to a digit, is not a list word.
            let glued = end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || bytes[end] >= 0x80)
                || at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] >= 0x80);
            if !glued && words.contains(&text[at..end]) {
                if run_start.is_none() {
                    run_start = Some(at);
                    count = 0;
                    run_words.clear();
                }
                count += 1;
                run_words.insert(&text[at..end]);
                run_end = end;
            } else {
                close(run_start.take(), run_end, count, run_words.len(), out);
            }
            at = end;
            continue;
        }
        let separator = matches!(c, b' ' | b',' | b'\n' | b'\r' | b'\t' | b'.' | b')')
            || c.is_ascii_digit() && run_start.is_some();
        // A JSON escape of a line break between words (`\n`) separates too.
        let escape = c == b'\\' && matches!(bytes.get(at + 1), Some(b'n' | b'r' | b't'));
        if escape {
            at += 2;
            continue;
        }
        if !separator {
            close(run_start.take(), run_end, count, run_words.len(), out);
        }
        at += 1;
    }
    close(run_start, run_end, count, run_words.len(), out);
}

/// Base58 runs that decode, with a valid double-SHA-256 checksum, to a private key: a WIF key
/// (version 0x80 or 0xef, 32 bytes, optionally the compression flag) or an extended private
/// key (`xprv`, `tprv`, … — 78 bytes).
fn base58_keys(text: &str, out: &mut Vec<Range<usize>>) {
    static RUN: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(run) = regex(&RUN, r"\b[1-9A-HJ-NP-Za-km-z]{50,115}\b") else { return };
    for found in run.find_iter(text) {
        let Ok(bytes) = bs58::decode(found.as_str()).into_vec() else { continue };
        if bytes.len() < 5 {
            continue;
        }
        let (payload, check) = bytes.split_at(bytes.len() - 4);
        if Sha256::digest(Sha256::digest(payload))[..4] != *check {
            continue;
        }
        let wif = matches!(payload[0], 0x80 | 0xef)
            && (payload.len() == 33 || payload.len() == 34 && payload[33] == 0x01);
        // An extended key: 78 bytes; private when the key data starts with a zero byte.
        let extended_private = payload.len() == 78 && payload[45] == 0;
        if wif || extended_private {
            out.push(found.range());
        }
    }
}

/// Bech32 strings with a valid checksum whose human-readable part names a secret key
/// (`nsec1…`, `AGE-SECRET-KEY-1…`, any prefix holding `sec`, `priv` or `sk`).
fn bech32_keys(text: &str, out: &mut Vec<Range<usize>>) {
    static RUN: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(run) =
        regex(&RUN, r"(?i)\b[a-z][a-z0-9\-]{0,30}1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38,}\b")
    else {
        return;
    };
    for found in run.find_iter(text) {
        let candidate = found.as_str();
        let Some(separator) = candidate.rfind('1') else { continue };
        let hrp = candidate[..separator].to_ascii_lowercase();
        if !(hrp.contains("sec") || hrp.contains("priv") || hrp.ends_with("sk")) {
            continue;
        }
        if bech32::decode(candidate).is_ok() {
            out.push(found.range());
        }
    }
}

/// A JSON array of exactly 64 numbers from 0 to 255: a Solana keypair file (the secret key
/// and the public key). The numbers are replaced, the brackets stay.
fn byte_arrays(text: &str, out: &mut Vec<Range<usize>>) {
    // The pattern needs 63 commas; counting them is cheaper than compiling it (64 copies of
    // Unicode digit and space classes) for a text that holds fewer.
    if memchr::memchr_iter(b',', text.as_bytes()).nth(62).is_none() {
        return;
    }
    static ARRAY: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(array) = regex(&ARRAY, r"\[(\s*\d{1,3}\s*(?:,\s*\d{1,3}\s*){63})\]") else {
        return;
    };
    for captures in array.captures_iter(text) {
        let Some(inner) = captures.get(1) else { continue };
        let bytes: Vec<u32> =
            inner.as_str().split(',').filter_map(|n| n.trim().parse().ok()).collect();
        // Random bytes: all within a byte, and not a run such as 0, 1, 2, … or all zeros.
        let distinct: HashSet<&u32> = bytes.iter().collect();
        if bytes.len() == 64 && bytes.iter().all(|&b| b <= 255) && distinct.len() >= 24 {
            out.push(inner.range());
        }
    }
}

/// The private members of a JSON Web Key (`d`, `p`, `q`, `dp`, `dq`, `qi`, and a symmetric
/// key's `k`), in a text that holds a key type (`"kty"`).
fn jwk_members(text: &str, out: &mut Vec<Range<usize>>) {
    if !text.contains("kty") {
        return;
    }
    static MEMBER: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(member) = regex(
        &MEMBER,
        r#"["']?\b(?:d|p|q|dp|dq|qi|k)\\?["']?\s*:\s*\\?["'](?P<secret>[A-Za-z0-9_\-]{16,})"#,
    ) else {
        return;
    };
    for captures in member.captures_iter(text) {
        if let Some(secret) = captures.name("secret") {
            out.push(secret.range());
        }
    }
}

/// Names of digests and encodings that prefix a hash, never a credential.
const DIGEST_PREFIXES: &[&str] = &[
    "sha",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "md5",
    "blake2b",
    "blake2s",
    "blake3",
    "xxh3",
    "crc32",
    "base64",
    "base58",
    "data",
    "integrity",
    "hash",
    "digest",
    "commit",
    "rev",
    "git",
    "oid",
    "object",
    "tree",
    "blob",
    "checksum",
    "build",
    "etag",
    "uuid",
    "guid",
];

/// A token made of a service prefix (letters, optionally a second short part such as `live`
/// or `v2`), a separator (`_`, `-` or `.`) and a long random body of letters and digits in
/// both cases (`qmx_…`, `pplx-…`, `ABCD.…`). The body must look generated: 30 or more
/// characters, upper- and lower-case letters and digits, and high character entropy.
fn prefixed_tokens(text: &str, out: &mut Vec<Range<usize>>) {
    static TOKEN: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(token) = regex(
        &TOKEN,
        r"(?:^|[^A-Za-z0-9_\-.])(?P<secret>(?P<prefix>[A-Za-z][A-Za-z0-9]{1,11}(?:[_\-.][A-Za-z0-9]{1,8}){0,2})[_\-.](?P<body>[A-Za-z0-9][A-Za-z0-9_\-]{23,}))(?:[^A-Za-z0-9_\-.]|\.(?:\s|$)|$)",
    ) else {
        return;
    };
    for captures in token.captures_iter(text) {
        let (Some(secret), Some(prefix), Some(body)) =
            (captures.name("secret"), captures.name("prefix"), captures.name("body"))
        else {
            continue;
        };
        let head =
            prefix.as_str().split(['_', '-']).next().unwrap_or_default().to_ascii_lowercase();
        if DIGEST_PREFIXES.contains(&head.as_str()) {
            continue;
        }
        // The body as the pattern split it, or all that follows the prefix's first part (a
        // base64url body holds `-` and `_`, which the pattern may have taken for the
        // prefix's).
        let rest = secret.as_str().get(head.len() + 1..).unwrap_or_default();
        // A hex body after a constant's name of three parts or more (`NODE_SEA_FUSE_<hex>`)
        // is a marker, not a service's token.
        let hex = body.as_str().bytes().all(|b| b.is_ascii_hexdigit());
        if hex && prefix.as_str().split(['_', '-', '.']).count() > 2 {
            continue;
        }
        if token_body(body.as_str()) || token_body(rest) {
            out.push(secret.range());
        }
    }
}

/// A token body in one of the alphabets services generate: letters of both cases and digits
/// (base62, or base64url with `-` and `_`), 30 characters or more; hexadecimal, 32 digits or
/// more; upper-case letters and digits (Crockford's base32), 24 or more. Each must have the
/// character entropy of a random value in its alphabet.
fn token_body(body: &str) -> bool {
    let letters = body.bytes().filter(u8::is_ascii_alphabetic).count();
    let digits = body.bytes().filter(u8::is_ascii_digit).count();
    if body.len() >= 32 && body.bytes().all(|b| b.is_ascii_hexdigit()) {
        let lower = body.bytes().any(|b| b.is_ascii_lowercase());
        let upper = body.bytes().any(|b| b.is_ascii_uppercase());
        return !(lower && upper) && letters >= 4 && digits >= 4 && entropy(body) >= 3.2;
    }
    if body.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) {
        return body.len() >= 24 && letters >= 6 && digits >= 3 && entropy(body) >= 3.8;
    }
    body.len() >= 30 && !joins_words(body) && generated_body(body)
}

/// An identifier whose parts are joined by `_` or `-` (`X509_VERIFY_PARAM_shift`,
/// `der_oid_sha512_256WithRSAEncryption`): many joints, two parts in lower-case letters, or a
/// part that is a word in one case (`VERIFY`, `shift`, `Pairs`) or made of words
/// (`algorithmIdentifier`). In a base64url body the joints are rare (2 in 64 characters)
/// and the parts are mixed.
pub(super) fn joins_words(body: &str) -> bool {
    let joints = body.bytes().filter(|b| matches!(b, b'_' | b'-')).count();
    if joints == 0 {
        return false;
    }
    let word = |part: &str| {
        let mut chars = part.chars();
        let first = chars.next().unwrap_or('0');
        part.len() >= 4
            && (part.chars().all(|c| c.is_ascii_uppercase())
                || first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_lowercase()))
            || part.len() >= 6
                && first.is_ascii_alphabetic()
                && made_of_words(part)
                && super::shape::word_pair_share(part) >= 0.6
    };
    let lower_parts = body
        .split(['_', '-'])
        .filter(|part| part.len() >= 2 && part.chars().all(|c| c.is_ascii_lowercase()))
        .count();
    joints * 16 > body.len() || lower_parts >= 2 || body.split(['_', '-']).any(word)
}

/// Letters of both cases and digits, high entropy: a generated token body, not a word, a
/// hex digest or a base32 id.
fn generated_body(body: &str) -> bool {
    let upper = body.bytes().filter(u8::is_ascii_uppercase).count();
    let lower = body.bytes().filter(u8::is_ascii_lowercase).count();
    let digits = body.bytes().filter(u8::is_ascii_digit).count();
    upper >= 2
        && lower >= 2
        && digits >= 2
        && !made_of_words(body)
        && looks_random(body)
        && entropy(body) >= 4.0
}

/// An identifier in CamelCase (`xXF86VidModeGetGammaRampSizeReply`,
/// `PointerToPKCS12X509CertCRLTemplate`): capitalised words of three letters or more make up
/// nearly half of it or more (in a generated body they cover about a quarter), or runs of
/// three or more lower-case letters make up half of it.
pub(super) fn made_of_words(body: &str) -> bool {
    let bytes = body.as_bytes();
    let mut words = 0;
    let mut lower_runs = 0;
    let mut at = 0;
    while at < bytes.len() {
        let run = bytes[at + 1..].iter().take_while(|b| b.is_ascii_lowercase()).count();
        if bytes[at].is_ascii_uppercase() && run >= 2 {
            words += run + 1;
            at += run + 1;
            continue;
        }
        if bytes[at].is_ascii_lowercase() {
            let own = run + 1;
            if own >= 3 {
                lower_runs += own;
            }
            at += own;
            continue;
        }
        at += 1;
    }
    words * 100 >= body.len() * 45 || lower_runs * 2 >= body.len()
}

pub(super) fn entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    for byte in value.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let total = value.len() as f64;
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}

/// Path segments and query values of a webhook URL (a path with `hook` in it) that come after
/// the hook segment and look generated: the URL's secret. The host and the path up to the
/// hook stay.
fn webhook_paths(text: &str, out: &mut Vec<Range<usize>>) {
    static URL: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(url) = regex(&URL, r#"(?i)https?://[^\s/"'<>\\]+/[^\s"'<>\\]*hook[^\s"'<>\\]*"#)
    else {
        return;
    };
    for found in url.find_iter(text) {
        let url = found.as_str();
        let Some(hook) = url.to_ascii_lowercase().find("hook") else { continue };
        let mut at = hook;
        for part in url[hook..].split(['/', '?', '&', '=', '@']) {
            let start = at;
            at += part.len() + 1;
            let trimmed = part.trim_end_matches(['.', ',', ')']);
            let alnum = trimmed.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let digits = trimmed.chars().filter(char::is_ascii_digit).count();
            let letters = trimmed.chars().filter(char::is_ascii_alphabetic).count();
            if alnum && trimmed.len() >= 16 && digits >= 2 && letters >= 4 && looks_random(trimmed)
            {
                out.push(found.start() + start..found.start() + start + trimmed.len());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        spans(text).into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn key_material_is_found_by_its_checksum() {
        // A BIP39 test vector (entropy 7f7f…7f).
        let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow";
        assert_eq!(found(&format!("seed: {phrase}.")), [phrase]);
        // The WIF example of the Bitcoin wiki.
        let wif = "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ";
        assert_eq!(found(&format!("key {wif} ok")), [wif]);
        // A changed character breaks the checksum.
        let mut broken = Vec::new();
        base58_keys("key 5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTK ok", &mut broken);
        assert!(broken.is_empty());
        let array: Vec<String> = (0..64).map(|i| ((i * 37 + 11) % 256).to_string()).collect();
        let text = format!("[{}]", array.join(","));
        assert_eq!(found(&text), [&text[1..text.len() - 1]]);
    }

    #[test]
    fn ordinary_text_has_no_key_material() {
        for text in [
            "We need to think about the action plan before we ship the release to every user.",
            "abandon ability able about above absent absorb abstract absurd abuse access",
            "\"integrity\": \"sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXGOVyH1pH5xJvTiDO1Br2SNB8oOw==\"",
            "toolu_01A09q90qw90lq917835lq9 msg_01XFDUDYJgAACzvnptvVoYEL",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            "https://example.com/webhooks/settings/notifications",
            "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
