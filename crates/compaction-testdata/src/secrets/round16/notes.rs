//! Round 16 families of notes: Markdown with emphasis around the label, a user and a password
//! in two code spans, symbol-rich passwords with one strong symbol, and passwords beside a
//! user no list names.

use super::super::families::{Family, pick_line, text};
use super::{one_symbol_pw, symbolic_pw, word_dash_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("markdown-emphasis-around-labels", |rng| {
        let pw = word_dash_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("* _password_: `{pw}`"),
                format!("- **Passphrase:** {pw}"),
                format!("__Token__ — `{pw}`"),
                format!("1. *pw*: {pw}"),
                format!("**root password**: _{pw}_"),
                format!("- ~~old~~ **new password** = `{pw}`"),
                format!("> **Secret**: *{pw}*"),
            ],
        );
        text(pw, line)
    }),
    ("markdown-user-and-password-in-two-spans", |rng| {
        let pw = symbolic_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Sign in as `ops` with `{pw}`."),
                format!("`grafana` / `{pw}`"),
                format!("login `ci-bot`, then `{pw}`"),
                format!("| `jenkins` | `{pw}` |"),
                format!("- `admin` : `{pw}`"),
                format!("default account `root` and `{pw}`"),
            ],
        );
        text(pw, line)
    }),
    ("one-symbol-passwords-in-a-login-context", |rng| {
        let pw = one_symbol_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("ssh admin@nas.local\n{pw}"),
                format!("su - postgres\nPassword: {pw}"),
                format!("login as: root\n{pw}"),
                format!("generated for svc_mail: {pw}"),
                format!("admin / {pw}"),
                format!("copied from the vault: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("symbol-passwords-beside-unlisted-users", |rng| {
        let pw = symbolic_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("(gitlab-runner, {pw})"),
                format!("postgres  {pw}"),
                format!("jenkins: {pw}"),
                format!("nagios -> {pw}"),
                format!("www-data {pw}"),
                format!("[\"backup\", \"{pw}\"]"),
            ],
        );
        text(pw, line)
    }),
];
