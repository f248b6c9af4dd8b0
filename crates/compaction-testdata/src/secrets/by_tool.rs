//! Families in formats no rule was written for (round 4): config languages of other tools
//! (HCL, Nix, Dhall, systemd credentials, Helm's `--set`, build arguments, GitHub Actions
//! `with:` inputs, PowerShell splats, Windows registry exports, Gradle signing configs), config
//! literals of Ruby, Elixir, Go, Kotlin and editors, SQL password clauses, account and admin
//! tools that take a password as a plain argument or on stdin, provider-like tokens with
//! fresh prefixes (versioned, or with a checksum tail), credentials in URLs of other schemes,
//! and secrets inside two encodings at once.
//!
//! They were written before any rule was changed against them, and split into dev and test
//! by the same rule as every family (see the parent module).

use base64::Engine as _;

use super::families::{B64, B64URL, Carrier, Family, Made, hex_of, pick_line, text, url_encode};
use super::values::{base64url_bytes, password, token, token_between};
use crate::random::Rng;

/// A password that fits inside a quoted string of any of these syntaxes.
fn quotable_password(rng: &mut Rng) -> String {
    password(rng).replace(['"', '\'', '\\', '$', '`'], "x")
}

/// A lower-case prefix of `low..=high` letters, or letters and a digit.
fn fresh_prefix(rng: &mut Rng, low: usize, high: usize) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let length = rng.range(low, high);
    let mut out: String = super::values::from_alphabet(rng, LETTERS, length);
    if rng.chance(0.3) {
        out.push(char::from(b'0' + rng.below(10) as u8));
    }
    out
}

/// A line that carries a token with no secret-like name before it.
fn bare_token_line(rng: &mut Rng, tok: &str) -> String {
    pick_line(
        rng,
        vec![
            format!("export VENDOR_CREDS={tok}"),
            format!("client := vendor.New(\"{tok}\")"),
            format!("the new one is {tok}, the old one is revoked"),
            format!("  \"header\": \"X-Vendor: {tok}\","),
            format!("{tok}"),
            format!("curl -H 'X-Client: {tok}' https://api.vendor.example/v2/jobs"),
        ],
    )
}

