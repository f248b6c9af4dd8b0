//! Families of secrets recognized by their shape (provider-like tokens with varied prefixes,
//! separators and body alphabets; key material of many kinds and escapings) or carried through
//! an encoding (base64 credentials, quoted-printable, double URL encoding, JSON `\u` escapes).

use base64::Engine as _;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::families::{B64, B64URL, Carrier, Family, Made, hex_of, pick_line, text, url_encode};
use super::values::{
    base64_bytes, base64url_bytes, bytes, mnemonic, password, pem_body, token, token_between,
};
use crate::random::Rng;

/// A lower-case service prefix of `low..=high` letters.
fn prefix_between(rng: &mut Rng, low: usize, high: usize) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let length = rng.range(low, high);
    super::values::from_alphabet(rng, LETTERS, length)
}

/// `length` characters of Crockford's base32 alphabet.
fn crockford(rng: &mut Rng, length: usize) -> String {
    const CHARS: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    super::values::from_alphabet(rng, CHARS, length)
}

/// A line that carries a token with no name before it, or a neutral one.
fn token_line(rng: &mut Rng, tok: &str) -> String {
    pick_line(
        rng,
        vec![
            format!("use {tok} for the staging account"),
            format!("client = Vendor(\"{tok}\", region=\"eu\")"),
            format!("Found credentials: {tok}"),
            format!("[ci] using {tok}"),
            format!("{{\"model\": \"m1\", \"credential\": \"{tok}\"}}"),
            tok.to_owned(),
        ],
    )
}

/// Base58 with a double-SHA-256 checksum.
fn base58check(mut payload: Vec<u8>) -> String {
    let check = Sha256::digest(Sha256::digest(&payload));
    payload.extend_from_slice(&check[..4]);
    bs58::encode(payload).into_string()
}

/// A 12- or 24-word mnemonic as its words.
fn mnemonic_words(rng: &mut Rng) -> Vec<String> {
    let words = if rng.chance(0.5) { 12 } else { 24 };
    mnemonic(rng, words).split(' ').map(str::to_owned).collect()
}

