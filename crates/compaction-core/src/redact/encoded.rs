//! Secrets hidden in base64: a run of base64 that decodes to text holding a secret
//! (`user:password` as in a Basic header or Docker's `auth`, a private key as in a
//! kubeconfig's `client-key-data`, a `.env` file) is itself a secret. Compressed text is
//! inflated first: a gzip member (`H4sI…` in base64, Helm's release secrets, cloud-init's
//! `gz+b64`), a zlib stream (`eJ…`, `\x789c…`) or raw deflate, once, up to 256 KiB.
//!
//! Invariant: only text is looked into (the decoded bytes must be UTF-8 without control
//! characters other than whitespace), and decoding never nests.

/// Longest run decoded (a 4096-bit private key in PEM is about 3.3 KiB of base64 twice over).
const MAX_ENCODED: usize = 64 * 1024;

/// Hexadecimal (an even number of digits, optionally after `0x`), decoded.
fn decode_hex(value: &str) -> Option<Vec<u8>> {
    let value = value.strip_prefix("0x").unwrap_or(value);
    if !value.len().is_multiple_of(2) || value.len() > MAX_ENCODED {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16);
    value
        .as_bytes()
        .chunks(2)
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

/// Standard or URL-safe base64, padded or not, decoded.
fn decode(value: &str) -> Option<Vec<u8>> {
    if value.len() > MAX_ENCODED || value.len() % 4 == 1 {
        return None;
    }
    let mut padded = value.to_owned();
    while !padded.len().is_multiple_of(4) {
        padded.push('=');
    }
    let bytes = padded.as_bytes();
    let digit = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        let mut word = 0u32;
        for &c in &chunk[..4 - pad] {
            word = (word << 6) | digit(c)?;
        }
        word <<= 6 * pad as u32;
        let three = [(word >> 16) as u8, (word >> 8) as u8, word as u8];
        out.extend_from_slice(&three[..3 - pad.min(2)]);
    }
    Some(out)
}

/// Whether `value` decodes to text in which the rules find a secret, or to `user:password`.
pub(super) fn decodes_to_secret(value: &str, depth: u8) -> bool {
    let hex = value.strip_prefix("0x").unwrap_or(value);
    if hex.len() >= 16
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
        && let Some(bytes) = decode_hex(value)
        && text_holds_secret(&bytes, depth)
    {
        return true;
    }
    let base32 = value.trim_end_matches('=');
    if base32.len() >= 16
        && base32.bytes().all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
        && let Some(bytes) = decode_base32(base32)
        && text_holds_secret(&bytes, depth)
    {
        return true;
    }
    decode(value).is_some_and(|bytes| text_holds_secret(&bytes, depth))
}

