//! Round 16 families of what people type in chat: answers that give a password with no
//! secret's name in the line or a name no list holds, chat logs whose speaker or stamp comes
//! before a short name, and values written before a name the lists lack.

use super::super::families::{Family, pick_line, text};
use super::{camel_digit_pw, word_dash_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("chat-answers-with-no-secret-name", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("creds are ops and {pw}"),
                format!("use {pw} to get in, it's the same for all three boxes"),
                format!("it's {pw} now, they rotated it this morning"),
                format!("got in with {pw} 👍"),
                format!("{pw} should work for the router"),
                format!("login is deploy / {pw}"),
                format!("here you go: {pw} (don't share)"),
                format!("you can sign in with admin + {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("chat-answers-naming-what-it-opens", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("try {pw} for the jumpbox"),
                format!("the grafana one is {pw}"),
                format!("vpn: {pw}"),
                format!("for the NAS it's {pw}"),
                format!("wifi in the lab → {pw}"),
                format!("synology admin {pw}"),
                format!("the one for the staging bastion is {pw}, same user"),
            ],
        );
        text(pw, line)
    }),
    ("chat-logs-with-a-short-name-after-the-speaker", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("[09:13] <mike> pw for prod redis is {pw}"),
                format!("[2026-04-02 17:45:10] priya: admin login: {pw}"),
                format!("Tom Becker, [4/2/26 5:45 PM]\npwd → {pw}"),
                format!("@lena 11:02\ncreds: {pw}"),
                format!("jo [17:45]: pass for the share is {pw}"),
                format!("— Sam (Yesterday 22:10): login pw {pw}"),
                format!("**ravi** — 04/02/2026 9:01 AM\nroot pw: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("chat-logs-answering-a-question", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("[10:01] dana: what's the pw for jenkins?\n[10:02] eli: {pw}"),
                format!("<kim> anyone have the nas login?\n<raj> admin / {pw}"),
                format!("Alex: password for the test tenant?\nBea: {pw}"),
                format!("> what's the wifi here\n{pw}"),
                format!("Q: root password on the build box?\nA: {pw}"),
                format!("14:02 mo: pw pls\n14:03 ann: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("values-before-an-unlisted-name", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("{pw} (admin pw on the printer)"),
                format!("{pw} is the wifi key for the office"),
                format!("{pw} — jenkins creds, user ci"),
                format!("{pw} <- vpn login"),
                format!("Use {pw}; that's the pin for the alarm panel."),
                format!("{pw} = grafana admin"),
                format!("\"{pw}\" is what unlocks the keepass db"),
            ],
        );
        text(pw, line)
    }),
    ("camelcase-digit-passwords-in-chat", |rng| {
        let pw = camel_digit_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("password is {pw}"),
                format!("new pw: {pw}"),
                format!("it's {pw} for the admin account"),
                format!("{pw} is the root password"),
                format!("login: root / {pw}"),
                format!("passwort: {pw}"),
            ],
        );
        text(pw, line)
    }),
];
