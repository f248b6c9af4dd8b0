//! Made-up secret values: passwords, random tokens, key material with valid checksums.
//!
//! Every value is drawn from the seeded sequence, so the corpus is the same on every run;
//! none of them is a real credential.

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::random::Rng;

/// The official BIP39 English word list (shared with the redaction rules that check it).
const BIP39: &str = include_str!("../../../compaction-core/src/redact/bip39-english.txt");

/// A password a person would choose or a manager would make.
pub(super) fn password(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "Tulip", "orbit", "Granite", "maple", "Falcon", "river", "Copper", "lantern", "Violet",
        "harbor", "Quartz", "meadow", "Cobalt", "ember", "Saffron", "thistle",
    ];
    const SYMBOLS: &[&str] = &["!", "#", "$", "%", "&", "*", "@", "^", "?", "+", "~"];
    match rng.below(4) {
        0 => format!(
            "{}{}{}{}",
            rng.pick(WORDS),
            rng.pick(SYMBOLS),
            rng.range(10, 9999),
            rng.pick(WORDS)
        ),
        1 => {
            let mut out = {
                let n = rng.range(10, 18);
                rng.alphanumeric(n)
            };
            let at = rng.below(out.len());
            let symbol = *rng.pick(SYMBOLS);
            out.insert_str(at, symbol);
            out
        }
        2 => format!("{}-{}-{}", rng.pick(WORDS), rng.pick(WORDS), rng.range(100, 999)),
        _ => {
            let n = rng.range(12, 24);
            rng.alphanumeric(n)
        }
    }
}

/// Random letters and digits (a token body).
pub(super) fn token(rng: &mut Rng, length: usize) -> String {
    rng.alphanumeric(length)
}

/// Random letters and digits, between `low` and `high` of them.
pub(super) fn token_between(rng: &mut Rng, low: usize, high: usize) -> String {
    let length = rng.range(low, high);
    token(rng, length)
}

/// A password of one of the kinds people use, built on `words` (each round of families
/// has its own): a word, a symbol and a number; a generated one with a symbol; words and a
/// number; or letters and digits only.
pub(super) fn chosen_password(rng: &mut Rng, words: &[&str]) -> String {
    match rng.below(4) {
        0 => format!(
            "{}{}{}",
            rng.pick(words),
            rng.pick(&["!", "#", "@", "%", "*", "&", "$"]),
            rng.range(100, 99999)
        ),
        1 => {
            let length = rng.range(12, 18);
            let mut out = rng.alphanumeric(length);
            let at = rng.range(1, length - 1);
            out.insert(at, *rng.pick(&['!', '#', '%', '+', '=', '?', '@', '^']));
            out.push(char::from(b"23456789"[rng.below(8)]));
            out
        }
        2 => {
            let first = *rng.pick(words);
            let second = rng.pick(words).to_ascii_lowercase();
            let sep = *rng.pick(&["-", ".", "_"]);
            format!("{first}{sep}{second}{sep}{}", rng.range(10, 9999))
        }
        _ => {
            let length = rng.range(14, 22);
            let mut out = rng.alphanumeric(length);
            out.push(char::from(b"23456789"[rng.below(8)]));
            out
        }
    }
}

/// A password made of a word and digits only (`walnut2024`, `Harbor1987`): what only a name
/// or a context can tell from an ordinary value.
pub(super) fn word_and_digits(rng: &mut Rng, words: &[&str]) -> String {
    let word = *rng.pick(words);
    let word = if rng.chance(0.5) { word.to_ascii_lowercase() } else { word.to_owned() };
    format!("{word}{}", rng.range(10, 9999))
}

/// A password people choose, built on `words`: [`chosen_password`] half the time,
/// [`word_and_digits`] the other half.
pub(super) fn any_password(rng: &mut Rng, words: &[&str]) -> String {
    if rng.chance(0.5) { chosen_password(rng, words) } else { word_and_digits(rng, words) }
}

/// A random token ([`bare_token`]) half the time, a password people choose on `words`
/// ([`any_password`]) the other half.
pub(super) fn any_secret(rng: &mut Rng, words: &[&str]) -> String {
    if rng.chance(0.5) { bare_token(rng) } else { any_password(rng, words) }
}

/// A random API token with no prefix: 28 to 40 letters and digits, ending in a digit.
pub(super) fn bare_token(rng: &mut Rng) -> String {
    let mut out = token_between(rng, 28, 40);
    out.push(char::from(b"23456789"[rng.below(8)]));
    out
}

