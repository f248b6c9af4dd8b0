//! Round 14 families of values found by their shape or through an encoding: lists of
//! generated passwords, grouped product and license keys, data URIs and encoded parameters,
//! vault init output and key abbreviations, accented passwords in files, inline code in
//! Markdown prose, capitalized word passphrases, notification e-mails.

use base64::Engine as _;

use super::super::families::{
    B64, B64URL, Carrier, Family, Made, hex_of, pick_line, text, url_encode,
};
use super::super::values::{base64_bytes, bytes, token_between};
use super::plain_pw;
use crate::random::Rng;

/// A generated password rich in symbols (what a password generator prints).
fn symbol_pw(rng: &mut Rng) -> String {
    const CHARS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#$%&*+-=?@^_~";
    let length = rng.range(16, 24);
    let mut out: String = super::super::values::from_alphabet(rng, CHARS, length);
    let tail = *rng.pick(&["#7", "@4", "%9", "&2"]);
    out.push_str(tail);
    out
}

/// Groups of upper-case letters and digits joined by dashes (`ABCDE-12FGH-…`).
fn grouped_key(rng: &mut Rng) -> String {
    const CHARS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let groups = rng.range(4, 6);
    let size = rng.range(4, 5);
    (0..groups)
        .map(|_| super::super::values::from_alphabet(rng, CHARS, size))
        .collect::<Vec<_>>()
        .join("-")
}

/// A passphrase of capitalized words and a number.
fn capital_phrase(rng: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "Correct",
        "Horse",
        "Battery",
        "Staple",
        "Purple",
        "Monkey",
        "Dishwasher",
        "Velvet",
        "Thunder",
        "Pickle",
        "Rocket",
        "Lantern",
        "Orchard",
        "Pebble",
        "Glacier",
        "Walrus",
    ];
    let count = rng.range(3, 5);
    let mut words: Vec<String> = (0..count).map(|_| (*rng.pick(WORDS)).to_owned()).collect();
    words.push(rng.range(1, 99).to_string());
    let sep = *rng.pick(&["-", ".", "_", ""]);
    words.join(sep)
}

/// A password with accented Latin or Cyrillic letters.
fn accented_pw(rng: &mut Rng) -> String {
    const PARTS: &[&str] = &[
        "Çiçek",
        "Öğretmen",
        "Żółw",
        "Påske",
        "Élève",
        "Niño",
        "Ёлка",
        "Ćevap",
        "Fußball",
        "Árvíz",
    ];
    format!("{}{}{}", rng.pick(PARTS), rng.range(10, 9999), rng.pick(PARTS))
}

