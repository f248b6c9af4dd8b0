//! Hex key material under a key's name: a run of 32 hex digits or more, holding letters and
//! digits, on a line that names a key, a pre-shared key, a seed or a secret
//! (`wpa_psk 693b4a…`, `KEK=…`, `Recovery Key 1: …`), and names no digest, id, public part
//! or test vector. The name may stand anywhere on the line and be any word holding `key`
//! (`sealing_key`, `master-key`, `Unseal Key`); the rules of the table know a few names only.
//!
//! Invariant: a range covers one whole run of hex digits, never part of a longer word.

use std::ops::Range;

/// Parts of a word on the line that name key material (lower case): the names, and the
/// abbreviations cryptography writes for a key (`kek` key-encryption key, `dek` data key,
/// `mk` master key, `sk` secret key, `kdk` key-derivation key, `priv`, `seck`).
const KEY_NAMES: &[&str] = &[
    "key", "psk", "seed", "secret", "kek", "dek", "cek", "mk", "sk", "kdk", "ek", "hk", "dk",
    "priv", "prv", "seck", "privkey", "seckey",
];

/// Parts of a line that say its hex is a digest, an id, public, or a test's (lower case).
const NOT_KEYS: &[&str] = &[
    "fingerprint",
    "sha",
    "hash",
    "digest",
    "checksum",
    "commit",
    "id",
    "public",
    "pub",
    "cert",
    "md5",
    "test",
    "vector",
    "expect",
    // The integrity key of OpenSSL's FIPS module, published in every build.
    "fips",
];

/// Whether a word of `line`, or a part of one (split at `_`, `-`, `.` and a change from lower
/// to upper case), is one of [`KEY_NAMES`] (`wpa_psk`, `sealingKey`, `Key`; not `keyword`,
/// `--recv-keys`, `monkey`).
fn names_key(line: &str) -> bool {
    let mut part = String::new();
    let mut previous_lower = false;
    for c in line.chars().chain(std::iter::once(' ')) {
        let boundary = !c.is_ascii_alphanumeric() || previous_lower && c.is_ascii_uppercase();
        if boundary {
            if KEY_NAMES.contains(&part.as_str()) {
                return true;
            }
            part.clear();
        }
        if c.is_ascii_alphanumeric() {
            part.push(c.to_ascii_lowercase());
        }
        previous_lower = c.is_ascii_lowercase();
    }
    false
}

/// Ranges of hex runs of 32 digits and more on lines naming key material.
pub(super) fn hex_keys(text: &str, out: &mut Vec<Range<usize>>) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if line.len() < 32 {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        if !names_key(line) || NOT_KEYS.iter().any(|name| lower.contains(name)) {
            continue;
        }
        let bytes = line.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let run_start = at;
            while at < bytes.len() && bytes[at].is_ascii_hexdigit() {
                at += 1;
            }
            if at == run_start {
                at += 1;
                continue;
            }
            let run = &bytes[run_start..at];
            let bounded = (run_start == 0 || !bytes[run_start - 1].is_ascii_alphanumeric())
                && (at == bytes.len() || !bytes[at].is_ascii_alphanumeric());
            if bounded
                && run.len() >= 32
                && run.iter().any(u8::is_ascii_digit)
                && run.iter().any(u8::is_ascii_alphabetic)
            {
                out.push(start + run_start..start + at);
            }
        }
        base64_keys(line, start, out);
    }
}

/// Whether a byte may be part of a base64 word (standard alphabet and padding).
fn is_base64_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
}

