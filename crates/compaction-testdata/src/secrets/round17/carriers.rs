//! Round 17 families of carriers: `user:password` in base64 (Basic authorization, Docker's
//! `auth`, Kubernetes `data:`), secrets in URL-encoded or doubly escaped text, credential
//! files of tools, and session cookies.

use base64::Engine as _;

use super::super::families::{B64, Carrier, Family, Made, pick_line, text, url_encode};
use super::super::values::token_between;
use super::{generated_pw, user, weak_case_pw, words_number_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("user-and-password-in-base64", |rng| {
        let pw = words_number_pw(rng);
        let name = user(rng);
        let pair = B64.encode(format!("{name}:{pw}"));
        let alone = B64.encode(&pw);
        let (encoded, line) = match rng.below(6) {
            0 => (pair.clone(), format!("Authorization: Basic {pair}")),
            1 => (
                pair.clone(),
                format!("{{\"auths\": {{\"registry.example.io\": {{\"auth\": \"{pair}\"}}}}}}"),
            ),
            2 => (
                alone.clone(),
                format!(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  \
                     username: ZGVwbG95\n  password: {alone}"
                ),
            ),
            3 => (
                pair.clone(),
                format!("curl -H 'Authorization: Basic {pair}' https://ci.internal/api"),
            ),
            4 => (alone.clone(), format!("kubectl get secret db -o yaml\n...\n  db-pass: {alone}")),
            _ => (pair.clone(), format!("proxy-authorization: basic {pair}")),
        };
        Made { needles: vec![pw.clone(), encoded], secret: pw, carrier: Carrier::Text(line) }
    }),
    ("secrets-in-url-encoded-or-double-escaped-text", |rng| {
        let pw = generated_pw(rng);
        let encoded = url_encode(&pw);
        let line = pick_line(
            rng,
            vec![
                format!("POST /login body: username=ops&password={encoded}&remember=1"),
                format!("\"{{\\\"user\\\":\\\"ops\\\",\\\"password\\\":\\\"{pw}\\\"}}\""),
                format!("GET /connect?dsn=postgres%3A%2F%2Fapp%3A{encoded}%40db%3A5432%2Fmain"),
                format!("payload=%7B%22password%22%3A%22{encoded}%22%7D"),
                format!("{{\"body\": \"{{\\\\\\\"secret\\\\\\\": \\\\\\\"{pw}\\\\\\\"}}\"}}"),
                format!("redirect_uri=https%3A%2F%2Fapp%2Fcb%3Fclient_secret%3D{encoded}"),
            ],
        );
        Made { needles: vec![pw.clone(), encoded], secret: pw, carrier: Carrier::Text(line) }
    }),
    ("credential-files-of-tools", |rng| {
        let pw = weak_case_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ cat ~/.netrc\nmachine api.example.com\n  login deploy\n  password {pw}"),
                format!("$ cat ~/.pgpass\ndb.internal:5432:app:app_rw:{pw}"),
                format!("$ cat ~/.git-credentials\nhttps://jdoe:{pw}@git.example.com"),
                format!("[client]\nuser=root\npassword={pw}"),
                format!("# /etc/ppp/chap-secrets\nvpnuser  *  {pw}  *"),
                format!("$ cat /etc/rsyncd.secrets\nbackup:{pw}"),
                format!(
                    "$ cat ~/.config/pip/pip.conf\n[global]\nindex-url = https://ci:{pw}@pypi.internal/simple"
                ),
            ],
        );
        text(pw, line)
    }),
    ("session-cookies-and-headers", |rng| {
        let tok = token_between(rng, 26, 40);
        let line = pick_line(
            rng,
            vec![
                format!("Cookie: theme=dark; sessionid={tok}; lang=en"),
                format!("Set-Cookie: __Secure-next-auth.session-token={tok}; Path=/; HttpOnly"),
                format!("curl -b 'PHPSESSID={tok}' https://admin.internal/"),
                format!("document.cookie = \"remember_token={tok}\""),
                format!("JSESSIONID={tok}; Path=/app; Secure"),
                format!("headers: {{ 'X-Session-Id': '{tok}' }}"),
            ],
        );
        text(tok, line)
    }),
];
