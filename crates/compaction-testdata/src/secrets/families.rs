//! The families of secrets: each makes one secret and the text (or JSON) a user, a tool or a
//! config file would hold it in, in one of several syntaxes drawn at random.

use base64::Engine as _;
use serde_json::{Value, json};

use super::values::{
    base64_bytes, base64url_bytes, mnemonic, nsec, password, pem_body, prefix, secret_key40,
    solana_keypair, token, token_between, uuid, wif,
};
use crate::random::Rng;

/// How a secret is carried.
#[derive(Debug, Clone, PartialEq)]
pub enum Carrier {
    /// A text: a line of a command, a config file, a message.
    Text(String),
    /// A JSON object: a tool's input (an MCP tool, a Codex function's arguments).
    Json(Value),
    /// The base64 `data` of an image block that is really a text file.
    Image(String),
}

/// One secret as a family makes it.
#[derive(Debug, Clone)]
pub struct Made {
    /// The secret itself.
    pub secret: String,
    /// Every form of the secret that must not survive (the secret, and encoded forms).
    pub needles: Vec<String>,
    /// What holds it.
    pub carrier: Carrier,
}

pub(super) fn text(secret: String, line: String) -> Made {
    Made { needles: vec![secret.clone()], secret, carrier: Carrier::Text(line) }
}

pub(super) fn pick_line(rng: &mut Rng, lines: Vec<String>) -> String {
    let index = rng.below(lines.len());
    lines.into_iter().nth(index).unwrap_or_default()
}

