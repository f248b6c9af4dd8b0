//! Families of secrets recognized by their context: a value after a secret-like name in the
//! syntax of a language, a tool's flags, a server's config directives, a URL, a connection
//! string, a header, an orchestration file or a CI log.

use super::families::{Family, pick_line, text};
use super::values::{base64_bytes, password, token_between, uuid};
use crate::random::Rng;

/// A password safe inside a URL, a connection string or a `key=value;` list.
fn url_safe(rng: &mut Rng) -> String {
    password(rng).replace(['@', '/', '#', '?', '%', ':', '&', ';', '+', '$', '^'], "x")
}

pub(super) const FAMILIES: &[Family] = &[
    ("assignments-scripting-languages", |rng| {
        let pw = password(rng).replace(['$', '"', '\'', '\\', '#'], "q");
        let line = pick_line(
            rng,
            vec![
                format!("$dbPassword = '{pw}';"),
                format!("my $api_pass = '{pw}';"),
                format!("local redis_auth = \"{pw}\""),
                format!("config :shop, secret_key_base: \"{pw}\""),
                format!("@smtp_password = \"{pw}\""),
                format!("SMTP_PASSWD=\"{pw}\" ./send.sh"),
                format!("$env:SERVICE_TOKEN = \"{pw}\""),
                format!("set -x DEPLOY_SECRET '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("assignments-compiled-languages", |rng| {
        let pw = password(rng).replace(['$', '"', '\'', '\\', '#'], "q");
        let line = pick_line(
            rng,
            vec![
                format!("val clientSecret = \"{pw}\""),
                format!("var signingKey string = \"{pw}\""),
                format!("let authToken: String = \"{pw}\""),
                format!("private static final String DB_PASS = \"{pw}\";"),
                format!("string connPwd = @\"{pw}\";"),
                format!("static const char *admin_password = \"{pw}\";"),
                format!("let api_key = String::from(\"{pw}\");"),
            ],
        );
        text(pw, line)
    }),
    ("map-and-call-separators", |rng| {
        let pw = password(rng).replace(['"', '\'', '\\', '$'], "z");
        let line = pick_line(
            rng,
            vec![
                format!(":password => \"{pw}\","),
                format!("'api_secret' => '{pw}',"),
                format!("Map(\"token\" -> \"{pw}\")"),
                format!("password <- \"{pw}\""),
                format!("Password := '{pw}';"),
                format!("(setq auth-token \"{pw}\")"),
                format!("set secret_value \"{pw}\""),
                format!("login(user=\"admin\", password=\"{pw}\")"),
                format!("new Client({{ auth: '{pw}' }})"),
                format!(".withPassword(\"{pw}\")"),
            ],
        );
        text(pw, line)
    }),
    ("database-cli-flags", |rng| {
        let pw = password(rng).replace(['\'', '"', '$', '!', '&', '^', '~'], "k");
        let line = pick_line(
            rng,
            vec![
                format!("mysql -h db01 -uroot -p{pw} shop"),
                format!("mysqldump --user=backup --password={pw} --all-databases"),
                format!("mongosh \"mongodb://db:27017\" --username admin --password {pw}"),
                format!("redis-cli -h cache -a {pw} ping"),
                format!("clickhouse-client --host ch1 --user default --password {pw}"),
                format!("influx -username admin -password {pw} -execute 'show databases'"),
                format!("pg_dump \"host=db user=app password={pw} dbname=shop\" > dump.sql"),
            ],
        );
        text(pw, line)
    }),
    ("ops-tool-flags", |rng| {
        let pw = password(rng).replace(['\'', '"', '$', '!', '&', '^', '~', '*'], "w");
        let line = pick_line(
            rng,
            vec![
                format!("docker login registry.corp.io -u deploy -p {pw}"),
                format!(
                    "helm repo add internal https://charts.corp.io --username ci --password {pw}"
                ),
                format!("sshpass -p '{pw}' ssh root@10.0.0.12"),
                format!("htpasswd -b -c /etc/nginx/.htpasswd admin {pw}"),
                format!("curl -u admin:{pw} https://jenkins.corp.io/api/json"),
                format!("wget --http-user=ops --http-password={pw} https://files.corp.io/x.tgz"),
                format!("openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{pw}"),
                format!(
                    "keytool -importkeystore -srckeystore a.jks -srcstorepass {pw} -deststorepass changeit2"
                ),
            ],
        );
        text(pw, line)
    }),
    ("cloud-and-paas-cli", |rng| {
        let pw = password(rng).replace(['\'', '"', '$', '!', '&', '^', '~', '*'], "m");
        let tok = token_between(rng, 32, 48);
        let (secret, line) = match rng.below(7) {
            0 => (
                pw.clone(),
                format!(
                    "az login --service-principal -u http://ci -p {pw} --tenant corp.onmicrosoft.com"
                ),
            ),
            1 => (tok.clone(), format!("doctl auth init --access-token {tok}")),
            2 => (tok.clone(), format!("heroku config:set STRIPE_SECRET={tok} -a shop")),
            3 => (pw.clone(), format!("fly secrets set DATABASE_PASSWORD={pw}")),
            4 => (pw.clone(), format!("terraform apply -var \"db_password={pw}\"")),
            5 => (pw.clone(), format!("pulumi config set --secret dbPassword {pw}")),
            _ => (tok.clone(), format!("gh secret set NPM_TOKEN --body {tok}")),
        };
        text(secret, line)
    }),
    ("server-directives-web", |rng| {
        let pw = password(rng).replace(['"', '\'', ';', '#', ' '], "v");
        let tok = token_between(rng, 28, 44);
        let (secret, line) = match rng.below(6) {
            0 => (tok.clone(), format!("proxy_set_header X-Api-Key \"{tok}\";")),
            1 => (pw.clone(), format!("AuthLDAPBindPassword \"{pw}\"")),
            2 => (pw.clone(), format!("SetEnv DB_PASSWORD {pw}")),
            3 => (pw.clone(), format!("    stats auth admin:{pw}")),
            4 => (pw.clone(), format!("    user admin insecure-password {pw}")),
            _ => (tok.clone(), format!("proxy_set_header Authorization \"Bearer {tok}\";")),
        };
        text(secret, line)
    }),
    ("server-directives-network", |rng| {
        let pw = password(rng).replace(['"', '\'', ';', '#', ' ', '!'], "n");
        let line = pick_line(
            rng,
            vec![
                format!("client 10.0.0.0/8 {{\n    secret = {pw}\n    shortname = lan\n}}"),
                format!("radius-server host 10.1.1.5 auth-port 1812 key {pw}"),
                format!("tacacs-server key 7 {pw}"),
                format!("snmp-server community {pw} RO 10"),
                format!("rocommunity {pw} 10.0.0.0/8"),
                format!("snmpwalk -v2c -c {pw} 10.0.0.1 system"),
                format!(
                    "snmpget -v3 -l authPriv -u ops -a SHA -A {pw} -x AES -X {pw} 10.0.0.2 sysName.0"
                ),
                format!("username admin privilege 15 secret {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("mail-client-config", |rng| {
        let pw = password(rng).replace(['"', '\''], "m");
        let line = pick_line(
            rng,
            vec![
                format!("set smtp_pass = \"{pw}\""),
                format!("set imap_pass=\"{pw}\""),
                format!("account work\nhost smtp.corp.io\nuser bob\npassword {pw}"),
                format!("poll mail.corp.io protocol imap user \"bob\" password \"{pw}\""),
                format!("MAIL_PASSWORD={pw}"),
                format!("smtp_password: \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("windows-domain-tools", |rng| {
        let pw = password(rng).replace(['"', '\'', '%', ' ', '@', ':'], "d");
        let line = pick_line(
            rng,
            vec![
                format!("smbclient //fs01/share -U bob%{pw}"),
                format!("rpcclient -U \"admin%{pw}\" 10.0.0.5"),
                format!("net ads join -U Administrator%{pw}"),
                format!("crackmapexec smb 10.0.0.0/24 -u admin -p {pw}"),
                format!("evil-winrm -i 10.0.0.7 -u Administrator -p '{pw}'"),
                format!("secretsdump.py corp/admin:{pw}@10.0.0.5"),
                format!("ldapsearch -x -H ldap://dc01 -D cn=admin,dc=corp -w {pw} -b dc=corp"),
            ],
        );
        text(pw, line)
    }),
    ("ssh-client-tools", |rng| {
        let pw = password(rng).replace(['"', '\'', ' ', '@', ':', '/'], "s");
        let line = pick_line(
            rng,
            vec![
                format!("plink -ssh admin@10.0.0.9 -pw {pw} uptime"),
                format!("pscp -pw {pw} backup.tgz root@10.0.0.9:/srv"),
                format!("winscp.com /command \"open sftp://deploy:{pw}@web01/\" \"exit\""),
                format!("expect \"password:\"\nsend \"{pw}\\r\""),
                format!("hydra -l admin -p {pw} ssh://10.0.0.3"),
            ],
        );
        text(pw, line)
    }),
    ("app-admin-bootstrap", |rng| {
        let pw = password(rng).replace(['"', '\'', ' '], "b");
        let tok = token_between(rng, 32, 48);
        let (secret, line) = match rng.below(6) {
            0 => (tok.clone(), format!("jupyter lab --ServerApp.token={tok} --no-browser")),
            1 => (pw.clone(), format!("GF_SECURITY_ADMIN_PASSWORD={pw}")),
            2 => (pw.clone(), format!("MINIO_ROOT_PASSWORD: {pw}")),
            3 => (pw.clone(), format!("./kc.sh start --bootstrap-admin-password {pw}")),
            4 => (pw.clone(), format!("argocd account update-password --new-password {pw}")),
            _ => (tok.clone(), format!("rabbitmqctl add_user ci {tok}")),
        };
        text(secret, line)
    }),
    ("keystore-passwords", |rng| {
        let pw = password(rng).replace(['"', '\'', ' ', '$', '!'], "j");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "keytool -genkeypair -alias app -keystore app.jks -storepass {pw} -keypass {pw}"
                ),
                format!("java -Djavax.net.ssl.keyStorePassword={pw} -jar app.jar"),
                format!("server.ssl.key-store-password={pw}"),
                format!("jarsigner -keystore rel.jks -storepass {pw} app.apk release"),
                format!("openssl rsa -in k.pem -passin pass:{pw} -out plain.pem"),
            ],
        );
        text(pw, line)
    }),
    ("custom-header-names", |rng| {
        let tok = token_between(rng, 24, 44);
        let line = pick_line(
            rng,
            vec![
                format!("X-Api-Key: {tok}"),
                format!("curl -H \"X-Auth-Token: {tok}\" https://api.corp.io/v1/me"),
                format!("Private-Token: {tok}"),
                format!("x-access-token: {tok}"),
                format!("headers: {{ 'X-RapidAPI-Key': '{tok}', 'Accept': 'application/json' }}"),
                format!("Ocp-Apim-Subscription-Key: {tok}"),
                format!("http GET api.corp.io/items Api-Key:{tok}"),
                format!("requests.get(url, headers={{\"X-Client-Secret\": \"{tok}\"}})"),
            ],
        );
        text(tok, line)
    }),
    ("kubernetes-and-helm-values", |rng| {
        let pw = password(rng).replace(['"', '\'', ' ', ','], "h");
        let line = pick_line(
            rng,
            vec![
                format!("apiVersion: v1\nkind: Secret\nstringData:\n  password: {pw}\n"),
                format!("kubectl create secret generic db --from-literal=db-password={pw}"),
                format!(
                    "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={pw}"
                ),
                format!("helm install redis ./redis --set-string auth.password='{pw}'"),
                format!("auth:\n  rootPassword: \"{pw}\"\n  database: shop"),
                format!("        env:\n        - name: API_SECRET\n          value: \"{pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("compose-and-container-env", |rng| {
        let pw = password(rng).replace(['"', '\'', ' ', '$'], "c");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "    environment:\n      - POSTGRES_PASSWORD={pw}\n      - POSTGRES_DB=shop"
                ),
                format!("      MYSQL_ROOT_PASSWORD: \"{pw}\""),
                format!("docker run -d -e RABBITMQ_DEFAULT_PASS={pw} rabbitmq:3"),
                format!("docker build --build-arg NPM_TOKEN={pw} ."),
                format!("podman run --env REDIS_PASSWORD={pw} redis"),
            ],
        );
        text(pw, line)
    }),
    ("terraform-and-ansible-values", |rng| {
        let pw = password(rng).replace(['"', '\'', ' '], "t");
        let line = pick_line(
            rng,
            vec![
                format!("db_password = \"{pw}\""),
                format!("  master_password      = \"{pw}\""),
                format!("export TF_VAR_admin_password='{pw}'"),
                format!("web1 ansible_host=10.0.0.1 ansible_user=deploy ansible_ssh_pass={pw}"),
                format!("ansible_become_pass: {pw}"),
                format!("ansible-playbook site.yml -e \"mysql_root_password={pw}\""),
            ],
        );
        text(pw, line)
    }),
    ("ci-log-secret-values", |rng| {
        let tok = token_between(rng, 30, 46);
        let line = pick_line(
            rng,
            vec![
                format!("Run npm publish\n  env:\n    NODE_AUTH_TOKEN: {tok}\n"),
                format!("echo \"::add-mask::{tok}\""),
                format!("$ export CI_REGISTRY_PASSWORD={tok}"),
                format!("##vso[task.setvariable variable=apiKey;issecret=true]{tok}"),
                format!("  with:\n    token: {tok}\n    fail_ci_if_error: true"),
                format!("[build] DOCKERHUB_TOKEN={tok}"),
            ],
        );
        text(tok, line)
    }),
    ("broker-connection-strings", |rng| {
        let pw = url_safe(rng);
        let key = base64_bytes(rng, 32);
        let (secret, line) = match rng.below(6) {
            0 => (pw.clone(), format!("CELERY_BROKER_URL=amqp://shop:{pw}@rabbit:5672/shop")),
            1 => (
                pw.clone(),
                format!(
                    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\" password=\"{pw}\";"
                ),
            ),
            2 => (pw.clone(), format!("nats-sub -s nats://svc:{pw}@nats:4222 orders")),
            3 => (pw.clone(), format!("mosquitto_pub -L mqtt://dev:{pw}@broker:1883/t -m hi")),
            4 => (
                key.clone(),
                format!(
                    "DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={key};EndpointSuffix=core.windows.net"
                ),
            ),
            _ => (
                key.clone(),
                format!(
                    "Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={key}"
                ),
            ),
        };
        text(secret, line)
    }),
    ("database-connection-strings", |rng| {
        let pw = url_safe(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Server=db01;Database=shop;User Id=sa;Password={pw};TrustServerCertificate=True"
                ),
                format!("jdbc:postgresql://db:5432/app?user=app&password={pw}&ssl=true"),
                format!("mongodb+srv://app:{pw}@cluster0.ab12c.mongodb.net/shop?retryWrites=true"),
                format!("Driver={{ODBC Driver 18}};Server=tcp:db;Uid=report;Pwd={pw};"),
                format!("REDIS_URL=redis://:{pw}@cache:6379/0"),
                format!("clickhouse://default:{pw}@ch1:9000/metrics"),
                format!("Data Source=ora01;User ID=hr;Password={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("url-secret-query-params", |rng| {
        let tok = token_between(rng, 24, 44);
        let line = pick_line(
            rng,
            vec![
                format!("GET /api/v2/items?page=2&access_token={tok} HTTP/1.1"),
                format!("https://api.corp.io/v1/report?api_key={tok}&format=csv"),
                format!("curl 'https://auth.corp.io/token?client_id=web&client_secret={tok}'"),
                format!("https://git.corp.io/api/v4/projects?private_token={tok}"),
                format!("wss://stream.corp.io/feed?auth={tok}"),
                format!("https://maps.corp.io/tile/3/4/5.png?key={tok}"),
            ],
        );
        text(tok, line)
    }),
    ("xml-elements-and-attributes", |rng| {
        let pw = password(rng).replace(['"', '<', '>', '&'], "x");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<server>\n  <id>releases</id>\n  <username>ci</username>\n  <password>{pw}</password>\n</server>"
                ),
                format!("<add key=\"ApiSecret\" value=\"{pw}\" />"),
                format!("<property name=\"hibernate.connection.password\" value=\"{pw}\"/>"),
                format!("<Credential User=\"svc\" Password=\"{pw}\"/>"),
                format!("<secretKey>{pw}</secretKey>"),
                format!("<entry key=\"auth.token\">{pw}</entry>"),
            ],
        );
        text(pw, line)
    }),
    ("conf-file-secret-names", |rng| {
        let pw = password(rng).replace(['"', '\'', ' ', ';', '#'], "f");
        let line = pick_line(
            rng,
            vec![
                format!("[database]\nhost = db01\npasswd = {pw}"),
                format!("mysqli.default_pw = {pw}"),
                format!("rpcpassword={pw}"),
                format!("admin_token = {pw}"),
                format!("[client]\nuser=root\npassword=\"{pw}\""),
                format!("ClientSecret={pw}"),
                format!("auth_pass {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("credential-files", |rng| {
        let pw = url_safe(rng);
        let line = pick_line(
            rng,
            vec![
                format!("machine api.corp.io login bob password {pw}"),
                format!("db01.internal:5432:shop:app:{pw}"),
                format!("https://bob:{pw}@git.corp.io"),
                format!("//npm.corp.io/:_authToken={pw}"),
                format!("[pypi]\nusername = __token__\npassword = {pw}"),
                format!("//registry.corp.io/:_password={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("dotted-and-kebab-names", |rng| {
        let pw = password(rng).replace(['"', '\'', ' '], "e");
        let line = pick_line(
            rng,
            vec![
                format!("spring.datasource.password={pw}"),
                format!("app.auth.client-secret: {pw}"),
                format!("./server --db-pass={pw} --port 8080"),
                format!("mail.smtp.passwd={pw}"),
                format!("OAUTH__CLIENT__SECRET={pw}"),
                format!("myApp.signingKey = \"{pw}\""),
                format!("--storage-access-key {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("camel-and-upper-secret-parts", |rng| {
        let pw = password(rng).replace(['"', '\'', ' '], "g");
        let line = pick_line(
            rng,
            vec![
                format!("dbPassword: {pw}"),
                format!("SmtpPasswd={pw}"),
                format!("userPwd := \"{pw}\""),
                format!("redisAuthToken = '{pw}'"),
                format!("privateKeyPassphrase={pw}"),
                format!("ENCRYPTION_KEY={pw}"),
                format!("WebhookSigningSecret: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("credentials-in-prose", |rng| {
        let pw = password(rng).replace(['"', '\''], "p");
        let line = pick_line(
            rng,
            vec![
                format!("user admin, pass {pw}"),
                format!("creds: admin / {pw}"),
                format!("the passphrase is {pw} (don't share)"),
                format!("login admin:{pw}"),
                format!("New password: {pw}"),
                format!("I set the root password to {pw} yesterday"),
            ],
        );
        text(pw, line)
    }),
    ("uuid-shaped-api-keys", |rng| {
        let key = uuid(rng).to_ascii_uppercase();
        let line = pick_line(
            rng,
            vec![
                format!("HEROKU_API_KEY={key}"),
                format!("X-Api-Key: {key}"),
                format!("apikey = \"{key}\""),
                format!("newrelic --license-key {key}"),
                format!("{{\"client_secret\": \"{key}\"}}"),
            ],
        );
        text(key, line)
    }),
];
