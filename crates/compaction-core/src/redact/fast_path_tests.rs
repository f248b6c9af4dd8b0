//! The fast path of [`apply_rules`] (rules ruled out by the literal index, regexes built from
//! the parsed patterns without the engine's prefilters) against the straightforward one
//! (every rule compiled with `regex::Regex` from its text and applied with `replace_all`), on
//! generated text made of secret-looking names, the syntax around them and values.
use proptest::prelude::*;
use regex::{Captures, Regex};

use super::*;

/// The rules applied the straightforward way: every rule compiled with `regex::Regex`
/// from its pattern text and applied in order with `replace_all`, with no literal index.
fn apply_every_rule(text: &str, depth: u8) -> String {
    static REGEXES: OnceLock<Vec<(Regex, Check)>> = OnceLock::new();
    let regexes = REGEXES.get_or_init(|| {
        all_rules()
            .map(|rule| (Regex::new(&ascii_classes(rule.pattern)).unwrap(), rule.check))
            .collect()
    });
    let mut out = text.to_owned();
    for (regex, check) in regexes {
        if *check == Check::Encoded && depth == 0 {
            continue;
        }
        out = regex
            .replace_all(&out, |captures: &Captures<'_>| {
                let whole = &captures[0];
                let Some(secret) = captures.name("secret") else { return whole.to_owned() };
                let start = captures.get(0).map_or(0, |m| m.start());
                let before = &whole[..secret.start() - start];
                let after = &whole[secret.end() - start..];
                if *check == Check::Cookies {
                    return format!("{before}{}{after}", cookie_values(secret.as_str()));
                }
                if !passes(*check, before, secret.as_str(), after, depth) {
                    return whole.to_owned();
                }
                format!("{before}{REDACTED}{after}")
            })
            .into_owned();
    }
    out
}

/// Secret-looking names, in several casings and languages.
const NAMES: &[&str] = &[
    "password",
    "PASSWORD",
    "db_password",
    "dbPass",
    "passwd",
    "passphrase",
    "pwd",
    "pw",
    "pass",
    "psk",
    "secret",
    "client_secret",
    "api_key",
    "apiKey",
    "ACCESS_KEY",
    "private_key_id",
    "token",
    "auth_token",
    "credentials",
    "AWS_SECRET_ACCESS_KEY",
    "GITHUB_PAT",
    "requirepass",
    "passwort",
    "contraseña",
    "пароль",
    "密码",
    "パスワード",
    "mot de passe",
    "clé api",
    "key",
    "session_id",
    "csrf_token",
    "Cookie",
    "Authorization",
    "Bearer",
    "community",
    "paſſword",
    "\u{212a}EY",
    "login",
    "creds",
    "IDENTIFIED BY",
];

/// The syntax around names and values: assignments, quotes, flags, URLs, markup.
const SYNTAX: &[&str] = &[
    "=",
    ": ",
    " = ",
    ":=",
    "=>",
    "->",
    "：",
    " ",
    "\n",
    "\\n",
    "\t",
    "\"",
    "'",
    "`",
    "(",
    ")",
    ", ",
    ";",
    "<",
    ">",
    "</",
    "@",
    "://",
    "https://",
    "postgres://app:",
    "-u ",
    "--user ",
    " -p",
    " -P ",
    "curl ",
    "mysql ",
    "set ",
    "export ",
    "\"name\": \"",
    "\"value\": \"",
    "- name: ",
    "\n  value: ",
    " is ",
    " to ",
    "\\",
    "+",
    "[",
    "]",
    "{",
    "}",
    "%",
    "/",
    ".",
    "_",
];

/// Values: chosen passwords and generated tokens.
const VALUES: &[&str] = &[
    "hunter2",
    "s3cr3t-Pw!",
    "correct horse",
    "Xk9#mP2$vL7q",
    "4096",
    "get_token()",
    "${DB_PASSWORD}",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "sk-abcdefghijklmnopqrstuvwxyz012345",
    "YWRtaW46aHVudGVyMg==",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
];

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(NAMES).prop_map(str::to_owned),
        4 => prop::sample::select(SYNTAX).prop_map(str::to_owned),
        2 => prop::sample::select(VALUES).prop_map(str::to_owned),
        2 => "[A-Za-z0-9+/_\\-]{3,40}",
        1 => "[ -~]{0,8}",
        1 => "[a-zé ſ\u{212a}密码пароль]{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    /// The fast path (rules skipped by the literal index, regexes built from the parsed
    /// patterns without the engine's prefilters) redacts exactly what applying every rule
    /// with `regex::Regex::replace_all` redacts.
    #[test]
    fn the_fast_path_redacts_what_every_rule_redacts(
        parts in prop::collection::vec(fragment(), 1..28),
        depth in 0_u8..=1,
    ) {
        let text = parts.concat();
        prop_assert_eq!(apply_rules(&text, depth).into_owned(), apply_every_rule(&text, depth));
    }
}
