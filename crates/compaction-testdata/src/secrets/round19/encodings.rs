//! Round 19 families of encodings: Ascii85, Base85, uuencode and base32hex blobs, trivially
//! obfuscated literals (rot13, reversed, shifted by one), passwords spelled out character by
//! character, UTF-16 text seen as bytes, and provider tokens with 2025–2026 prefixes.

use super::super::families::{Carrier, Family, Made, hex_of, pick_line};
use super::super::values::bare_token;
use super::{chosen_pw, user, word_pw};
use crate::random::Rng;

/// `form` and, when it differs, its JSON-escaped form (what a tool call's arguments hold).
fn with_escaped(pw: &str, form: String) -> Vec<String> {
    let escaped = serde_json::to_string(&form).unwrap_or_default();
    let escaped = escaped[1..escaped.len().saturating_sub(1).max(1)].to_owned();
    let mut needles = vec![pw.to_owned(), form.clone()];
    if escaped != form {
        needles.push(escaped);
    }
    needles
}

/// Adobe's Ascii85 (`<~…~>`), or with `alphabet` another Base85 (Python's `b85encode`, Git's).
fn base85(bytes: &[u8], alphabet: Option<&[u8; 85]>) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(4) {
        let mut group = [0u8; 4];
        group[..chunk.len()].copy_from_slice(chunk);
        let mut value = u32::from_be_bytes(group);
        if alphabet.is_none() && chunk.len() == 4 && value == 0 {
            out.push('z');
            continue;
        }
        let mut digits = [0u8; 5];
        for digit in digits.iter_mut().rev() {
            *digit = (value % 85) as u8;
            value /= 85;
        }
        for &digit in &digits[..chunk.len() + 1] {
            out.push(match alphabet {
                Some(table) => char::from(table[usize::from(digit)]),
                None => char::from(digit + 33),
            });
        }
    }
    out
}

/// Python's and Git's Base85 alphabet (RFC 1924's characters).
const B85: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/// The lines of a uuencoded file.
fn uuencode(bytes: &[u8]) -> String {
    let symbol = |six: u8| if six == 0 { '`' } else { char::from(six + 32) };
    let mut lines = Vec::new();
    for line in bytes.chunks(45) {
        let mut out = String::new();
        out.push(char::from(32 + line.len() as u8));
        for triple in line.chunks(3) {
            let mut group = [0u8; 3];
            group[..triple.len()].copy_from_slice(triple);
            out.push(symbol(group[0] >> 2));
            out.push(symbol(((group[0] & 3) << 4) | (group[1] >> 4)));
            out.push(symbol(((group[1] & 15) << 2) | (group[2] >> 6)));
            out.push(symbol(group[2] & 63));
        }
        lines.push(out);
    }
    lines.join("\n")
}

