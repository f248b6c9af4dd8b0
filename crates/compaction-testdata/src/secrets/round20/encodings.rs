//! Round 20 families of encodings: Unicode disguises (fullwidth and mathematical letters,
//! zero-width and soft-hyphen insertions, homoglyph labels), character codes and number bases
//! (octal escapes, decimal byte arrays, binary, base58), and wallet and node key files whose
//! structure says private.

use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::super::families::{B64, Carrier, Family, Made, hex_of};
use super::super::values::{bytes, mnemonic};
use super::{any_pw, user};

/// `form` and, when it differs, its JSON-escaped form (what a tool call's arguments hold).
fn with_escaped(secret: &str, form: String) -> Vec<String> {
    let escaped = serde_json::to_string(&form).unwrap_or_default();
    let escaped = escaped[1..escaped.len().saturating_sub(1).max(1)].to_owned();
    let mut needles = vec![secret.to_owned(), form.clone()];
    if escaped != form {
        needles.push(escaped);
    }
    needles
}

/// Each printable ASCII character as its fullwidth form (`Ａ`, `１`, `＠`).
fn fullwidth(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap_or(c),
            _ => c,
        })
        .collect()
}

/// Letters and digits as mathematical bold (`𝐀`, `𝐚`, `𝟎`); other characters unchanged.
fn math_bold(text: &str) -> String {
    text.chars()
        .map(|c| {
            let code = match c {
                'A'..='Z' => 0x1D400 + (c as u32 - 'A' as u32),
                'a'..='z' => 0x1D41A + (c as u32 - 'a' as u32),
                '0'..='9' => 0x1D7CE + (c as u32 - '0' as u32),
                _ => c as u32,
            };
            char::from_u32(code).unwrap_or(c)
        })
        .collect()
}

/// `text` with `mark` between every two characters.
fn interleave(text: &str, mark: char) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i > 0 {
            out.push(mark);
        }
        out.push(c);
    }
    out
}

/// RFC 4648 base32 without padding.
fn base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    let (mut buffer, mut bits) = (0u32, 0);
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// CRC-16/XMODEM, the checksum of Stellar's keys.
fn crc16_xmodem(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

/// A Stellar secret seed (`S…`, 56 characters).
fn stellar_seed(key: &[u8]) -> String {
    let mut payload = vec![18 << 3];
    payload.extend_from_slice(key);
    let crc = crc16_xmodem(&payload);
    payload.extend_from_slice(&crc.to_le_bytes());
    base32(&payload)
}

/// A BIP32 extended private key (`xprv…` on mainnet, `tprv…` on testnet).
fn extended_private_key(chain: &[u8], key: &[u8], testnet: bool) -> String {
    let mut payload: Vec<u8> =
        if testnet { vec![0x04, 0x35, 0x83, 0x94] } else { vec![0x04, 0x88, 0xAD, 0xE4] };
    payload.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0]);
    payload.extend_from_slice(chain);
    payload.push(0);
    payload.extend_from_slice(key);
    let check = Sha256::digest(Sha256::digest(&payload));
    payload.extend_from_slice(&check[..4]);
    bs58::encode(payload).into_string()
}

