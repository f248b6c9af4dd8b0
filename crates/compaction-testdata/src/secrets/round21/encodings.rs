//! Round 21 families of encodings: gzip, zlib and raw deflate behind base64 or hex, text
//! encodings no earlier family used (UTF-7, base45, Z85, `certutil` and `openssl` blocks
//! wrapped at a line width), and secrets read out of memory and debugger dumps.

use std::io::Write as _;

use base64::Engine as _;
use flate2::Compression;

use super::super::families::{B64, B64URL, Carrier, Family, Made, hex_of, pick_line, text};
use super::{any_pw, any_secret, host, user};

/// `data` compressed as a gzip member (no name, time 0: the same bytes on every run).
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// `data` compressed as a zlib stream.
fn zlib(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), Compression::default());
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// `data` compressed as raw deflate (no header).
fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), Compression::default());
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// A made secret whose needles are the secret and each encoded form.
fn made(secret: String, forms: Vec<String>, line: String) -> Made {
    let mut needles = vec![secret.clone()];
    needles.extend(forms);
    Made { needles, secret, carrier: Carrier::Text(line) }
}

/// `text` cut into lines of `width` characters.
fn wrap(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("\n")
}

/// RFC 9285 base45.
fn base45(data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:";
    let mut out = String::new();
    for pair in data.chunks(2) {
        let (mut n, digits) = match pair {
            [a, b] => (usize::from(*a) * 256 + usize::from(*b), 3),
            [a] => (usize::from(*a), 2),
            _ => (0, 0),
        };
        for _ in 0..digits {
            out.push(char::from(ALPHABET[n % 45]));
            n /= 45;
        }
    }
    out
}

/// ZeroMQ's Z85 of `data` (padded with newlines to a multiple of four bytes).
fn z85(data: &[u8]) -> String {
    const ALPHABET: &[u8] =
        b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    let mut bytes = data.to_vec();
    while !bytes.len().is_multiple_of(4) {
        bytes.push(b'\n');
    }
    let mut out = String::new();
    for word in bytes.chunks(4) {
        let mut n = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        let mut five = [0u8; 5];
        for slot in five.iter_mut().rev() {
            *slot = ALPHABET[(n % 85) as usize];
            n /= 85;
        }
        out.extend(five.iter().map(|b| char::from(*b)));
    }
    out
}

/// UTF-7 with every character in one shifted run (`+AHAAYQ…-`), as encoders that shift
/// everything but letters write a password's symbols.
fn utf7(text: &str) -> String {
    let units: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let body = base64::engine::general_purpose::STANDARD_NO_PAD.encode(units);
    format!("+{body}-")
}

