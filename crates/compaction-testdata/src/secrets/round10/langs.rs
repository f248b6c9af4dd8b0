//! Round 10 families held in config languages and code.

use serde_json::json;

use super::super::families::{Carrier, Family, Made, pick_line, text};
use super::super::values::{token, token_between};
use super::{b64_random, from_alphabet, plain_pw};

const HEX: &[u8] = b"0123456789abcdef";

pub(super) const FAMILIES: &[Family] = &[
    ("cue-and-jsonnet-values", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "package deploy\n\ndatabase: {{\n\thost:     \"db.internal\"\n\tpassword: \"{pw}\"\n}}"
                ),
                format!(
                    "#Config: {{\n\tsmtpUser: string\n}}\nconfig: #Config & {{\n\tsmtpUser: \"mailer\"\n\tsmtpPass: \"{pw}\"\n}}"
                ),
                format!(
                    "local env = 'prod';\n{{\n  db: {{ user: 'app', pass: '{pw}' }},\n  replicas: 3,\n}}"
                ),
                format!("{{\n  apiVersion: 'v1',\n  data+: {{ adminPassword:: '{pw}' }},\n}}"),
                format!("jsonnet -V db_password={pw} main.jsonnet > out.json"),
            ],
        );
        text(pw, line)
    }),
    ("pkl-and-kdl-configs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "amends \"baseConfig.pkl\"\n\ndatabase {{\n  username = \"app\"\n  password = \"{pw}\"\n}}"
                ),
                format!("credentials {{\n  apiSecret: String = \"{pw}\"\n}}"),
                format!(
                    "database host=\"db.internal\" port=5432 {{\n    user \"app\"\n    password \"{pw}\"\n}}"
                ),
                format!("smtp {{\n  auth user=\"mailer\" secret=\"{pw}\"\n}}"),
            ],
        );
        text(pw, line)
    }),
    ("edn-clojure-maps", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "{{:db {{:dbtype \"postgresql\" :user \"app\" :password \"{pw}\"}}\n :port 3000}}"
                ),
                format!("(def config {{:smtp/user \"mailer\" :smtp/pass \"{pw}\"}})"),
                format!("{{:aws {{:access-key \"AKIAEXAMPLE\" :secret-key \"{pw}\"}}}}"),
                format!(
                    "(jdbc/get-datasource {{:dbtype \"mysql\" :dbname \"shop\" :password \"{pw}\"}})"
                ),
            ],
        );
        text(pw, line)
    }),
    ("erlang-term-configs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[{{my_app, [\n  {{db_host, \"db.internal\"}},\n  {{db_password, \"{pw}\"}}\n]}}]."
                ),
                format!(
                    "{{rabbit, [{{default_user, <<\"admin\">>}}, {{default_pass, <<\"{pw}\">>}}]}}."
                ),
                format!(
                    "{{epgsql, [{{username, \"app\"}}, {{password, \"{pw}\"}}, {{database, \"shop\"}}]}}."
                ),
                format!("-define(API_SECRET, \"{pw}\")."),
            ],
        );
        text(pw, line)
    }),
    ("lua-table-configs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "local config = {{\n  host = \"db.internal\",\n  password = \"{pw}\",\n}}\nreturn config"
                ),
                format!(
                    "require('mysql').connect({{ user = 'app', passwd = '{pw}', db = 'shop' }})"
                ),
                format!("settings[\"api_secret\"] = \"{pw}\""),
                format!("local red = redis:new()\nlocal ok, err = red:auth(\"{pw}\")"),
                format!("vim.g.copilot_token = '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("r-and-julia-env", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("# ~/.Renviron\nR_LIBS_USER=~/R/library\nPOSTGRES_PW={pw}"),
                format!("Sys.setenv(DB_PASSWORD = \"{pw}\")"),
                format!(
                    "con <- dbConnect(RPostgres::Postgres(), dbname = \"shop\", user = \"app\", password = \"{pw}\")"
                ),
                format!("ENV[\"API_SECRET\"] = \"{pw}\""),
                format!("conn = LibPQ.Connection(\"host=db dbname=shop user=app password={pw}\")"),
            ],
        );
        text(pw, line)
    }),
    ("haskell-and-ocaml-bindings", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "connInfo = defaultConnectInfo {{ connectUser = \"app\", connectPassword = \"{pw}\" }}"
                ),
                format!("apiSecret :: Text\napiSecret = \"{pw}\""),
                format!("let db_password = \"{pw}\" in\nPgx.connect ~password:db_password ()"),
                format!("let config = {{ user = \"app\"; password = \"{pw}\"; port = 5432 }}"),
            ],
        );
        text(pw, line)
    }),
    ("protobuf-text-format", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 30, 40);
        let (secret, line) = match rng.below(4) {
            0 => (pw.clone(), format!("database {{\n  user: \"app\"\n  password: \"{pw}\"\n}}")),
            1 => {
                (tok.clone(), format!("auth_config {{\n  api_key: \"{tok}\"\n  region: \"eu\"\n}}"))
            }
            2 => {
                (tok.clone(), format!("grpc_metadata {{ key: \"x-api-token\" value: \"{tok}\" }}"))
            }
            _ => (pw.clone(), format!("credentials: < username: \"svc\" secret: \"{pw}\" >")),
        };
        text(secret, line)
    }),
    ("dotnet-user-secrets", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 32, 44);
        match rng.below(4) {
            0 => text(
                pw.clone(),
                format!(
                    "dotnet user-secrets set \"ConnectionStrings:Default\" \"Server=sql;Database=shop;User Id=app;Password={pw}\""
                ),
            ),
            1 => {
                text(tok.clone(), format!("dotnet user-secrets set \"Stripe:ApiSecret\" \"{tok}\""))
            }
            2 => Made {
                needles: vec![pw.clone()],
                secret: pw.clone(),
                carrier: Carrier::Json(json!({"Logging": {"LogLevel": {"Default": "Information"}},
                    "Smtp": {"Host": "smtp.acme.dev", "UserName": "mailer", "Password": pw}})),
            },
            _ => {
                text(tok.clone(), format!("builder.Configuration[\"Jwt:SigningKey\"] = \"{tok}\";"))
            }
        }
    }),
    ("web-framework-secret-keys", |rng| {
        let django: String =
            from_alphabet(rng, b"abcdefghijklmnopqrstuvwxyz0123456789!@#^*(-_=+)", 50);
        let rails = from_alphabet(rng, HEX, 128);
        let laravel = b64_random(rng, 32);
        let flask = from_alphabet(rng, HEX, 48);
        match rng.below(5) {
            0 => text(
                django.clone(),
                format!("# settings.py\nDEBUG = False\nSECRET_KEY = '{django}'"),
            ),
            1 => text(
                rails.clone(),
                format!("production:\n  secret_key_base: {rails}\n  host: shop.acme.dev"),
            ),
            2 => text(
                laravel.clone(),
                format!("APP_NAME=Shop\nAPP_KEY=base64:{laravel}\nAPP_DEBUG=false"),
            ),
            3 => {
                text(flask.clone(), format!("app = Flask(__name__)\napp.secret_key = \"{flask}\""))
            }
            _ => text(
                flask.clone(),
                format!("app.use(session({{ secret: '{flask}', resave: false }}))"),
            ),
        }
    }),
    ("hmac-keys-in-code", |rng| {
        let key = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("sig = hmac.new(b\"{key}\", body, hashlib.sha256).hexdigest()"),
                format!(
                    "const sig = crypto.createHmac('sha256', '{key}').update(payload).digest('hex');"
                ),
                format!("mac := hmac.New(sha256.New, []byte(\"{key}\"))"),
                format!("let mut mac = HmacSha256::new_from_slice(b\"{key}\").unwrap();"),
                format!(
                    "Mac mac = Mac.getInstance(\"HmacSHA256\");\nmac.init(new SecretKeySpec(\"{key}\".getBytes(), \"HmacSHA256\"));"
                ),
                format!("OpenSSL::HMAC.hexdigest('SHA256', '{key}', data)"),
            ],
        );
        text(key, line)
    }),
    ("sql-insert-rows", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 32, 40);
        let (secret, line) = match rng.below(4) {
            0 => (
                pw.clone(),
                format!(
                    "INSERT INTO users (id, email, password) VALUES (1, 'ops@acme.dev', '{pw}');"
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "INSERT INTO api_keys (owner, token, created_at) VALUES\n  ('ci', '{tok}', now());"
                ),
            ),
            2 => (
                pw.clone(),
                format!(
                    "UPDATE smtp_settings SET username = 'mailer', secret = '{pw}' WHERE id = 1;"
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    " id | name | api_secret\n----+------+-----------\n  1 | ci   | {tok}\n(1 row)"
                ),
            ),
        };
        text(secret, line)
    }),
    ("csv-credential-exports", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("name,url,username,password,note\nNAS,https://nas.local,admin,{pw},\n"),
                format!(
                    "\"Title\",\"Login\",\"Password\",\"URL\"\n\"Router\",\"admin\",\"{pw}\",\"http://192.168.1.1\""
                ),
                format!("service;user;secret\nsmtp;mailer;{pw}\n"),
                format!("email\tpasswd\tcreated\nops@acme.dev\t{pw}\t2025-03-01"),
            ],
        );
        text(pw, line)
    }),
    ("toml-inline-and-arrays", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 30, 40);
        let (secret, line) = match rng.below(4) {
            0 => (pw.clone(), format!("db = {{ host = \"db\", user = \"app\", pass = \"{pw}\" }}")),
            1 => (
                tok.clone(),
                format!(
                    "[[upstreams]]\nname = \"search\"\nheaders = {{ \"X-Api-Key\" = \"{tok}\" }}"
                ),
            ),
            2 => (pw.clone(), format!("credentials = [\"app\", \"{pw}\"]")),
            _ => (tok.clone(), format!("[tool.acme]\nsecrets.upload = '''{tok}'''")),
        };
        text(secret, line)
    }),
    ("ai-agent-tool-configs", |rng| {
        let tok = token_between(rng, 40, 56);
        let key =
            format!("{}{tok}", rng.pick(&["sk-or-v1-", "gsk_", "xai-", "r8_", "fw_", "csk-", ""]));
        let (secret, value) = match rng.below(4) {
            0 => (
                key.clone(),
                json!({"mcpServers": {"search": {"command": "npx", "args": ["-y", "@acme/mcp-search"],
                    "env": {"SEARCH_API_KEY": key}}}}),
            ),
            1 => (
                key.clone(),
                json!({"models": [{"title": "fast", "provider": "openai", "model": "llama-3.3-70b",
                    "apiBase": "https://api.acme.ai/v1", "apiKey": key}]}),
            ),
            2 => (
                key.clone(),
                json!({"providers": {"openrouter": {"options": {"baseURL": "https://openrouter.ai/api/v1", "apiKey": key}}}}),
            ),
            _ => (
                key.clone(),
                json!({"mcpServers": {"db": {"url": "https://mcp.acme.dev/sse",
                    "headers": {"Authorization": format!("Bearer {key}")}}}}),
            ),
        };
        Made { needles: vec![secret.clone()], secret, carrier: Carrier::Json(value) }
    }),
    ("powershell-securestring", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$secure = ConvertTo-SecureString '{pw}' -AsPlainText -Force"),
                format!(
                    "$cred = [pscredential]::new('acme\\svc', (ConvertTo-SecureString -String \"{pw}\" -AsPlainText -Force))"
                ),
                format!("Set-Secret -Name SqlAdmin -Secret '{pw}' -Vault LocalStore"),
                format!(
                    "New-LocalUser -Name svc -Password (\"{pw}\" | ConvertTo-SecureString -AsPlainText -Force)"
                ),
            ],
        );
        text(pw, line)
    }),
    ("xcconfig-and-local-properties", |rng| {
        let pw = plain_pw(rng);
        let tok = token(rng, 36);
        let (secret, line) = match rng.below(4) {
            0 => (
                pw.clone(),
                format!("# local.properties\nsdk.dir=/opt/android\nRELEASE_STORE_PASSWORD={pw}"),
            ),
            1 => (tok.clone(), format!("resValue(\"string\", \"maps_api_secret\", \"{tok}\")")),
            2 => (tok.clone(), format!("// Secrets.xcconfig\nBACKEND_TOKEN = {tok}")),
            _ => {
                (pw.clone(), format!("buildConfigField(\"String\", \"DB_PASS\", \"\\\"{pw}\\\"\")"))
            }
        };
        text(secret, line)
    }),
];