/// Random bytes.
pub(super) fn bytes(rng: &mut Rng, length: usize) -> Vec<u8> {
    (0..length).map(|_| rng.below(256) as u8).collect()
}

/// Base64 (standard alphabet) of `length` random bytes.
pub(super) fn base64_bytes(rng: &mut Rng, length: usize) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes(rng, length))
}

/// Base64url without padding of `length` random bytes (JWK members).
pub(super) fn base64url_bytes(rng: &mut Rng, length: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes(rng, length))
}

/// Characters drawn from `alphabet`, `length` of them.
pub(super) fn from_alphabet(rng: &mut Rng, alphabet: &[u8], length: usize) -> String {
    (0..length).map(|_| char::from(alphabet[rng.below(alphabet.len())])).collect()
}

/// An AWS-style 40-character secret access key.
pub(super) fn secret_key40(rng: &mut Rng) -> String {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    from_alphabet(rng, CHARS, 40)
}

/// A random lower-case prefix of a made-up service (`qmx`, `trelo`).
pub(super) fn prefix(rng: &mut Rng) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let length = rng.range(2, 6);
    from_alphabet(rng, LETTERS, length)
}

/// A UUID-shaped random value.
pub(super) fn uuid(rng: &mut Rng) -> String {
    format!("{}-{}-4{}-a{}-{}", rng.hex(8), rng.hex(4), rng.hex(3), rng.hex(3), rng.hex(12))
}

/// A BIP39 mnemonic of `words` words (12 or 24) with a valid checksum.
pub(super) fn mnemonic(rng: &mut Rng, words: usize) -> String {
    let list: Vec<&str> = BIP39.lines().collect();
    let entropy_bytes = words * 4 / 3;
    let entropy = bytes(rng, entropy_bytes);
    let checksum = Sha256::digest(&entropy);
    let mut bits: Vec<bool> = Vec::new();
    for byte in entropy.iter().chain(checksum.iter()) {
        for shift in (0..8).rev() {
            bits.push(byte >> shift & 1 == 1);
        }
    }
    (0..words)
        .map(|word| {
            let index = bits[word * 11..word * 11 + 11]
                .iter()
                .fold(0usize, |acc, &bit| acc << 1 | usize::from(bit));
            list[index]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Bitcoin private key in wallet import format (mainnet or testnet, compressed or not).
pub(super) fn wif(rng: &mut Rng) -> String {
    let mut payload = vec![if rng.chance(0.8) { 0x80 } else { 0xef }];
    payload.extend(bytes(rng, 32));
    if rng.chance(0.7) {
        payload.push(0x01);
    }
    let check = Sha256::digest(Sha256::digest(&payload));
    payload.extend_from_slice(&check[..4]);
    bs58::encode(payload).into_string()
}

/// A bech32 private key (`nsec1…`, Nostr).
pub(super) fn nsec(rng: &mut Rng) -> String {
    let hrp = bech32::Hrp::parse_unchecked("nsec");
    bech32::encode::<bech32::Bech32>(hrp, &bytes(rng, 32)).unwrap_or_default()
}

/// A Solana keypair file: a JSON array of 64 byte values.
pub(super) fn solana_keypair(rng: &mut Rng) -> String {
    let values: Vec<String> = bytes(rng, 64).iter().map(u8::to_string).collect();
    format!("[{}]", values.join(","))
}

/// Base64 body lines of a PEM block (`lines` lines of 64 characters).
pub(super) fn pem_body(rng: &mut Rng, lines: usize) -> Vec<String> {
    let body = base64::engine::general_purpose::STANDARD.encode(bytes(rng, lines * 48));
    body.as_bytes().chunks(64).map(|chunk| String::from_utf8_lossy(chunk).into_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_material_has_valid_checksums() {
        let mut rng = Rng(7);
        let key = wif(&mut rng);
        let decoded = bs58::decode(&key).into_vec().unwrap();
        let (payload, check) = decoded.split_at(decoded.len() - 4);
        assert_eq!(&Sha256::digest(Sha256::digest(payload))[..4], check);
        let nsec = nsec(&mut rng);
        assert_eq!(bech32::decode(&nsec).unwrap().1.len(), 32);
        assert_eq!(mnemonic(&mut rng, 12).split(' ').count(), 12);
        assert_eq!(BIP39.lines().count(), 2048);
    }
}
