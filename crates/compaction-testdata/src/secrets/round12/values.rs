//! Round 12 families of unusual values and carriers: numeric PINs, word passphrases, Unicode
//! passwords, inflected prose in more languages, CI workflow commands, RPC metadata, further
//! text encodings, chat commands, OS keyrings, pair tuples and map constructors.

use super::super::families::{Carrier, Family, Made, pick_line, text};
use super::super::values::{token, token_between};
use super::plain_pw;
use crate::random::Rng;

/// Base32 (RFC 4648, padded) of `data`.
fn base32(data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = buf.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(char::from(ALPHABET[(bits >> (35 - 5 * i) & 31) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Ascii85 (Adobe, without the `<~ ~>` frame) of `data`.
fn ascii85(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(4) {
        let mut buf = [0u8; 4];
        buf[..chunk.len()].copy_from_slice(chunk);
        let value = u32::from_be_bytes(buf);
        if value == 0 && chunk.len() == 4 {
            out.push('z');
            continue;
        }
        let mut digits = [0u8; 5];
        let mut rest = value;
        for digit in digits.iter_mut().rev() {
            *digit = (rest % 85) as u8 + b'!';
            rest /= 85;
        }
        out.extend(digits[..chunk.len() + 1].iter().map(|d| char::from(*d)));
    }
    out
}

/// The body lines of `uuencode` for `data` (45 bytes a line).
fn uuencode_lines(data: &[u8]) -> Vec<String> {
    let sixbit = |v: u8| if v == 0 { '`' } else { char::from(v + 32) };
    data.chunks(45)
        .map(|chunk| {
            let mut line = String::new();
            line.push(sixbit(chunk.len() as u8));
            for group in chunk.chunks(3) {
                let mut buf = [0u8; 3];
                buf[..group.len()].copy_from_slice(group);
                line.push(sixbit(buf[0] >> 2));
                line.push(sixbit((buf[0] & 3) << 4 | buf[1] >> 4));
                line.push(sixbit((buf[1] & 15) << 2 | buf[2] >> 6));
                line.push(sixbit(buf[2] & 63));
            }
            line
        })
        .collect()
}

/// Words of a made-up passphrase list (not BIP39).
const PASS_WORDS: &[&str] = &[
    "amber", "tundra", "velvet", "quarry", "pelican", "saddle", "juniper", "orchid", "basalt",
    "canyon", "walrus", "plaza", "cricket", "noodle", "gazebo", "harpoon", "igloo", "kettle",
    "lagoon", "mosaic", "nectar", "otter", "parsnip", "quiver", "rhubarb", "sequin", "trombone",
    "umbrella", "vortex", "wombat", "yodel", "zeppelin",
];

fn passphrase(rng: &mut Rng) -> String {
    let count = rng.range(4, 7);
    let words: Vec<&str> = (0..count).map(|_| *rng.pick(PASS_WORDS)).collect();
    match rng.below(4) {
        0 => words.join(" "),
        1 => words.join("-"),
        2 => words.join("."),
        _ => {
            words
                .iter()
                .map(|w| {
                    let mut cs = w.chars();
                    cs.next()
                        .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                        .unwrap_or_default()
                })
                .collect::<Vec<_>>()
                .join("")
                + &rng.range(10, 99).to_string()
        }
    }
}

/// A password with letters outside ASCII.
fn unicode_password(rng: &mut Rng) -> String {
    const PARTS: &[&str] = &[
        "Pässwört",
        "Contraseña",
        "Пароль",
        "Şifrem",
        "Hasło",
        "Mật",
        "Κωδικός",
        "Jelszó",
        "Lösen",
        "Žirafa",
        "Ørken",
        "Ñandú",
        "Çatı",
        "Ærø",
        "Ünïcode",
        "Ђорђе",
    ];
    const MARKS: &[&str] = &["¡", "§", "€", "Ω", "µ", "!", "-", "_", "¿", "°"];
    format!(
        "{}{}{}{}",
        rng.pick(PARTS),
        rng.pick(MARKS),
        rng.range(10, 9999),
        rng.pick(PARTS).to_lowercase()
    )
}

pub(super) const FAMILIES: &[Family] = &[
    ("numeric-pins-and-codes", |rng| {
        let digits = rng.range(6, 9);
        let pin: String = (0..digits)
            .map(|i| char::from(b'0' + (rng.below(9) + usize::from(i == 0)) as u8))
            .collect();
        let line = pick_line(
            rng,
            vec![
                format!("SIM PIN: {pin}\nPUK: (on the card)"),
                format!("voicemail:\n  mailbox: 4021\n  pin: \"{pin}\""),
                format!("ALARM_DISARM_CODE={pin}"),
                format!("The safe's combination is {pin}, please change it after the audit."),
                format!("{{\"card\": \"**** 4421\", \"pin\": \"{pin}\"}}"),
                format!("keystore PIN for the HSM slot 0 = {pin}"),
            ],
        );
        text(pin, line)
    }),
    ("word-passphrases", |rng| {
        let phrase = passphrase(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Wi-Fi (guest): network Acme-Guest, passphrase: {phrase}"),
                format!("KEY_PASSPHRASE=\"{phrase}\""),
                format!("The disk encryption passphrase is \"{phrase}\" (don't lose it)."),
                format!("gpg --batch --passphrase '{phrase}' -d backup.tar.gpg"),
                format!("[vault]\nmaster_phrase = {phrase}"),
            ],
        );
        text(phrase, line)
    }),
    ("unicode-passwords", |rng| {
        let pw = unicode_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("password = \"{pw}\""),
                format!("DB_PASSWORD={pw}"),
                format!("mysql -u admin -p'{pw}' shop"),
                format!("Login: admin\nPassword: {pw}"),
                format!("{{\"user\": \"ops\", \"pass\": \"{pw}\"}}"),
            ],
        );
        text(pw, line)
    }),
    ("inflected-prose-more-languages", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Ciao, la password del server di staging è {pw} — cambiala dopo."),
                format!("Oi! A senha do banco de produção é {pw}, não compartilhe."),
                format!("Sunucunun şifresi {pw} olarak ayarlandı."),
                format!("Hasło do bazy to {pw}, zmień je jutro."),
                format!("Mật khẩu wifi văn phòng là {pw} nhé."),
                format!("Kata sandinya {pw}, jangan disebar ya."),
                format!("Η κωδικός πρόσβασης του router είναι {pw}"),
                format!("Heslo k serveru je {pw}, prosím změň ho."),
                format!("A jelszó a tesztkörnyezethez: {pw}"),
                format!("Parola pentru contul de test este {pw}"),
                format!("Пароль від адмінки — {pw}, не пересилай."),
                format!("Nenosiri la seva ni {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("ci-workflow-commands", |rng| {
        let tok = token_between(rng, 28, 40);
        let line = pick_line(
            rng,
            vec![
                format!("echo \"deploy_token={tok}\" >> \"$GITHUB_OUTPUT\""),
                format!("echo \"NPM_AUTH={tok}\" >> $GITHUB_ENV"),
                format!("##teamcity[setParameter name='env.PUBLISH_KEY' value='{tok}']"),
                format!("buildkite-agent meta-data set \"release-signing-key\" \"{tok}\""),
                format!("- script: echo \"##[set-output name=token;]{tok}\""),
                format!("circleci context store-secret vcs acme release SIGNING_TOKEN <<< '{tok}'"),
            ],
        );
        text(tok, line)
    }),
    ("rpc-metadata-in-code", |rng| {
        let tok = token_between(rng, 28, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "ctx = metadata.AppendToOutgoingContext(ctx, \"authorization\", \"Bearer {tok}\")"
                ),
                format!("resp = stub.GetOrder(req, metadata=((\"x-api-key\", \"{tok}\"),))"),
                format!(
                    "Metadata headers = new Metadata();\nheaders.put(Metadata.Key.of(\"x-auth\", ASCII_STRING_MARSHALLER), \"{tok}\");"
                ),
                format!("const md = new grpc.Metadata();\nmd.add('authorization', '{tok}');"),
                format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"auth.login\",\"params\":[\"ops\",\"{tok}\"]}}"
                ),
            ],
        );
        text(tok, line)
    }),
    ("further-text-encodings", |rng| {
        let pw = plain_pw(rng);
        let config = format!("[smtp]\nuser = bot\npassword = {pw}\n");
        let (blob, line) = match rng.below(3) {
            0 => {
                let blob = base32(config.as_bytes());
                (blob.clone(), format!("echo {blob} | base32 -d > smtp.ini"))
            }
            1 => {
                let blob = ascii85(config.as_bytes());
                (blob.clone(), format!("<~{blob}~>"))
            }
            _ => {
                let lines = uuencode_lines(config.as_bytes());
                let first = lines[0].clone();
                (first, format!("begin 644 smtp.ini\n{}\n`\nend", lines.join("\n")))
            }
        };
        Made { needles: vec![pw.clone(), blob], secret: pw, carrier: Carrier::Text(line) }
    }),
    ("chat-and-irc-commands", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("/msg NickServ IDENTIFY {pw}"),
                format!("/oper admin {pw}"),
                format!("PASS ops/libera:{pw}"),
                format!("/deploy prod --token {pw}"),
                format!("!login ops {pw}"),
                format!("/quote PASS {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("os-keyring-commands", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("security add-generic-password -a ci -s deploy-api -w {tok} -U"),
                format!("security add-internet-password -a ops -s registry.acme.dev -w '{tok}'"),
                format!(
                    "printf '%s' '{tok}' | secret-tool store --label='Acme API' service acme-api"
                ),
                format!("keyctl add user api_token {tok} @u"),
                format!(
                    "New-StoredCredential -Target 'acme-api' -UserName ci -Password '{tok}' -Persist LocalMachine"
                ),
            ],
        );
        text(tok, line)
    }),
    ("pair-tuples-and-map-constructors", |rng| {
        let tok = token(rng, 32);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "var headers = Map.of(\"Content-Type\", \"application/json\", \"X-Api-Key\", \"{tok}\");"
                ),
                format!(
                    "let env = HashMap::from([(\"RUST_LOG\", \"info\"), (\"SERVICE_TOKEN\", \"{tok}\")]);"
                ),
                format!(
                    "params = [(\"grant_type\", \"client_credentials\"), (\"client_secret\", \"{tok}\")]"
                ),
                format!("credential(billing, '{tok}')."),
                format!("props.put(\"sasl.password\", \"{tok}\");"),
                format!("(setq acme-api-token \"{tok}\")"),
            ],
        );
        text(tok, line)
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoders_match_their_standards() {
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI======");
        assert_eq!(base32(b"f"), "MY======");
        assert_eq!(ascii85(b"Man "), "9jqo^");
        assert_eq!(ascii85(b"sure."), "F*2M7/c");
        assert_eq!(uuencode_lines(b"Cat"), ["#0V%T"]);
    }
}
