//! Families written to test principles rather than formats: tokens with no known prefix and
//! no secret-like name (recognisable only by their statistics or by the command that printed
//! them), secret-like names in other casings, separators, syntaxes and human languages, and
//! secrets behind encodings the earlier families do not use (HTML and XML entities, `\x`
//! escapes, UTF-16 base64 of PowerShell, MIME encoded words, base64 of whole config files,
//! URL-encoded form bodies).

use base64::Engine as _;
use serde_json::json;

use super::families::{B64, B64URL, Carrier, Family, Made, pick_line, text, url_encode};
use super::values::{bytes, password, token_between};
use crate::random::Rng;

/// A made secret whose text holds it only in encoded forms: `needles` are the secret and
/// those forms.
fn encoded_text(secret: String, forms: Vec<String>, line: String) -> Made {
    let mut needles = vec![secret.clone()];
    needles.extend(forms);
    Made { secret, needles, carrier: Carrier::Text(line) }
}

/// `length` characters of the RFC 4648 base32 alphabet.
fn base32(rng: &mut Rng, length: usize) -> String {
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    super::values::from_alphabet(rng, CHARS, length)
}

/// The base58 (Bitcoin alphabet) of `length` random bytes.
fn base58_bytes(rng: &mut Rng, length: usize) -> String {
    bs58::encode(bytes(rng, length)).into_string()
}

/// A password without the characters that would end a value in the syntaxes below.
fn plain_password(rng: &mut Rng) -> String {
    password(rng).replace(['"', '\'', '&', '<', '>', '\\', ';', '#', '$', '%', '@', '+'], "x")
}

/// Every byte as `&#N;` (decimal) or `&#xN;` (hex).
fn numeric_entities(text: &str, hex: bool) -> String {
    text.bytes().map(|b| if hex { format!("&#x{b:x};") } else { format!("&#{b};") }).collect()
}

/// `"` `<` `>` `&` as HTML entities.
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

