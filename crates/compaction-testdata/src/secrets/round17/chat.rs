//! Round 17 families of chat and prose: passwords whose random part has one capital or none,
//! passwords built on a word holding a secret's name, chat logs with a stamp and a speaker
//! before the answer on the next line, and labels in languages and scripts no family used.

use super::super::families::{Family, pick_line, text};
use super::{generated_pw, name_holding_pw, weak_case_pw, words_number_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("passwords-with-one-capital-or-none", |rng| {
        let pw = weak_case_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("creds are ops and {pw}"),
                format!("pw for the staging db is {pw}"),
                format!("password: {pw}"),
                format!("the wifi in the lab → {pw}"),
                format!("ok try {pw} for the jumpbox"),
                format!("DB_PASS={pw}"),
                format!("\"password\": \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("passwords-on-a-word-holding-a-secret-name", |rng| {
        let pw = name_holding_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("password: {pw}"),
                format!("pw for the nas is {pw}"),
                format!("mysql -u root -p'{pw}'"),
                format!("admin_password = \"{pw}\""),
                format!("--password {pw}"),
                format!("login: admin / {pw}"),
                format!("<password>{pw}</password>"),
            ],
        );
        text(pw, line)
    }),
    ("chat-logs-stamp-and-speaker-before-the-answer", |rng| {
        let pw = words_number_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("[09:14] dana: what's the pw for the build box?\n[09:15] raj: {pw}"),
                format!(
                    "2026-03-12 14:02:40 <kim> anyone have the grafana admin login?\n\
                     2026-03-12 14:03:05 <lee> {pw}"
                ),
                format!(
                    "Ana Silva, 10:41 AM\nwhat's the vpn password again?\nTom Berg, 10:42 AM\n{pw}"
                ),
                format!("— mo (12:01): router pass?\n— jo (12:02): {pw}"),
                format!("[3/12/26 2:14 PM] Sam: db password pls\n[3/12/26 2:15 PM] Alex: {pw}"),
                format!("#ops | 14:02 | nina: root pw for nas01?\n#ops | 14:03 | omar: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("labels-in-scripts-no-family-used", |rng| {
        let pw = generated_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("كلمة المرور: {pw}"),
                format!("סיסמה: {pw}"),
                format!("Κωδικός πρόσβασης: {pw}"),
                format!("पासवर्ड: {pw}"),
                format!("รหัสผ่าน: {pw}"),
                format!("Mật khẩu: {pw}"),
                format!("kata sandi: {pw}"),
                format!("heslo: {pw}"),
                format!("jelszó = {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("labels-in-other-languages-with-words-between", |rng| {
        let pw = words_number_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Das neue Passwort für den Router lautet {pw}"),
                format!("le mot de passe du wifi invité est {pw}"),
                format!("la contraseña del servidor de pruebas es {pw}"),
                format!("a senha do banco de homologação é {pw}"),
                format!("пароль от админки сервера: {pw}"),
                format!("la password dell'utente admin è {pw}"),
                format!("het wachtwoord van de NAS is {pw}"),
                format!("sunucunun şifresi {pw} olarak ayarlandı"),
            ],
        );
        text(pw, line)
    }),
];