pub(super) const FAMILIES: &[Family] = &[
    ("unicode-disguised-passwords-and-labels", |rng| {
        let pw = any_pw(rng);
        let name = user(rng);
        let (form, line) = match rng.below(8) {
            0 => {
                let form = fullwidth(&pw);
                (form.clone(), format!("ｐａｓｓｗｏｒｄ：{form}"))
            }
            1 => {
                let form = fullwidth(&pw);
                (form.clone(), format!("DB_PASSWORD={form}  # pasted from the wiki"))
            }
            2 => {
                let form = math_bold(&pw);
                (form.clone(), format!("𝐏𝐚𝐬𝐬𝐰𝐨𝐫𝐝: {form}"))
            }
            3 => {
                let form = interleave(&pw, '\u{200B}');
                (form.clone(), format!("api_secret: \"{form}\""))
            }
            4 => {
                let form = interleave(&pw, '\u{00AD}');
                (form.clone(), format!("Your new password is {form}"))
            }
            5 => (pw.clone(), format!("p\u{0430}ssw\u{043E}rd = \"{pw}\"")),
            6 => (pw.clone(), format!("user:\u{00A0}{name}\npassword:\u{3000}{pw}")),
            _ => {
                let form = interleave(&pw, '\u{2060}');
                (form.clone(), format!("login {name} / {form}"))
            }
        };
        Made { needles: with_escaped(&pw, form), secret: pw, carrier: Carrier::Text(line) }
    }),
    ("character-codes-and-number-bases", |rng| {
        let pw = any_pw(rng);
        let codes: Vec<String> = pw.bytes().map(|b| b.to_string()).collect();
        let decimal = codes.join(", ");
        let (form, line) = match rng.below(8) {
            0 => {
                let form: String = pw.bytes().map(|b| format!("\\{b:03o}")).collect();
                (form.clone(), format!("export DB_PASS=\"$(printf '{form}')\""))
            }
            1 => (decimal.clone(), format!("password = bytes([{decimal}]).decode()")),
            2 => (
                codes.join(","),
                format!("String dbPass = new String(new byte[]{{{}}}, UTF_8);", codes.join(",")),
            ),
            3 => (decimal.clone(), format!("$env:API_SECRET = -join ([char[]]({decimal}))")),
            4 => {
                let form = pw.bytes().map(|b| format!("{b:08b}")).collect::<Vec<_>>().join(" ");
                (form.clone(), format!("the vault password in binary: {form}"))
            }
            5 => {
                let form = bs58::encode(pw.as_bytes()).into_string();
                (form.clone(), format!("$ echo -n \"$SMTP_PASSWORD\" | base58\n{form}"))
            }
            6 => (decimal.clone(), format!("my $secret = pack(\"C*\", {decimal});")),
            _ => {
                let form: String = pw.chars().map(|c| format!("\\u{{{:x}}}", c as u32)).collect();
                (form.clone(), format!("const token = \"{form}\";"))
            }
        };
        Made { needles: with_escaped(&pw, form), secret: pw, carrier: Carrier::Text(line) }
    }),
    ("wallet-and-node-key-files", |rng| {
        let key = bytes(rng, 32);
        let pick = rng.below(8);
        let (secret, line) = match pick {
            0 => {
                let chain = bytes(rng, 32);
                let xprv = extended_private_key(&chain, &key, rng.chance(0.3));
                (xprv.clone(), format!("Root key: {xprv}\nDerivation path: m/84'/0'/0'"))
            }
            1 => {
                let seed = stellar_seed(&key);
                (
                    seed.clone(),
                    format!("stellar keys add ops --secret-key\n? Enter secret key: {seed}"),
                )
            }
            2 => {
                let private = B64.encode([key.clone(), bytes(rng, 32)].concat());
                let public = B64.encode(bytes(rng, 32));
                (
                    private.clone(),
                    format!(
                        "{{\n  \"address\": \"{}\",\n  \"pub_key\": {{\"type\": \"tendermint/PubKeyEd25519\", \"value\": \"{public}\"}},\n  \"priv_key\": {{\"type\": \"tendermint/PrivKeyEd25519\", \"value\": \"{private}\"}}\n}}",
                        rng.hex(40).to_ascii_uppercase()
                    ),
                )
            }
            3 => {
                let cbor = format!("5820{}", hex_of(&key));
                (
                    cbor.clone(),
                    format!(
                        "{{\n    \"type\": \"PaymentSigningKeyShelley_ed25519\",\n    \"description\": \"Payment Signing Key\",\n    \"cborHex\": \"{cbor}\"\n}}"
                    ),
                )
            }
            4 => {
                let private = bs58::encode([key.clone(), bytes(rng, 32)].concat()).into_string();
                let public = bs58::encode(bytes(rng, 32)).into_string();
                (
                    private.clone(),
                    format!(
                        "{{\"account_id\":\"ops.testnet\",\"public_key\":\"ed25519:{public}\",\"private_key\":\"ed25519:{private}\"}}"
                    ),
                )
            }
            5 => {
                let hrp = bech32::Hrp::parse_unchecked("suiprivkey");
                let data = [vec![0u8], key.clone()].concat();
                let encoded = bech32::encode::<bech32::Bech32>(hrp, &data).unwrap_or_default();
                (
                    encoded.clone(),
                    format!(
                        "$ sui keytool export --key-identity ops\n│ exportedPrivateKey │ {encoded} │"
                    ),
                )
            }
            6 => {
                let seed = format!("0x{}", hex_of(&key));
                let phrase = mnemonic(rng, 12);
                let line = format!(
                    "Secret phrase:       {phrase}\n  Network ID:        substrate\n  Secret seed:       {seed}\n  Public key (hex):  0x{}",
                    rng.hex(64)
                );
                return Made {
                    needles: vec![seed.clone(), phrase],
                    secret: seed,
                    carrier: Carrier::Text(line),
                };
            }
            _ => {
                let json =
                    format!("{{\"Type\":\"secp256k1\",\"PrivateKey\":\"{}\"}}", B64.encode(&key));
                let exported = hex_of(json.as_bytes());
                let line = format!(
                    "$ lotus wallet export f1abjxfbp274xpdqcpuaykwkfb43omjotacm2p3za\n{exported}"
                );
                return Made {
                    needles: vec![exported.clone(), B64.encode(&key)],
                    secret: exported,
                    carrier: Carrier::Text(line),
                };
            }
        };
        Made { needles: vec![secret.clone()], secret, carrier: Carrier::Text(line) }
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_files_have_their_formats() {
        let key = [7u8; 32];
        let seed = stellar_seed(&key);
        assert_eq!((seed.len(), seed.chars().next()), (56, Some('S')));
        let xprv = extended_private_key(&[1u8; 32], &key, false);
        assert!(xprv.starts_with("xprv"));
        let decoded = bs58::decode(&xprv).into_vec().unwrap();
        let (payload, check) = decoded.split_at(decoded.len() - 4);
        assert_eq!(&Sha256::digest(Sha256::digest(payload))[..4], check);
        assert!(extended_private_key(&[1u8; 32], &key, true).starts_with("tprv"));
        assert_eq!(fullwidth("a1!"), "ａ１！");
        assert_eq!(interleave("abc", '-'), "a-b-c");
    }
}
