//! Round 13 families of where the value sits against its name: continued on the next line,
//! split into concatenated literals, before its name, on the line after a label, after a blank
//! line, in the next chat message, printed with no name, echoed after a prompt.

use super::super::families::{Family, pick_line, text};
use super::super::values::{base64_bytes, token_between};
use super::{plain_pw, split_text};

pub(super) const FAMILIES: &[Family] = &[
    ("shell-backslash-continued-values", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "docker run -d --name pg \\\n  -e POSTGRES_USER=app \\\n  -e POSTGRES_PASSWORD=\\\n{pw} \\\n  postgres:16"
                ),
                format!("mysqladmin -u root \\\n  --password \\\n  {pw} \\\n  status"),
                format!("az sql server create -g rg -n sql01 -u sqladmin \\\n    -p \\\n    {pw}"),
                format!(
                    "helm upgrade --install api ./chart \\\n  --set db.user=app \\\n  --set db.password= \\\n{pw}"
                ),
                format!("CMD [\"/app/server\", \\\n     \"--admin-password\", \\\n     \"{pw}\"]"),
            ],
        );
        text(pw, line)
    }),
    ("tokens-split-by-line-continuation", |rng| {
        let tok = token_between(rng, 26, 36);
        let (head, tail) = tok.split_at(tok.len() / 2);
        let (head, tail) = (head.to_owned(), tail.to_owned());
        let line = pick_line(
            rng,
            vec![
                format!("export API_TOKEN=\"{head}\\\n{tail}\""),
                format!("#define LICENSE_KEY \"{head}\" \\\n                    \"{tail}\""),
                format!("api_key: \"{head}\\\n  {tail}\""),
                format!("set AUTH_SECRET={head}^\n{tail}"),
                format!("$secret = \"{head}\" + `\n          \"{tail}\""),
            ],
        );
        split_text(tok, vec![head, tail], line)
    }),
    ("yaml-multiline-plain-and-folded-scalars", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("smtp:\n  password:\n    {tok}\n  port: 587"),
                format!("auth:\n  client_secret: >-\n\n    {tok}\n  scope: read"),
                format!("- name: API_TOKEN\n  value:\n    \"{tok}\""),
                format!("secrets:\n  signing_key: >+\n      {tok}\n\n  issuer: acme"),
                format!("db:\n  ? password\n  : {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("concatenated-string-literals", |rng| {
        let tok = token_between(rng, 28, 40);
        let (head, tail) = tok.split_at(tok.len() / 2);
        let (head, tail) = (head.to_owned(), tail.to_owned());
        let line = pick_line(
            rng,
            vec![
                format!("API_SECRET = (\"{head}\"\n              \"{tail}\")"),
                format!("const token = '{head}' + '{tail}';"),
                format!("let key = concat!(\"{head}\", \"{tail}\");"),
                format!("String apiKey = \"{head}\"\n    + \"{tail}\";"),
                format!("password = \"{head}\" .. \"{tail}\""),
                format!("$auth_token = '{head}' . '{tail}';"),
            ],
        );
        split_text(tok, vec![head, tail], line)
    }),
    ("values-before-their-names", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("{pw}  <- that's the staging db password"),
                format!("'{pw}' is the root password on the new box"),
                format!("{{\"value\": \"{pw}\", \"name\": \"DB_PASSWORD\", \"type\": \"secret\"}}"),
                format!("dasel put -f config.toml -t string -v '{pw}' '.database.password'"),
                format!("vercel env add --value {pw} --name SMTP_PASSWORD production"),
                format!("echo -n {pw} | docker secret create postgres_password -"),
                format!("{pw} (mail relay password, rotate monthly)"),
            ],
        );
        text(pw, line)
    }),
    ("label-then-value-next-line", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Password:\n{pw}"),
                format!("Your new API key\n\n    {pw}\n\nCopy it now; it will not be shown again."),
                format!("Admin password (generated)\n------------------------\n{pw}"),
                format!("**Password**\n`{pw}`"),
                format!("<dt>Password</dt>\n<dd>{pw}</dd>"),
                format!("Secret\n  {pw}\nExpires\n  2027-01-01"),
            ],
        );
        text(pw, line)
    }),
    ("multipart-form-data-parts", |rng| {
        let pw = plain_pw(rng);
        let name = *rng.pick(&["password", "passwd", "api_key", "client_secret", "token"]);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"username\"\r\n\r\nops\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{pw}\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--"
                ),
                format!(
                    "--boundary42\nContent-Disposition: form-data; name=\"{name}\"\nContent-Type: text/plain\n\n{pw}\n--boundary42--"
                ),
                format!("curl -F 'user=ops' -F '{name}={pw}' https://auth.internal/login"),
            ],
        );
        text(pw, line)
    }),
    ("chat-answer-in-next-message", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[12/03/2026, 14:02:11] Ana: what's the router admin password again?\n[12/03/2026, 14:02:40] Ben: {pw}"
                ),
                format!("<dana> anyone have the staging db creds?\n<li> user app\n<li> {pw}"),
                format!(
                    "Mon 09:14  Priya: can you send me the vpn password\nMon 09:15  Omar: {pw}\nMon 09:15  Omar: delete this after"
                ),
                format!("> what is the token for the bot?\n\n{pw}\n\n> thanks"),
            ],
        );
        text(pw, line)
    }),
    ("nameless-tool-outputs", |rng| {
        let pw = plain_pw(rng);
        let b64 = base64_bytes(rng, 24);
        let (secret, line) = match rng.below(6) {
            0 => (pw.clone(), format!("$ pass show infra/db/prod\n{pw}\nuser: postgres")),
            1 => (b64.clone(), format!("$ openssl rand -base64 24\n{b64}")),
            2 => (pw.clone(), format!("$ vault kv get -field=value kv/stripe/live\n{pw}")),
            3 => (pw.clone(), format!("$ op read op://Prod/Postgres/credential\n{pw}")),
            4 => (pw.clone(), format!("$ gopass show -o websites/router\n{pw}")),
            _ => (b64.clone(), format!("PS> [Convert]::ToBase64String($bytes)\n{b64}")),
        };
        text(secret, line)
    }),
    ("interactive-secret-prompts-echoed", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ heroku config:set\nKey: STRIPE_KEY\nNew value: {pw}"),
                format!("$ npx wrangler secret put API_KEY\n✔ Enter a secret value: … {pw}"),
                format!("$ vercel env add DB_URL\n? What's the value of DB_URL? {pw}"),
                format!("$ fly secrets set\nValue for SESSION_SECRET > {pw}"),
                format!("Enter value (input will be visible): {pw}"),
                format!("$ gh secret set NPM_TOKEN\n? Paste your secret {pw}"),
            ],
        );
        text(pw, line)
    }),
];
