//! Round 14 families of values placed against a name in ways no family had: raw HTTP
//! requests, header arguments of HTTP clients, a name and its value in two fields of one
//! record, labels in scripts no list had, values before their name in code, secrets piped to a
//! command's input, expanded and grid table rows, a secret as a bare argument of a crypto or
//! login call, and neutral keys under a secret-named section.

use base64::Engine as _;

use super::super::families::{B64, Family, pick_line, text};
use super::super::values::{base64_bytes, token_between};
use super::plain_pw;

pub(super) const FAMILIES: &[Family] = &[
    ("raw-http-request-headers", |rng| {
        let tok = token_between(rng, 28, 44);
        let pw = plain_pw(rng);
        let basic = B64.encode(format!("svc-deploy:{pw}"));
        let (secret, line) = match rng.below(5) {
            0 => (
                tok.clone(),
                format!(
                    "GET /v2/orders?limit=50 HTTP/1.1\r\nHost: api.internal\r\nAccept: application/json\r\nX-Api-Key: {tok}\r\nUser-Agent: okhttp/4.12\r\n"
                ),
            ),
            1 => (
                basic.clone(),
                format!(
                    "POST /upload HTTP/1.1\nHost: files.corp\nAuthorization: Basic {basic}\nContent-Length: 512\n"
                ),
            ),
            2 => (
                tok.clone(),
                format!(
                    "> GET /metrics HTTP/2\n> Host: grafana.internal\n> cookie: grafana_session={tok}; theme=dark\n> accept: */*\n"
                ),
            ),
            3 => (
                tok.clone(),
                format!(
                    "PUT /objects/a.bin HTTP/1.1\nHost: store\nX-Auth-Token: {tok}\nExpect: 100-continue"
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    "CONNECT proxy.corp:3128 HTTP/1.1\nX-Tenant-Secret: {tok}\nProxy-Connection: keep-alive"
                ),
            ),
        };
        text(secret, line)
    }),
    ("http-client-header-arguments", |rng| {
        let tok = token_between(rng, 30, 48);
        let line = pick_line(
            rng,
            vec![
                format!("http GET https://api.shipit.dev/v1/jobs X-Access-Key:{tok}"),
                format!("wget --header=\"X-Service-Token: {tok}\" https://mirror.corp/pkg.tgz"),
                format!("xh post :8080/hook Signing-Secret:{tok} event=push"),
                format!("Invoke-RestMethod -Uri $u -Headers @{{ 'X-Client-Secret' = '{tok}' }}"),
                format!("curlie -H 'Private-Token: {tok}' https://gitlab.corp/api/v4/projects"),
                format!("hurl --variable api_secret={tok} tests/orders.hurl"),
            ],
        );
        text(tok, line)
    }),
    ("name-and-value-fields-apart", |rng| {
        let tok = token_between(rng, 24, 40);
        let b64 = base64_bytes(rng, 24);
        let (secret, line) = match rng.below(5) {
            0 => (
                tok.clone(),
                format!(
                    "{{\n  \"Name\": \"/prod/payments/stripe_secret\",\n  \"Type\": \"SecureString\",\n  \"Value\": \"{tok}\",\n  \"Version\": 3\n}}"
                ),
            ),
            1 => (
                b64.clone(),
                format!("[{{\"Key\": \"app/db/password\", \"Flags\": 0, \"Value\": \"{b64}\"}}]"),
            ),
            2 => (
                tok.clone(),
                format!(
                    "variable \"admin_password\" {{\n  type      = string\n  sensitive = true\n  default   = \"{tok}\"\n}}"
                ),
            ),
            3 => (
                tok.clone(),
                format!(
                    "- key: smtp_password\n  description: relay login\n  value: {tok}\n- key: smtp_host\n  value: mail.corp"
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    "<setting>\n  <name>ldap.bind.credential</name>\n  <type>string</type>\n  <value>{tok}</value>\n</setting>"
                ),
            ),
        };
        text(secret, line)
    }),
    ("password-labels-more-scripts", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Mật khẩu: {pw}"),
                format!("Kata sandi wifi kantor: {pw}"),
                format!("የይለፍ ቃል፦ {pw}"),
                format!("စကားဝှက် - {pw}"),
                format!("ពាក្យសម្ងាត់៖ {pw}"),
                format!("මුරපදය: {pw}"),
                format!("Fjalëkalimi: {pw}"),
                format!("Şifrə: {pw}"),
                format!("Лозинка: {pw}"),
                format!("Iphasiwedi: {pw}"),
                format!("Kupuhipa: {pw}"),
                format!("Slaptažodis: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("values-then-their-name-in-code", |rng| {
        let tok = token_between(rng, 28, 44);
        let line = pick_line(
            rng,
            vec![
                format!("SELECT '{tok}' AS api_secret, now() AS rotated_at;"),
                format!("    \"{tok}\", // stripe live secret key"),
                format!("KEYS = [\n    \"{tok}\",  # webhook signing secret (prod)\n]"),
                format!("{tok}  <-- paste this as the CLIENT_SECRET in the portal"),
                format!("let (_, _) = (\"{tok}\", \"admin token\");"),
                format!("echo '{tok}' > /run/secrets/registry_password"),
            ],
        );
        text(tok, line)
    }),
    ("secrets-piped-into-stdin", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("echo \"{pw}\" | docker login ghcr.io -u ci --password-stdin"),
                format!("printf '%s\\n' '{pw}' | sudo -S systemctl restart nginx"),
                format!(
                    "\"{pw}\" | ConvertTo-SecureString -AsPlainText -Force | Set-Variable cred"
                ),
                format!("yes '{pw}' | passwd deploy"),
                format!(
                    "echo -n {pw} | kubectl create secret generic db --from-file=pw=/dev/stdin"
                ),
                format!("mysql -u root -p mydb <<< \"{pw}\""),
                format!("chpasswd <<< \"backup:{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("expanded-and-grid-table-rows", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "-[ RECORD 1 ]-----+------------------\nusername        | report\npassword        | {pw}\nvalid_until     | infinity"
                ),
                format!(
                    "*************************** 1. row ***************************\n     User: app\n     Pass: {pw}\n     Host: %"
                ),
                format!(
                    "+---------+----------+------------------+\n| service | login    | secret           |\n+---------+----------+------------------+\n| smtp    | relay    | {pw} |\n+---------+----------+------------------+"
                ),
                format!("| Service | User | Passwort |\n|---|---|---|\n| NAS | admin | {pw} |"),
                format!(
                    "Name       Login     Credential\n---------  --------  ----------\nrouter     admin     {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("secret-as-positional-call-argument", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("token = jwt.encode(claims, \"{tok}\", algorithm=\"HS256\")"),
                format!(
                    "const sig = crypto.createHmac('sha256', '{tok}').update(body).digest('hex');"
                ),
                format!("mac = hmac.new(b\"{tok}\", msg, hashlib.sha256)"),
                format!("conn = DriverManager.getConnection(url, \"sa\", \"{tok}\");"),
                format!("var cred = new NetworkCredential(\"svc_backup\", \"{tok}\");"),
                format!("$db = mysqli_connect('db.internal', 'shop', '{tok}', 'shop');"),
                format!("client.login(\"bot@corp.example\", \"{tok}\")"),
            ],
        );
        text(tok, line)
    }),
    ("secret-named-sections-neutral-keys", |rng| {
        let tok = token_between(rng, 26, 42);
        let line = pick_line(
            rng,
            vec![
                format!("[secrets]\nstripe = \"{tok}\"\nsentry = \"https://sentry.io/12\""),
                format!("credentials:\n  github: {tok}\n  npm: none"),
                format!("{{\"tokens\": {{\"slack\": \"{tok}\", \"timeout\": 30}}}}"),
                format!("[passwords]\nnas={tok}\nrouter=see-label"),
                format!("api_keys:\n  - provider: mapbox\n    value: {tok}"),
                format!("auth {{\n  bearer {{\n    value = \"{tok}\"\n  }}\n}}"),
            ],
        );
        text(tok, line)
    }),
];
