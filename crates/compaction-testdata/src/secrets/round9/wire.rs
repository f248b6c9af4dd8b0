//! Round 9 families that travel on a wire or a command line.

use super::super::families::{Family, hex_of, pick_line, text, url_encode};
use super::super::values::{bytes, pem_body, token, token_between, uuid};
use super::{b64, b64_random, lower_alnum, plain_pw, with_forms};

pub(super) const FAMILIES: &[Family] = &[
    ("git-credential-protocol", |rng| {
        let tok = token_between(rng, 30, 40);
        let pw = plain_pw(rng);
        match rng.below(4) {
            0 => text(
                tok.clone(),
                format!(
                    "printf 'protocol=https\\nhost=git.acme.dev\\nusername=ci-bot\\npassword={tok}\\n' | git credential approve"
                ),
            ),
            1 => text(
                pw.clone(),
                format!("protocol=https\nhost=github.com\nusername=alice\npassword={pw}\n"),
            ),
            2 => {
                let basic = b64(&format!("x-access-token:{tok}"));
                with_forms(
                    tok,
                    vec![basic.clone()],
                    format!(
                        "git -c http.extraHeader=\"AUTHORIZATION: basic {basic}\" clone https://github.com/acme/ops.git"
                    ),
                )
            }
            _ => text(
                tok.clone(),
                format!(
                    "git config --global http.https://git.acme.dev/.extraheader \"PRIVATE-TOKEN: {tok}\""
                ),
            ),
        }
    }),
    ("http-client-auth-flags", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("curl -fsS -u deploy:{pw} https://nexus.acme.dev/service/rest/v1/status"),
                format!(
                    "curl --user \"deploy:{pw}\" -X PUT --data-binary @app.tgz https://repo.acme.dev/"
                ),
                format!("wget --user=deploy --password={pw} https://files.acme.dev/backup.tar"),
                format!("http -a deploy:{pw} GET https://api.acme.dev/me"),
                format!("aria2c --http-user=deploy --http-passwd={pw} https://files.acme.dev/iso"),
                format!("xh --auth deploy:{pw} https://api.acme.dev/orders"),
            ],
        );
        text(pw, line)
    }),
    ("authorization-header-schemes", |rng| {
        let tok = token_between(rng, 28, 44);
        let scheme = rng.pick(&[
            "Token token=",
            "SSWS ",
            "ApiKey ",
            "GenieKey ",
            "Splunk ",
            "DeepL-Auth-Key ",
            "Klaviyo-API-Key ",
            "Zoho-oauthtoken ",
            "Api-Key ",
        ]);
        let header = if rng.chance(0.3) { "Proxy-Authorization" } else { "Authorization" };
        let line = pick_line(
            rng,
            vec![
                format!("{header}: {scheme}{tok}"),
                format!("curl -H '{header}: {scheme}{tok}' https://api.acme.dev/v2/items"),
                format!(
                    "headers = {{\"{header}\": \"{scheme}{tok}\", \"Accept\": \"application/json\"}}"
                ),
                format!(
                    "> GET /v1/users HTTP/1.1\n> Host: api.acme.dev\n> {header}: {scheme}{tok}\n> Accept: */*"
                ),
            ],
        );
        text(tok, line)
    }),
    ("mail-protocol-dialogs", |rng| {
        let pw = plain_pw(rng);
        match rng.below(4) {
            0 => {
                let encoded = b64(&pw);
                with_forms(
                    pw,
                    vec![encoded.clone()],
                    format!(
                        "C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: YWxpY2VAYWNtZS5kZXY=\nS: 334 UGFzc3dvcmQ6\nC: {encoded}\nS: 235 2.7.0 Authentication successful"
                    ),
                )
            }
            1 => text(
                pw.clone(),
                format!("* OK IMAP4rev1 ready\na001 LOGIN alice \"{pw}\"\na001 OK LOGIN completed"),
            ),
            2 => text(
                pw.clone(),
                format!("+OK POP3 ready\nUSER alice\n+OK\nPASS {pw}\n+OK mailbox locked"),
            ),
            _ => {
                let tok = token_between(rng, 40, 60);
                let encoded = b64(&format!("user=alice@acme.dev\u{1}auth=Bearer {tok}\u{1}\u{1}"));
                with_forms(
                    tok,
                    vec![encoded.clone()],
                    format!("C: AUTH XOAUTH2 {encoded}\nS: 235 Accepted"),
                )
            }
        }
    }),
    ("jdbc-odbc-variants", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:db.acme.dev,1433;Uid=app;Pwd={{{pw}}};Encrypt=yes;"
                ),
                format!(
                    "jdbc:sqlserver://db.acme.dev:1433;databaseName=shop;user=sa;password={pw};encrypt=true"
                ),
                format!(
                    "jdbc:snowflake://acme.snowflakecomputing.com/?user=etl&password={pw}&warehouse=WH"
                ),
                format!(
                    "[shop]\nDriver=PostgreSQL Unicode\nServername=db.acme.dev\nUsername=app\nPassword={pw}\nDatabase=shop"
                ),
                format!("DSN=shop;UID=app;PWD={pw};"),
                format!("jdbc:db2://db.acme.dev:50000/SHOP:user=db2inst1;password={pw};"),
            ],
        );
        text(pw, line)
    }),
    ("code-signing-tool-passwords", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "apksigner sign --ks release.jks --ks-pass pass:{pw} --ks-key-alias upload app.apk"
                ),
                format!(
                    "keytool -genkeypair -alias upload -keystore upload.jks -storepass {pw} -keypass {pw} -dname CN=Acme"
                ),
                format!("jarsigner -keystore release.jks -storepass {pw} app.aab upload"),
                format!(
                    "signtool sign /f cert.pfx /p {pw} /tr http://timestamp.acme.dev /td sha256 Setup.exe"
                ),
                format!("security unlock-keychain -p {pw} build.keychain"),
                format!(
                    "xcrun notarytool submit App.zip --apple-id ci@acme.dev --team-id ABCDE12345 --password {pw}"
                ),
                format!(
                    "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("secret-manager-cli-writes", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("printf '{pw}' | docker secret create db_password -"),
                format!("gh secret set DEPLOY_KEY --repo acme/shop --body \"{pw}\""),
                format!("vault kv put secret/shop/db username=app password={pw}"),
                format!("fly secrets set SESSION_SECRET={pw} -a shop"),
                format!("heroku config:set STRIPE_SECRET={pw} --app shop"),
                format!("aws secretsmanager create-secret --name shop/db --secret-string '{pw}'"),
                format!("echo -n \"{pw}\" | gcloud secrets versions add db-password --data-file=-"),
            ],
        );
        text(pw, line)
    }),
    ("putty-ppk-keys", |rng| {
        let public = b64_random(rng, 51);
        let private = b64_random(rng, 48);
        let mac = rng.hex(64);
        let kind = rng.pick(&["ssh-ed25519", "ecdsa-sha2-nistp256"]);
        let version = rng.pick(&["2", "3"]);
        let line = format!(
            "PuTTY-User-Key-File-{version}: {kind}\nEncryption: none\nComment: deploy@build\nPublic-Lines: 2\n{}\n{}\nPrivate-Lines: 1\n{private}\nPrivate-MAC: {mac}",
            &public[..public.len() / 2],
            &public[public.len() / 2..]
        );
        text(private, line)
    }),
    ("pgp-armored-with-headers", |rng| {
        let body = pem_body(rng, 6);
        let checksum = b64_random(rng, 3);
        let block = format!(
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\nComment: release signing key\n\n{}\n={checksum}\n-----END PGP PRIVATE KEY BLOCK-----",
            body.join("\n")
        );
        let secret = body[2].clone();
        if rng.chance(0.5) {
            return text(secret, block);
        }
        let escaped = block.replace('\n', "\\n");
        text(secret, format!("GPG_PRIVATE_KEY=\"{escaped}\""))
    }),
    ("webhook-and-bot-urls", |rng| {
        let id = rng.range(100_000_000, 999_999_999);
        let (secret, line) = match rng.below(5) {
            0 => {
                let tok = format!("{}-{}", token(rng, 34), token(rng, 33));
                (
                    tok.clone(),
                    format!("DISCORD_WEBHOOK=https://discord.com/api/webhooks/{id}{id}/{tok}"),
                )
            }
            1 => {
                let tok = format!("{id}:AA{}", token(rng, 33));
                (
                    tok.clone(),
                    format!(
                        "curl -s https://api.telegram.org/bot{tok}/sendMessage -d chat_id=-100123 -d text=done"
                    ),
                )
            }
            2 => {
                let hex = rng.hex(32);
                let (a, b, c) = (uuid(rng), uuid(rng), uuid(rng));
                (
                    hex.clone(),
                    format!(
                        "TEAMS_URL=https://acme.webhook.office.com/webhookb2/{a}@{b}/IncomingWebhook/{hex}/{c}"
                    ),
                )
            }
            3 => {
                let tok = token_between(rng, 40, 44);
                (
                    tok.clone(),
                    format!(
                        "https://chat.googleapis.com/v1/spaces/AAAA{}/messages?key=AIza{}&token={tok}",
                        token(rng, 7),
                        token(rng, 35)
                    ),
                )
            }
            _ => {
                let tok = token(rng, 24);
                (
                    tok.clone(),
                    format!(
                        "hook: https://hooks.slack.com/workflows/T0{}/A0{}/4{}/{tok}",
                        token(rng, 8).to_uppercase(),
                        token(rng, 8).to_uppercase(),
                        rng.range(10_000, 99_999)
                    ),
                )
            }
        };
        text(secret, line)
    }),
    ("cloud-sas-tokens", |rng| {
        let sig = b64_random(rng, 32);
        let encoded = url_encode(&sig);
        let key = b64_random(rng, 32);
        match rng.below(4) {
            0 => with_forms(
                sig,
                vec![encoded.clone()],
                format!(
                    "https://acme.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac&se=2026-01-01T00:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig={encoded}"
                ),
            ),
            1 => with_forms(
                sig,
                vec![encoded.clone()],
                format!(
                    "SharedAccessSignature sr=acme.servicebus.windows.net%2Forders&sig={encoded}&se=1767225600&skn=send"
                ),
            ),
            2 => with_forms(
                sig,
                vec![encoded.clone()],
                format!(
                    "az storage blob upload -c backups -f db.bak --account-name acme --sas-token \"sv=2022-11-02&sp=rw&se=2026-01-01&sig={encoded}\""
                ),
            ),
            _ => text(
                key.clone(),
                format!(
                    "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={key};EntityPath=orders"
                ),
            ),
        }
    }),
    ("presigned-url-signatures", |rng| {
        let (secret, line) = match rng.below(4) {
            0 => {
                let sig = rng.hex(64);
                (
                    sig.clone(),
                    format!(
                        "https://acme-backups.s3.eu-west-1.amazonaws.com/db.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{}%2F20250101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={sig}",
                        token(rng, 16).to_uppercase()
                    ),
                )
            }
            1 => {
                let sig = hex_of(&bytes(rng, 64));
                (
                    sig.clone(),
                    format!(
                        "https://storage.googleapis.com/acme/db.tar?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40acme.iam.gserviceaccount.com%2F20250101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20250101T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={sig}"
                    ),
                )
            }
            2 => {
                let sig = b64_random(rng, 96).replace('+', "-").replace('=', "_").replace('/', "~");
                (
                    sig.clone(),
                    format!(
                        "https://d111111abcdef8.cloudfront.net/video.mp4?Expires=1767225600&Signature={sig}&Key-Pair-Id=K2JCJMDEHXQW5F"
                    ),
                )
            }
            _ => {
                let sig = b64_random(rng, 20);
                let encoded = url_encode(&sig);
                return with_forms(
                    sig,
                    vec![encoded.clone()],
                    format!(
                        "https://acme.oss-cn-hangzhou.aliyuncs.com/db.tar?OSSAccessKeyId=LTAI{}&Expires=1767225600&Signature={encoded}",
                        token(rng, 12)
                    ),
                );
            }
        };
        text(secret, line)
    }),
    ("query-language-arguments", |rng| {
        let pw = plain_pw(rng);
        let tok = token_between(rng, 28, 40);
        let (secret, line) = match rng.below(6) {
            0 => (
                pw.clone(),
                format!(
                    "mutation {{\n  login(email: \"alice@acme.dev\", password: \"{pw}\") {{\n    token\n  }}\n}}"
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "grpcurl -H 'authorization: Bearer {tok}' api.acme.dev:443 orders.v1.Orders/List"
                ),
            ),
            2 => (
                tok.clone(),
                format!(
                    "grpcurl -rpc-header \"x-api-key: {tok}\" -d '{{}}' api.acme.dev:443 shop.Shop/Ping"
                ),
            ),
            3 => (pw.clone(), format!("CALL dbms.security.createUser('reporter', '{pw}', false)")),
            4 => (
                pw.clone(),
                format!("CREATE USER reporter SET PASSWORD '{pw}' CHANGE NOT REQUIRED"),
            ),
            _ => (pw.clone(), format!("127.0.0.1:6379> AUTH default {pw}\nOK")),
        };
        text(secret, line)
    }),
    ("data-store-admin-commands", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("rabbitmqctl add_user shop {pw}"),
                format!("rabbitmqctl change_password admin {pw}"),
                format!("neo4j-admin dbms set-initial-password {pw}"),
                format!("etcdctl --user root:{pw} --endpoints=https://etcd:2379 get /config"),
                format!(
                    "couchbase-cli cluster-init -c cb.acme.dev --cluster-username admin --cluster-password {pw}"
                ),
                format!(
                    "influx setup --username admin --password {pw} --org acme --bucket metrics --force"
                ),
                format!("mosquitto_passwd -b /etc/mosquitto/passwd sensor {pw}"),
                format!("htpasswd -b -B /etc/nginx/.htpasswd admin {pw}"),
                format!(
                    "kafka-configs --bootstrap-server kafka:9092 --alter --add-config 'SCRAM-SHA-512=[password={pw}]' --entity-type users --entity-name shop"
                ),
            ],
        );
        text(pw, line)
    }),
    ("jvm-system-properties", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "java -Djavax.net.ssl.keyStore=/etc/shop/ks.p12 -Djavax.net.ssl.keyStorePassword={pw} -jar shop.jar"
                ),
                format!("JAVA_TOOL_OPTIONS=\"-Xmx2g -Ddb.password={pw}\""),
                format!("mvn -B deploy -Drepo.user=ci -Drepo.pass={pw}"),
                format!("./gradlew publish -PsonatypeUsername=ci -PsonatypePassword={pw}"),
                format!("ORG_GRADLE_PROJECT_mavenCentralPassword={pw}"),
                format!("sbt -Dpublish.password={pw} publish"),
            ],
        );
        text(pw, line)
    }),
    ("session-cookies", |rng| {
        let sid = lower_alnum(rng, 32);
        let tok = format!("{}.{}", token(rng, 40), token(rng, 27));
        let (secret, line) = match rng.below(5) {
            0 => (sid.clone(), format!("Cookie: sessionid={sid}; csrftoken=abc; theme=dark")),
            1 => (
                tok.clone(),
                format!(
                    "Set-Cookie: __Secure-next-auth.session-token={tok}; Path=/; HttpOnly; Secure; SameSite=Lax"
                ),
            ),
            2 => (sid.clone(), format!(".acme.dev\tTRUE\t/\tTRUE\t1767225600\tsessionid\t{sid}")),
            3 => (
                tok.clone(),
                format!("curl -b \"connect.sid=s%3A{tok}\" https://shop.acme.dev/admin"),
            ),
            _ => (tok.clone(), format!("document.cookie = \"auth_token={tok}; path=/\";")),
        };
        text(secret, line)
    }),
    ("shell-env-setters", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$env.API_TOKEN = \"{pw}\""),
                format!("set \"DB_PASS={pw}\""),
                format!("setenv DB_PASS '{pw}'"),
                format!("setx STRIPE_SECRET \"{pw}\""),
                format!("[Environment]::SetEnvironmentVariable(\"DB_PASS\", \"{pw}\", \"User\")"),
                format!("launchctl setenv API_TOKEN {pw}"),
                format!("env DB_PASS={pw} ./migrate up"),
            ],
        );
        text(pw, line)
    }),
    ("tunnel-and-mesh-auth", |rng| {
        let (secret, line) = match rng.below(5) {
            0 => {
                let tok = format!("tskey-auth-k{}CNTRL-{}", token(rng, 10), token(rng, 30));
                (tok.clone(), format!("tailscale up --authkey {tok} --hostname build-01"))
            }
            1 => {
                let id = uuid(rng).to_uppercase();
                (id.clone(), format!("netbird up --setup-key {id}"))
            }
            2 => {
                let tok = b64(&format!(
                    "{{\"a\":\"{}\",\"t\":\"{}\",\"s\":\"{}\"}}",
                    rng.hex(32),
                    uuid(rng),
                    b64_random(rng, 32)
                ));
                (tok.clone(), format!("cloudflared tunnel run --token {tok}"))
            }
            3 => {
                let tok = format!("2{}_{}", token(rng, 26), token(rng, 21));
                (tok.clone(), format!("ngrok config add-authtoken {tok}"))
            }
            _ => {
                let tok = lower_alnum(rng, 48);
                (
                    tok.clone(),
                    format!(
                        "headscale --user ops preauthkeys list\nID | Key | Reusable\n1  | {tok} | false"
                    ),
                )
            }
        };
        text(secret, line)
    }),
];
