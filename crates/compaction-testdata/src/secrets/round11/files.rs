//! Round 11 families held in config files, code and documents.

use base64::Engine as _;
use serde_json::json;

use super::super::families::{B64, Carrier, Family, Made, pick_line, text};
use super::super::values::{bytes, token, token_between};
use super::{B64URL_CHARS, HEX, from_alphabet, plain_pw, with_forms};

/// Base64 of `text` wrapped at `width` columns, and the wrapped lines that hold any byte of
/// `text[start..end]`.
fn wrapped_base64(text: &str, start: usize, end: usize, width: usize) -> (String, Vec<String>) {
    let blob = B64.encode(text);
    let lines: Vec<String> = blob
        .as_bytes()
        .chunks(width)
        .map(|chunk| String::from_utf8_lossy(chunk).into_owned())
        .collect();
    let first = start / 3 * 4 / width;
    let last = (end.div_ceil(3) * 4 - 1) / width;
    let holding = lines[first..=last.min(lines.len() - 1)].to_vec();
    (lines.join("\n"), holding)
}

pub(super) const FAMILIES: &[Family] = &[
    ("language-registry-credential-files", |rng| {
        let (secret, line) = match rng.below(5) {
            0 => {
                let t = format!("cio{}", token(rng, 32));
                (
                    t.clone(),
                    format!(
                        "# ~/.cargo/credentials.toml\n[registry]\ntoken = \"{t}\"\n\n[registries.acme]\ntoken = \"{t}\""
                    ),
                )
            }
            1 => {
                let t = format!("pypi-AgEIcHlwaS5vcmc{}", from_alphabet(rng, B64URL_CHARS, 60));
                (
                    t.clone(),
                    format!(
                        "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = {t}"
                    ),
                )
            }
            2 => {
                let pw = plain_pw(rng);
                (
                    pw.clone(),
                    format!(
                        "<packageSourceCredentials>\n  <acme>\n    <add key=\"Username\" value=\"ci\" />\n    <add key=\"ClearTextPassword\" value=\"{pw}\" />\n  </acme>\n</packageSourceCredentials>"
                    ),
                )
            }
            3 => {
                let t = from_alphabet(rng, B64URL_CHARS, 64);
                (
                    t.clone(),
                    format!(
                        "{{\"accessToken\":\"{t}\",\"refreshToken\":null,\"tokenEndpoint\":\"https://accounts.google.com/o/oauth2/token\",\"expiration\":1733412345}}"
                    ),
                )
            }
            _ => {
                let t = token(rng, 40);
                (
                    t.clone(),
                    format!(
                        "# ~/.config/hex/hex.config\n{{'$write_key', <<\"{t}\">>}}.\n{{'$repo_key', nil}}."
                    ),
                )
            }
        };
        text(secret, line)
    }),
    ("xml-keyed-settings", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<appSettings>\n  <add key=\"SmtpHost\" value=\"smtp.acme.dev\" />\n  <add key=\"SmtpPassword\" value=\"{pw}\" />\n</appSettings>"
                ),
                format!("<Property Id=\"SQLSERVICEPASSWORD\" Value=\"{pw}\" Hidden=\"yes\" />"),
                format!(
                    "<Context>\n  <Parameter name=\"dbPassword\" value=\"{pw}\" override=\"false\"/>\n</Context>"
                ),
                format!(
                    "<setting name=\"ApiSecret\" serializeAs=\"String\">\n  <value>{pw}</value>\n</setting>"
                ),
                format!(
                    "<properties>\n  <entry key=\"db.user\">app</entry>\n  <entry key=\"db.password\">{pw}</entry>\n</properties>"
                ),
            ],
        );
        text(pw, line)
    }),
    ("openapi-and-api-doc-examples", |rng| {
        let tok = token_between(rng, 32, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "components:\n  parameters:\n    ApiKeyHeader:\n      in: header\n      name: X-API-Key\n      required: true\n      schema:\n        type: string\n      example: {tok}"
                ),
                format!(
                    "\"securitySchemes\": {{\"bearer\": {{\"type\": \"http\", \"scheme\": \"bearer\"}}}},\n\"x-example-token\": \"{tok}\""
                ),
                format!(
                    "+ Request (application/json)\n\n    + Headers\n\n            Authorization: Bearer {tok}"
                ),
                format!(
                    "/**\n * @apiHeader {{String}} X-Access-Token Users unique access-key.\n * @apiHeaderExample {{json}} Header-Example:\n *     {{ \"X-Access-Token\": \"{tok}\" }}\n */"
                ),
                format!("### Get orders\nGET https://api.acme.dev/v1/orders\nX-Api-Key: {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("observability-pipeline-configs", |rng| {
        let pw = plain_pw(rng);
        let tok = from_alphabet(rng, B64URL_CHARS, 86);
        let hex = from_alphabet(rng, HEX, 32);
        let (secret, line) = match rng.below(6) {
            0 => (
                pw.clone(),
                format!(
                    "[OUTPUT]\n    Name        es\n    Host        es.acme.lan\n    HTTP_User   fluent\n    HTTP_Passwd {pw}\n    tls         On"
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "[[outputs.influxdb_v2]]\n  urls = [\"http://influx:8086\"]\n  token = \"{tok}\"\n  organization = \"acme\""
                ),
            ),
            2 => (
                hex.clone(),
                format!(
                    "[sinks.dd_logs]\ntype = \"datadog_logs\"\ninputs = [\"app\"]\ndefault_api_key = \"{hex}\""
                ),
            ),
            3 => (
                pw.clone(),
                format!(
                    "output.elasticsearch:\n  hosts: [\"es:9200\"]\n  username: \"beats\"\n  password: \"{pw}\""
                ),
            ),
            4 => (
                pw.clone(),
                format!(
                    "datasources:\n  - name: Loki\n    type: loki\n    basicAuth: true\n    basicAuthUser: grafana\n    secureJsonData:\n      basicAuthPassword: {pw}"
                ),
            ),
            _ => (
                hex.clone(),
                format!(
                    "exporters:\n  otlphttp:\n    endpoint: https://otlp.acme.dev\n    headers:\n      api-key: {hex}"
                ),
            ),
        };
        text(secret, line)
    }),
    ("task-runner-and-devenv-files", |rng| {
        let tok = token_between(rng, 30, 44);
        match rng.below(6) {
            0 => text(
                tok.clone(),
                format!(
                    "set dotenv-load\nexport DEPLOY_TOKEN := \"{tok}\"\n\ndeploy:\n    ./scripts/deploy.sh"
                ),
            ),
            1 => text(
                tok.clone(),
                format!(
                    "version: '3'\nenv:\n  REGISTRY_TOKEN: {tok}\ntasks:\n  push:\n    cmds:\n      - docker push ghcr.io/acme/api"
                ),
            ),
            2 => text(
                tok.clone(),
                format!("[tools]\nnode = \"22\"\n\n[env]\nSTRIPE_API_KEY = \"{tok}\""),
            ),
            3 => Made {
                needles: vec![tok.clone()],
                secret: tok.clone(),
                carrier: Carrier::Json(
                    json!({"packages": ["nodejs@22"], "env": {"OPENROUTER_KEY": tok}, "shell": {"init_hook": ["npm ci"]}}),
                ),
            },
            4 => text(
                tok.clone(),
                format!(
                    "local_resource('seed', cmd='./seed.sh', env={{'SEED_API_TOKEN': '{tok}'}})"
                ),
            ),
            _ => text(tok.clone(), format!("# .envrc\nuse flake\nexport HF_TOKEN={tok}")),
        }
    }),
    ("config-management-secrets", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "class profile::db {{\n  $db_password = Sensitive('{pw}')\n  include mysql::server\n}}"
                ),
                format!("node.default['shop']['db_password'] = '{pw}'"),
                format!(
                    "knife vault create passwords mysql_root '{{\"password\": \"{pw}\"}}' -A admin"
                ),
                format!("# pillar/mysql.sls\nmysql:\n  server:\n    root_password: '{pw}'"),
                format!("default_attributes(\n  'app' => {{ 'smtp_pass' => '{pw}' }}\n)"),
            ],
        );
        text(pw, line)
    }),
    ("iot-and-firmware-configs", |rng| {
        let pw = plain_pw(rng);
        let key = B64.encode(bytes(rng, 32));
        let (secret, line) = match rng.below(6) {
            0 => (pw.clone(), format!("ota:\n  - platform: esphome\n    password: \"{pw}\"")),
            1 => (key.clone(), format!("api:\n  encryption:\n    key: \"{key}\"")),
            2 => (
                pw.clone(),
                format!(
                    "const char* ssid = \"HomeNet\";\nconst char* password = \"{pw}\";\nWiFi.begin(ssid, password);"
                ),
            ),
            3 => (
                pw.clone(),
                format!(
                    "import network\nwlan = network.WLAN(network.STA_IF)\nwlan.active(True)\nwlan.connect('HomeNet', '{pw}')"
                ),
            ),
            4 => (pw.clone(), format!("Backlog SSID1 HomeNet; Password1 {pw}; MqttHost 10.0.0.2")),
            _ => (pw.clone(), format!("# secrets.yaml\nwifi_ssid: HomeNet\nmqtt_password: {pw}")),
        };
        text(secret, line)
    }),
    ("abbreviated-secret-names", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("DB_PSWD={pw}"),
                format!("smtp_pword: {pw}"),
                format!("adminPwd = \"{pw}\""),
                format!("psw={pw}&usr=admin"),
                format!("KEY_PASS={pw}"),
                format!("mq.passcode = {pw}"),
                format!("\"svcPwd\": \"{pw}\""),
                format!("set ftp_pw {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("password-words-more-languages", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("סיסמה: {pw}"),
                format!("كلمة المرور: {pw}"),
                format!("κωδικός πρόσβασης = {pw}"),
                format!("पासवर्ड: {pw}"),
                format!("رمز عبور: {pw}"),
                format!("পাসওয়ার্ড = {pw}"),
                format!("nenosiri: {pw}"),
                format!("lykilorð={pw}"),
                format!("slaptažodis: {pw}"),
                format!("პაროლი: {pw}"),
                format!("գաղտնաբառ = {pw}"),
                format!("parole: \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("onboarding-message-layouts", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Your account is ready.\n\nUsername\n    jdoe\nPassword\n    {pw}\n\nPlease change it after your first login."
                ),
                format!("Login: jdoe | Pass: {pw} | VPN: vpn.acme.dev"),
                format!("Your temporary password is\n\n        {pw}\n\nIt expires in 24 hours."),
                format!("Hi Sam, creds for staging below\nuser - deploy\npw - {pw}\nthanks"),
                format!("Wi-Fi for guests: AcmeGuest / {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("value-split-across-lines", |rng| {
        let tok = token(rng, 48);
        let (head, tail) = tok.split_at(24);
        let line = pick_line(
            rng,
            vec![
                format!("API_KEY = (\n    \"{head}\"\n    \"{tail}\"\n)"),
                format!("const signingSecret =\n  \"{head}\" +\n  \"{tail}\";"),
                format!("private static final String TOKEN = \"{head}\"\n        + \"{tail}\";"),
                format!("set(SERVICE_TOKEN \"{head}\"\n    \"{tail}\")"),
                format!("let apiKey = \"{head}\" +\n             \"{tail}\""),
            ],
        );
        with_forms(tok.clone(), vec![head.to_owned(), tail.to_owned()], line)
    }),
    ("base64-line-wrapped-blobs", |rng| {
        let pw = plain_pw(rng);
        let head = "APP_ENV=production\nDB_HOST=db.internal\nDB_USER=app\n";
        let config = format!("{head}DB_PASSWORD={pw}\nLOG_LEVEL=info\nCACHE_TTL=300\n");
        let start = head.len() + "DB_PASSWORD=".len();
        let width = if rng.chance(0.5) { 76 } else { 64 };
        let (wrapped, holding) = wrapped_base64(&config, start, start + pw.len(), width);
        let line = pick_line(
            rng,
            vec![
                format!("$ base64 .env.production\n{wrapped}"),
                format!(
                    "Content-Type: text/plain; name=\".env\"\nContent-Transfer-Encoding: base64\n\n{wrapped}"
                ),
                format!("$ openssl base64 -in settings.env\n{wrapped}"),
            ],
        );
        with_forms(pw, holding, line)
    }),
    ("browser-storage-and-devtools", |rng| {
        let tok = from_alphabet(rng, B64URL_CHARS, 48);
        let line = pick_line(
            rng,
            vec![
                format!("localStorage.setItem(\"refresh_token\", \"{tok}\");"),
                format!("document.cookie = \"session_token={tok}; path=/; Secure\";"),
                format!("Key\tValue\nlocale\ten-GB\nauth.accessToken\t{tok}"),
                format!("chrome.storage.local.set({{ apiKey: \"{tok}\" }});"),
                format!("sessionStorage['authToken'] = '{tok}'"),
            ],
        );
        text(tok, line)
    }),
    ("cdn-and-media-signed-urls", |rng| {
        let hex = from_alphabet(rng, HEX, 64);
        let short = from_alphabet(rng, HEX, 32);
        let b64u = from_alphabet(rng, B64URL_CHARS, 43);
        let (secret, line) = match rng.below(5) {
            0 => (
                hex.clone(),
                format!(
                    "https://media.acme.dev/vod/ep1/master.m3u8?hdnts=exp=1733412345~acl=/vod/*~hmac={hex}"
                ),
            ),
            1 => (
                b64u.clone(),
                format!("https://acme.b-cdn.net/videos/intro.mp4?token={b64u}&expires=1733412345"),
            ),
            2 => (
                short.clone(),
                format!(
                    "<img src=\"https://acme.imgix.net/u/42/avatar.jpg?w=200&h=200&s={short}\">"
                ),
            ),
            3 => (
                b64u.clone(),
                format!("https://stream.acme.dev/live/cam1/playlist.m3u8?wowzatokenhash={b64u}="),
            ),
            _ => (
                hex.clone(),
                format!(
                    "https://cdn.acme.dev/files/report.pdf?md5={}&e=1733412345&st={hex}",
                    from_alphabet(rng, HEX, 8)
                ),
            ),
        };
        text(secret, line)
    }),
    ("notebook-json-cells", |rng| {
        let tok = format!("sk-proj-{}", from_alphabet(rng, B64URL_CHARS, 48));
        let pw = plain_pw(rng);
        let (secret, value) = match rng.below(3) {
            0 => (
                tok.clone(),
                json!({"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
                "source": ["import openai\n", format!("client = openai.OpenAI(api_key=\"{tok}\")\n"), "client.models.list()"]}),
            ),
            1 => (
                pw.clone(),
                json!({"cell_type": "code", "execution_count": 7, "metadata": {},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": ["connected\n"]}],
                "source": [format!("engine = create_engine(\"postgresql://app:{pw}@db/shop\")\n")]}),
            ),
            _ => (
                pw.clone(),
                json!({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
                "source": ["%env DB_HOST=db.internal\n", format!("%env DB_PASS={pw}\n")]}),
            ),
        };
        Made { needles: vec![secret.clone()], secret, carrier: Carrier::Json(value) }
    }),
    ("ide-run-configurations", |rng| {
        let pw = plain_pw(rng);
        let tok = format!("sk_test_{}", token(rng, 24));
        match rng.below(4) {
            0 => Made {
                needles: vec![tok.clone()],
                secret: tok.clone(),
                carrier: Carrier::Json(
                    json!({"version": "0.2.0", "configurations": [{"type": "node", "request": "launch",
                    "name": "api", "program": "${workspaceFolder}/server.js", "env": {"STRIPE_SECRET": tok}}]}),
                ),
            },
            1 => text(
                pw.clone(),
                format!(
                    "<configuration name=\"api\" type=\"Application\">\n  <envs>\n    <env name=\"DB_PASSWORD\" value=\"{pw}\" />\n  </envs>\n</configuration>"
                ),
            ),
            2 => Made {
                needles: vec![pw.clone()],
                secret: pw.clone(),
                carrier: Carrier::Json(
                    json!({"configurations": [{"name": "worker", "type": "debugpy", "request": "launch",
                    "module": "worker", "args": ["--queue", "emails", "--smtp-password", pw]}]}),
                ),
            },
            _ => text(
                pw.clone(),
                format!(
                    "{{\n  \"profiles\": {{\n    \"Api\": {{\n      \"commandName\": \"Project\",\n      \"environmentVariables\": {{ \"ConnectionStrings__Default\": \"Server=db;User Id=sa;Password={pw}\" }}\n    }}\n  }}\n}}"
                ),
            ),
        }
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_base64_names_the_lines_holding_the_range() {
        let text = "A".repeat(60) + "SECRET" + &"B".repeat(60);
        let (wrapped, holding) = wrapped_base64(&text, 60, 66, 16);
        assert!(wrapped.lines().all(|line| line.len() <= 16));
        let joined: String = holding.concat();
        let decoded_from = wrapped.lines().position(|line| line == holding[0]).unwrap() * 16;
        let bytes = B64.decode(wrapped.replace('\n', "")).unwrap();
        assert_eq!(&bytes[60..66], b"SECRET");
        assert!(decoded_from / 4 * 3 <= 60);
        assert!((decoded_from + joined.len()) / 4 * 3 >= 66);
    }
}
