//! Round 13 families of unusual values after a name: numeric PINs in more syntaxes, word
//! passphrases in tools and configs, Unicode and CJK passwords in commands, names in
//! languages no list had, meeting passcodes.

use super::super::families::{Family, pick_line, text};
use super::plain_pw;
use crate::random::Rng;

/// A numeric PIN of 6 to 8 digits, not starting with 0.
fn pin(rng: &mut Rng) -> String {
    let digits = rng.range(6, 8);
    (0..digits).map(|i| char::from(b'0' + (rng.below(9) + usize::from(i == 0)) as u8)).collect()
}

/// Words of a made-up list for diceware-like passphrases (not BIP39, not round 12's list).
const DICE_WORDS: &[&str] = &[
    "anvil", "biscuit", "cactus", "dolphin", "eclipse", "fjord", "goblet", "hammock", "icicle",
    "jigsaw", "kayak", "lobster", "marble", "nutmeg", "oyster", "pepper", "quilt", "raccoon",
    "sparrow", "teapot", "unicorn", "vanilla", "waffle", "yarn", "zigzag", "blizzard", "compass",
    "dynamo", "falafel", "gondola", "hazel", "ingot",
];

fn dice_phrase(rng: &mut Rng) -> String {
    let count = rng.range(4, 6);
    let words: Vec<&str> = (0..count).map(|_| *rng.pick(DICE_WORDS)).collect();
    let sep = *rng.pick(&[" ", "-", "_", "+"]);
    words.join(sep)
}

/// A password with letters of Cyrillic, Greek, Arabic-digit mixes, CJK or emoji.
fn wide_password(rng: &mut Rng) -> String {
    const PARTS: &[&str] = &[
        "密码猫咪",
        "パスワード犬",
        "비밀번호곰",
        "Тайна",
        "Μυστικό",
        "Sırrım",
        "Ключик",
        "秘密の鍵",
        "Łódź",
        "Größe",
        "Ñoño",
        "Ångström",
        "Dağ",
        "Þorn",
        "Ẓebra",
        "Ξένια",
    ];
    const MARKS: &[&str] = &["🔑", "🐱", "★", "¤", "±", "·", "–", "¦", "#", "+"];
    format!("{}{}{}{}", rng.pick(PARTS), rng.range(100, 99999), rng.pick(MARKS), rng.pick(PARTS))
}

pub(super) const FAMILIES: &[Family] = &[
    ("pins-after-names-in-syntaxes", |rng| {
        let pin = pin(rng);
        let line = pick_line(
            rng,
            vec![
                format!("lockbox:\n  site: north-gate\n  door_pin: {pin}"),
                format!("yubico-piv-tool -a verify-pin --pin={pin}"),
                format!("pkcs11-tool --login --pin {pin} --list-objects"),
                format!("<entry key=\"atm.pin\">{pin}</entry>"),
                format!("SetupPIN {pin} ; printer admin panel"),
                format!("the garage code is {pin} and the alarm code is the same"),
                format!("export SMARTCARD_PIN='{pin}'"),
            ],
        );
        text(pin, line)
    }),
    ("passphrases-in-tools-and-configs", |rng| {
        let phrase = dice_phrase(rng);
        let line = pick_line(
            rng,
            vec![
                format!("ssh-keygen -t ed25519 -N '{phrase}' -f ~/.ssh/deploy"),
                format!("export RESTIC_PASSWORD='{phrase}'"),
                format!("borg_passphrase: \"{phrase}\""),
                format!("cryptsetup luksOpen /dev/sdb1 vault <<< '{phrase}'"),
                format!("keystore.passphrase={phrase}"),
                format!("openssl genrsa -aes256 -passout pass:'{phrase}' -out ca.key 4096"),
                format!("Recovery phrase for the team vault: {phrase}"),
            ],
        );
        text(phrase, line)
    }),
    ("unicode-passwords-in-commands", |rng| {
        let pw = wide_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("psql \"postgresql://report:{pw}@db.internal:5432/sales\""),
                format!("net user backup {pw} /add"),
                format!("curl -u ops:{pw} https://nexus.internal/service/rest/v1/status"),
                format!("redis-cli -a {pw} --no-auth-warning ping"),
                format!("smbclient //nas/share -U 'CORP\\ops%{pw}'"),
                format!("htpasswd -b -c .htpasswd admin {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("cjk-and-emoji-passwords", |rng| {
        let pw = wide_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("パスワード：{pw}"),
                format!("密码：{pw}（请勿外传）"),
                format!("비밀번호는 {pw} 입니다"),
                format!("wifi 密碼 {pw}"),
                format!("{{\"username\": \"王伟\", \"password\": \"{pw}\"}}"),
                format!("admin_password = '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("password-labels-rare-languages", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Գաղտնաբառ: {pw}"),
                format!("პაროლი: {pw}"),
                format!("סיסמה: {pw}"),
                format!("كلمة المرور: {pw}"),
                format!("पासवर्ड: {pw}"),
                format!("รหัสผ่าน: {pw}"),
                format!("Lykilorð: {pw}"),
                format!("Pasahitza: {pw}"),
                format!("Cyfrinair: {pw}"),
                format!("Pasfhocal: {pw}"),
                format!("Құпия сөз: {pw}"),
                format!("Сырсөз: {pw}"),
                format!("Tenimiro: {pw}"),
                format!("Kalmar sirri: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("prose-in-rare-languages", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Սերվերի գաղտնաբառը {pw} է, խնդրում եմ փոխել։"),
                format!("სერვერის პაროლია {pw}, არ გაუზიარო."),
                format!("הסיסמה לשרת היא {pw} תחליף אותה מחר"),
                format!("كلمة السر للخادم هي {pw} لا تشاركها"),
                format!("सर्वर का पासवर्ड {pw} है, इसे बदल देना।"),
                format!("รหัสผ่านของเซิร์ฟเวอร์คือ {pw} อย่าบอกใคร"),
                format!("Lykilorðið að þjóninum er {pw}"),
                format!("Zerbitzariaren pasahitza {pw} da."),
                format!("Y cyfrinair i'r gweinydd yw {pw}"),
                format!("Is é an pasfhocal don fhreastalaí ná {pw}"),
                format!("Nenosiri la seva ya majaribio ni {pw}, usilishiriki."),
                format!("Ο κωδικός του διακομιστή είναι {pw}, άλλαξέ τον."),
            ],
        );
        text(pw, line)
    }),
    ("meeting-passcodes-and-dial-pins", |rng| {
        let code = pin(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Join Zoom Meeting\nhttps://acme.zoom.us/j/81233459981\nMeeting ID: 812 3345 9981\nPasscode: {code}"
                ),
                format!("Dial-in: +1 646 558 8656,,81233459981#,,,,*{code}# US"),
                format!("Conference bridge 0800 123 456, participant PIN {code}#"),
                format!("Webex: meeting number 2634 112 0098, password {code}"),
                format!("DESCRIPTION:Bridge +44 20 3481 5240 access code 4412 host pin {code}"),
            ],
        );
        text(code, line)
    }),
];
