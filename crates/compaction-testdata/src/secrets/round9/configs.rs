//! Round 9 families held in config files and code of tools.

use serde_json::json;

use super::super::families::{Carrier, Family, Made, pick_line, text};
use super::super::values::{token, token_between, uuid};
use super::{b64, b64_random, base32, lower_alnum, plain_pw, with_forms};

pub(super) const FAMILIES: &[Family] = &[
    ("k8s-secret-manifests", |rng| {
        let pw = plain_pw(rng);
        let key =
            rng.pick(&["db-password", "SMTP_PASS", "api-token", "client_secret", "redis-auth"]);
        let encoded = b64(&pw);
        match rng.below(4) {
            0 => text(
                pw.clone(),
                format!(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-secrets\ntype: Opaque\nstringData:\n  {key}: \"{pw}\"\n  region: eu-west-1"
                ),
            ),
            1 => with_forms(
                pw,
                vec![encoded.clone()],
                format!(
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-secrets\ndata:\n  {key}: {encoded}\n  username: YXBw"
                ),
            ),
            2 => text(
                pw.clone(),
                format!(
                    "kubectl create secret docker-registry regcred --docker-server=ghcr.io --docker-username=ci-bot --docker-password={pw}"
                ),
            ),
            _ => text(
                pw.clone(),
                format!(
                    "kubectl patch secret app-secrets -p '{{\"stringData\":{{\"{key}\":\"{pw}\"}}}}'"
                ),
            ),
        }
    }),
    ("ansible-inventory-vars", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("web1 ansible_host=10.0.4.21 ansible_user=deploy ansible_become_pass={pw}"),
                format!("[db:vars]\nansible_user=postgres\nansible_password={pw}\nansible_port=22"),
                format!("ansible-playbook site.yml -i prod -e \"ansible_become_password={pw}\""),
                format!(
                    "ansible-playbook deploy.yml --extra-vars '{{\"vault_db_pass\": \"{pw}\"}}'"
                ),
                format!(
                    "# group_vars/all.yml\nansible_ssh_pass: \"{pw}\"\nntp_server: pool.ntp.org"
                ),
            ],
        );
        text(pw, line)
    }),
    ("docker-registry-auth", |rng| {
        let pw = plain_pw(rng);
        let user = rng.pick(&["ci-bot", "deploy", "robot$builder", "AWS"]).to_string();
        let auth = b64(&format!("{user}:{pw}"));
        let host = rng.pick(&[
            "ghcr.io",
            "registry.gitlab.com",
            "123456789012.dkr.ecr.eu-west-1.amazonaws.com",
            "https://index.docker.io/v1/",
        ]);
        let value = if rng.chance(0.5) {
            json!({"auths": {host.to_string(): {"auth": auth}}, "credsStore": "desktop"})
        } else {
            json!({"auths": {host.to_string(): {"username": user, "password": pw, "email": "ci@example.com"}}})
        };
        Made { secret: pw.clone(), needles: vec![pw, auth], carrier: Carrier::Json(value) }
    }),
    ("package-manager-configs-other", |rng| {
        let tok = token_between(rng, 32, 44);
        let pw = plain_pw(rng);
        let (secret, line) = match rng.below(10) {
            0 => (
                tok.clone(),
                format!("npmRegistryServer: \"https://npm.acme.dev\"\nnpmAuthToken: \"{tok}\""),
            ),
            1 => (
                pw.clone(),
                format!(
                    "npmScopes:\n  acme:\n    npmAuthIdent: \"ci:{pw}\"\n    npmAlwaysAuth: true"
                ),
            ),
            2 => (
                tok.clone(),
                format!(
                    "[install.scopes]\n\"@acme\" = {{ token = \"{tok}\", url = \"https://npm.acme.dev/\" }}"
                ),
            ),
            3 => {
                (tok.clone(), format!("---\n:rubygems_api_key: rubygems_{tok}\n:backtrace: false"))
            }
            4 => (
                tok.clone(),
                format!("[global]\nindex-url = https://__token__:{tok}@pypi.acme.dev/simple/"),
            ),
            5 => (pw.clone(), format!("poetry config http-basic.acme ci-bot {pw}")),
            6 => (tok.clone(), format!("poetry config pypi-token.pypi pypi-{tok}")),
            7 => (pw.clone(), format!("UV_INDEX_ACME_USERNAME=ci\nUV_INDEX_ACME_PASSWORD={pw}")),
            8 => (
                pw.clone(),
                format!(
                    "dotnet nuget add source https://nuget.acme.dev/v3/index.json -n acme -u ci --password {pw} --store-password-in-clear-text"
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    "[registries.acme]\nindex = \"sparse+https://cargo.acme.dev/\"\n\n[registries.acme.credential]\ntoken = \"Bearer {tok}\""
                ),
            ),
        };
        text(secret, line)
    }),
    ("composer-auth-json", |rng| {
        let tok = token_between(rng, 30, 40);
        let pw = plain_pw(rng);
        let (secret, value) = match rng.below(4) {
            0 => (
                pw.clone(),
                json!({"http-basic": {"repo.packagist.com": {"username": "token", "password": pw}}}),
            ),
            1 => (
                format!("gho_{tok}"),
                json!({"github-oauth": {"github.com": format!("gho_{tok}")}}),
            ),
            2 => (
                tok.clone(),
                json!({"gitlab-token": {"gitlab.acme.dev": {"username": "ci", "token": tok}}}),
            ),
            _ => (tok.clone(), json!({"bearer": {"repo.acme.dev": tok}})),
        };
        Made { needles: vec![secret.clone()], secret, carrier: Carrier::Json(value) }
    }),
    ("jvm-framework-properties", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 24, 40);
        let (secret, line) = match rng.below(7) {
            0 => (
                pw.clone(),
                format!(
                    "spring.datasource.url=jdbc:postgresql://db:5432/shop\nspring.datasource.password={pw}"
                ),
            ),
            1 => (
                tok.clone(),
                format!("spring.security.oauth2.client.registration.github.client-secret={tok}"),
            ),
            2 => (tok.clone(), format!("quarkus.oidc.credentials.secret={tok}")),
            3 => (pw.clone(), format!("%prod.quarkus.datasource.password={pw}")),
            4 => (
                tok.clone(),
                format!("micronaut.security.token.jwt.signatures.secret.generator.secret={tok}"),
            ),
            5 => (
                tok.clone(),
                format!(
                    "ktor {{\n  jwt {{\n    secret = \"{tok}\"\n    issuer = \"shop\"\n  }}\n}}"
                ),
            ),
            _ => (
                pw.clone(),
                format!(
                    "spring:\n  mail:\n    host: smtp.acme.dev\n    username: noreply\n    password: {pw}"
                ),
            ),
        };
        text(secret, line)
    }),
    ("php-defines-and-arrays", |rng| {
        const SALT: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#%^&*()-_[]<>~+=.:/?|";
        let salt: String = super::super::values::from_alphabet(rng, SALT, 64);
        let pw = plain_pw(rng);
        let tok = token_between(rng, 32, 40);
        let name = rng.pick(&["AUTH_KEY", "SECURE_AUTH_SALT", "LOGGED_IN_KEY", "NONCE_SALT"]);
        let (secret, line) = match rng.below(5) {
            0 => (salt.clone(), format!("define( '{name}', '{salt}' );")),
            1 => (pw.clone(), format!("define('DB_PASSWORD', '{pw}');")),
            2 => (pw.clone(), format!("$db['default']['password'] = '{pw}';")),
            3 => (pw.clone(), format!("'password' => env('DB_PASSWORD', '{pw}'),")),
            _ => (tok.clone(), format!("$config['encryption_key'] = '{tok}';")),
        };
        text(secret, line)
    }),
    ("compiled-language-constants", |rng| {
        let tok = token_between(rng, 28, 44);
        let pw = plain_pw(rng);
        let (secret, line) = match rng.below(8) {
            0 => (tok.clone(), format!("const API_KEY: &str = \"{tok}\";")),
            1 => (tok.clone(), format!("pub static SIGNING_SECRET: &[u8] = b\"{tok}\";")),
            2 => (tok.clone(), format!("    static let clientSecret = \"{tok}\"")),
            3 => (tok.clone(), format!("static NSString * const kAPISecret = @\"{tok}\";")),
            4 => (tok.clone(), format!("const String apiKey = '{tok}';")),
            5 => (pw.clone(), format!("private const string DbPassword = \"{pw}\";")),
            6 => (tok.clone(), format!("const api_token = \"{tok}\";")),
            _ => (tok.clone(), format!("private static final String API_SECRET = \"{tok}\";")),
        };
        text(secret, line)
    }),
    ("plist-key-string-pairs", |rng| {
        let tok = token_between(rng, 28, 40);
        let name = rng.pick(&[
            "APIKey",
            "ClientSecret",
            "API_KEY",
            "StripeSecretKey",
            "AuthToken",
            "SentryDSNSecret",
        ]);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<dict>\n\t<key>{name}</key>\n\t<string>{tok}</string>\n\t<key>BundleID</key>\n\t<string>dev.acme.app</string>\n</dict>"
                ),
                format!("<key>{name}</key><string>{tok}</string>"),
                format!("plutil -replace {name} -string {tok} Info.plist"),
                format!("defaults write dev.acme.app {name} -string \"{tok}\""),
                format!("/usr/libexec/PlistBuddy -c \"Set :{name} {tok}\" Config.plist"),
            ],
        );
        text(tok, line)
    }),
    ("networkmanager-and-supplicant", |rng| {
        let pw = plain_pw(rng);
        let key = b64_random(rng, 32);
        let (secret, line) = match rng.below(6) {
            0 => {
                (pw.clone(), format!("[wifi-security]\nauth-alg=open\nkey-mgmt=wpa-psk\npsk={pw}"))
            }
            1 => (
                pw.clone(),
                format!("[802-1x]\neap=peap;\nidentity=alice\npassword={pw}\nphase2-auth=mschapv2"),
            ),
            2 => (key.clone(), format!("[wireguard]\nprivate-key={key}\nlisten-port=51820")),
            3 => (pw.clone(), format!("nmcli con modify home-wifi wifi-sec.psk \"{pw}\"")),
            4 => (pw.clone(), format!("nmcli dev wifi connect HomeNet password \"{pw}\"")),
            _ => (
                pw.clone(),
                format!(
                    "network={{\n    ssid=\"HomeNet\"\n    psk=\"{pw}\"\n    key_mgmt=WPA-PSK\n}}"
                ),
            ),
        };
        text(secret, line)
    }),
    ("iac-tool-parameters", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("pulumi config set --secret dbPassword {pw}"),
                format!("config:\n  shop:dbPassword: {pw}\n  aws:region: eu-west-1"),
                format!("cdk deploy ShopStack --parameters DbPassword={pw}"),
                format!(
                    "aws cloudformation deploy --stack-name shop --template-file t.yaml --parameter-overrides MasterUserPassword={pw}"
                ),
                format!("param adminPassword string = '{pw}'"),
                format!(
                    "az deployment group create -g shop -f main.bicep --parameters adminPassword={pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("process-manager-env", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 24, 40);
        let (secret, line) = match rng.below(6) {
            0 => (
                tok.clone(),
                format!(
                    "[program:api]\ncommand=/srv/api/run\nenvironment=API_KEY=\"{tok}\",DEBUG=\"0\""
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "module.exports = {{ apps: [{{ name: 'api', script: 'server.js', env: {{ JWT_SECRET: '{tok}' }} }}] }}"
                ),
            ),
            2 => (
                pw.clone(),
                format!("[Service]\nEnvironment=\"DB_PASS={pw}\"\nExecStart=/usr/bin/shop"),
            ),
            3 => (pw.clone(), format!("sc.exe config ShopSvc obj= .\\svc_shop password= {pw}")),
            4 => (pw.clone(), format!("nssm set ShopSvc AppEnvironmentExtra DB_PASS={pw}")),
            _ => (
                tok.clone(),
                format!(
                    "<key>EnvironmentVariables</key>\n<dict>\n  <key>API_TOKEN</key>\n  <string>{tok}</string>\n</dict>"
                ),
            ),
        };
        text(secret, line)
    }),
    ("mobile-build-secrets", |rng| {
        let tok = token_between(rng, 32, 44);
        let pw = plain_pw(rng);
        let google = format!("AIza{}", token(rng, 35));
        let (secret, line) = match rng.below(6) {
            0 => (
                google.clone(),
                format!("\"api_key\": [\n  {{\n    \"current_key\": \"{google}\"\n  }}\n]"),
            ),
            1 => (
                tok.clone(),
                format!(
                    "eas secret:create --scope project --name SENTRY_AUTH_TOKEN --value {tok} --type string"
                ),
            ),
            2 => (pw.clone(), format!("FASTLANE_USER=ci@acme.dev\nFASTLANE_PASSWORD={pw}")),
            3 => (pw.clone(), format!("MATCH_PASSWORD={pw} bundle exec fastlane match appstore")),
            4 => (
                tok.clone(),
                format!(
                    "app_store_connect_api_key(key_id: \"D383SF739\", issuer_id: \"6053b7fe\", key_content: \"{tok}\")"
                ),
            ),
            _ => (tok.clone(), format!("flutter build apk --release --dart-define=API_KEY={tok}")),
        };
        text(secret, line)
    }),
    ("ldif-entries", |rng| {
        let pw = plain_pw(rng);
        let encoded = b64(&pw);
        match rng.below(4) {
            0 => with_forms(
                pw,
                vec![encoded.clone()],
                format!(
                    "dn: uid=alice,ou=people,dc=acme,dc=dev\nobjectClass: inetOrgPerson\nuid: alice\nuserPassword:: {encoded}"
                ),
            ),
            1 => text(
                pw.clone(),
                format!(
                    "dn: olcDatabase={{1}}mdb,cn=config\nchangetype: modify\nreplace: olcRootPW\nolcRootPW: {pw}"
                ),
            ),
            2 => text(
                pw.clone(),
                format!(
                    "dn: uid=bob,ou=people,dc=acme,dc=dev\nchangetype: modify\nreplace: userPassword\nuserPassword: {pw}"
                ),
            ),
            _ => text(pw.clone(), format!("slappasswd -h {{SSHA}} -s {pw}")),
        }
    }),
    ("dev-tool-config-tokens", |rng| {
        let tok = token_between(rng, 32, 40);
        let hex = rng.hex(64);
        let id = uuid(rng);
        let (secret, line) = match rng.below(7) {
            0 => (tok.clone(), format!("sonar.projectKey=shop\nsonar.token={tok}")),
            1 => (id.clone(), format!("codecov:\n  token: {id}\n  require_ci_to_pass: true")),
            2 => (
                tok.clone(),
                format!(
                    "{{\"hostRules\": [{{\"matchHost\": \"npm.acme.dev\", \"token\": \"{tok}\"}}]}}"
                ),
            ),
            3 => (
                hex.clone(),
                format!("[defaults]\nurl = https://sentry.acme.dev/\n\n[auth]\ntoken={hex}"),
            ),
            4 => (
                tok.clone(),
                format!(
                    "credentials \"app.terraform.io\" {{\n  token = \"{tok}.atlasv1.{tok}\"\n}}"
                ),
            ),
            5 => (
                tok.clone(),
                format!(
                    "github.com:\n    user: ci-bot\n    oauth_token: gho_{tok}\n    git_protocol: https"
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    "[default]\naccess_key = AKIA{}\nsecret_key = {tok}",
                    token(rng, 16).to_uppercase()
                ),
            ),
        };
        text(secret, line)
    }),
    ("api-client-collections", |rng| {
        let tok = token_between(rng, 28, 44);
        let name = rng.pick(&["apiKey", "authToken", "bearer", "x-api-key", "client_secret"]);
        if rng.chance(0.4) {
            let value = json!({"id": uuid(rng), "name": "production", "values": [
                {"key": "baseUrl", "value": "https://api.acme.dev", "enabled": true},
                {"key": name, "value": tok, "type": "secret", "enabled": true}]});
            return Made { needles: vec![tok.clone()], secret: tok, carrier: Carrier::Json(value) };
        }
        let line = pick_line(
            rng,
            vec![
                format!(
                    "@baseUrl = https://api.acme.dev\n@{name} = {tok}\n\nGET {{{{baseUrl}}}}/orders"
                ),
                format!("auth:bearer {{\n  token: {tok}\n}}"),
                format!("vars:secret [\n  {name}\n]\nvars {{\n  {name}: {tok}\n}}"),
                format!("- name: {name}\n  value: {tok}\n  type: secret"),
            ],
        );
        text(tok, line)
    }),
    ("gitops-tool-secrets", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "secretGenerator:\n- name: app-secrets\n  literals:\n  - db_password={pw}\n  - region=eu"
                ),
                format!(
                    "argocd repo add https://git.acme.dev/ops.git --username ci --password {pw}"
                ),
                format!("argocd login argocd.acme.dev --username admin --password {pw} --grpc-web"),
                format!(
                    "flux create secret git ops-auth --url=https://git.acme.dev/ops --username=ci --password={pw}"
                ),
                format!("helmfile -e prod apply --state-values-set db.rootPassword={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("otp-uris-and-exports", |rng| {
        let seed = base32(rng, 32);
        let raw = b64_random(rng, 40);
        match rng.below(5) {
            0 => text(
                seed.clone(),
                format!(
                    "otpauth://totp/Acme:alice%40acme.dev?secret={seed}&issuer=Acme&algorithm=SHA1&digits=6&period=30"
                ),
            ),
            1 => text(seed.clone(), format!("otpauth://hotp/vpn?secret={seed}&counter=4")),
            2 => {
                let encoded = super::super::families::url_encode(&raw);
                with_forms(
                    raw,
                    vec![encoded.clone()],
                    format!("otpauth-migration://offline?data={encoded}"),
                )
            }
            3 => text(seed.clone(), format!("oathtool --totp -b {seed}")),
            _ => text(seed.clone(), format!("mfa:\n  issuer: Acme\n  totp_seed: {seed}")),
        }
    }),
    ("mattermost-style-hook-ids", |rng| {
        let id = lower_alnum(rng, 26);
        let line = pick_line(
            rng,
            vec![
                format!("MATTERMOST_HOOK=https://chat.acme.dev/hooks/{id}"),
                format!(
                    "curl -X POST -d 'payload={{\"text\": \"deployed\"}}' https://mm.acme.dev/hooks/{id}"
                ),
                format!("notify:\n  url: https://chat.acme.dev/hooks/{id}\n  channel: ops"),
            ],
        );
        text(id, line)
    }),
];