pub(super) const FAMILIES: &[Family] = &[
    // --- Shape: a generated token with no known prefix and no secret-like name. ---
    ("bare-token-argument", |rng| {
        let tok = token_between(rng, 32, 48);
        let line = pick_line(
            rng,
            vec![
                format!("./scripts/notify.sh prod {tok}"),
                format!("$ python trigger.py --env staging {tok}"),
                format!("node deploy.js {tok} eu-west-1"),
                format!("make release TARGET=prod ARG={tok}"),
                format!("pwsh ./Publish.ps1 -Env prod {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("neutral-name-token", |rng| {
        let tok = token_between(rng, 30, 44);
        let line = pick_line(
            rng,
            vec![
                format!("ORBIT_CLIENT={tok}"),
                format!("export STAGING_CI=\"{tok}\""),
                format!("pager_integration: {tok}"),
                format!("relay.upstream = \"{tok}\""),
                format!("const vendorConfig = {{ account: \"acme\", handle: \"{tok}\" }};"),
            ],
        );
        text(tok, line)
    }),
    ("base32-seed-bare", |rng| {
        let seed = base32(rng, 32);
        let line = pick_line(
            rng,
            vec![
                format!("oathtool --totp -b {seed}"),
                format!("2fa -add github {seed}"),
                format!("Scan failed? Enter this code manually: {seed}"),
                format!("ykman oath accounts add aws {seed}"),
            ],
        );
        text(seed, line)
    }),
    ("base58-keypair-bare", |rng| {
        let key = base58_bytes(rng, 64);
        let line = pick_line(
            rng,
            vec![
                format!("Exported wallet: {key}"),
                format!("WALLET={key}"),
                format!("solana-keygen recover -o id.json --force {key}"),
                format!("import this into Phantom: {key}"),
            ],
        );
        text(key, line)
    }),
    ("neutral-header-token", |rng| {
        let tok = token_between(rng, 28, 40);
        let header = rng.pick(&["X-Acme-Client", "X-Relay", "X-Tenant-Pass-Through", "X-Org"]);
        let line = pick_line(
            rng,
            vec![
                format!("curl -s -H \"{header}: {tok}\" https://api.example.net/v2/jobs"),
                format!("http GET api.example.net/v2/jobs '{header}:{tok}'"),
                format!("fetch(url, {{ headers: {{ \"{header}\": \"{tok}\" }} }})"),
            ],
        );
        text(tok, line)
    }),
    ("url-path-token", |rng| {
        let tok = token_between(rng, 32, 48);
        let line = pick_line(
            rng,
            vec![
                format!("curl -X POST https://relay.example.net/in/{tok}"),
                format!("webhook: https://api.example.io/hooks/{tok}/run"),
                format!("POST https://events.example.com/v1/ingest/{tok}?source=ci"),
                format!("notify_url = https://notify.example.org/t/{tok}"),
            ],
        );
        text(tok, line)
    }),
    ("token-in-prose-no-name", |rng| {
        let tok = token_between(rng, 30, 48);
        let line = pick_line(
            rng,
            vec![
                format!("here you go: {tok}"),
                format!("paste this into the dashboard: {tok}"),
                format!("it's {tok} (expires Friday)"),
                format!("Sent you the thing on Slack, it's `{tok}`"),
            ],
        );
        text(tok, line)
    }),
    ("generator-output", |rng| {
        let (command, value) = match rng.below(4) {
            0 => ("openssl rand -base64 32", B64.encode(bytes(rng, 32))),
            1 => (
                "openssl rand -hex 32",
                bytes(rng, 32).iter().map(|b| format!("{b:02x}")).collect(),
            ),
            2 => (
                "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'",
                B64URL.encode(bytes(rng, 32)),
            ),
            _ => ("head -c 24 /dev/urandom | base64", B64.encode(bytes(rng, 24))),
        };
        let line = format!("$ {command}\n{value}");
        text(value, line)
    }),
    ("base64-random-bare", |rng| {
        let length = rng.range(24, 48);
        let key = B64.encode(bytes(rng, length));
        let line = pick_line(
            rng,
            vec![
                format!("the shared one is {key} — don't lose it"),
                format!("peer vpn-2 {key}"),
                format!("MASTER={key}"),
                format!("value: {key}"),
            ],
        );
        text(key, line)
    }),
    ("generated-password-bare", |rng| {
        const CHARS: &[u8] =
            b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%&*+-=?@^_~";
        let length = rng.range(20, 32);
        let pw: String = super::values::from_alphabet(rng, CHARS, length);
        let line = pick_line(
            rng,
            vec![
                format!("Generated: {pw}"),
                format!("pwgen -sy 24 1\n{pw}"),
                format!("copied `{pw}` to the vault entry"),
                format!("new one: {pw}"),
            ],
        );
        text(pw, line)
    }),
    // --- Context: secret-like names in other casings, separators, syntaxes, languages. ---
    ("names-germanic-languages", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Passwort: {pw}"),
                format!("kennwort={pw}"),
                format!("wachtwoord = \"{pw}\""),
                format!("lösenord: {pw}"),
                format!("passord={pw}"),
                format!("adgangskode: \"{pw}\""),
                format!("salasana = {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("names-romance-languages", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("contraseña: {pw}"),
                format!("CONTRASENA={pw}"),
                format!("senha = \"{pw}\""),
                format!("mot_de_passe: {pw}"),
                format!("mdp={pw}"),
                format!("clave: \"{pw}\""),
                format!("parola = {pw}"),
                format!("palavra-passe: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("names-slavic-and-other-languages", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("пароль: {pw}"),
                format!("haslo={pw}"),
                format!("hasło: \"{pw}\""),
                format!("heslo = {pw}"),
                format!("jelszó: {pw}"),
                format!("sifre={pw}"),
                format!("şifre: {pw}"),
                format!("parool = \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("names-asian-languages", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("密码: {pw}"),
                format!("密碼={pw}"),
                format!("パスワード: {pw}"),
                format!("비밀번호 = {pw}"),
                format!("mật khẩu: {pw}"),
                format!("รหัสผ่าน: {pw}"),
                format!("kata sandi: {pw}"),
                format!("口令：{pw}"),
            ],
        );
        text(pw, line)
    }),
    ("credentials-in-foreign-prose", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Das Passwort ist {pw}, bitte nicht weitergeben."),
                format!("La contraseña es {pw} para el servidor."),
                format!("Le mot de passe est {pw} pour l'admin."),
                format!("A senha é {pw} no servidor novo."),
                format!("Пароль от сервера: {pw}"),
                format!("服务器的密码是 {pw}"),
                format!("サーバーのパスワードは {pw} です"),
                format!("서버 비밀번호는 {pw} 입니다"),
            ],
        );
        text(pw, line)
    }),
    ("token-names-in-other-languages", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("API-Schlüssel: {tok}"),
                format!("clé_api = \"{tok}\""),
                format!("chave_api: {tok}"),
                format!("токен={tok}"),
                format!("令牌: {tok}"),
                format!("密钥 = {tok}"),
                format!("トークン: {tok}"),
                format!("토큰={tok}"),
            ],
        );
        text(tok, line)
    }),
    ("concatenated-lowercase-names", |rng| {
        let pw = plain_password(rng);
        let name = rng.pick(&[
            "adminpass",
            "dbpass",
            "rootpass",
            "userpass",
            "mailpass",
            "smtppass",
            "wifipass",
            "masterpass",
            "ftppass",
            "vncpass",
        ]);
        let line = pick_line(
            rng,
            vec![
                format!("{name}={pw}"),
                format!("{name}: {pw}"),
                format!("{name} = \"{pw}\""),
                format!("--{name} {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("camel-case-pass-names", |rng| {
        let pw = plain_password(rng);
        let name = rng.pick(&[
            "userPass", "adminPw", "dbPass", "smtpPass", "mailPwd", "rootPass", "mqttPass",
        ]);
        let line = pick_line(
            rng,
            vec![
                format!("const {name} = \"{pw}\";"),
                format!("private static final String {name} = \"{pw}\";"),
                format!("val {name} = \"{pw}\""),
                format!("let {name} = \"{pw}\""),
                format!("{{ host: \"db\", {name}: '{pw}' }}"),
            ],
        );
        text(pw, line)
    }),
    ("pair-syntaxes", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("{{password, \"{pw}\"}},"),
                format!("(:user \"ops\" :password \"{pw}\")"),
                format!("(setq smtpmail-auth-password \"{pw}\")"),
                format!("'(password . \"{pw}\")"),
                format!("[\"password\"] = \"{pw}\","),
                format!("PASSWORD ?= {pw}"),
                format!("passwd := \"{pw}\""),
                format!("config :app, MyApp.Repo, username: \"app\", password: \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("nested-config-separators", |rng| {
        let pw = plain_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Smtp__Password={pw}"),
                format!("ConnectionStrings__Db__Password: {pw}"),
                format!("app:db:pass={pw}"),
                format!("secrets/db/pass: {pw}"),
                format!("mail.auth.pass = {pw}"),
                format!("DB.PASS={pw}"),
                format!("-Dmail.smtp.pass={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("tool-env-credentials", |rng| {
        let pw = plain_password(rng);
        let name = rng.pick(&[
            "SSHPASS",
            "SMBPASS",
            "DBPASS",
            "CIFSPASS",
            "REDISCLI_AUTH",
            "ADMINPASS",
            "FTPPASS",
            "VNCPASS",
        ]);
        let line = pick_line(
            rng,
            vec![
                format!("export {name}={pw}"),
                format!("{name}='{pw}' sshpass -e ssh ops@host"),
                format!("env {name}={pw} ./backup.sh"),
                format!("$env:{name} = \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("secret-json-keys-other-languages", |rng| {
        let pw = plain_password(rng);
        let key =
            rng.pick(&["passwort", "contraseña", "senha", "пароль", "密码", "motDePasse", "hasło"]);
        let value = json!({"host": "db.internal", "user": "app", *key: pw});
        Made { needles: vec![pw.clone()], secret: pw, carrier: Carrier::Json(value) }
    }),
    // --- Encodings the earlier families do not use. ---
    ("html-escaped-json-attribute", |rng| {
        let tok = token_between(rng, 20, 36);
        let name = rng.pick(&["apiKey", "password", "client_secret", "authToken"]);
        let json = format!("{{\"endpoint\":\"/v1\",\"{name}\":\"{tok}\"}}");
        let line = pick_line(
            rng,
            vec![
                format!("<div id=\"app\" data-config=\"{}\"></div>", html_escape(&json)),
                format!("<script type=\"application/json\" data-props=\"{}\">", html_escape(&json)),
                format!("<input type=\"hidden\" value=\"{}\">", html_escape(&json)),
            ],
        );
        text(tok, line)
    }),
    ("xml-escaped-markup", |rng| {
        let pw = plain_password(rng);
        let inner = pick_line(
            rng,
            vec![
                format!("<password>{pw}</password>"),
                format!("<add key=\"DbPassword\" value=\"{pw}\" />"),
                format!("<credentials user=\"svc\" password=\"{pw}\"/>"),
            ],
        );
        let line = format!("<soap:Body><payload>{}</payload></soap:Body>", html_escape(&inner));
        text(pw, line)
    }),
    ("numeric-entity-escaped", |rng| {
        let pw = plain_password(rng);
        let hex = rng.chance(0.5);
        let name = rng.pick(&["password", "passwd", "api_key", "token"]);
        let encoded = numeric_entities(&format!("{name}={pw}"), hex);
        let form = numeric_entities(&pw, hex);
        let line = format!("<p>{encoded}</p>");
        encoded_text(pw, vec![form], line)
    }),
    ("backslash-x-escaped", |rng| {
        let pw = plain_password(rng);
        let name = rng.pick(&["password", "DB_PASSWORD", "secret", "token"]);
        let escaped: String =
            format!("{name}={pw}\n").bytes().map(|b| format!("\\x{b:02x}")).collect();
        let form: String = pw.bytes().map(|b| format!("\\x{b:02x}")).collect();
        let line = pick_line(
            rng,
            vec![
                format!("printf '{escaped}' > .env"),
                format!("buf = b\"{escaped}\""),
                format!("echo -e \"{escaped}\" >> config"),
            ],
        );
        // Inside a JSON string each backslash is doubled.
        let in_json = form.replace('\\', "\\\\");
        encoded_text(pw, vec![form, in_json], line)
    }),
    ("powershell-encoded-command", |rng| {
        let pw = plain_password(rng);
        let script = pick_line(
            rng,
            vec![
                format!("$pw = ConvertTo-SecureString '{pw}' -AsPlainText -Force"),
                format!("net user svc_backup {pw} /add"),
                format!("$password = \"{pw}\"; Connect-Server -Password $password"),
            ],
        );
        let utf16: Vec<u8> = script.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let blob = B64.encode(&utf16);
        let line = pick_line(
            rng,
            vec![
                format!("powershell.exe -NoProfile -EncodedCommand {blob}"),
                format!("pwsh -enc {blob}"),
                format!("CommandLine: powershell -e {blob}"),
            ],
        );
        encoded_text(pw, vec![blob], line)
    }),
    ("mime-encoded-word", |rng| {
        let pw = plain_password(rng);
        let phrase = pick_line(
            rng,
            vec![
                format!("Your new password: {pw}"),
                format!("Ihr Passwort lautet {pw}"),
                format!("Temporary password {pw}"),
            ],
        );
        let blob = B64.encode(phrase.as_bytes());
        let line = pick_line(
            rng,
            vec![format!("Subject: =?UTF-8?B?{blob}?="), format!("X-Note: =?utf-8?b?{blob}?=")],
        );
        encoded_text(pw, vec![blob], line)
    }),
    ("base64-wrapped-config-file", |rng| {
        let pw = plain_password(rng);
        let config = pick_line(
            rng,
            vec![
                format!("database:\n  host: db.internal\n  password: {pw}\n"),
                format!("[client]\nuser=app\npassword={pw}\n"),
                format!("{{\"db\": {{\"user\": \"app\", \"password\": \"{pw}\"}}}}"),
                format!("<config><db user=\"app\" password=\"{pw}\"/></config>"),
            ],
        );
        let blob = if rng.chance(0.5) { B64.encode(&config) } else { B64URL.encode(&config) };
        let line = pick_line(
            rng,
            vec![
                format!("userData: {blob}"),
                format!("\"content\": \"{blob}\""),
                format!("kubectl create configmap app --from-literal=cfg={blob}"),
            ],
        );
        encoded_text(pw, vec![blob], line)
    }),
    ("base64url-json-state", |rng| {
        let tok = token_between(rng, 24, 40);
        let name = rng.pick(&["client_secret", "apiKey", "refresh_token", "password"]);
        let json = format!("{{\"return\":\"/home\",\"{name}\":\"{tok}\"}}");
        let blob = B64URL.encode(&json);
        let line = pick_line(
            rng,
            vec![
                format!("GET /callback?code=ok&state={blob}"),
                format!("X-Context: {blob}"),
                format!("ctx={blob}"),
            ],
        );
        encoded_text(tok, vec![blob], line)
    }),
    ("url-encoded-form-body", |rng| {
        let pw = password(rng);
        let name = rng.pick(&[
            "passwd",
            "pass",
            "pwd",
            "j_password",
            "login%5Bpassword%5D",
            "user%5Bpass%5D",
        ]);
        let encoded = url_encode(&pw);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "curl -d 'username=ops&{name}={encoded}&remember=1' https://x.example/login"
                ),
                format!("POST /login body: email=a%40b.c&{name}={encoded}"),
                format!("{name}={encoded}&grant_type=password&client_id=web"),
            ],
        );
        encoded_text(pw, vec![encoded], line)
    }),
    ("random-token-other-alphabets", |rng| {
        // Random tokens in alphabets without digits or with few: letters only, lower case
        // and digits, upper case and digits.
        let length = rng.range(32, 44);
        let tok: String = match rng.below(3) {
            0 => {
                const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
                super::values::from_alphabet(rng, CHARS, length)
            }
            1 => {
                const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
                super::values::from_alphabet(rng, CHARS, length)
            }
            _ => {
                const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
                super::values::from_alphabet(rng, CHARS, length)
            }
        };
        let line = pick_line(
            rng,
            vec![
                format!("access: {tok}"),
                format!("./sync --with {tok}"),
                format!("use {tok} for the mirror"),
                format!("LICENSE_ACTIVATION={tok}"),
            ],
        );
        text(tok, line)
    }),
];
