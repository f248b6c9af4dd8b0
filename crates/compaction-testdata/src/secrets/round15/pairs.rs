//! Round 15 families of a name and its value as two literals of one record, values written
//! before their name, and Markdown code spans beside a secret word.

use super::super::families::{Family, pick_line, text};
use super::super::values::token_between;
use super::{safe_pw, symbolic_pw};
use crate::random::Rng;

/// A secret-like setting's name in the case a manifest or code would write it.
fn setting_name(rng: &mut Rng) -> &'static str {
    const NAMES: [&str; 10] = [
        "DB_PASSWORD",
        "API_TOKEN",
        "STRIPE_SECRET",
        "SMTP_PASS",
        "JWT_SIGNING_KEY",
        "REDIS_AUTH",
        "adminPassword",
        "clientSecret",
        "db.password",
        "auth.token",
    ];
    rng.pick::<&str>(&NAMES)
}

pub(super) const FAMILIES: &[Family] = &[
    ("env-name-value-lists-in-manifests", |rng| {
        let pw = safe_pw(rng);
        let name = setting_name(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "        env:\n        - name: {name}\n          value: \"{pw}\"\n        - name: LOG_LEVEL\n          value: info"
                ),
                format!(
                    "\"environment\": [\n  {{\"name\": \"{name}\", \"value\": \"{pw}\"}},\n  {{\"name\": \"PORT\", \"value\": \"8080\"}}\n]"
                ),
                format!(
                    "az webapp config appsettings set -g rg --settings '[{{\"name\":\"{name}\",\"value\":\"{pw}\",\"slotSetting\":false}}]'"
                ),
                format!("Parameters:\n  - ParameterKey: {name}\n    ParameterValue: {pw}"),
                format!("    set {{\n      name  = \"{name}\"\n      value = \"{pw}\"\n    }}"),
                format!("- {{ name: {name}, value: '{pw}' }}"),
            ],
        );
        text(pw, line)
    }),
    ("setter-calls-with-name-and-value", |rng| {
        let pw = safe_pw(rng);
        let name = setting_name(rng);
        let line = pick_line(
            rng,
            vec![
                format!("props.setProperty(\"{name}\", \"{pw}\");"),
                format!("os.environ.setdefault(\"{name}\", \"{pw}\")"),
                format!("os.Setenv(\"{name}\", \"{pw}\")"),
                format!("config.set('auth', '{name}', '{pw}')"),
                format!("ini_set('{name}', '{pw}');"),
                format!("builder.Configuration[\"{name}\"] = \"{pw}\";"),
                format!("System.setProperty(\"{name}\", \"{pw}\")"),
                format!("await redis.hset('settings', '{name}', '{pw}')"),
            ],
        );
        text(pw, line)
    }),
    ("name-value-rows-and-tuples", |rng| {
        let pw = safe_pw(rng);
        let name = setting_name(rng).to_ascii_lowercase();
        let line = pick_line(
            rng,
            vec![
                format!("INSERT INTO settings (name, value) VALUES ('{name}', '{pw}');"),
                format!("name,value\nsmtp_host,mail.corp\n{name},{pw}"),
                format!("DEFAULTS = [\n    (\"{name}\", \"{pw}\"),\n    (\"timeout\", \"30\"),\n]"),
                format!("<add key=\"{name}\" value=\"{pw}\" />"),
                format!("<param name=\"{name}\" value=\"{pw}\"/>"),
                format!("[[\"{name}\", \"{pw}\"], [\"region\", \"eu-west-1\"]]"),
            ],
        );
        text(pw, line)
    }),
    ("values-before-their-name-in-code-and-shell", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("SELECT '{pw}' as password, 'ops' as username;"),
                format!("'{pw}' => 'admin_password',"),
                format!("local default = \"{pw}\" -- the root password for dev"),
                format!("{pw}   # api key (staging)"),
                format!("const X = \"{pw}\"; // ← smtp password, rotate monthly"),
                format!("Password(\"{pw}\").as_secret()"),
            ],
        );
        text(pw, line)
    }),
    ("values-before-their-name-in-prose", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("{pw} is the admin password, don't paste it anywhere"),
                format!("Use {pw} — that's the wifi key for the lab."),
                format!("ok so {pw} = the new db password"),
                format!("\"{pw}\" was the token they gave us"),
                format!("{pw} (root pw on the NAS)"),
                format!("C'est {pw}, le mot de passe du routeur."),
            ],
        );
        text(pw, line)
    }),
    ("markdown-code-spans-beside-secret-words", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("The default password is `{pw}`; change it after first login."),
                format!("Set `DB_PASS` to `{pw}` in the staging `.env`."),
                format!("**API key**: `{pw}`"),
                format!("- secret → `{pw}`"),
                format!("password (for `svc-backup`): `{pw}`"),
                format!("Token: ``{pw}`` (expires Friday)"),
            ],
        );
        text(pw, line)
    }),
    ("markdown-credential-notes", |rng| {
        let pw = symbolic_pw(rng).replace(['`', '|', '*', '_'], "k");
        let line = pick_line(
            rng,
            vec![
                format!("Default credentials: `admin` / `{pw}`"),
                format!(
                    "| host | user | password |\n|------|------|----------|\n| `db1` | `root` | `{pw}` |"
                ),
                format!("Log in with **root** and password **{pw}**."),
                format!("* _passphrase_: `{pw}`"),
                format!("> creds for the demo tenant: `demo@corp.io` + `{pw}`"),
                format!("### Staging\n\nuser `qa`, pass `{pw}`"),
            ],
        );
        text(pw, line)
    }),
    ("api-tokens-beside-their-name-after", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("{tok} # api key"),
                format!("\"{tok}\"  // sendgrid token"),
                format!("'{tok}' AS client_secret"),
                format!("{tok}  ← bearer token for the webhook"),
                format!("val _ = \"{tok}\" /* signing secret */"),
                format!("{tok} <- that one is the access token"),
            ],
        );
        text(tok, line)
    }),
];