/// A family: a name and its maker.
pub(super) type Family = (&'static str, fn(&mut Rng) -> Made);

pub(super) const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
pub(super) const B64URL: base64::engine::GeneralPurpose =
    base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub(super) fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// URL encoding of every byte outside the unreserved set.
pub(super) fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An `.env` file holding `secret` under a secret-looking name among ordinary settings.
fn env_file(rng: &mut Rng, secret: &str) -> String {
    let name = rng.pick(&["DB_PASSWORD", "API_TOKEN", "SMTP_PASS", "SIGNING_SECRET", "APP_KEY"]);
    format!("APP_ENV=production\nDB_HOST=db.internal\n{name}={secret}\nLOG_LEVEL=info\n")
}

pub(super) const FAMILIES: &[Family] = &[
    ("sql-identified-by", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("CREATE USER report_ro IDENTIFIED BY \"{pw}\";"),
                format!("ALTER USER app_owner IDENTIFIED BY {pw};"),
                format!("GRANT ALL PRIVILEGES ON shop.* TO 'shop'@'%' IDENTIFIED BY '{pw}';"),
                format!("SQL> create user etl identified by {pw} default tablespace users;"),
            ],
        );
        text(pw, line)
    }),
    ("oracle-user-slash-password", |rng| {
        let pw = password(rng).replace(['@', '/'], "x");
        let line = pick_line(
            rng,
            vec![
                format!("sqlplus system/{pw}@//db01.corp:1521/ORCLPDB1"),
                format!("expdp hr/{pw}@prod schemas=HR directory=DUMP_DIR"),
                format!("rman target sys/{pw}@cdb1 catalog rco/x@rcat"),
                format!("CONNECT scott/{pw}@orcl AS SYSDBA"),
            ],
        );
        text(pw, line)
    }),
    ("cassandra-cqlsh", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("cqlsh 10.1.2.3 9042 -u cassandra -p {pw}"),
                format!("cqlsh -u admin --password {pw} cass01.internal"),
                format!("nodetool -u jmx -pw {pw} status"),
            ],
        );
        text(pw, line)
    }),
    ("windows-remote-tools", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("psexec \\\\srv01 -u CORP\\admin -p {pw} cmd.exe"),
                format!("PsExec64.exe \\\\10.0.0.9 -s -u Administrator -p {pw} ipconfig"),
                format!("schtasks /create /s srv02 /u CORP\\ops /p {pw} /tn backup /tr c:\\b.bat"),
                format!("wmic /node:srv03 /user:admin /password:{pw} process list"),
            ],
        );
        text(pw, line)
    }),
    ("rdp-slash-flags", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("xfreerdp /v:10.0.0.4 /u:Administrator /p:{pw} /cert:ignore"),
                format!("wlfreerdp /u:bob /p:'{pw}' /v:desk01"),
                format!("rdesktop -u admin -p {pw} terminal.corp:3389"),
                format!("cmdkey /generic:TERMSRV/host01 /user:admin /pass:{pw}"),
            ],
        );
        text(pw, line)
    }),
    ("net-use-password", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("net use Z: \\\\files\\share {pw} /user:CORP\\bob"),
                format!("net use \\\\srv\\IPC$ /user:admin {pw}"),
                format!(
                    "C:\\> net use P: \\\\nas01\\projects /user:nas\\alice {pw} /persistent:yes"
                ),
            ],
        );
        text(pw, line)
    }),
    ("user-comma-password-flag", |rng| {
        let pw = password(rng).replace(',', "x");
        let line = pick_line(
            rng,
            vec![
                format!("lftp -u deploy,{pw} sftp://files.example.net"),
                format!("lftp -e 'mirror -R dist /www' -u 'ftpuser,{pw}' ftp.example.org"),
                format!("ncftpput -u web -p {pw} ftp.example.com /htdocs index.html"),
            ],
        );
        text(pw, line)
    }),
    ("cloud-cli-secret-set", |rng| {
        let secret = secret_key40(rng);
        let line = pick_line(
            rng,
            vec![
                format!("aws configure set aws_secret_access_key {secret}"),
                format!("aws configure set aws_secret_access_key {secret} --profile prod"),
                format!("mc alias set myminio https://minio.local:9000 minioadmin {secret}"),
                format!(
                    "mc config host add s3 https://s3.amazonaws.com AKIAZZZZZ0000EXAMPLE {secret}"
                ),
                format!(
                    "rclone config create r2 s3 provider=Cloudflare access_key_id=abc secret_access_key={secret}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("rclone-and-s3-config", |rng| {
        let secret = secret_key40(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[remote]\ntype = s3\nprovider = Minio\naccess_key_id = minio\nsecret_access_key = {secret}\nendpoint = http://minio:9000"
                ),
                format!(
                    "[default]\naws_access_key_id = AKIAZZZZZ0000EXAMPLE\naws_secret_access_key = {secret}"
                ),
                format!("s3:\n  accessKey: minio\n  secretKey: {secret}\n  bucket: backups"),
            ],
        );
        text(secret, line)
    }),
    ("redis-directives", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("# redis.conf\nbind 0.0.0.0\nrequirepass {pw}\nmaxmemory 2gb"),
                format!("replicaof 10.0.0.5 6379\nmasterauth {pw}"),
                format!("redis-cli CONFIG SET requirepass \"{pw}\""),
                format!("sentinel auth-pass mymaster {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("ldap-bind-password", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# /etc/nslcd.conf\nuri ldap://ldap.corp/\nbinddn cn=reader,dc=corp\nbindpw {pw}"
                ),
                format!("rootdn \"cn=admin,dc=corp\"\nrootpw {pw}"),
                format!("ldap_default_authtok = {pw}"),
                format!("olcRootPW: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("postfix-sasl-passwd", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "echo '[smtp.mailhost.net]:587 postmaster@mg.example.com:{pw}' > /etc/postfix/sasl_passwd"
                ),
                format!(
                    "# /etc/postfix/sasl_passwd\n[smtp.relay.example]:465 alerts@example.com:{pw}"
                ),
                format!(
                    "smtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd\n# relay creds: [mail.isp.net] user@isp.net:{pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("network-device-secrets", |rng| {
        let pw = password(rng).replace(' ', "");
        let line = pick_line(
            rng,
            vec![
                format!("enable secret {pw}"),
                format!("username admin privilege 15 secret {pw}"),
                format!("line vty 0 4\n password {pw}\n login"),
                format!("snmp-server community {pw} RW"),
                format!("set system root-authentication plain-text-password-value {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("ipsec-pre-shared-key", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("crypto isakmp key {pw} address 203.0.113.5"),
                format!("tunnel-group 198.51.100.7 ipsec-attributes\n pre-shared-key {pw}"),
                format!("# /etc/ipsec.secrets\n%any 203.0.113.9 : PSK \"{pw}\""),
                format!(
                    "config vpn ipsec phase1-interface\n    edit \"to-hq\"\n        set psksecret {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("wifi-credentials", |rng| {
        let pw = password(rng).replace([';', ':'], "x");
        let line = pick_line(
            rng,
            vec![
                format!("WIFI:T:WPA;S:HomeNet-5G;P:{pw};H:false;;"),
                format!("qrencode -o wifi.png 'WIFI:S:Office;T:WPA2;P:{pw};;'"),
                format!("network={{\n    ssid=\"Lab\"\n    psk=\"{pw}\"\n}}"),
                format!("nmcli dev wifi connect Cafe password {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("connection-string-keywords", |rng| {
        let pw = password(rng).replace(';', "x");
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Server=tcp:sql01,1433;Database=shop;User ID=sa;Password={pw};Encrypt=true"
                ),
                format!("Host=pg;Username=app;Pwd={pw};Database=orders"),
                format!("DRIVER={{ODBC Driver 18}};SERVER=db;UID=report;PWD={pw}"),
                format!("psql \"host=db port=5432 user=app password={pw} dbname=orders\""),
                format!("Data Source=ora;User Id=scott;Password=\"{pw}\";"),
            ],
        );
        text(pw, line)
    }),
    ("url-userinfo", |rng| {
        let pw = password(rng).replace(['@', '/', ':', '#', '?', '%'], "q");
        let line = pick_line(
            rng,
            vec![
                format!("BROKER_URL=amqp://guest:{pw}@rabbit:5672/"),
                format!("redis://:{pw}@cache.internal:6379/0"),
                format!("smtp://alerts:{pw}@mail.example.com:587"),
                format!("git clone https://deploy:{pw}@git.example.org/team/app.git"),
                format!("mongodb+srv://svc:{pw}@cluster0.abcde.mongodb.net/prod"),
            ],
        );
        text(pw, line)
    }),
    ("url-query-credentials", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!("curl 'https://api.example.io/v1/export?apikey={tok}&format=csv'"),
                format!("GET /feed?access_token={tok} HTTP/1.1"),
                format!("https://maps.example.com/api/js?key={tok}&callback=init"),
                format!("wss://stream.example.net/socket?auth={tok}&v=2"),
                format!(
                    "https://files.example.com/dl/report.pdf?expires=1700000000&signature={tok}"
                ),
            ],
        );
        text(tok, line)
    }),
    ("long-cli-flags", |rng| {
        let tok = token_between(rng, 20, 36);
        let line = pick_line(
            rng,
            vec![
                format!("./deploy.sh --db-password {tok} --env prod"),
                format!("terraform apply -var admin_password={tok}"),
                format!("helm upgrade app ./chart --set auth.rootPassword={tok}"),
                format!("mytool sync --auth {tok} --verbose"),
                format!("cli login --client-secret={tok}"),
            ],
        );
        text(tok, line)
    }),
    ("short-flag-tools", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("mosquitto_pub -h broker -u iot -P {pw} -t sensors/x -m 1"),
                format!("rabbitmqadmin -u admin -p {pw} list queues"),
                format!("influx -username admin -password {pw} -execute 'SHOW DATABASES'"),
                format!("sqlcmd -S db -U sa -P {pw} -Q \"SELECT 1\""),
                format!("mysqldump -u root -p{pw} shop > shop.sql"),
            ],
        );
        text(pw, line)
    }),
    ("env-names-with-secret-parts", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("PAYMENTS_PASSPHRASE={pw}"),
                format!("export SMTP_PASS={pw}"),
                format!("REDIS_AUTH={pw}"),
                format!("LDAP_BIND_CREDENTIAL={pw}"),
                format!("DB_PWD={pw}"),
                format!("set ADMIN_PASSWD={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("yaml-nested-secrets", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("database:\n  host: db\n  password: {pw}\n  pool: 5"),
                format!("smtp:\n  user: alerts\n  auth_pass: \"{pw}\""),
                format!("oauth:\n  clientId: web\n  clientSecret: {pw}"),
                format!("spring:\n  datasource:\n    username: app\n    password: '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("toml-ini-secrets", |rng| {
        let pw = password(rng).replace(['"', '\''], "");
        let line = pick_line(
            rng,
            vec![
                format!("[smtp]\nhost = mail\npass = {pw}"),
                format!("[service]\nsecret_key = \"{pw}\"\ntimeout = 30"),
                format!("[client]\nuser=root\npassword={pw}"),
                format!("[api]\nauth_token = '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("xml-config-secrets", |rng| {
        let pw = password(rng).replace(['<', '>', '&', '"'], "");
        let line = pick_line(
            rng,
            vec![
                format!("<add key=\"StorageAccountKey\" value=\"{pw}\" />"),
                format!(
                    "<server><id>nexus</id><username>ci</username><password>{pw}</password></server>"
                ),
                format!("<property name=\"javax.net.ssl.keyStorePassword\" value=\"{pw}\"/>"),
                format!("<entry key=\"api.secret\">{pw}</entry>"),
                format!("<connectionString>Server=db;Uid=app;Pwd={pw}</connectionString>"),
            ],
        );
        text(pw, line)
    }),
    ("java-properties", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("spring.datasource.password={pw}"),
                format!("mail.smtp.auth.pass = {pw}"),
                format!("db.credential={pw}"),
                format!("keystore.pass: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("custom-auth-headers", |rng| {
        let tok = token_between(rng, 24, 44);
        let line = pick_line(
            rng,
            vec![
                format!("curl -H 'X-Api-Secret: {tok}' https://api.example.com/v2/items"),
                format!("Authorization: Token token={tok}"),
                format!("X-Service-Auth: {tok}"),
                format!("curl -H \"PRIVATE-TOKEN: {tok}\" https://git.example.com/api/v4/projects"),
                format!("Proxy-Authorization: Bearer {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("code-literals", |rng| {
        let pw = password(rng).replace(['"', '\\'], "");
        let line = pick_line(
            rng,
            vec![
                format!("const apiSecret = \"{pw}\";"),
                format!("self.password = \"{pw}\""),
                format!("client = Client(token=\"{pw}\", timeout=30)"),
                format!("const PASSWORD: &str = \"{pw}\";"),
                format!("conn := sql.Open(\"mysql\", \"root:{pw}@tcp(db:3306)/shop\")"),
            ],
        );
        text(pw, line)
    }),
    ("container-env", |rng| {
        let pw = password(rng).replace(['"', '\''], "");
        let line = pick_line(
            rng,
            vec![
                format!("docker run -e MYSQL_ROOT_PASSWORD={pw} -d mysql:8"),
                format!("docker run --env \"APP_TOKEN={pw}\" app:latest"),
                format!("environment:\n  - POSTGRES_PASSWORD={pw}\n  - POSTGRES_USER=app"),
                format!("kubectl create secret generic db --from-literal=password={pw}"),
                format!("stringData:\n  password: {pw}\n  username: app"),
            ],
        );
        text(pw, line)
    }),
    ("git-remote-tokens", |rng| {
        let tok = token_between(rng, 30, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "git remote set-url origin https://oauth2:{tok}@gitlab.example.com/grp/repo.git"
                ),
                format!("https://x-access-token:{tok}@github.com/org/repo"),
                format!("url = https://{tok}@git.example.org/team/repo.git"),
            ],
        );
        text(tok, line)
    }),
    ("smtp-auth-plain", |rng| {
        let pw = password(rng);
        let user = rng.pick(&["alerts@example.com", "bob", "noreply@shop.example"]);
        let blob = B64.encode(format!("\0{user}\0{pw}"));
        let line = pick_line(
            rng,
            vec![
                format!("C: AUTH PLAIN {blob}\nS: 235 2.7.0 Authentication successful"),
                format!("swaks --auth PLAIN --auth-user {user} ... \n -> AUTH PLAIN {blob}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
    ("jwk-private-members", |rng| {
        let d = base64url_bytes(rng, 32);
        let jwk = match rng.below(3) {
            0 => json!({"kty": "EC", "crv": "P-256", "x": base64url_bytes(rng, 32),
                "y": base64url_bytes(rng, 32), "d": d}),
            1 => json!({"kty": "OKP", "crv": "Ed25519", "x": base64url_bytes(rng, 32), "d": d}),
            _ => json!({"kty": "RSA", "n": base64url_bytes(rng, 128), "e": "AQAB", "d": d,
                "p": base64url_bytes(rng, 64), "q": base64url_bytes(rng, 64),
                "dp": base64url_bytes(rng, 64), "dq": base64url_bytes(rng, 64),
                "qi": base64url_bytes(rng, 64)}),
        };
        let mut needles = vec![d.clone()];
        for member in ["p", "q", "dp", "dq", "qi"] {
            if let Some(value) = jwk.get(member).and_then(Value::as_str) {
                needles.push(value.to_owned());
            }
        }
        let line = if rng.chance(0.5) {
            serde_json::to_string_pretty(&jwk).unwrap_or_default()
        } else {
            format!("{{\"keys\":[{}]}}", jwk)
        };
        Made { secret: d, needles, carrier: Carrier::Text(line) }
    }),
    ("bip39-mnemonic", |rng| {
        let words = if rng.chance(0.5) { 12 } else { 24 };
        let phrase = mnemonic(rng, words);
        let line = pick_line(
            rng,
            vec![
                format!("seed phrase: {phrase}"),
                format!("MNEMONIC=\"{phrase}\""),
                phrase.clone(),
                format!("wallet.restore(\"{phrase}\")"),
            ],
        );
        text(phrase, line)
    }),
    ("nostr-private-key", |rng| {
        let key = nsec(rng);
        let line = pick_line(
            rng,
            vec![
                format!("my nostr key {key}"),
                format!("{{\"relays\":[\"wss://relay.damus.io\"],\"key\":\"{key}\"}}"),
                format!("nak event --sec {key} -c hello"),
                key.clone(),
            ],
        );
        text(key, line)
    }),
    ("bitcoin-wif", |rng| {
        let key = wif(rng);
        let line = pick_line(
            rng,
            vec![
                format!("bitcoin-cli importprivkey {key} \"cold\" false"),
                format!("WIF: {key}"),
                format!("restored wallet from {key}"),
                key.clone(),
            ],
        );
        text(key, line)
    }),
    ("solana-keypair-array", |rng| {
        let array = solana_keypair(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ cat ~/.config/solana/id.json\n{array}"),
                format!("const secret = Uint8Array.from({array});"),
                format!("{{\"wallet\": {array}}}"),
                array.clone(),
            ],
        );
        let inner = array.trim_start_matches('[').trim_end_matches(']').to_owned();
        Made { secret: inner.clone(), needles: vec![inner], carrier: Carrier::Text(line) }
    }),
    ("pem-escaped-in-state", |rng| {
        let body = pem_body(rng, 6);
        let kind = rng.pick(&["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"]);
        let pem = format!("-----BEGIN {kind}-----\n{}\n-----END {kind}-----\n", body.join("\n"));
        let once = serde_json::to_string(&pem).unwrap_or_default();
        let line = match rng.below(3) {
            0 => format!("{{\"attributes\": {{\"private_key_pem\": {once}}}}}"),
            1 => {
                let twice = serde_json::to_string(&once).unwrap_or_default();
                format!("\"instances\": [{{\"attributes_flat\": {twice}}}]")
            }
            _ => format!("TLS_KEY=\"{}\"", pem.replace('\n', " ")),
        };
        Made { secret: body[1].clone(), needles: body, carrier: Carrier::Text(line) }
    }),
    ("prefixed-tokens-underscore", |rng| {
        let tok = format!(
            "{}_{}{}",
            prefix(rng),
            rng.pick(&["", "live_", "v2_", "secret_", "prod_"]),
            token_between(rng, 28, 48)
        );
        let line = pick_line(
            rng,
            vec![
                format!("use {tok} for the staging account"),
                format!("client = Vendor(\"{tok}\")"),
                format!("-H 'x-key: {tok}'"),
                tok.clone(),
            ],
        );
        text(tok, line)
    }),
    ("prefixed-tokens-dash", |rng| {
        let tok = format!("{}-{}", prefix(rng), token_between(rng, 32, 56));
        let line = pick_line(
            rng,
            vec![
                format!("the key is {tok}"),
                format!("export VENDOR_KEY={tok}"),
                format!("{{\"model\": \"m1\", \"key\": \"{tok}\"}}"),
                format!("Found credentials: {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("prefixed-tokens-upper", |rng| {
        let tok = format!(
            "{}{}{}",
            prefix(rng).to_ascii_uppercase(),
            rng.pick(&["_", "-", "."]),
            token_between(rng, 32, 48)
        );
        let line = pick_line(
            rng,
            vec![format!("token: {tok}"), format!("login with {tok}"), format!("[ci] using {tok}")],
        );
        text(tok, line)
    }),
    ("chat-webhook-urls", |rng| {
        let tok = token_between(rng, 24, 40);
        let url = match rng.below(5) {
            0 => format!(
                "https://chat.googleapis.com/v1/spaces/AAAA{}/messages?key={}&token={tok}",
                token(rng, 7),
                token(rng, 39)
            ),
            1 => format!(
                "https://corp.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{tok}/{}",
                uuid(rng),
                uuid(rng),
                uuid(rng)
            ),
            2 => format!("https://mattermost.example.com/hooks/{tok}"),
            3 => format!(
                "https://hooks.zapier.com/hooks/catch/{}/{tok}/",
                rng.range(100_000, 999_999)
            ),
            _ => format!("https://rocket.example.org/hooks/{}/{tok}", token(rng, 17)),
        };
        let line = pick_line(
            rng,
            vec![
                format!("curl -X POST -d '{{\"text\":\"deploy done\"}}' {url}"),
                format!("WEBHOOK={url}"),
                format!("notify: {url}"),
            ],
        );
        text(tok, line)
    }),
    ("json-secret-named-keys", |rng| {
        let pw = password(rng);
        let key = rng.pick(&[
            "password",
            "api_key",
            "apiKey",
            "secret",
            "db_pass",
            "accessToken",
            "credentials",
        ]);
        let args = match rng.below(3) {
            0 => json!({"host": "db.internal", "user": "admin", key.to_string(): pw}),
            1 => {
                json!({"connection": {"url": "postgres://db/app", key.to_string(): pw}, "query": "select 1"})
            }
            _ => json!({"name": "login", "input": {key.to_string(): pw, "remember": true}}),
        };
        Made { secret: pw.clone(), needles: vec![pw], carrier: Carrier::Json(args) }
    }),
    ("json-secret-as-key", |rng| {
        let tok = format!("{}{}", token(rng, 8), token_between(rng, 24, 32));
        let args = match rng.below(3) {
            0 => json!({"tokens": {tok.clone(): {"scope": "read", "owner": "ci"}}}),
            1 => json!({"apiKeys": {tok.clone(): "admin"}}),
            _ => json!({"action": "revoke", "sessions": {tok.clone(): true}}),
        };
        Made { secret: tok.clone(), needles: vec![tok], carrier: Carrier::Json(args) }
    }),
    ("text-file-as-image-data", |rng| {
        let pw = password(rng);
        let file = env_file(rng, &pw);
        let blob = B64.encode(&file);
        Made { secret: pw.clone(), needles: vec![pw, blob.clone()], carrier: Carrier::Image(blob) }
    }),
    ("env-file-base64", |rng| {
        let pw = password(rng);
        let blob = B64.encode(env_file(rng, &pw));
        let line = pick_line(
            rng,
            vec![
                format!("echo {blob} | base64 -d > .env"),
                format!("data:\n  .env: {blob}"),
                format!("ENV_B64={blob}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
    ("env-file-base64url", |rng| {
        let pw = password(rng);
        let blob = B64URL.encode(env_file(rng, &pw));
        let line = pick_line(
            rng,
            vec![
                format!("config blob: {blob}"),
                format!("https://deploy.example.com/apply?cfg={blob}"),
                format!("\"settings\": \"{blob}\""),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
    ("hex-encoded-config", |rng| {
        let pw = password(rng);
        let file = env_file(rng, &pw);
        let inner = pick_line(
            rng,
            vec![format!("password={pw}"), format!("{{\"api_key\":\"{pw}\"}}"), file],
        );
        let hex = hex_of(inner.as_bytes());
        let line = pick_line(
            rng,
            vec![
                format!("payload (hex): {hex}"),
                format!("xxd -r -p <<< {hex}"),
                format!("blob=0x{hex}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, hex], carrier: Carrier::Text(line) }
    }),
    ("url-encoded-form", |rng| {
        let pw = password(rng);
        let form = pick_line(
            rng,
            vec![
                format!("username=bob&password={}", url_encode(&pw)),
                format!("grant_type=client_credentials&client_secret={}", url_encode(&pw)),
            ],
        );
        let line = pick_line(
            rng,
            vec![
                format!("POST /oauth/token body={}", url_encode(&form)),
                format!("next=%2Flogin%3F{}", url_encode(&form)),
                format!(
                    "redirect=https%3A%2F%2Fapp%2Fcb%3Ftoken%3D{}",
                    url_encode(&url_encode(&pw))
                ),
            ],
        );
        Made {
            secret: pw.clone(),
            needles: vec![pw.clone(), url_encode(&pw)],
            carrier: Carrier::Text(line),
        }
    }),
    ("php-escaped-json", |rng| {
        let pw = password(rng).replace(['/', '\\', '"', '@', ':'], "z");
        let line = pick_line(
            rng,
            vec![
                format!("{{\"dsn\":\"mysql:\\/\\/app:{pw}@db.internal\\/shop\"}}"),
                format!("{{\"callback\":\"https:\\/\\/api.example.com\\/v1\\/cb?token={pw}\"}}"),
                format!("{{\"smtp\":\"smtp:\\/\\/mailer:{pw}@mail.example.com:587\"}}"),
            ],
        );
        text(pw, line)
    }),
    ("double-escaped-json", |rng| {
        let pw = password(rng).replace(['\\', '"'], "");
        let inner = json!({"user": "svc", "password": pw}).to_string();
        let once = serde_json::to_string(&inner).unwrap_or_default();
        let twice = serde_json::to_string(&once).unwrap_or_default();
        let line = pick_line(
            rng,
            vec![
                format!("{{\"body\": {once}}}"),
                format!("{{\"event\": {twice}}}"),
                format!("log: request={once}"),
            ],
        );
        text(pw, line)
    }),
    ("powershell-credentials", |rng| {
        let pw = password(rng).replace(['"', '\'', '$', '`'], "");
        let line = pick_line(
            rng,
            vec![
                format!("$pw = ConvertTo-SecureString \"{pw}\" -AsPlainText -Force"),
                format!(
                    "New-LocalUser -Name svc -Password (ConvertTo-SecureString '{pw}' -AsPlainText -Force)"
                ),
                format!(
                    "Invoke-Sqlcmd -ServerInstance db -Username sa -Password '{pw}' -Query 'SELECT 1'"
                ),
                format!(
                    "$cred = New-Object PSCredential('CORP\\svc', (ConvertTo-SecureString -String \"{pw}\" -AsPlainText -Force))"
                ),
            ],
        );
        text(pw, line)
    }),
    ("vpn-private-keys", |rng| {
        let key = base64_bytes(rng, 32);
        let public = base64_bytes(rng, 32);
        let line = pick_line(
            rng,
            vec![
                format!("[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {key}\nDNS = 1.1.1.1"),
                format!("[Peer]\nPublicKey = {public}\nPresharedKey = {key}"),
                format!("wg set wg0 private-key <(echo {key})"),
            ],
        );
        text(key, line)
    }),
    ("package-registry-auth", |rng| {
        let tok = token_between(rng, 30, 44);
        let line = pick_line(
            rng,
            vec![
                format!("//registry.npmjs.org/:_authToken={tok}"),
                format!("[pypi]\nusername = __token__\npassword = {tok}"),
                format!("//npm.pkg.example.com/:_password={}", B64.encode(&tok)),
                format!("cargo login {tok}"),
                format!("gem push pkg.gem --key {tok}"),
            ],
        );
        let mut needles = vec![tok.clone()];
        needles.push(B64.encode(&tok));
        Made { secret: tok, needles, carrier: Carrier::Text(line) }
    }),
    ("snmp-and-monitoring", |rng| {
        let pw = password(rng).replace(' ', "");
        let line = pick_line(
            rng,
            vec![
                format!("snmpwalk -v2c -c {pw} 10.0.0.1 system"),
                format!("snmpget -v3 -u monitor -l authPriv -a SHA -A {pw} -x AES -X {pw} host"),
                format!("zabbix_sender -z zbx --tls-psk-identity x --tls-psk {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("form-posts", |rng| {
        let pw = password(rng).replace(['&', '\'', '"'], "");
        let line = pick_line(
            rng,
            vec![
                format!("curl -d \"username=bob&password={pw}\" https://app/login"),
                format!("curl --data-urlencode 'client_secret={pw}' https://idp/token"),
                format!("http POST :8000/login user=bob pass={pw}"),
                format!("requests.post(url, data={{\"user\": \"bob\", \"pwd\": \"{pw}\"}})"),
            ],
        );
        text(pw, line)
    }),
    ("passwords-in-chat", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("my password for the staging box is {pw}"),
                format!("use {pw} as the admin password"),
                format!("the passphrase: {pw}"),
                format!("creds are bob / {pw}"),
                format!("login: admin, pass: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("private-key-hex-literals", |rng| {
        let key = rng.hex(64);
        let line = pick_line(
            rng,
            vec![
                format!("PRIVATE_KEY=0x{key}"),
                format!("const wallet = new Wallet(\"0x{key}\");"),
                format!("cast send --private-key 0x{key} 0xdead 'f()'"),
                format!("signer_key: \"{key}\""),
            ],
        );
        text(key, line)
    }),
];