pub(super) const FAMILIES: &[Family] = &[
    ("hcl-blocks-and-tfvars", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "provider \"vault\" {{\n  address = \"https://vault:8200\"\n  token   = \"{pw}\"\n}}"
                ),
                format!(
                    "resource \"aws_db_instance\" \"main\" {{\n  username = \"app\"\n  password = \"{pw}\"\n}}"
                ),
                format!("db_admin_password = \"{pw}\"\nregion = \"eu-west-1\""),
                format!(
                    "module \"redis\" {{\n  source     = \"./redis\"\n  auth_token = \"{pw}\"\n}}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("nix-attribute-sets", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("users.users.alice.initialPassword = \"{pw}\";"),
                format!("services.grafana.settings.security.admin_password = \"{pw}\";"),
                format!(
                    "{{ pkgs, ... }}: {{ services.restic.backups.s3.environment = {{ RESTIC_PASSWORD = \"{pw}\"; }}; }}"
                ),
                format!("environment.variables.GITEA_TOKEN = \"{pw}\";"),
            ],
        );
        text(pw, line)
    }),
    ("dhall-records", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "let db = {{ host = \"db.internal\", user = \"svc\", password = \"{pw}\" }} in db"
                ),
                format!("{{ apiToken = \"{pw}\", endpoint = \"https://api.example\" }}"),
                format!("let smtpSecret : Text = \"{pw}\"\nin {{ smtp = smtpSecret }}"),
            ],
        );
        text(pw, line)
    }),
    ("systemd-credentials", |rng| {
        let pw = quotable_password(rng).replace([' ', ':', '%'], "x");
        let line = pick_line(
            rng,
            vec![
                format!("[Service]\nSetCredential=db-password:{pw}\nExecStart=/usr/bin/app"),
                format!("[Service]\nEnvironment=\"DB_PASSWORD={pw}\" \"LOG=info\""),
                format!("systemd-run -p SetCredential=api-token:{pw} --wait /usr/bin/job"),
                format!("[Service]\nEnvironment=MQTT_PASS={pw}\nUser=svc"),
            ],
        );
        text(pw, line)
    }),
    ("helm-set-flags", |rng| {
        let pw = quotable_password(rng).replace([',', ' '], "x");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "helm install pg bitnami/postgresql --set auth.postgresPassword={pw} --set auth.database=app"
                ),
                format!(
                    "helm upgrade --install redis bitnami/redis --set-string auth.password='{pw}'"
                ),
                format!("helm upgrade kc ./chart --set keycloak.adminPassword={pw},replicas=2"),
                format!("helmfile apply --set grafana.adminPassword={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("container-build-args", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("docker build --build-arg NPM_TOKEN={tok} -t web ."),
                format!("podman build --build-arg=GH_PAT={tok} ."),
                format!("docker buildx build --build-arg PIP_INDEX_PASSWORD={tok} --push ."),
                format!("ARG REGISTRY_PASSWORD={tok}\nRUN ./fetch-deps.sh"),
            ],
        );
        text(tok, line)
    }),
    ("github-actions-with-inputs", |rng| {
        let tok = token_between(rng, 30, 44);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "      - uses: docker/login-action@v3\n        with:\n          username: ci\n          password: {tok}"
                ),
                format!(
                    "      - uses: some/deploy@v2\n        with:\n          api-token: '{tok}'"
                ),
                format!(
                    "      - uses: codecov/codecov-action@v4\n        with:\n          token: {tok}"
                ),
                format!(
                    "      - uses: org/publish@v1\n        with:\n          npm_auth: \"{tok}\""
                ),
            ],
        );
        text(tok, line)
    }),
    ("powershell-splats", |rng| {
        let pw = quotable_password(rng).replace(';', "x");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$params = @{{ UserName = 'svc'; Password = '{pw}'; Server = 'db01' }}\nConnect-Db @params"
                ),
                format!("$sec = ConvertTo-SecureString '{pw}' -AsPlainText -Force"),
                format!("$cred = @{{\n    ApiKey  = \"{pw}\"\n    Region = \"eu\"\n}}"),
                format!(
                    "New-LocalUser -Name svc -Password (ConvertTo-SecureString \"{pw}\" -AsPlainText -Force)"
                ),
            ],
        );
        text(pw, line)
    }),
    ("windows-registry-export", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon]\n\"AutoAdminLogon\"=\"1\"\n\"DefaultPassword\"=\"{pw}\""
                ),
                format!(
                    "[HKEY_CURRENT_USER\\Software\\SimonTatham\\PuTTY\\Sessions\\prod]\n\"ProxyPassword\"=\"{pw}\""
                ),
                format!(
                    "reg add \"HKLM\\SOFTWARE\\Vendor\\Agent\" /v ServiceToken /t REG_SZ /d \"{pw}\" /f"
                ),
            ],
        );
        text(pw, line)
    }),
    ("gradle-signing-configs", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "signingConfigs {{\n    release {{\n        storeFile file(\"release.jks\")\n        storePassword \"{pw}\"\n        keyAlias \"upload\"\n    }}\n}}"
                ),
                format!("        keyPassword '{pw}'"),
                format!("signing.password={pw}\nsigning.keyId=24875D73"),
                format!("./gradlew publish -PsonatypePassword={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("ruby-config-literals", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "config.action_mailer.smtp_settings = {{ user_name: 'app', password: '{pw}' }}"
                ),
                format!("Stripe.api_key = \"{pw}\""),
                format!("  :password => \"{pw}\","),
                format!(
                    "Sidekiq.configure_server {{ |c| c.redis = {{ url: 'redis://r:6379', password: '{pw}' }} }}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("elixir-config-literals", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "config :shop, Shop.Repo,\n  username: \"postgres\",\n  password: \"{pw}\",\n  hostname: \"localhost\""
                ),
                format!("config :shop, ShopWeb.Endpoint, secret_key_base: \"{pw}\""),
                format!("api_key = System.get_env(\"API_KEY\") || \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("go-struct-literals", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "rdb := redis.NewClient(&redis.Options{{Addr: \"localhost:6379\", Password: \"{pw}\", DB: 0}})"
                ),
                format!("os.Setenv(\"API_TOKEN\", \"{pw}\")"),
                format!(
                    "cfg := mysql.Config{{\n\tUser:   \"app\",\n\tPasswd: \"{pw}\",\n\tNet:    \"tcp\",\n}}"
                ),
                format!("\tClientSecret: \"{pw}\","),
            ],
        );
        text(pw, line)
    }),
    ("kotlin-config-literals", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("buildConfigField(\"String\", \"MAPS_API_KEY\", \"\\\"{pw}\\\"\")"),
                format!("private const val SECRET = \"{pw}\""),
                format!(
                    "val dataSource = HikariDataSource().apply {{ username = \"app\"; password = \"{pw}\" }}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("editor-config-literals", |rng| {
        let tok = format!("{}{}", fresh_prefix(rng, 2, 4), token_between(rng, 28, 40));
        let line = pick_line(
            rng,
            vec![
                format!("vim.g.openai_api_key = \"{tok}\""),
                format!("let g:codeium_token = '{tok}'"),
                format!("(setq gptel-api-key \"{tok}\")"),
                format!("require('chat').setup({{ api_key = \"{tok}\" }})"),
            ],
        );
        text(tok, line)
    }),
    ("sql-password-clauses", |rng| {
        let pw = quotable_password(rng).replace(';', "x");
        let line = pick_line(
            rng,
            vec![
                format!("ALTER ROLE app WITH LOGIN PASSWORD '{pw}';"),
                format!("CREATE LOGIN reporting WITH PASSWORD = '{pw}', CHECK_POLICY = OFF;"),
                format!("SET PASSWORD FOR 'app'@'%' = '{pw}';"),
                format!("psql -c \"CREATE USER etl PASSWORD '{pw}'\""),
            ],
        );
        text(pw, line)
    }),
    ("account-tools-stdin", |rng| {
        let pw = quotable_password(rng).replace([':', ' '], "x");
        let line = pick_line(
            rng,
            vec![
                format!("echo 'deploy:{pw}' | sudo chpasswd"),
                format!("htpasswd -b -c /etc/nginx/.htpasswd admin {pw}"),
                format!("echo \"{pw}\" | passwd --stdin backup"),
                format!("printf '%s\\n' '{pw}' | docker login -u ci --password-stdin ghcr.io"),
            ],
        );
        text(pw, line)
    }),
    ("admin-cli-positional-passwords", |rng| {
        let pw = quotable_password(rng).replace(' ', "x");
        let line = pick_line(
            rng,
            vec![
                format!("rabbitmqctl add_user shop {pw}"),
                format!("rabbitmqctl change_password guest {pw}"),
                format!("influx user password -n admin -p {pw}"),
                format!(
                    "kcadm.sh config credentials --server http://kc:8080 --realm master --user admin --password {pw}"
                ),
                format!("ipmitool -I lanplus -H 10.0.0.20 -U ADMIN -P {pw} chassis status"),
            ],
        );
        text(pw, line)
    }),
    ("mongo-shell-user-docs", |rng| {
        let pw = quotable_password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "db.createUser({{ user: \"app\", pwd: \"{pw}\", roles: [\"readWrite\"] }})"
                ),
                format!("db.changeUserPassword(\"reporting\", \"{pw}\")"),
                format!(
                    "mongosh \"mongodb://db01:27017\" -u admin -p '{pw}' --authenticationDatabase admin"
                ),
            ],
        );
        text(pw, line)
    }),
    ("prefixed-tokens-versioned", |rng| {
        let pre = fresh_prefix(rng, 3, 6);
        let year = rng.range(2024, 2026);
        let tok = match rng.below(4) {
            0 => format!("{pre}_v{}_{}", rng.range(1, 4), token_between(rng, 32, 48)),
            1 => format!("{pre}-{year}-{}", token_between(rng, 30, 44)),
            2 => format!("{pre}_live_v2_{}", base64url_bytes(rng, 30).replace(['-', '_'], "Q")),
            _ => format!("{pre}{}_{}", rng.range(1, 9), token_between(rng, 36, 50)),
        };
        let line = bare_token_line(rng, &tok);
        text(tok, line)
    }),
    ("prefixed-tokens-checksum-suffix", |rng| {
        let pre = fresh_prefix(rng, 2, 5);
        let body = token_between(rng, 30, 40);
        let check = token(rng, 6);
        let tok = match rng.below(3) {
            0 => format!("{pre}_{body}{check}"),
            1 => format!("{pre}_{body}_{check}"),
            _ => format!("{}_{body}", pre.to_uppercase()),
        };
        let line = bare_token_line(rng, &tok);
        text(tok, line)
    }),
    ("url-userinfo-other-schemes", |rng| {
        let pw = quotable_password(rng).replace(['@', '/', ':', '?', '#', ' ', '%'], "x");
        let line = pick_line(
            rng,
            vec![
                format!("ffplay rtsp://admin:{pw}@192.168.1.64:554/Streaming/Channels/101"),
                format!("vncviewer vnc://ops:{pw}@desk07.corp:5901"),
                format!("weechat: /server add libera ircs://nick:{pw}@irc.libera.chat:6697"),
                format!("linphonec -c 'register sip:alice:{pw}@sip.example.org'"),
                format!("gio mount smb://CORP;bob:{pw}@files01/share"),
                format!(
                    "mount -t davfs davs://alice:{pw}@cloud.example.net/remote.php/dav /mnt/dav"
                ),
            ],
        );
        text(pw, line)
    }),
    ("archive-and-crypto-tool-flags", |rng| {
        let pw = quotable_password(rng).replace(' ', "x");
        let line = pick_line(
            rng,
            vec![
                format!("7z a -p{pw} -mhe=on backup.7z ./data"),
                format!("zip -r -P {pw} export.zip reports/"),
                format!("unrar x -p{pw} archive.rar"),
                format!(
                    "openssl pkcs12 -export -in c.pem -inkey k.pem -out c.p12 -passout pass:{pw}"
                ),
                format!("pscp -pw {pw} build.tar.gz deploy@10.1.1.5:/srv/"),
                format!("gpg --batch --passphrase {pw} -d secrets.gpg"),
            ],
        );
        text(pw, line)
    }),
    ("notebook-magics-and-make-vars", |rng| {
        let tok = token_between(rng, 28, 44);
        let line = pick_line(
            rng,
            vec![
                format!("%env REPLICATE_API_TOKEN={tok}"),
                format!("%set_env HF_HUB_TOKEN {tok}"),
                format!("DEPLOY_TOKEN ?= {tok}\ndeploy:\n\t./deploy.sh"),
                format!("make release PUBLISH_TOKEN={tok}"),
                format!("export VAULT_TOKEN := {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("nested-encodings-twice", |rng| {
        let pw = quotable_password(rng).replace([' ', '&', '='], "x");
        let name = *rng.pick(&["DB_PASSWORD", "API_TOKEN", "SMTP_PASS", "secret_key"]);
        let inner = format!("{name}={pw}\n");
        let (line, forms) = match rng.below(4) {
            0 => {
                let once = B64.encode(&inner);
                let twice = B64.encode(&once);
                (format!("echo {twice} | base64 -d | base64 -d"), vec![once, twice])
            }
            1 => {
                let once = B64.encode(&inner);
                let wrapped = url_encode(&once);
                (format!("https://ci.example.com/env?blob={wrapped}"), vec![once, wrapped])
            }
            2 => {
                let once = B64URL.encode(&inner);
                let hex = hex_of(once.as_bytes());
                (format!("payload: {hex}"), vec![once, hex])
            }
            _ => {
                let json =
                    serde_json::to_string(&serde_json::json!({ "env": inner })).unwrap_or_default();
                let once = B64.encode(&json);
                (format!("{{\"config\": \"{once}\"}}"), vec![once])
            }
        };
        let mut needles = vec![pw.clone()];
        needles.extend(forms);
        Made { secret: pw, needles, carrier: Carrier::Text(line) }
    }),
];