/// Base64 of exactly a key's length (16, 24, 32, 48 or 64 bytes) on a line naming key
/// material: a whole word of the base64 alphabet, padded or not, holding upper and lower case
/// letters and digits. Digests and public keys are left by the line's words (see
/// [`NOT_KEYS`]); an SSH or PEM public key is longer than any of these lengths.
fn base64_keys(line: &str, start: usize, out: &mut Vec<Range<usize>>) {
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let run_start = at;
        while at < bytes.len() && is_base64_byte(bytes[at]) {
            at += 1;
        }
        if at == run_start {
            at += 1;
            continue;
        }
        let run = &line[run_start..at];
        let body = run.trim_end_matches('=');
        let padding = run.len() - body.len();
        let decoded = body.len() * 3 / 4;
        let sized = [16, 24, 32, 48, 64].contains(&decoded)
            && padding <= 2
            && (padding == 0 || run.len().is_multiple_of(4))
            && !body.contains('=');
        let mixed = body.bytes().any(|b| b.is_ascii_uppercase())
            && body.bytes().any(|b| b.is_ascii_lowercase())
            && body.bytes().any(|b| b.is_ascii_digit());
        let path = body.starts_with('/') || body.matches('/').count() > 2;
        // Base64 of random bytes, not a name in code (`PKCS12PrivateKeyBagStr`): padded,
        // or holding `+` or `/`, or four digits or more.
        let random = padding > 0
            || body.contains(['+', '/'])
            || body.bytes().filter(u8::is_ascii_digit).count() >= 4;
        // The key's name stands outside the run (`sk` inside base64 names nothing).
        let outside = format!("{} {}", &line[..run_start], &line[at..]);
        if sized
            && mixed
            && random
            && !path
            && names_key(&outside)
            && !body.bytes().all(|b| b.is_ascii_hexdigit())
        {
            out.push(start + run_start..start + run_start + run.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        hex_keys(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    const HEX: &str = "693b4a07b8ada2f3298bcf9b54c286712ccdd059d3a080d4eb26a93b540c4e6a";

    #[test]
    fn hex_key_material_under_a_key_name_is_found() {
        assert_eq!(found(&format!("wpa_psk {HEX}")), [HEX]);
        assert_eq!(found(&format!("sealing_key = \"{HEX}\"")), [HEX]);
        assert_eq!(found(&format!("Recovery Key 1: {HEX}\n")), [HEX]);
        assert_eq!(found(&format!("master-seed \"{}\"", &HEX[..32])), [&HEX[..32]]);
        // Abbreviations of a key's name, and base64 of a key's length.
        assert_eq!(found(&format!("export KDK={HEX}")), [HEX]);
        assert_eq!(found(&format!("  kek = \"{HEX}\"")), [HEX]);
        assert_eq!(found(&format!("seck: {HEX}")), [HEX]);
        let b64 = "q3Jm0Vb8ZpXy7Lk2Nw9Rt5Ua1Ce4Gi6Hj8Ko0Ps2Qu4=";
        assert_eq!(found(&format!("dek: {b64}")), [b64]);
        assert_eq!(found(&format!("<mk>{b64}</mk>")), [b64]);
    }

    #[test]
    fn digests_ids_public_keys_and_short_hex_stay() {
        for line in [
            format!("key fingerprint {HEX}"),
            format!("sha256 of the key file: {HEX}"),
            format!("public_key = {HEX}"),
            format!("key_id: {}", &HEX[..40]),
            format!("let key = hex!(\"{HEX}\"); // test vector"),
            "signing key 0123456789abcdef".to_owned(),
            format!("gpg --recv-keys {}", &HEX[..40]),
            format!("<span class=\"hljs-keyword\">const</span> // {HEX}"),
            format!("#define FIPS_KEY_STRING \"{HEX}\""),
            format!("commit {} (key rotation)", &HEX[..40]),
            format!("key {}", "1234567890".repeat(4)),
            format!("keyword{HEX}"),
            // An abbreviation inside a word, a key's base64 of another length, a public key.
            format!("desk {HEX}"),
            "dek: q3Jm0Vb8ZpXy7Lk2Nw9Rt5Ua1Ce4Gi6Hj8Ko0Ps2Qu4q3Jm0Vb8Z".to_owned(),
            "PublicKey = q3Jm0Vb8ZpXy7Lk2Nw9Rt5Ua1Ce4Gi6Hj8Ko0Ps2Qu4=".to_owned(),
            "key: /usr/lib/x86_64-linux-gnu/libAbc2Def3Gh.so.1.2.3".to_owned(),
            "struct SEC_PKCS12PrivateKeyBagStr {".to_owned(),
            "Qp74iTpVjyiBsdjF8ZbLBX1mGFLjniuZxuzOk/skUaInZ6g4SGw2qy8f0uBbdPxe".to_owned(),
        ] {
            assert!(found(&line).is_empty(), "{line}");
        }
    }
}