/// RFC 4648 base32 (upper case, padding already trimmed), as `base32 -d` reads it.
fn decode_base32(value: &str) -> Option<Vec<u8>> {
    if value.len() > MAX_ENCODED || matches!(value.len() % 8, 1 | 3 | 6) {
        return None;
    }
    let mut out = Vec::with_capacity(value.len() * 5 / 8);
    let (mut buffer, mut bits) = (0u64, 0u32);
    for c in value.bytes() {
        let digit = match c {
            b'A'..=b'Z' => c - b'A',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        };
        buffer = (buffer << 5) | u64::from(digit);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Whether decoded bytes are text in which the rules find a secret, or `user:password`.
/// Text: UTF-8 without control characters other than whitespace; an SMTP `AUTH PLAIN`
/// credential (`\0user\0password`) counts, its NULs read as separators.
fn text_holds_secret(bytes: &[u8], depth: u8) -> bool {
    match inflate(bytes) {
        Some(inflated) => inflated_holds_secret(&inflated, depth),
        None => inflated_holds_secret(bytes, depth),
    }
}

/// [`text_holds_secret`] once any compression is undone (inflating never nests).
fn inflated_holds_secret(bytes: &[u8], depth: u8) -> bool {
    if let Some(text) = utf16_text(bytes) {
        return !text.chars().any(|c| c.is_control() && !c.is_whitespace())
            && super::holds_secret(&text, depth);
    }
    let Ok(text) = std::str::from_utf8(bytes) else { return false };
    if let Some(rest) = text.strip_prefix('\0').or_else(|| text.split_once('\0').map(|(_, r)| r))
        && let Some((user, password)) = rest.split_once('\0')
        && !user.is_empty()
        && !user.chars().any(char::is_control)
        && password.len() >= 4
        && !password.contains('\0')
        && !password.chars().any(char::is_control)
    {
        return true;
    }
    if text.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return false;
    }
    is_user_password(text) || super::holds_secret(text, depth)
}

/// Longest text inflated from a compressed stream.
const MAX_INFLATED: u64 = 256 * 1024;

/// Bytes compressed by gzip (`1f 8b 08`, what `H4sI` begins in base64) or as a zlib stream
/// (`78 01`, `78 5e`, `78 9c`, `78 da`: `eJ` in base64), inflated; or raw deflate (no header:
/// JWE's `"zip": "DEF"`, SAML redirects) when the bytes are not text and inflate to text.
/// `None` when they are not a stream or do not inflate whole.
fn inflate(bytes: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read as _;
    if bytes.len() < 8 {
        return None;
    }
    let mut out = Vec::new();
    let read = if bytes.starts_with(&[0x1f, 0x8b, 0x08]) {
        flate2::read::GzDecoder::new(bytes).take(MAX_INFLATED).read_to_end(&mut out)
    } else if bytes[0] == 0x78 && u16::from_be_bytes([bytes[0], bytes[1]]).is_multiple_of(31) {
        flate2::read::ZlibDecoder::new(bytes).take(MAX_INFLATED).read_to_end(&mut out)
    } else if std::str::from_utf8(bytes).is_err() && utf16_text(bytes).is_none() {
        let read =
            flate2::read::DeflateDecoder::new(bytes).take(MAX_INFLATED).read_to_end(&mut out);
        // Random bytes often inflate to a few bytes of anything: only text counts.
        if read.is_err() || std::str::from_utf8(&out).is_err() {
            return None;
        }
        read
    } else {
        return None;
    };
    (read.is_ok() && !out.is_empty()).then_some(out)
}

/// Bytes that are UTF-16 little-endian text (what PowerShell's `-EncodedCommand` and much of
/// Windows write), decoded: an even length, and a zero high byte in most characters.
fn utf16_text(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 8 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units: Vec<u16> =
        bytes.chunks(2).map(|pair| u16::from_le_bytes([pair[0], pair[1]])).collect();
    let narrow = units.iter().filter(|&&unit| unit < 0x100 && unit != 0).count();
    if narrow * 10 < units.len() * 9 {
        return None;
    }
    String::from_utf16(&units).ok()
}

/// `user:password` (a Basic credential): one colon, no spaces, a password of 4 or more
/// characters, and not a URL, a time or a `key:value` of words.
fn is_user_password(text: &str) -> bool {
    let Some((user, password)) = text.trim_end().split_once(':') else { return false };
    let plain = |part: &str| !part.is_empty() && !part.chars().any(char::is_whitespace);
    plain(user)
        && plain(password)
        && user.len() <= 128
        && password.len() >= 4
        && !password.starts_with("//")
        && !password.contains(':')
        && !(user.chars().all(|c| c.is_ascii_digit())
            && password.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base32() {
        assert_eq!(decode_base32("MFRGGZDFMZTWQ2LK").as_deref(), Some(&b"abcdefghij"[..]));
        assert_eq!(decode_base32("MFRGG").as_deref(), Some(&b"abc"[..]));
        assert!(decodes_to_secret("OBQXG43XN5ZGIPKGMFWGG33OIA4TGNZZINXXA4DFOI======", 1));
        assert!(!decodes_to_secret("JBSWY3DPEHPK3PXP", 1));
    }

    #[test]
    fn decodes_padded_base64() {
        assert_eq!(decode("YWRtaW46aHVudGVyMg==").as_deref(), Some(&b"admin:hunter2"[..]));
        assert_eq!(decode("YWJj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(decode("YWI="), Some(b"ab".to_vec()));
        assert_eq!(decode("YWJ"), Some(b"ab".to_vec()));
        assert_eq!(decode("YWJjZ"), None);
    }

    #[test]
    fn compressed_text_is_inflated() {
        use std::io::Write as _;
        let env = b"DB_HOST=db1\nDB_PASSWORD=Tr0ub4dor-9k\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(env).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(inflate(&gz).as_deref(), Some(&env[..]));
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zlib.write_all(env).unwrap();
        assert_eq!(inflate(&zlib.finish().unwrap()).as_deref(), Some(&env[..]));
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        raw.write_all(env).unwrap();
        assert_eq!(inflate(&raw.finish().unwrap()).as_deref(), Some(&env[..]));
        // Text and random bytes are not streams.
        assert_eq!(inflate(b"hello world, this is text"), None);
        assert!(!text_holds_secret(&[0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4, 5, 6, 7], 1));
    }

    #[test]
    fn credentials_inside_base64_are_found() {
        assert!(decodes_to_secret("YWRtaW46aHVudGVyMg==", 0));
        // `DB_PASSWORD=Tr0ub4dor-9k` as a line of a `.env` file.
        assert!(decodes_to_secret("REJfUEFTU1dPUkQ9VHIwdWI0ZG9yLTlrCg==", 0));
        // Text without a secret, and binary data.
        assert!(!decodes_to_secret("aGVsbG8gd29ybGQgaG93IGFyZSB5b3U=", 0));
        assert!(!decodes_to_secret("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", 0));
    }
}