pub(super) const FAMILIES: &[Family] = &[
    ("prefixed-tokens-base64url-body", |rng| {
        let sep = *rng.pick(&["_", "-", "."]);
        let length = rng.range(18, 45);
        let tok = format!("{}{sep}{}", prefix_between(rng, 2, 8), base64url_bytes(rng, length));
        let line = token_line(rng, &tok);
        text(tok, line)
    }),
    ("prefixed-tokens-hex-body", |rng| {
        let sep = *rng.pick(&["_", "-", "."]);
        let version = *rng.pick(&["", "v1_", "live_", "sk_"]);
        let length = *rng.pick(&[32, 40, 48, 64]);
        let tok = format!("{}{sep}{version}{}", prefix_between(rng, 2, 7), rng.hex(length));
        let line = token_line(rng, &tok);
        text(tok, line)
    }),
    ("prefixed-tokens-crockford-body", |rng| {
        let sep = *rng.pick(&["_", "-"]);
        let length = rng.range(26, 52);
        let tok = format!("{}{sep}{}", prefix_between(rng, 3, 6), crockford(rng, length));
        let line = token_line(rng, &tok);
        text(tok, line)
    }),
    ("prefixed-tokens-multi-part", |rng| {
        let pre = prefix_between(rng, 2, 5);
        let tok = match rng.below(4) {
            0 => format!("{pre}_secret_{}", token_between(rng, 28, 40)),
            1 => format!("{pre}_pt_{}_{}", rng.hex(32), rng.hex(10)),
            2 => format!(
                "{pre}-{}-{}-{}",
                rng.range(1_000_000_000, 9_999_999_999),
                rng.range(1_000_000_000, 9_999_999_999),
                token(rng, 24)
            ),
            _ => format!("{pre}.{}.{}", token(rng, 12), token_between(rng, 30, 43)),
        };
        let line = token_line(rng, &tok);
        text(tok, line)
    }),
    ("prefixed-tokens-short-body", |rng| {
        let sep = *rng.pick(&["_", "-"]);
        let length = rng.range(20, 29);
        let tok = format!("{}{sep}{}", prefix_between(rng, 3, 6), token(rng, length));
        let line = token_line(rng, &tok);
        text(tok, line)
    }),
    ("prefixed-tokens-long-prefix", |rng| {
        let sep = *rng.pick(&["_", "-", "."]);
        let length = rng.range(30, 80);
        let tok = format!("{}{sep}{}", prefix_between(rng, 7, 12), token(rng, length));
        let line = token_line(rng, &tok);
        text(tok, line)
    }),
    ("signed-token-formats", |rng| {
        let tok = match rng.below(3) {
            0 => {
                let header = B64URL.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
                let claims = B64URL.encode(format!(
                    r#"{{"sub":"{}","iat":{}}}"#,
                    token(rng, 8),
                    rng.range(1_700_000_000, 1_800_000_000)
                ));
                format!("{header}.{claims}.{}", base64url_bytes(rng, 32))
            }
            1 => format!("v4.local.{}", base64url_bytes(rng, 60)),
            _ => format!("gAAAAA{}", B64URL.encode(bytes(rng, 70))),
        };
        let last = tok.rsplit('.').next().unwrap_or_default().to_owned();
        let line = pick_line(
            rng,
            vec![
                format!("Authorization: Bearer {tok}"),
                format!("id_token={tok}"),
                format!("cookie: session={tok}; Path=/"),
                format!("got back {tok}"),
            ],
        );
        Made { secret: tok.clone(), needles: vec![tok, last], carrier: Carrier::Text(line) }
    }),
    ("pem-kinds-raw", |rng| {
        let body = pem_body(rng, 5);
        let kind = *rng.pick(&[
            "OPENSSH PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "DSA PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        ]);
        let pem = format!("-----BEGIN {kind}-----\n{}\n-----END {kind}-----", body.join("\n"));
        let line = pick_line(
            rng,
            vec![
                pem.clone(),
                format!("$ cat ~/.ssh/deploy_key\n{pem}\n$ "),
                format!("key: |\n  {}", pem.replace('\n', "\n  ")),
            ],
        );
        Made { secret: body[1].clone(), needles: body, carrier: Carrier::Text(line) }
    }),
    ("pem-escaped-in-configs", |rng| {
        let body = pem_body(rng, 5);
        let kind = *rng.pick(&["PRIVATE KEY", "RSA PRIVATE KEY", "OPENSSH PRIVATE KEY"]);
        let pem = format!("-----BEGIN {kind}-----\n{}\n-----END {kind}-----\n", body.join("\n"));
        let line = match rng.below(4) {
            0 => format!("PRIVATE_KEY=\"{}\"", pem.replace('\n', "\\n")),
            1 => format!("signing_key = '{}'", pem.replace('\n', "\\r\\n")),
            2 => format!("{{\"private_key\": \"{}\"}}", pem.replace('\n', "\\\\n")),
            _ => format!("key_pem: \"{}\"", pem.replace('\n', "\\n").replace('/', "\\/")),
        };
        Made { secret: body[1].clone(), needles: body, carrier: Carrier::Text(line) }
    }),
    ("age-and-signify-keys", |rng| {
        let (secret, line) = match rng.below(3) {
            0 => {
                let hrp = bech32::Hrp::parse_unchecked("age-secret-key-");
                let key = bech32::encode::<bech32::Bech32>(hrp, &bytes(rng, 32))
                    .unwrap_or_default()
                    .to_ascii_uppercase();
                (
                    key.clone(),
                    format!(
                        "# created: 2025-03-01T10:00:00Z\n# public key: age1{}\n{key}",
                        rng.hex(20)
                    ),
                )
            }
            1 => {
                let key = base64_bytes(rng, 104);
                (key.clone(), format!("untrusted comment: signify secret key\n{key}"))
            }
            _ => {
                let key = base64_bytes(rng, 158);
                (key.clone(), format!("untrusted comment: minisign encrypted secret key\n{key}"))
            }
        };
        text(secret, line)
    }),
    ("wireguard-and-vpn-keys", |rng| {
        let key = base64_bytes(rng, 32);
        let peer = base64_bytes(rng, 32);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {key}\nListenPort = 51820"
                ),
                format!("[Peer]\nPublicKey = {peer}\nPresharedKey = {key}"),
                format!("wg set wg0 private-key <(echo {key})"),
                format!("WG_PRIVATE_KEY={key}"),
                format!("wireguard:\n  privateKey: {key}"),
            ],
        );
        text(key, line)
    }),
    ("openvpn-static-keys", |rng| {
        let lines: Vec<String> = (0..16).map(|_| rng.hex(32)).collect();
        let block = format!(
            "-----BEGIN OpenVPN Static key V1-----\n{}\n-----END OpenVPN Static key V1-----",
            lines.join("\n")
        );
        let line = if rng.chance(0.5) {
            format!("<tls-crypt>\n{block}\n</tls-crypt>")
        } else {
            format!("# 2048 bit OpenVPN static key\n{block}")
        };
        // A hex line has no capital and may have no digit in a 10-character run: each line is
        // its own needle.
        let mut needles: Vec<String> = lines.clone();
        needles.truncate(8);
        Made { secret: lines[0].clone(), needles, carrier: Carrier::Text(line) }
    }),
    ("mnemonic-other-layouts", |rng| {
        let words = mnemonic_words(rng);
        let (joined, sep): (String, &str) = match rng.below(4) {
            0 => {
                let numbered: Vec<String> =
                    words.iter().enumerate().map(|(i, w)| format!("{}. {w}", i + 1)).collect();
                (numbered.join("\n"), "\n")
            }
            1 => (words.join(", "), ", "),
            2 => {
                let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
                (format!("[{}]", quoted.join(", ")), ", ")
            }
            _ => (words.join("-"), "-"),
        };
        let rendered: Vec<String> = match joined.starts_with('[') {
            true => words.iter().map(|w| format!("\"{w}\"")).collect(),
            false if sep == "\n" => {
                words.iter().enumerate().map(|(i, w)| format!("{}. {w}", i + 1)).collect()
            }
            false => words.clone(),
        };
        let mut needles: Vec<String> = rendered.windows(4).map(|run| run.join(sep)).collect();
        // Inside a JSON string (a tool call's arguments) quotes and line breaks are escaped.
        let escaped: Vec<String> = needles
            .iter()
            .map(|n| serde_json::to_string(n).unwrap_or_default().trim_matches('"').to_owned())
            .filter(|n| !needles.contains(n))
            .collect();
        needles.extend(escaped);
        let line = pick_line(
            rng,
            vec![
                format!("recovery words:\n{joined}"),
                format!("wallet backup {joined}"),
                format!("SEED_WORDS='{joined}'"),
            ],
        );
        Made { secret: words.join(" "), needles, carrier: Carrier::Text(line) }
    }),
    ("extended-and-hex-private-keys", |rng| {
        let (secret, line) = if rng.chance(0.5) {
            let mut payload = vec![0x04, 0x88, 0xAD, 0xE4];
            payload.extend(bytes(rng, 9));
            payload.extend(bytes(rng, 32));
            payload.push(0);
            payload.extend(bytes(rng, 32));
            let key = base58check(payload);
            let line = pick_line(
                rng,
                vec![format!("master key {key}"), format!("XPRV={key}"), key.clone()],
            );
            (key, line)
        } else {
            let key = format!("0x{}", rng.hex(64));
            let line = pick_line(
                rng,
                vec![
                    format!("PRIVATE_KEY={key}"),
                    format!("forge create Token --private-key {key}"),
                    format!("const signerKey = \"{key}\";"),
                    format!("deployer_private_key: {key}"),
                ],
            );
            (key, line)
        };
        let mut made = text(secret.clone(), line);
        made.needles = vec![secret.clone(), secret.trim_start_matches("0x").to_owned()];
        made
    }),
    ("hex-secrets-under-names", |rng| {
        let length = *rng.pick(&[32, 40, 64, 128]);
        let key = rng.hex(length);
        let line = pick_line(
            rng,
            vec![
                format!("SECRET_KEY_BASE={key}"),
                format!("encryption_key: {key}"),
                format!("vault operator unseal --master-key {key}"),
                format!("app_secret = \"{key}\""),
                format!("\"hmacKey\": \"{key}\""),
            ],
        );
        // Lower-case hex may hold no capital and, in a run, no digit: halves are needles too.
        let half = key.len() / 2;
        Made {
            secret: key.clone(),
            needles: vec![key[..half].to_owned(), key[half..].to_owned(), key.clone()],
            carrier: Carrier::Text(line),
        }
    }),
    ("base64-keys-under-names", |rng| {
        let length = *rng.pick(&[16, 24, 32, 48]);
        let key = base64_bytes(rng, length);
        let line = pick_line(
            rng,
            vec![
                format!("APP_KEY=base64:{key}"),
                format!("MASTER_KEY={key}"),
                format!("cookie_secret: \"{key}\""),
                format!("--encryption-key={key}"),
                format!("<machineKey validationKey=\"{key}\" />"),
            ],
        );
        text(key, line)
    }),
    ("basic-auth-base64", |rng| {
        let pw = password(rng);
        let user = *rng.pick(&["admin", "ci", "deploy", "svc-backup"]);
        let blob = B64.encode(format!("{user}:{pw}"));
        let line = pick_line(
            rng,
            vec![
                format!("Authorization: Basic {blob}"),
                format!("{{\"auths\": {{\"registry.corp.io\": {{\"auth\": \"{blob}\"}}}}}}"),
                format!("curl -H 'Authorization: basic {blob}' https://api.corp.io"),
                format!("proxy-authorization: Basic {blob}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
    ("quoted-printable-config", |rng| {
        let pw = password(rng).replace('=', "q");
        let name = *rng.pick(&["DB_PASSWORD", "api_token", "smtp_secret", "AuthKey"]);
        let line = format!(
            "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nhost=3Ddb01.internal\n{name}=3D{pw}\nport=3D5432"
        );
        text(pw, line)
    }),
    ("double-url-encoded", |rng| {
        let pw = token_between(rng, 16, 28);
        let name = *rng.pick(&["password", "token", "client_secret", "apiKey"]);
        let inner = format!("/login?user=bob&{name}={pw}");
        let once = url_encode(&inner);
        let twice = url_encode(&once);
        let line = pick_line(
            rng,
            vec![
                format!("https://sso.corp.io/redirect?next={twice}"),
                format!("Location: /auth/cb?state={twice}"),
            ],
        );
        text(pw, line)
    }),
    ("base64-json-credentials", |rng| {
        let tok = token_between(rng, 28, 40);
        let doc = json!({"type": "service_account", "project_id": "shop-prod",
            "client_email": "ci@shop-prod.iam.example.com", "client_secret": tok});
        let blob = if rng.chance(0.5) {
            B64.encode(doc.to_string())
        } else {
            B64URL.encode(doc.to_string())
        };
        let line = pick_line(
            rng,
            vec![
                format!("GOOGLE_CREDENTIALS={blob}"),
                format!("data:\n  credentials.json: {blob}"),
                format!("echo '{blob}' | base64 -d > sa.json"),
            ],
        );
        Made { secret: tok.clone(), needles: vec![tok, blob], carrier: Carrier::Text(line) }
    }),
    ("json-unicode-escaped", |rng| {
        let pw = password(rng).replace(['"', '\\'], "u");
        let line = pick_line(
            rng,
            vec![
                format!("{{\"env\": \"DB_PASSWORD\\u003d{pw}\"}}"),
                format!("{{\"body\": \"\\u0022password\\u0022:\\u0022{pw}\\u0022\"}}"),
                format!("{{\"cmd\": \"mysql -uroot -p\\u0027{pw}\\u0027\"}}"),
                format!("{{\"html\": \"\\u003cpassword\\u003e{pw}\\u003c/password\\u003e\"}}"),
            ],
        );
        text(pw, line)
    }),
    ("hex-encoded-secrets", |rng| {
        let pw = password(rng);
        let name = *rng.pick(&["password", "API_KEY", "secret"]);
        let hex = hex_of(format!("{name}={pw}").as_bytes());
        let line = pick_line(
            rng,
            vec![
                format!("payload 0x{hex}"),
                format!("xxd -r -p <<< {hex}"),
                format!("\"blob\": \"{}\"", hex.to_ascii_uppercase()),
            ],
        );
        let upper = hex.to_ascii_uppercase();
        Made { secret: pw.clone(), needles: vec![pw, hex, upper], carrier: Carrier::Text(line) }
    }),
];