pub(super) const FAMILIES: &[Family] = &[
    ("gzip-zlib-and-deflate-behind-base64", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let config = format!("DB_HOST={at}\nDB_USER={name}\nDB_PASSWORD={secret}\n");
        let json = format!("{{\"user\":\"{name}\",\"password\":\"{secret}\",\"host\":\"{at}\"}}");
        match rng.below(8) {
            0 => {
                let blob = B64.encode(gzip(config.as_bytes()));
                made(secret, vec![blob.clone()], format!("LEDGER_ENV_GZ={blob}"))
            }
            1 => {
                let inner = B64.encode(gzip(json.as_bytes()));
                let outer = B64.encode(inner.as_bytes());
                let line = format!(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sh.helm.release.v1.ledger.v3\n  labels:\n    owner: helm\ntype: helm.sh/release.v1\ndata:\n  release: {outer}"
                );
                made(secret, vec![outer, inner], line)
            }
            2 => {
                let blob = B64.encode(zlib(json.as_bytes()));
                let line = format!(
                    "import base64, zlib\ncfg = json.loads(zlib.decompress(base64.b64decode(\"{blob}\")))"
                );
                made(secret, vec![blob], line)
            }
            3 => {
                let blob = B64URL.encode(deflate(json.as_bytes()));
                let line = format!(
                    "{{\"alg\":\"dir\",\"enc\":\"A256GCM\",\"zip\":\"DEF\"}}\npayload (deflated, base64url): {blob}"
                );
                made(secret, vec![blob], line)
            }
            4 => {
                let blob = B64.encode(gzip(config.as_bytes()));
                let line = format!(
                    "#cloud-config\nwrite_files:\n- path: /etc/ledger/env\n  encoding: gz+b64\n  permissions: '0600'\n  content: {blob}"
                );
                made(secret, vec![blob], line)
            }
            5 => {
                let blob = B64.encode(gzip(config.as_bytes()));
                let line = format!("$ echo '{blob}' | base64 -d | gunzip > /etc/ledger/env");
                made(secret, vec![blob], line)
            }
            6 => {
                let blob = hex_of(&zlib(json.as_bytes()));
                let line = format!(
                    "ledger=# SELECT name, payload FROM settings_blob;\n  name  |  payload\n--------+----------\n {name} | \\x{blob}\n(1 row)"
                );
                made(secret, vec![blob], line)
            }
            _ => {
                let blob = B64.encode(gzip(json.as_bytes()));
                let wrapped = wrap(&blob, 76);
                let line = format!(
                    "Content-Type: application/json\nContent-Encoding: gzip\nContent-Transfer-Encoding: base64\n\n{wrapped}"
                );
                made(secret, vec![blob], line)
            }
        }
    }),
    ("text-encodings-not-yet-seen", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let plain = format!("user={name}\npassword={secret}\n");
        match rng.below(7) {
            0 => {
                let form = utf7(&secret);
                let line = format!(
                    "Content-Type: text/plain; charset=UTF-7\n\nLogin for {at}: {name} / {form}"
                );
                made(secret, vec![form], line)
            }
            1 => {
                let form = base45(plain.as_bytes());
                made(secret, vec![form.clone()], format!("QR payload (base45): {form}"))
            }
            2 => {
                let form = z85(plain.as_bytes());
                made(
                    secret,
                    vec![form.clone()],
                    format!("# Z85-encoded credentials\ncreds_z85 = \"{form}\""),
                )
            }
            3 => {
                let blob = B64.encode(plain.as_bytes());
                let line = format!(
                    "C:\\> certutil -encode creds.txt creds.b64\nC:\\> type creds.b64\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----",
                    wrap(&blob, 64)
                );
                made(secret, vec![blob], line)
            }
            4 => {
                let blob = B64.encode(
                    format!("{{\"host\":\"{at}\",\"user\":\"{name}\",\"password\":\"{secret}\"}}")
                        .as_bytes(),
                );
                let line = format!("$ openssl enc -base64 -in creds.json\n{}", wrap(&blob, 64));
                made(secret, vec![blob], line)
            }
            5 => {
                let units: Vec<u8> = plain.encode_utf16().flat_map(u16::to_le_bytes).collect();
                let blob = B64.encode(units);
                let line = format!(
                    "PS> [Convert]::ToBase64String([Text.Encoding]::Unicode.GetBytes((Get-Content creds.txt -Raw)))\n{blob}"
                );
                made(secret, vec![blob], line)
            }
            _ => {
                let form: String = secret.bytes().map(|b| format!("%u00{b:02X}")).collect();
                let line = format!("GET /login?u={name}&p={form} HTTP/1.1\nHost: {at}");
                made(secret, vec![form], line)
            }
        }
    }),
    ("memory-and-debugger-dumps", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ strings -n 8 core.ledger.4121 | grep -i -A1 pass\nDB_PASSWORD\n{secret}\n--\nmysql_native_password"
                ),
                format!(
                    "(gdb) print *cfg\n$1 = {{host = 0x55d4c2a1b2c0 \"{at}\", port = 5432, user = 0x55d4c2a1b2e0 \"{name}\", password = 0x55d4c2a1b300 \"{secret}\", pool = 8}}"
                ),
                format!(
                    "(lldb) frame variable\n(const char *) host = 0x0000600000c04000 \"{at}\"\n(const char *) secret = 0x0000600000c04020 \"{secret}\"\n(int) retries = 3"
                ),
                format!(
                    "$ py-spy dump --pid 4121 --locals\nThread 4121 (idle): \"MainThread\"\n    connect (psycopg2/__init__.py:122)\n        Arguments:\n            dsn: None\n            user: \"{name}\"\n            password: \"{secret}\"\n            host: \"{at}\""
                ),
                format!(
                    "$ vol -f mem.raw windows.envars --pid 4121\nPID\tProcess\tBlock\tVariable\tValue\n4121\tledger.exe\t0x1f3a2c01e30\tLEDGER_DB_PASS\t{secret}\n4121\tledger.exe\t0x1f3a2c01e30\tUSERNAME\t{name}"
                ),
                format!(
                    "$ grep -a -o 'token=[^&]*' /tmp/ledger.hprof | head -2\ntoken={secret}\ntoken={secret}"
                ),
                format!("0:000> du 000001f3`a2c01e30\n000001f3`a2c01e30  \"{secret}\""),
                format!(
                    "\"strings\":[\"\",\"(root)\",\"Object\",\"ledgerConfig\",\"{at}\",\"apiSecret\",\"{secret}\",\"retryCount\"]"
                ),
            ],
        );
        text(secret, line)
    }),
];