/// Base32 with the extended hex alphabet (`0-9A-V`), padded.
fn base32hex(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHIJKLMNOPQRSTUV";
    let mut out = String::new();
    for chunk in bytes.chunks(5) {
        let mut group = [0u8; 5];
        group[..chunk.len()].copy_from_slice(chunk);
        let value = group.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let symbols = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < symbols {
                out.push(char::from(ALPHABET[((value >> (35 - 5 * i)) & 31) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn rot13(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' => char::from((c as u8 - b'a' + 13) % 26 + b'a'),
            'A'..='Z' => char::from((c as u8 - b'A' + 13) % 26 + b'A'),
            _ => c,
        })
        .collect()
}

/// A provider-like token with one of the prefixes services adopted in 2025–2026.
fn new_prefix_token(rng: &mut Rng) -> String {
    let length = rng.range(32, 56);
    match rng.below(12) {
        0 => format!("xai-{}", rng.alphanumeric(length + 20)),
        1 => format!("gsk_{}", rng.alphanumeric(52)),
        2 => format!("pplx-{}", rng.alphanumeric(length)),
        3 => format!("r8_{}", rng.alphanumeric(37)),
        4 => format!("nvapi-{}-{}", rng.alphanumeric(32), rng.alphanumeric(31)),
        5 => format!("tvly-dev-{}", rng.alphanumeric(32)),
        6 => format!("csk-{}", rng.alphanumeric(48).to_ascii_lowercase()),
        7 => format!("sk-or-v1-{}", rng.hex(64)),
        8 => format!("ntn_{}", rng.alphanumeric(46)),
        9 => format!("sbp_{}", rng.hex(40)),
        10 => format!("fw_{}", rng.alphanumeric(24)),
        _ => format!("lsv2_pt_{}_{}", rng.hex(32), rng.hex(10)),
    }
}

pub(super) const FAMILIES: &[Family] = &[
    ("ascii85-uuencode-and-base32hex-blobs", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { bare_token(rng) };
        let name = user(rng);
        let config = format!("DB_USER={name}\nDB_PASSWORD={pw}\n");
        let (blob, line) = match rng.below(6) {
            0 => {
                let blob = base85(config.as_bytes(), None);
                (
                    blob.clone(),
                    format!(
                        "$ python3 -c 'import base64,sys; print(base64.a85encode(open(\".env\",\"rb\").read(), adobe=True).decode())'\n<~{blob}~>"
                    ),
                )
            }
            1 => {
                let blob = base85(config.as_bytes(), Some(B85));
                (
                    blob.clone(),
                    format!(
                        "ENV_B85 = \"{blob}\"\nos.environ.update(dict(l.split('=', 1) for l in base64.b85decode(ENV_B85).decode().splitlines()))"
                    ),
                )
            }
            2 => {
                let blob = uuencode(config.as_bytes());
                (blob.clone(), format!("$ uuencode .env .env\nbegin 644 .env\n{blob}\n`\nend"))
            }
            3 => {
                let blob = base32hex(config.as_bytes());
                (blob.clone(), format!("$ basenc --base32hex .env\n{blob}"))
            }
            4 => {
                let blob = base85(pw.as_bytes(), None);
                (blob.clone(), format!("/Password (<~{blob}~>) % ascii85 in the PDF form field"))
            }
            _ => {
                let blob = base85(pw.as_bytes(), Some(B85));
                (blob.clone(), format!("api_key_b85: \"{blob}\"  # base64.b85decode"))
            }
        };
        Made { needles: with_escaped(&pw, blob), secret: pw, carrier: Carrier::Text(line) }
    }),
    ("trivially-obfuscated-literals", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let reversed: String = pw.chars().rev().collect();
        let rotated = rot13(&pw);
        let shifted: String = pw.chars().map(|c| char::from(c as u8 + 1)).collect();
        let (form, line) = match rng.below(8) {
            0 => (rotated.clone(), format!("DB_PASS = codecs.decode('{rotated}', 'rot_13')")),
            1 => (
                rotated.clone(),
                format!("export SMTP_PASSWORD=$(echo '{rotated}' | tr 'A-Za-z' 'N-ZA-Mn-za-m')"),
            ),
            2 => (
                reversed.clone(),
                format!("const apiSecret = \"{reversed}\".split(\"\").reverse().join(\"\");"),
            ),
            3 => (reversed.clone(), format!("$password = strrev('{reversed}');")),
            4 => (reversed.clone(), format!("password = '{reversed}'[::-1]")),
            5 => (reversed.clone(), format!("export VAULT_PASS=\"$(echo '{reversed}' | rev)\"")),
            6 => (
                shifted.clone(),
                format!(
                    "secret = ''.join(chr(ord(c) - 1) for c in '{}')",
                    shifted.replace('\'', "\\'")
                ),
            ),
            _ => (
                rotated.clone(),
                format!("# rot13 so it isn't in plain text\nadmin_password: \"{rotated}\""),
            ),
        };
        Made { needles: with_escaped(&pw, form), secret: pw, carrier: Carrier::Text(line) }
    }),
    ("passwords-spelled-out-character-by-character", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let chars: Vec<String> = pw.chars().map(String::from).collect();
        let (form, line) = match rng.below(7) {
            0 => {
                let form = chars.join(" ");
                (form.clone(), format!("password (spelled out, no spaces): {form}"))
            }
            1 => {
                let form = chars.join("-");
                (form.clone(), format!("ok so the wifi pass is {form}"))
            }
            2 => {
                let form = chars.join(", ");
                (form.clone(), format!("Read me back the letters of the admin password: {form}."))
            }
            3 => {
                let form = chars.join("\n");
                (form.clone(), format!("Passwort, ein Zeichen pro Zeile:\n{form}"))
            }
            4 => {
                let form = chars.join(" · ");
                (form.clone(), format!("Kennwort zum Diktieren: {form}"))
            }
            5 => {
                let form = chars.join(" ");
                (
                    form.clone(),
                    format!("[support] Your one-time login code: {form} (type without spaces)"),
                )
            }
            _ => {
                let form = chars.iter().map(|c| format!("[{c}]")).collect::<Vec<_>>().join("");
                (form.clone(), format!("pwd = {form}"))
            }
        };
        Made { needles: with_escaped(&pw, form), secret: pw, carrier: Carrier::Text(line) }
    }),
    ("utf16-text-seen-as-bytes", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let units =
            |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let bytes = units(&pw);
        let (form, line) = match rng.below(6) {
            0 => {
                let form: String = pw.chars().map(|c| format!("{c}^@")).collect();
                (form.clone(), format!("$ cat -v creds.txt\n{}{form}", "D^@B^@_^@P^@A^@S^@S^@=^@"))
            }
            1 => {
                let form = bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(",");
                (
                    form.clone(),
                    format!(
                        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Acme\\Agent]\n\"ServicePassword\"=hex(2):{form},00,00"
                    ),
                )
            }
            2 => {
                let form: String = pw.chars().map(|c| format!("{c}\\x00")).collect();
                (form.clone(), format!(">>> open('secret.txt','rb').read()\nb'\\xff\\xfe{form}'"))
            }
            3 => {
                let form: String = pw.chars().map(|c| format!("{c}\\u0000")).collect();
                (form.clone(), format!("{{\"field\": \"password\", \"raw\": \"{form}\"}}"))
            }
            4 => {
                let form = hex_of(&bytes);
                (form.clone(), format!("SELECT CONVERT(NVARCHAR(100), 0x{form}) AS sa_password;"))
            }
            _ => {
                let form: String = pw.chars().map(|c| format!("{c}.")).collect();
                let hex = bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
                (form.clone(), format!("$ xxd -g1 pass.utf16\n00000000: {hex}  {form}"))
            }
        };
        Made { needles: with_escaped(&pw, form), secret: pw, carrier: Carrier::Text(line) }
    }),
    ("provider-tokens-with-2026-prefixes", |rng| {
        let tok = new_prefix_token(rng);
        let line = pick_line(
            rng,
            vec![
                format!("export XAI_API_KEY={tok}"),
                format!("curl https://api.example.ai/v1/chat -H \"Authorization: Bearer {tok}\""),
                format!(
                    "client = OpenAI(base_url=\"https://router.example.ai/v1\", api_key=\"{tok}\")"
                ),
                format!(
                    "{{\"mcpServers\": {{\"search\": {{\"command\": \"npx\", \"args\": [\"-y\", \"search-mcp\"], \"env\": {{\"SEARCH_KEY\": \"{tok}\"}}}}}}}}"
                ),
                format!("here's my key, can you check why it 401s? {tok}"),
                format!("llm keys set groq --value {tok}"),
                format!("[providers.fast]\nbase = \"https://api.example.com\"\nkey = \"{tok}\""),
                format!("Error: 401 Unauthorized (key {tok} revoked?)"),
            ],
        );
        super::super::families::text(tok, line)
    }),
];
