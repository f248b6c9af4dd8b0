//! Round 15 families of what people type in chat (answers that give a password, in English and
//! other languages, chat logs with a speaker before the line), symbol-rich passwords with no
//! name in a credential context, word passphrases, and grouped product and licence keys.

use super::super::families::{Family, pick_line, text};
use super::{symbolic_pw, word_dash_pw};
use crate::random::Rng;

/// Lower-case words of a diceware-like list.
const DICE: &[&str] = &[
    "tundra", "mosaic", "ripple", "gravel", "banjo", "oyster", "lunar", "thimble", "cactus",
    "velvet", "oxide", "kettle", "nomad", "puzzle", "quiver", "saddle", "tango", "umbra", "walnut",
    "zephyr", "fjord", "gusto", "hazel", "ivory", "jigsaw", "koala", "ledger", "mango", "nectar",
    "ozone", "plume", "radar",
];

/// A diceware-like passphrase: 4 to 7 words joined by `sep`.
fn dice_phrase(rng: &mut Rng, sep: &str) -> String {
    let count = rng.range(4, 7);
    (0..count).map(|_| *rng.pick(DICE)).collect::<Vec<_>>().join(sep)
}

/// Grouped product key: `groups` groups of `size` capitals and digits.
fn product_key(rng: &mut Rng, groups: usize, size: usize) -> String {
    const CHARS: &[u8] = b"BCDFGHJKMPQRTVWXY2346789";
    (0..groups)
        .map(|_| super::super::values::from_alphabet(rng, CHARS, size))
        .collect::<Vec<_>>()
        .join("-")
}

pub(super) const FAMILIES: &[Family] = &[
    ("chat-answers-giving-a-password", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("the password is {pw}"),
                format!("pw: {pw}"),
                format!("it's {pw} btw, same as last time"),
                format!("try {pw} for the vpn"),
                format!("ok new pw is {pw} — lmk if it works"),
                format!("creds are admin and {pw}"),
                format!("password's {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("chat-answers-in-other-languages", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("la contraseña es {pw}"),
                format!("das Passwort ist {pw}, bitte nicht weitergeben"),
                format!("le mdp c'est {pw}"),
                format!("a senha é {pw}"),
                format!("пароль — {pw}"),
                format!("パスワードは {pw} です"),
                format!("密码是 {pw}"),
                format!("het wachtwoord is {pw}"),
                format!("hasło to {pw}"),
                format!("la password è {pw}"),
                format!("şifre {pw} olarak değişti"),
            ],
        );
        text(pw, line)
    }),
    ("chat-logs-with-a-speaker", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("[10:42] alice: pw for the staging db is {pw}"),
                format!("<bob> pass = {pw}"),
                format!("12/03/2026, 14:02 - Ben: wifi password {pw}"),
                format!("Ana Souza  2:14 PM\nnew root pw → {pw}"),
                format!("**carol** — Today at 3:12 PM\nadmin login: {pw}"),
                format!("2026-03-12T09:15:02Z dmitri> the passphrase is {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("symbol-passwords-after-a-login", |rng| {
        let pw = symbolic_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("ssh root@10.0.0.5\n{pw}"),
                format!("$ mysql -u root -p\nEnter password: \n{pw}"),
                format!("su -\n{pw}"),
                format!("login: admin\n{pw}"),
                format!("credentials for the NAS:\nadmin\n{pw}"),
                format!("user admin\n{pw}\nworked"),
            ],
        );
        text(pw, line)
    }),
    ("symbol-passwords-with-a-user-beside", |rng| {
        let pw = symbolic_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("admin / {pw}"),
                format!("root  {pw}"),
                format!("svc_backup -> {pw}"),
                format!("u: ops  p: {pw}"),
                format!("deploy@build01 {pw}"),
                format!("(jenkins, {pw})"),
            ],
        );
        text(pw, line)
    }),
    ("diceware-passphrases-introduced", |rng| {
        let phrase = dice_phrase(rng, " ");
        let line = pick_line(
            rng,
            vec![
                format!("passphrase: {phrase}"),
                format!("gpg --batch --passphrase '{phrase}' --symmetric backup.tar"),
                format!("my passphrase is \"{phrase}\""),
                format!("PASSPHRASE=\"{phrase}\""),
                format!("ssh-keygen -t ed25519 -N '{phrase}' -f ~/.ssh/id_ci"),
                format!("Wallet passphrase (25th word): {phrase}"),
                format!("restic init --repo s3:backups  # repo password: {phrase}"),
            ],
        );
        text(phrase, line)
    }),
    ("joined-word-passphrases", |rng| {
        let sep = *rng.pick(&[".", "-", "_", "+"]);
        let mut phrase = dice_phrase(rng, sep);
        phrase.push_str(&rng.range(10, 99).to_string());
        let line = pick_line(
            rng,
            vec![
                format!("passphrase = {phrase}"),
                format!("the keystore passphrase is {phrase}"),
                format!("KEYSTORE_PASS='{phrase}'"),
                format!("--passphrase={phrase}"),
                format!("\"passphrase\": \"{phrase}\""),
                format!("Backup passphrase: {phrase}"),
            ],
        );
        text(phrase, line)
    }),
    ("product-keys-in-installers-and-configs", |rng| {
        let key = product_key(rng, 5, 5);
        let line = pick_line(
            rng,
            vec![
                format!("setup.exe /quiet PIDKEY={key}"),
                format!("msiexec /i suite.msi LICENSEKEY=\"{key}\" /qn"),
                format!("\"serial_number\": \"{key}\","),
                format!("LICENSE_KEY: {key}"),
                format!("cscript ospp.vbs /inpkey:{key}"),
                format!("<Serial>{key}</Serial>"),
            ],
        );
        text(key, line)
    }),
    ("licence-keys-in-prose", |rng| {
        let groups = rng.range(4, 6);
        let size = rng.range(4, 6);
        let key = product_key(rng, groups, size);
        let line = pick_line(
            rng,
            vec![
                format!("here's my licence: {key}"),
                format!("Registration code for Ann Lee → {key}"),
                format!(
                    "Thank you for your purchase!\nYour key: {key}\nActivate it within 30 days."
                ),
                format!("use {key} to activate the pro version"),
                format!("Seriennummer: {key}"),
                format!("Clé de produit : {key}"),
            ],
        );
        text(key, line)
    }),
];