pub(super) const FAMILIES: &[Family] = &[
    ("password-generator-lists", |rng| {
        let pw = symbol_pw(rng);
        let other = symbol_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ pwgen -sy 20 2\n{pw} {other}"),
                format!("Here are two strong options:\n1. {pw}\n2. {other}"),
                format!("$ apg -a 1 -m 20 -n 1\n{pw}"),
                format!("generated: {pw}"),
                format!("ok I set it to {pw} for now"),
                format!("{pw}"),
            ],
        );
        text(pw, line)
    }),
    ("grouped-license-and-product-keys", |rng| {
        let key = grouped_key(rng);
        let line = pick_line(
            rng,
            vec![
                format!("License key: {key}"),
                format!("slmgr /ipk {key}"),
                format!("<ProductKey>{key}</ProductKey>"),
                format!("activation_code = \"{key}\""),
                format!("Your registration code is {key}. Keep it safe."),
                format!("serial={key}"),
            ],
        );
        text(key, line)
    }),
    ("data-uris-and-encoded-params", |rng| {
        let tok = token_between(rng, 28, 40);
        let (encoded, line) = match rng.below(5) {
            0 => {
                let e = B64.encode(format!("DB_USER=app\nDB_PASSWORD={tok}\n"));
                (e.clone(), format!("<a href=\"data:text/plain;base64,{e}\">env</a>"))
            }
            1 => {
                let e = B64URL.encode(format!("{{\"api_key\":\"{tok}\",\"env\":\"prod\"}}"));
                (e.clone(), format!("https://app.corp/callback?state={e}"))
            }
            2 => {
                let e = url_encode(&format!("{{\"client_secret\":\"{tok}\"}}"));
                (e.clone(), format!("GET /oauth/finish?payload={e} HTTP/1.1"))
            }
            3 => {
                let e = hex_of(format!("token={tok}").as_bytes());
                (e.clone(), format!("config_blob: {e}"))
            }
            _ => {
                let e = B64.encode(format!("password: {tok}\nuser: admin\n"));
                (e.clone(), format!("echo {e} | base64 -d > creds.yml"))
            }
        };
        Made { needles: vec![tok.clone(), encoded], secret: tok, carrier: Carrier::Text(line) }
    }),
    ("vault-init-and-key-abbreviations", |rng| {
        let b64 = base64_bytes(rng, 32);
        let hex = hex_of(&bytes(rng, 32));
        let (secret, line) = match rng.below(6) {
            0 => (b64.clone(), format!("Unseal Key 1: {b64}\nUnseal Key 2: (withheld)")),
            1 => (hex.clone(), format!("KEK={hex}")),
            2 => (b64.clone(), format!("dek: {b64}")),
            3 => (hex.clone(), format!("wpa_psk {hex}")),
            4 => (b64.clone(), format!("sealing_key = \"{b64}\"")),
            _ => (hex.clone(), format!("Recovery Key 1: {hex}")),
        };
        text(secret, line)
    }),
    ("accented-passwords-in-files", |rng| {
        let pw = accented_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("DB_PASSWORD={pw}"),
                format!("password: \"{pw}\""),
                format!("<password>{pw}</password>"),
                format!("mot_de_passe = '{pw}'"),
                format!("{{\"pass\": \"{pw}\"}}"),
                format!("mysql -u root -p'{pw}' shop"),
            ],
        );
        text(pw, line)
    }),
    ("markdown-inline-code-credentials", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("The staging box is `stg-01`; log in as `deploy` with `{pw}`."),
                format!("- **Login:** `admin`\n- **Pass:** `{pw}`"),
                format!("| Env | Login | |\n|---|---|---|\n| prod | `ops` | `{pw}` |"),
                format!("> **Note**: the Wi-Fi for guests is `CorpGuest` / `{pw}`"),
                format!("Use `{pw}` for the admin account (rotate after the demo)."),
            ],
        );
        text(pw, line)
    }),
    ("capitalized-word-passphrases", |rng| {
        let phrase = capital_phrase(rng);
        let line = pick_line(
            rng,
            vec![
                format!("master password: {phrase}"),
                format!("KEEPASS_PASSPHRASE=\"{phrase}\""),
                format!("wifi key is {phrase}"),
                format!("gpg --batch --passphrase '{phrase}' -d backup.tar.gpg"),
                format!("\"vault_password\": \"{phrase}\""),
                format!("The shared passphrase for the offsite drive: {phrase}"),
            ],
        );
        text(phrase, line)
    }),
    ("notification-emails-with-credentials", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Subject: Your account is ready\n\nHi Sam,\n\nYour temporary password is below:\n\n    {pw}\n\nYou will be asked to change it on first sign-in."
                ),
                format!(
                    "Welcome to Acme Cloud!\nUsername: sam.k\nOne-time password: {pw}\nThis link expires in 24 hours."
                ),
                format!("Ihr Zugang wurde eingerichtet.\nBenutzer: skoch\nInitialkennwort: {pw}"),
                format!(
                    "From: it-helpdesk@corp\nYour password has been reset to {pw} — please change it."
                ),
                format!("Votre mot de passe provisoire : {pw}"),
            ],
        );
        text(pw, line)
    }),
];
